"""Draw the sensor-placement plan of a Flickboard (hardware/board.svg) from hardware/geometry.json.

    python hardware/board_svg.py            # rewrite hardware/board.svg
    python hardware/board_svg.py --check    # exit 1 when board.svg is not what the geometry gives

The board geometry (nominal millimetres, documented in geometry.json) gives the square frame, the ditch, the
baseline, the 15/10/5 circles, the posts and the hole. The sensors come from the board profile named in
geometry.json ("hall.profile"): every beam sensor (hole, hole2, ditch1..ditch4) and the hall strip, placed as
geometry.json's "hall" rows say (hall_field.sensors). Quadrant q's centre angle is `quadrant_centres[q]`; hall
sensor i belongs to quadrant i * quadrants // count + 1 and, within it, the index grows clockwise (the order of
the profile's multiplexer channels). The output is deterministic (fixed number formatting, no timestamps) so the
committed SVG can be checked.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hall_field
import mechanics
import svgfile

HERE = Path(__file__).resolve().parent
GEOMETRY = HERE / "geometry.json"
PROFILES = HERE / "profiles"
OUTPUT = HERE / "board.svg"
MARGIN = 30.0
LEGEND_H = 150.0


def f(x: float) -> str:
    """A coordinate with one decimal, without '-0.0'."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def polar(r: float, deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    return r * math.cos(a), r * math.sin(a)


def hall_positions(geo: dict[str, Any]) -> list[tuple[int, int, float, float]]:
    """(index, quadrant, angle in degrees, radius) for each hall sensor, in profile order."""
    strip = hall_field.strip_from_geometry(geo)
    return [(s.index, s.quadrant, s.angle, math.hypot(s.x, s.y)) for s in hall_field.sensors(geo, strip)]


def ditch_beam(geo: dict[str, Any], quadrant: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Ends of the chord beam across the ditch of a quadrant: outside the playing edge, ends on the outer wall."""
    d = mechanics.ditch_chord(geo)["distance"]
    outer = geo["playing_radius"] + geo["ditch_width"]
    half = math.sqrt(outer**2 - d**2)
    c = geo["quadrant_centres"][str(quadrant)]
    mx, my = polar(d, c)
    tx, ty = polar(half, c + 90)
    return (mx - tx, my - ty), (mx + tx, my + ty)


def render(geo: dict[str, Any], profile: dict[str, Any]) -> str:
    half = geo["board_size"] / 2
    size = geo["board_size"] + 2 * MARGIN
    height = size + LEGEND_H
    hole_r = geo["hole_diameter"] / 2
    out: list[str] = []
    add = out.append
    add('<?xml version="1.0" encoding="UTF-8"?>')
    add(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{f(size)}mm" height="{f(height)}mm" '
        f'viewBox="{f(-half - MARGIN)} {f(-half - MARGIN)} {f(size)} {f(height)}" '
        'font-family="sans-serif" font-size="11">'
    )
    add(f"<title>Flickboard sensor placement ({escape(profile['board'])}, nominal dimensions in mm)</title>")
    add(
        "<style>.line{fill:none;stroke:#333;stroke-width:1.5}.beam{stroke:#d22;stroke-width:2;stroke-dasharray:6 3}"
        ".hall{fill:#16c;stroke:#fff;stroke-width:0.8}.lbl{fill:#333}.small{font-size:8px}</style>"
    )
    # frame, ditch, playing surface
    add(
        f'<rect id="board" x="{f(-half)}" y="{f(-half)}" width="{f(2 * half)}" height="{f(2 * half)}" '
        'rx="12" fill="#c8a165" stroke="#5a3d17" stroke-width="3"/>'
    )
    outer = geo["playing_radius"] + geo["ditch_width"]
    add(f'<circle id="ditch" r="{f(outer)}" fill="#7a5a2e"/>')
    add(f'<circle id="playing-surface" r="{f(geo["playing_radius"])}" fill="#ead2a4" stroke="#5a3d17"/>')
    add(f'<circle id="baseline" class="line" r="{f(geo["baseline_radius"])}" stroke-width="3"/>')
    for name in ("5", "10", "15"):
        add(f'<circle id="circle-{name}" class="line" r="{f(geo["circles"][name])}"/>')
        x, y = polar(geo["circles"][name] - 14, 225)
        add(f'<text class="lbl" x="{f(x)}" y="{f(y)}" text-anchor="middle">{name}</text>')
    posts = geo["posts"]
    for k in range(posts["count"]):
        x, y = polar(posts["radius"], posts["first_angle"] + k * 360 / posts["count"])
        add(
            f'<circle id="post-{k + 1}" cx="{f(x)}" cy="{f(y)}" r="{f(posts["diameter"] / 2)}" '
            'fill="#444" stroke="#000"/>'
        )
    add(f'<circle id="hole" r="{f(hole_r)}" fill="#111" stroke="#000"/>')
    for q, centre in sorted(geo["quadrant_centres"].items()):
        x, y = polar(outer + 14, centre)
        add(f'<text class="lbl" x="{f(x)}" y="{f(y + 4)}" text-anchor="middle">Q{q}</text>')
    # sensors from the profile
    beams = [s for s in profile["sensors"] if s["kind"] == "beam"]
    halls = [s for s in profile["sensors"] if s["kind"] == "hall"]
    reach = geo["hole"]["tube_inner_diameter"] / 2 + geo["hole"]["housing_gap"]
    for s in beams:
        name = s["name"]
        if name.startswith("hole"):
            angle = 0 if name == "hole" else 90
            (x1, y1), (x2, y2) = polar(reach, angle + 180), polar(reach, angle)
        elif name.startswith("ditch") and name[5:] in geo["quadrant_centres"]:
            (x1, y1), (x2, y2) = ditch_beam(geo, int(name[5:]))
        else:
            continue
        add(
            f'<g id="beam-{escape(name)}"><line class="beam" x1="{f(x1)}" y1="{f(y1)}" x2="{f(x2)}" y2="{f(y2)}"/>'
            f'<circle cx="{f(x1)}" cy="{f(y1)}" r="4" fill="#d22"/>'
            f'<rect x="{f(x2 - 4)}" y="{f(y2 - 4)}" width="8" height="8" fill="#222"/></g>'
        )
    per_mux = geo["hall"].get("per_multiplexer", 16)
    for _ in halls:
        for i, q, angle, radius in hall_positions(geo):
            x, y = polar(radius, angle)
            add(
                f'<circle id="hall-{i}" class="hall" cx="{f(x)}" cy="{f(y)}" r="2.5">'
                f"<title>hall {i}, Q{q}, multiplexer {i // per_mux} channel {i % per_mux}</title></circle>"
            )
            if i % 8 == 0 or i % 8 == 7:
                lx, ly = polar(radius - 14, angle)
                add(f'<text class="lbl small" x="{f(lx)}" y="{f(ly + 3)}" text-anchor="middle">{i}</text>')
    # legend
    y0 = half + MARGIN + 10
    x0 = -half
    count = sum(s["count"] for s in halls)
    rows = geo["hall"]["rows"]
    legend = [
        (
            "beam",
            "IR beam: dot = 38 kHz IR LED, square = receiver. Hole beam "
            f"{geo['hole']['beam_depth']} mm under the surface (hardware/sections.svg)",
        ),
        (
            "text",
            f"Ditch beams {mechanics.ditch_beam_height(geo):g} mm above the ditch floor, "
            f"{geo['ditch_beams']['below_surface']:g} mm under the playing surface's level",
        ),
        (
            "hall",
            f"{count} magnetic switches ({geo['hall']['sensor']}) on a {rows[0]['radius']:g} mm radius, "
            f"{geo['hall']['depth_below_surface']} mm under the surface (hardware/hall_coverage.svg)",
        ),
        ("text", "Numbers: profile order (every 8th); sensor i is multiplexer i // 16, channel i % 16"),
        (
            "text",
            f"Nominal geometry (hardware/geometry.json): board {geo['board_size']} mm, ditch "
            f"{geo['ditch_width']} x {geo['ditch_depth']} mm, baseline r {geo['baseline_radius']} mm, "
            f"hole {geo['hole_diameter']} mm, profile {profile['profile']}",
        ),
    ]
    add('<g id="legend">')
    for k, (kind, text) in enumerate(legend):
        y = y0 + k * 22
        if kind == "beam":
            add(f'<line class="beam" x1="{f(x0)}" y1="{f(y)}" x2="{f(x0 + 30)}" y2="{f(y)}"/>')
        elif kind == "hall":
            add(f'<circle class="hall" cx="{f(x0 + 15)}" cy="{f(y)}" r="5"/>')
        add(f'<text class="lbl" x="{f(x0 + 40)}" y="{f(y + 4)}">{escape(text)}</text>')
    add("</g>")
    add("</svg>")
    return "\n".join(out) + "\n"


def load(geometry: Path = GEOMETRY) -> tuple[dict[str, Any], dict[str, Any]]:
    geo = json.loads(geometry.read_text(encoding="utf-8"))
    profile = json.loads((PROFILES / f"{geo['hall']['profile']}.json").read_text(encoding="utf-8"))
    return geo, profile


def main(argv: list[str] | None = None) -> int:
    return svgfile.main(argv, __doc__ or "", OUTPUT, lambda: render(*load()), "board_svg.py")


if __name__ == "__main__":
    sys.exit(main())
