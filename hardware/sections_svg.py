"""Draw the ditch and twenty-hole sections (hardware/sections.svg) from hardware/geometry.json.

    python hardware/sections_svg.py            # rewrite hardware/sections.svg
    python hardware/sections_svg.py --check    # exit 1 when the SVG is not what the geometry gives

Left: a radial cut through the ditch at a quadrant's middle, looking along the chord beam (so the beam is a dot):
two pucks resting one on another pass under it, a puck tipping over the edge goes through it. Right: a cut
through the twenty hole along its beam: two flat twenties lie under the beam, a puck standing on its edge holds
it. Dimensions in mm from geometry.json (mechanics.py checks them). Deterministic output.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mechanics
import svgfile

OUTPUT = mechanics.HERE / "sections.svg"
S = 4.0  # px per mm


def f(x: float) -> str:
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _dim_v(out: list[str], x: float, y1: float, y2: float, text: str, side: str = "right") -> None:
    """A vertical dimension line at x between y1 and y2 (px), labelled."""
    out.append(f'<line x1="{f(x)}" y1="{f(y1)}" x2="{f(x)}" y2="{f(y2)}" class="dim"/>')
    for yy in (y1, y2):
        out.append(f'<line x1="{f(x - 3)}" y1="{f(yy)}" x2="{f(x + 3)}" y2="{f(yy)}" class="dim"/>')
    anchor, dx = ("start", 5) if side == "right" else ("end", -5)
    out.append(
        f'<text x="{f(x + dx)}" y="{f((y1 + y2) / 2 + 3)}" class="s" text-anchor="{anchor}">{escape(text)}</text>'
    )


def _puck(out: list[str], cx: float, cy: float, w: float, h: float, angle: float = 0.0, cls: str = "puck") -> None:
    """A puck's section (w x h px) centred at (cx, cy), turned by `angle` degrees."""
    out.append(
        f'<rect x="{f(-w / 2)}" y="{f(-h / 2)}" width="{f(w)}" height="{f(h)}" rx="2" class="{cls}" '
        f'transform="translate({f(cx)} {f(cy)}) rotate({f(angle)})"/>'
    )


def ditch(geo: dict[str, Any], x0: float, y0: float) -> tuple[list[str], float, float]:
    out: list[str] = []
    rp, wd, dep = geo["playing_radius"], geo["ditch_width"], geo["ditch_depth"]
    t, dia = geo["puck"]["thickness"], geo["puck"]["diameter"]
    o = geo["beam_optics"]
    r0 = rp - 30  # left edge of the cut
    rail = dep + 14

    def X(r: float) -> float:
        return x0 + (r - r0) * S

    def Y(h: float) -> float:  # height above the ditch floor
        return y0 + (rail - h) * S

    out.append(f'<text x="{f(x0)}" y="{f(y0 - 10)}" class="h">Ditch: radial cut at a quadrant\'s middle</text>')
    # playing disc, ditch floor, outer wall
    out.append(f'<rect x="{f(X(r0))}" y="{f(Y(dep))}" width="{f((rp - r0) * S)}" height="{f(dep * S)}" class="wood"/>')
    out.append(
        f'<rect x="{f(X(r0))}" y="{f(Y(0))}" width="{f((rp + wd + 10 - r0) * S)}" height="{f(8 * S)}" class="wood2"/>'
    )
    out.append(f'<rect x="{f(X(rp + wd))}" y="{f(Y(rail))}" width="{f(10 * S)}" height="{f(rail * S)}" class="wood2"/>')
    # hall sensor under the surface
    hd = geo["hall"]["depth_below_surface"]
    rr = geo["hall"]["rows"][0]["radius"]
    if rr > r0:
        out.append(f'<rect x="{f(X(rr) - 6)}" y="{f(Y(dep - hd) - 2)}" width="12" height="4" class="chip"/>')
        out.append(f'<text x="{f(X(rr))}" y="{f(Y(dep - hd) + 12)}" class="s" text-anchor="middle">hall strip</text>')
    # two pucks resting flat against the outer wall, the allowance over them
    cx = rp + wd - dia / 2
    for k in range(2):
        _puck(out, X(cx), Y(t * k + t / 2), dia * S, t * S)
    out.append(
        f'<line x1="{f(X(rp))}" y1="{f(Y(2 * t + o["stack_allowance"]))}" x2="{f(X(rp + wd))}" '
        f'y2="{f(Y(2 * t + o["stack_allowance"]))}" class="dash"/>'
    )
    # a puck leaving the board: flat and overhanging, then tipping about the edge, then falling
    for ang, over in ((0.0, -3.0), (30.0, 4.0), (65.0, 10.0)):
        a = math.radians(ang)
        ur, uh = math.cos(a), -math.sin(a)  # along the puck's lower face, outwards and down
        nr, nh = math.sin(a), math.cos(a)  # its upward normal
        cr = rp + over * ur + t / 2 * nr
        ch = dep + over * uh + t / 2 * nh
        _puck(out, X(cr), Y(ch), dia * S, t * S, ang, "ghost")
    # the beam, end-on
    h = mechanics.ditch_beam_height(geo)
    dist = mechanics.ditch_chord(geo)["distance"]
    out.append(f'<circle cx="{f(X(dist))}" cy="{f(Y(h))}" r="{f(o["aperture"] / 2 * S)}" class="beam"/>')
    out.append(
        f'<text x="{f(X(dist) + 8)}" y="{f(Y(h) - 6)}" class="s">ditch beam (a chord, seen end-on), '
        f"{h:g} mm above the floor</text>"
    )
    # dimensions
    _dim_v(out, X(rp + wd) + 100, Y(0), Y(dep), f"ditch depth {dep:g} (at least {mechanics.min_ditch_depth(geo):g})")
    _dim_v(out, X(dist) - 8, Y(0), Y(h), f"{h:g}", side="left")
    _dim_v(out, X(rp + wd) + 16, Y(0), Y(2 * t), f"two pucks {2 * t:g}")
    out.append(
        f'<text x="{f(X(rp))}" y="{f(Y(-8) + 14)}" class="s">beam {dist - rp:g} mm outside the playing edge; '
        f"{mechanics.ditch_stack_cleared(geo)} stacked pucks (+{o['stack_allowance']:g} mm askew) pass under it</text>"
    )
    return out, (rp + wd + 40 - r0) * S, (rail + 12) * S


def hole(geo: dict[str, Any], x0: float, y0: float) -> tuple[list[str], float, float]:
    out: list[str] = []
    ho = geo["hole"]
    o = geo["beam_optics"]
    t, dia = geo["puck"]["thickness"], geo["puck"]["diameter"]
    plate = geo["top_plate_thickness"]
    bore = ho["tube_inner_diameter"]
    beam, tube_end, floor = ho["beam_depth"], ho["tube_end_depth"], ho["catch_floor_depth"]
    hd = o["housing_size"]
    wall = 2.0
    half = 40.0
    gap = 30.0  # between the two cuts, mm

    def Y(d: float) -> float:  # depth under the playing surface
        return y0 + (d + 4) * S

    out.append(f'<text x="{f(x0)}" y="{f(y0 - 10)}" class="h">Twenty hole: two cuts along its beam</text>')
    for k, caption in enumerate(("two twenties lying flat: under the beam", "a puck on its edge: holds the beam")):
        cx = x0 + (half + k * (2 * half + gap)) * S

        def X(x: float, cx: float = cx) -> float:
            return cx + x * S

        r = geo["hole_diameter"] / 2
        for a, b in ((-half, -r), (r, half)):
            out.append(
                f'<rect x="{f(X(a))}" y="{f(Y(0))}" width="{f((b - a) * S)}" height="{f(plate * S)}" class="wood"/>'
            )
        for xa in (-bore / 2 - wall, bore / 2):
            out.append(
                f'<rect x="{f(X(xa))}" y="{f(Y(plate))}" width="{f(wall * S)}" '
                f'height="{f((tube_end - plate) * S)}" class="tube"/>'
            )
        out.append(
            f'<rect x="{f(X(-half + 5))}" y="{f(Y(floor))}" width="{f((2 * half - 10) * S)}" height="{f(6 * S)}" '
            'class="wood2"/>'
        )
        out.append(
            f'<line x1="{f(X(-bore / 2 - wall))}" y1="{f(Y(beam))}" x2="{f(X(bore / 2 + wall))}" y2="{f(Y(beam))}" '
            'class="beamline"/>'
        )
        out.append(
            f'<rect x="{f(X(-bore / 2 - wall - 8))}" y="{f(Y(beam - hd / 2))}" width="{f(8 * S)}" '
            f'height="{f(hd * S)}" class="led"/>'
        )
        out.append(
            f'<rect x="{f(X(bore / 2 + wall))}" y="{f(Y(beam - hd / 2))}" width="{f(8 * S)}" height="{f(hd * S)}" '
            'class="rx"/>'
        )
        if k == 0:
            for j in range(2):
                _puck(out, X(0), Y(floor - t * j - t / 2), dia * S, t * S)
            out.append(
                f'<text x="{f(X(-bore / 2 - wall - 9))}" y="{f(Y(beam) + 3)}" class="s" text-anchor="end">IR LED</text>'
            )
        else:
            _puck(out, X(0), Y(floor - dia / 2), t * S, dia * S)
            out.append(f'<text x="{f(X(bore / 2 + wall + 9))}" y="{f(Y(beam) + 3)}" class="s">receiver</text>')
        out.append(
            f'<text x="{f(X(0))}" y="{f(Y(floor + 6) + 12)}" class="s" text-anchor="middle">{escape(caption)}</text>'
        )
    # a depth scale on the right
    sx = x0 + (2 * half + (2 * half + gap)) * S + 40
    out.append(f'<line x1="{f(sx)}" y1="{f(Y(0))}" x2="{f(sx)}" y2="{f(Y(floor))}" class="dim"/>')
    marks = (
        (0.0, "playing surface"),
        (plate, "top plate's underside"),
        (beam, f"beam ({o['aperture']:g} mm apertures)"),
        (tube_end, "tube's end"),
        (floor, "catch slide's floor"),
    )
    for depth, text in marks:
        out.append(f'<line x1="{f(sx - 4)}" y1="{f(Y(depth))}" x2="{f(sx + 4)}" y2="{f(Y(depth))}" class="dim"/>')
        out.append(f'<text x="{f(sx + 8)}" y="{f(Y(depth) + 3)}" class="s">{depth:g} mm: {escape(text)}</text>')
    m = mechanics.hole_margins(geo)
    c = o["clearance"]
    notes = (
        f"Depths under the playing surface. Hole and tube bore {bore:g} mm: a {dia:g} x {t:g} mm puck falls through in "
        "any attitude.",
        f"Two flat twenties lie {m['two_flat_under_beam'] + c:.1f} mm under the beam; a puck on its edge reaches "
        f"{m['standing_over_beam'] + c:.1f} mm over it. The slide passes two flat pucks under the tube's end.",
        f"One beam misses an upright puck parallel to it more than {t / 2:g} mm off the axis (it can be "
        f"{mechanics.upright_offset(geo):.1f} mm off): a second beam at 90°, OR-ed into the same input, sees it.",
    )
    for k, text in enumerate(notes):
        out.append(f'<text x="{f(x0)}" y="{f(Y(floor + 6) + 30 + 12 * k)}" class="s">{escape(text)}</text>')
    return out, (4 * half + gap) * S + 200, (floor + 10) * S + 70


def render(geo: dict[str, Any]) -> str:
    a, wa, ha = ditch(geo, 20.0, 40.0)
    b, wb, hb = hole(geo, 40.0 + wa, 40.0)
    width = 60.0 + wa + wb
    height = 60.0 + max(ha, hb)
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{f(width)}" height="{f(height)}" '
        f'viewBox="0 0 {f(width)} {f(height)}" font-family="sans-serif" font-size="10">',
        "<title>Flickboard: ditch and twenty-hole sections (hardware/sections_svg.py), mm</title>",
        "<style>.h{font-size:12px;font-weight:bold}.s{font-size:9px}.wood{fill:#ead2a4;stroke:#5a3d17}"
        ".wood2{fill:#c8a165;stroke:#5a3d17}.tube{fill:#888}.puck{fill:#9b6b3d;stroke:#000}"
        ".ghost{fill:none;stroke:#000;stroke-dasharray:3 2}.beam{fill:#d22}.beamline{stroke:#d22;stroke-width:2;"
        "stroke-dasharray:6 3}.led{fill:#d22}.rx{fill:#222}.chip{fill:#16c}.dim{stroke:#444;stroke-width:0.8}"
        ".dash{stroke:#444;stroke-dasharray:4 3}</style>",
        f'<rect width="{f(width)}" height="{f(height)}" fill="#ffffff"/>',
    ]
    return "\n".join([*head, *a, *b, "</svg>"]) + "\n"


def main(argv: list[str] | None = None) -> int:
    return svgfile.main(argv, __doc__ or "", OUTPUT, lambda: render(mechanics.load()), "sections_svg.py")


if __name__ == "__main__":
    sys.exit(main())
