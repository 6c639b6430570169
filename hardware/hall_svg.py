"""Draw what the baseline strip sees (hardware/hall_coverage.svg) from hardware/geometry.json and hall_field.py.

    python hardware/hall_svg.py            # rewrite hardware/hall_coverage.svg
    python hardware/hall_svg.py --check    # exit 1 when the SVG is not what the geometry gives

Top: quadrant 1's baseline unrolled, for the strip in geometry.json and for the first design (DRV5033FA, 4 per
quadrant, 25 mm apart). Every point where a shooting puck's centre may lie is coloured by the field at the best
placed sensor in the worst case (least sensitive switch, weakest magnet, sensor 1 mm off in depth), against the
field that is sure to switch it on. Bottom: the field one sensor sees as a puck slides past it.
Deterministic output (fixed formatting), so the committed SVG can be checked.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hall_field as hf
import svgfile

OUTPUT = hf.HERE / "hall_coverage.svg"
YS = 4.0  # radial exaggeration of the unrolled strips
LEFT = 40.0
COLOURS = (
    ("#d62728", "blind: no sensor is sure to switch"),
    ("#f2b134", "seen, margin under 25 %"),
    ("#8fd18f", "seen, margin 25-100 %"),
    ("#2a8c2a", "seen, margin over 100 %"),
)


def f(x: float) -> str:
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _classes(best: np.ndarray, thr: float) -> np.ndarray:
    ratio = best / thr
    return np.digitize(ratio, (1.0, 1.25, 2.0))


def strip_panel(geo: dict[str, Any], strip: hf.Strip, y0: float, title: str) -> tuple[list[str], float]:
    """One unrolled quadrant; returns the SVG lines and the panel's height."""
    out: list[str] = []
    s, r, best, legal = hf.field_map(geo, strip)
    thr = hf.threshold(strip)
    cls = _classes(best, thr)
    rmax = float(r[-1])
    ds = float(s[1] - s[0])
    dr = float(r[1] - r[0])
    height = (float(r[-1] - r[0]) + dr) * YS

    def y(rad: float) -> float:
        return y0 + (rmax + dr / 2 - rad) * YS

    rep = hf.check(geo, strip)
    out.append(f'<text x="{f(LEFT)}" y="{f(y0 - 8)}" class="h">{escape(title)}</text>')
    out.append(f'<rect x="{f(LEFT)}" y="{f(y0)}" width="{f(float(s[-1]) + ds)}" height="{f(height)}" fill="#eeeeee"/>')
    for i, rad in enumerate(r):
        j = 0
        n = len(s)
        while j < n:
            if not legal[i, j]:
                j += 1
                continue
            k = j
            while k + 1 < n and legal[i, k + 1] and cls[i, k + 1] == cls[i, j]:
                k += 1
            out.append(
                f'<rect x="{f(LEFT + s[j])}" y="{f(y(float(rad)) - dr * YS / 2)}" '
                f'width="{f((k - j + 1) * ds)}" height="{f(dr * YS)}" fill="{COLOURS[cls[i, j]][0]}"/>'
            )
            j = k + 1
    w = geo["line_width"]
    rb = geo["baseline_radius"]
    out.append(
        f'<rect x="{f(LEFT)}" y="{f(y(rb + w / 2))}" width="{f(float(s[-1]) + ds)}" height="{f(w * YS)}" '
        'fill="#333333" fill-opacity="0.35"/>'
    )
    out.append(f'<text x="{f(LEFT - 4)}" y="{f(y(rb) + 3)}" class="s" text-anchor="end">baseline</text>')
    for x in (0.0, float(s[-1]) + ds):
        out.append(f'<line x1="{f(LEFT + x)}" y1="{f(y0)}" x2="{f(LEFT + x)}" y2="{f(y0 + height)}" class="ql"/>')
    ref = geo["baseline_radius"]
    first = hf.quadrant_centre(geo, 1) - 180.0 / len(geo["quadrant_centres"])
    for sen in hf.sensors(geo, strip):
        if sen.quadrant != 1:
            continue
        sx = LEFT + math.radians(sen.angle - first) * ref
        rr = math.hypot(sen.x, sen.y)
        out.append(f'<circle cx="{f(sx)}" cy="{f(y(rr))}" r="1.6" class="sen"/>')
        if sen.axis is not None:
            t = math.atan2(sen.axis[1], sen.axis[0]) - math.radians(sen.angle) - math.pi / 2
            dx, dy = 3 * math.cos(t), 3 * math.sin(t) * YS
            out.append(
                f'<line x1="{f(sx - dx)}" y1="{f(y(rr) + dy)}" x2="{f(sx + dx)}" y2="{f(y(rr) - dy)}" class="ax"/>'
            )
    verdict = "no gap" if rep.covered else f"GAPS: {rep.blind_fraction:.0%} of the band blind"
    out.append(
        f'<text x="{f(LEFT)}" y="{f(y0 + height + 12)}" class="s">'
        f"{rep.count} sensors ({strip.per_quadrant} per quadrant), "
        f"{escape(strip.switch.part)} {strip.depth:g} mm under the surface; worst case {rep.worst:.2f} mT against "
        f"{rep.threshold:.2f} mT: {verdict}</text>"
    )
    return out, height + 20


def chart(geo: dict[str, Any], y0: float) -> tuple[list[str], float]:
    """Field one sensor sees against the puck's lateral offset (log scale)."""
    mag = hf.MAGNETS[geo["hall"]["magnet"]]
    out: list[str] = []
    w, h = 420.0, 150.0
    x0 = LEFT + 20
    xmax = 25.0
    lo, hi = -1.0, 2.0  # log10 mT

    def px(x: float) -> float:
        return x0 + x / xmax * w

    def py(b: float) -> float:
        v = min(hi, max(lo, math.log10(max(b, 10**lo))))
        return y0 + (hi - v) / (hi - lo) * h

    out.append(
        f'<text x="{f(LEFT)}" y="{f(y0 - 8)}" class="h">One sensor, a puck sliding past it: field along the '
        "sensor's axis against the puck's offset (mm)</text>"
    )
    out.append(f'<rect x="{f(x0)}" y="{f(y0)}" width="{f(w)}" height="{f(h)}" fill="none" stroke="#999999"/>')
    for dec in range(int(lo), int(hi) + 1):
        yy = py(10.0**dec)
        out.append(f'<line x1="{f(x0)}" y1="{f(yy)}" x2="{f(x0 + w)}" y2="{f(yy)}" stroke="#dddddd"/>')
        out.append(f'<text x="{f(x0 - 3)}" y="{f(yy + 3)}" class="s" text-anchor="end">{10.0**dec:g} mT</text>')
    for xv in range(0, int(xmax) + 1, 5):
        out.append(f'<text x="{f(px(xv))}" y="{f(y0 + h + 10)}" class="s" text-anchor="middle">{xv}</text>')
    xs = np.arange(0.0, xmax + 1e-9, 0.1)
    old_gap = 4.0
    _, bz = hf.cylinder_field(mag, xs, -(old_gap + mag.thickness / 2))
    depth = geo["hall"]["depth_below_surface"]
    brho, _ = hf.cylinder_field(mag, xs, -(depth + mag.thickness / 2))
    curves = (
        (np.abs(bz), "#d62728", f"DRV5033 (Hall, senses B_z) {old_gap:g} mm under the magnet"),
        (
            np.abs(brho),
            "#1f77b4",
            f"SM351RT (AMR, senses a horizontal component) {depth:g} mm under, offset along its axis",
        ),
    )
    for k, (vals, colour, label) in enumerate(curves):
        pts = " ".join(f"{f(px(float(x)))},{f(py(float(v)))}" for x, v in zip(xs, vals, strict=True))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        out.append(f'<text x="{f(x0)}" y="{f(y0 + h + 22 + 10 * k)}" class="s" fill="{colour}">{escape(label)}</text>')
    for val, colour, label in (
        (hf.SWITCHES["DRV5033FA"].bop_max, "#d62728", "DRV5033FA B_OP max 6.8 mT"),
        (hf.SWITCHES["DRV5033FA"].bop_typ, "#d62728", "typ 3.5 mT"),
        (hf.SWITCHES["SM351RT"].bop_max, "#1f77b4", "SM351RT B_OP max 1.1 mT"),
        (hf.SWITCHES["SM351RT"].bop_typ, "#1f77b4", "typ 0.7 mT"),
    ):
        yy = py(val)
        out.append(
            f'<line x1="{f(x0)}" y1="{f(yy)}" x2="{f(x0 + w)}" y2="{f(yy)}" stroke="{colour}" stroke-dasharray="4 3"/>'
        )
        out.append(
            f'<text x="{f(x0 + w - 2)}" y="{f(yy - 2)}" class="s" text-anchor="end" fill="{colour}">{label}</text>'
        )
    ring = hf.zero_ring(mag, old_gap)
    out.append(
        f'<text x="{f(px(ring))}" y="{f(y0 + h - 4)}" class="s" text-anchor="middle">B_z = 0 at {ring:.1f} mm</text>'
    )
    return out, h + 40


def render(geo: dict[str, Any]) -> str:
    strip = hf.strip_from_geometry(geo)
    body: list[str] = []
    y = 30.0
    width = LEFT + math.pi / 2 * geo["baseline_radius"] + 20
    top = f"Quadrant 1's baseline unrolled (radial scale x{YS:g}): {strip.name}"
    part, hgt = strip_panel(geo, strip, y, top)
    body += part
    y += hgt + 30
    part, hgt = strip_panel(
        geo, hf.old_strip(geo), y, "The first design: DRV5033FA, 4 per quadrant, 25 mm apart, 4 mm under"
    )
    body += part
    y += hgt + 30
    part, hgt = chart(geo, y)
    body += part
    y += hgt + 10
    legend_y = y
    for k, (colour, text) in enumerate(COLOURS):
        body.append(f'<rect x="{f(LEFT + 120 * k)}" y="{f(legend_y)}" width="12" height="8" fill="{colour}"/>')
        body.append(f'<text x="{f(LEFT + 16 + 120 * k)}" y="{f(legend_y + 7)}" class="s">{text}</text>')
    body.append(
        f'<text x="{f(LEFT)}" y="{f(legend_y + 20)}" class="s">Colours: where a shooting puck\'s centre may lie, the '
        "field at the best-placed sensor in the worst case (least sensitive part, weakest magnet, depth off by its "
        "tolerance, band widened by the placement tolerance) over the field sure to switch it. Grey: not a legal "
        "start. Ticks: each sensor's sensitive axis.</text>"
    )
    height = legend_y + 30
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{f(width * 2)}" height="{f(height * 2)}" '
        f'viewBox="0 0 {f(width)} {f(height)}" font-family="sans-serif" font-size="9">',
        "<title>Flickboard baseline strip: where a shooting puck is seen (hardware/hall_svg.py)</title>",
        "<style>.h{font-size:10px;font-weight:bold}.s{font-size:7px}.ql{stroke:#000;stroke-width:1}"
        ".sen{fill:#fff;stroke:#000;stroke-width:0.6}.ax{stroke:#000;stroke-width:0.8}</style>",
        f'<rect width="{f(width)}" height="{f(height)}" fill="#ffffff"/>',
    ]
    return "\n".join([*head, *body, "</svg>"]) + "\n"


def main(argv: list[str] | None = None) -> int:
    return svgfile.main(argv, __doc__ or "", OUTPUT, lambda: render(hf.load_geometry()), "hall_svg.py")


if __name__ == "__main__":
    sys.exit(main())
