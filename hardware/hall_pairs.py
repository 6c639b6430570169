"""Two pucks side by side on the baseline strip: which switches they turn on, as time goes, from hall_field's model.

    python hardware/hall_pairs.py            # the share of shots the firmware misses, per gap between the pucks

A shooter's puck rests on the baseline beside another puck (touching it, or a few mm away), then is flicked towards
the centre. Both magnets add their fields at each switch (the component along the switch's sensitive axis, with its
sign: two fields can cancel as well as add), and each switch has hysteresis: it turns on when |B| reaches B_OP and
off only once |B| falls under B_RP, so what it shows depends on how the pucks came there. `timeline` gives the
switches' changes, ms by ms, as a puck is placed, a second one placed beside it, and one of the two flicked away;
`cases` gives that timeline for every position along a quadrant's baseline and every gap asked for. The firmware's
strip detector (`firmware/fb/strip.py`, HallStrip) is then driven with those changes (bench/strip_pairs.py, and the
tests under tests/firmware/ on the MicroPython unix port and on the emulated Pico).

Typical parts unless told otherwise: the switch's typical B_OP and B_RP, the magnet's nominal remanence, the nominal
depth; `worst=True` takes the least sensitive switch (B_OP max; B_RP scaled with it) and the weakest magnet.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import hall_field as hf  # noqa: E402

FLICK_MM_PER_MS = 1.0  # a flicked puck leaves at about 1 m/s (slower flicks give the same switches, spread in time)
GAPS_MM = (0.0, 5.0, 10.0, 20.0)
PLACED_MS = 300  # the shooter is placed this long after the resting puck
FLICK_MS = 700  # and flicked at this time (both far longer than the firmware's settle_ms, 60)


@dataclass(frozen=True)
class Parts:
    bop: float  # mT
    brp: float
    br: float  # T
    depth: float  # mm


def parts(strip: hf.Strip, worst: bool = False) -> Parts:
    sw, mag = strip.switch, strip.magnet
    brp_typ = sw.brp_typ if sw.brp_typ is not None else sw.bop_typ * 0.7
    if worst:
        return Parts(sw.bop_max, sw.bop_max * brp_typ / sw.bop_typ, mag.br_min, strip.depth + strip.depth_tolerance)
    return Parts(sw.bop_typ, brp_typ, mag.br_nom, strip.depth)


class Field:
    """The signed field along each sensor's axis of one quadrant's sensors, for magnets at given centres."""

    def __init__(self, geo: dict[str, Any], strip: hf.Strip, p: Parts, quadrant: int = 1) -> None:
        self.strip = strip
        self.all = hf.sensors(geo, strip)
        self.own = [s for s in self.all if s.quadrant == quadrant]
        self.first = self.own[0].index
        self.p = p
        self.rho_t, self.brho_t, self.bz_t = hf._response_table(strip, p.depth, p.br)
        self.sx = np.array([s.x for s in self.own])
        self.sy = np.array([s.y for s in self.own])
        if strip.switch.axis == "in-plane":
            self.ax = np.array([s.axis[0] for s in self.own if s.axis])
            self.ay = np.array([s.axis[1] for s in self.own if s.axis])

    def of(self, x: float, y: float) -> np.ndarray:
        dx = self.sx - x
        dy = self.sy - y
        rho = np.hypot(dx, dy)
        if self.strip.switch.axis == "normal":
            return np.asarray(np.interp(rho, self.rho_t, self.bz_t, right=0.0))
        safe = np.where(rho > 1e-9, rho, 1.0)
        return np.asarray(np.interp(rho, self.rho_t, self.brho_t, right=0.0) * (dx * self.ax + dy * self.ay) / safe)

    def step(self, on: np.ndarray, magnets: list[tuple[float, float]]) -> np.ndarray:
        """The switches' states after the magnets moved to `magnets`, from the states `on` (hysteresis)."""
        b = np.zeros(len(self.own))
        for x, y in magnets:
            b = b + self.of(x, y)
        b = np.abs(b)
        return (b >= self.p.bop) | (on & (b >= self.p.brp))


def centre(geo: dict[str, Any], quadrant: int, arc: float, r: float) -> tuple[float, float]:
    """A puck's centre `arc` mm (at radius r) clockwise from the quadrant's first line."""
    half = math.pi / len(geo["quadrant_centres"])
    a = math.radians(hf.quadrant_centre(geo, quadrant)) - half + arc / r
    return r * math.cos(a), r * math.sin(a)


@dataclass
class Case:
    """One arrangement: the resting puck placed at 0 ms, the shooter beside it at `placed_ms`, flicked at `flick_ms`
    (towards the centre). `changes`: (ms, sensor index on the whole strip, on) in time order."""

    gap: float
    arc: float  # the shooter's centre, mm along the arc from the quadrant's first line
    radius: float
    side: int  # -1: the resting puck lies anticlockwise of the shooter (lower sensor numbers), +1 clockwise
    shooter: list[int]  # sensors on under the shooter alone (typical parts), for naming the shot
    changes: list[tuple[int, int, bool]]
    placed_ms: int
    flick_ms: int


def timeline(
    field: Field,
    geo: dict[str, Any],
    shooter: tuple[float, float],
    rest: tuple[float, float],
    placed_ms: int = PLACED_MS,
    flick_ms: int = FLICK_MS,
) -> list[tuple[int, int, bool]]:
    n = len(field.own)
    on = np.zeros(n, dtype=bool)
    out: list[tuple[int, int, bool]] = []

    def move(t: int, magnets: list[tuple[float, float]]) -> None:
        nonlocal on
        new = field.step(on, magnets)
        for i in np.nonzero(new != on)[0]:
            out.append((t, field.first + int(i), bool(new[i])))
        on = new

    move(0, [rest])
    move(placed_ms, [rest, shooter])
    # Flicked towards the centre of the board, one position per ms until it is far away.
    sx, sy = shooter
    r = math.hypot(sx, sy)
    ux, uy = -sx / r, -sy / r
    d = 0.0
    t = flick_ms
    while d < 60.0:
        d += FLICK_MM_PER_MS
        t += 1
        move(t, [rest, (sx + ux * d, sy + uy * d)])
    return out


def cases(
    geo: dict[str, Any],
    strip: hf.Strip,
    gaps: tuple[float, ...] = GAPS_MM,
    step_mm: float = 2.0,
    radii: tuple[float, ...] | None = None,
    worst: bool = False,
    quadrant: int = 1,
) -> list[Case]:
    """Every arrangement along quadrant `quadrant`'s baseline: the shooter's centre every `step_mm` of arc, at the
    band's inner edge, its middle and its outer edge (touching the baseline), the resting puck on either side at
    the same radius, `gap` mm from it; both legal (within the quadrant's lines)."""
    p = parts(strip, worst)
    field = Field(geo, strip, p, quadrant)
    d = geo["puck"]["diameter"]
    w = geo["line_width"]
    r_in = geo["baseline_radius"] - w / 2 - d / 2
    r_out = min(geo["baseline_radius"] + w / 2 + d / 2, geo["playing_radius"] - d / 2)
    if radii is None:
        radii = (r_in, (r_in + r_out) / 2, r_out)
    half = math.pi / len(geo["quadrant_centres"])
    out: list[Case] = []
    for r in radii:
        lo = d / 2 - w / 2  # the centre's distance from a quadrant line's middle, at least
        span = 2 * half * r
        for gap in gaps:
            sep = 2 * r * math.asin((d + gap) / (2 * r))  # arc between the two centres
            arc = lo
            while arc <= span - lo + 1e-9:
                for side in (-1, 1):
                    other = arc + side * sep
                    if lo <= other <= span - lo:
                        s = centre(geo, quadrant, arc, r)
                        o = centre(geo, quadrant, other, r)
                        alone = field.step(np.zeros(len(field.own), dtype=bool), [s])
                        out.append(
                            Case(
                                gap,
                                round(arc, 2),
                                round(r, 2),
                                side,
                                [field.first + int(i) for i in np.nonzero(alone)[0]],
                                timeline(field, geo, s, o),
                                PLACED_MS,
                                FLICK_MS,
                            )
                        )
                arc += step_mm
    return out


def widths(geo: dict[str, Any], strip: hf.Strip, worst: bool = False, step_mm: float = 0.5) -> tuple[int, int]:
    """The fewest and most neighbouring sensors one puck alone turns on, anywhere in its quadrant's band."""
    p = parts(strip, worst)
    field = Field(geo, strip, p, 1)
    px, py = hf.legal_band(geo, 1, step=step_mm)
    lo, hi = 99, 0
    for x, y in zip(px, py, strict=True):
        on = field.step(np.zeros(len(field.own), dtype=bool), [(float(x), float(y))])
        idx = np.nonzero(on)[0]
        if len(idx):
            w = int(idx[-1] - idx[0] + 1)
            lo, hi = min(lo, w), max(hi, w)
        else:
            lo = 0
    return lo, hi


def strip_config(strip: hf.Strip, geo: dict[str, Any]) -> dict[str, Any]:
    """The strip's detector settings as the pico_w profile gives them, with direct pins (the scan is not the point)."""
    n = strip.per_quadrant * len(geo["quadrant_centres"])
    return {
        "name": "baseline",
        "kind": "hall",
        "count": n,
        "pins": None,
        "mux": None,
        "active_low": True,
        "settle_ms": 60,
        "quadrants": len(geo["quadrant_centres"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worst", action="store_true", help="the least sensitive switch and the weakest magnet")
    ap.add_argument("--step", type=float, default=2.0, help="mm between two shooter positions along the arc")
    args = ap.parse_args(argv)
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    lo, hi = widths(geo, strip, args.worst)
    print(f"one puck alone turns on {lo}-{hi} neighbouring sensors")
    by: dict[float, list[Case]] = {}
    for c in cases(geo, strip, step_mm=args.step, worst=args.worst):
        by.setdefault(c.gap, []).append(c)
    for gap, cs in by.items():
        merged = 0
        for c in cs:
            on: set[int] = set()
            for t, i, v in c.changes:
                if t < c.flick_ms:
                    (on.add if v else on.discard)(i)
            s = sorted(on)
            if s and s[-1] - s[0] + 1 == len(s):
                merged += 1
        print(f"gap {gap:g} mm: {len(cs)} arrangements, {merged} light one run of sensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
