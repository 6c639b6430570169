"""The field of a puck's magnet at a sensor under the board, and what a strip of magnetic switches covers.

    python hardware/hall_field.py              # the chosen strip (geometry.json "hall") and the old one, checked
    python hardware/hall_field.py --compare    # the smallest gap-free strip for each switch in SWITCHES

Magnet. A puck carries an axially magnetised disc at the centre of its underside, flush with it, so the magnet's
lower face lies on the playing surface. A uniformly magnetised cylinder is exactly a thin solenoid: a surface
current K = M = Br/µ0 around its side. `cylinder_field` adds up the fields of current loops stacked through the
magnet's thickness (Gauss-Legendre), each loop's field from the complete elliptic integrals K and E (computed
here by the arithmetic-geometric mean, so numpy is the only dependency). `on_axis` is the closed form on the
axis and `dipole_field` the far-field limit; the tests hold the three against each other.

Sensor. A switch turns on when the field component along its sensitive axis reaches B_OP (either sign: the
switches here are omnipolar) and off when it falls under B_RP. A Hall switch (DRV5033, DRV5032) senses the
component normal to its package face: lying face up under the board, the vertical component Bz, which changes
sign on a ring round the magnet's axis (for a dipole at a lateral distance of sqrt(2) x its depth) and is
useless beyond it. An anisotropic-magnetoresistive switch (Honeywell SM351RT) senses a component in the plane
of its package: lying flat, a horizontal component, which is zero straight above the sensor and largest at about
half the depth to the side. The package's in-plane axis is set by the footprint's angle to the baseline.

Strip. Sensors lie along the baseline in rows, numbered clockwise within each quadrant (the order of the profile's
pins or multiplexer channels). A shot starts from the puck flat on the board touching the baseline between the
two quadrant lines, touching a quadrant line at most (rules 000 rule 2, 001 R-3, 002 rule 3): its centre lies in
a band round the quarter arc (`legal_band`). `check` samples that band and asks, in the worst case (the least
sensitive switch, the weakest magnet, the sensor at either end of its depth tolerance, a stray field against
it, the band widened by the placement tolerance), whether some sensor of the quadrant turns on; and, in the
opposite case (the most sensitive switch, the strongest magnet), whether a sensor ever turns on for a puck of a
neighbouring quadrant (a shot would be credited to the wrong seat).

Every figure from a datasheet carries its source in `SWITCHES` and `MAGNETS`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
GEOMETRY = HERE / "geometry.json"

# Earth's field is 25-65 µT in magnitude; its horizontal part is at most about 40 µT anywhere. On a table that can
# be turned it may add to or subtract from the magnet's field at a sensor: added to B_OP for coverage, subtracted
# for cross-talk. A face-normal switch lying flat sees the vertical part, an in-plane switch a horizontal one.
STRAY_MT = {"normal": 0.065, "in-plane": 0.04}


@dataclass(frozen=True)
class Magnet:
    name: str
    diameter: float  # mm
    thickness: float  # mm, along the magnetisation
    br_min: float  # remanence, T
    br_nom: float
    br_max: float
    density: float  # g/cm³
    source: str

    @property
    def volume_mm3(self) -> float:
        return math.pi * (self.diameter / 2) ** 2 * self.thickness

    @property
    def mass_g(self) -> float:
        return self.volume_mm3 * 1e-3 * self.density

    def moment(self, br: float | None = None) -> float:
        """Magnetic moment, A·m²."""
        return (self.br_nom if br is None else br) * self.volume_mm3 * 1e-9 / MU0


@dataclass(frozen=True)
class Switch:
    part: str
    kind: str  # "hall" or "amr"
    axis: str  # "normal" (to the package face) or "in-plane"
    bop_max: float  # mT, the field that is sure to switch it on
    bop_typ: float
    bop_min: float | None  # mT, the smallest field that may switch it on (None: not given)
    brp_typ: float | None
    response: str
    supply: str
    supply_ma: float  # per sensor, for the power budget (mA)
    source: str


MU0 = 4e-7 * math.pi

MAGNETS = {
    "6x2-N42": Magnet(
        "6 x 2 mm N42 NdFeB disc, axially magnetised",
        6.0,
        2.0,
        1.28,
        1.30,
        1.32,
        7.5,
        "N42 grade: Br 1.28-1.32 T (the grade's remanence range in magnet makers' grade tables); NdFeB 7.5 g/cm³",
    ),
}

SWITCHES = {
    "DRV5033FA": Switch(
        "TI DRV5033FA",
        "hall",
        "normal",
        bop_max=6.8,
        bop_typ=3.5,
        bop_min=None,
        brp_typ=2.0,
        response="continuous, 35 µs power-on",
        supply="2.5-38 V",
        supply_ma=3.5,
        source="TI SLIS152 (DRV5033), 6.7 Magnetic Characteristics: FA B_OP ±3.5 mT typ, ±6.8 mT max",
    ),
    "DRV5032ZE": Switch(
        "TI DRV5032ZE",
        "hall",
        "normal",
        bop_max=3.9,
        bop_typ=3.0,
        bop_min=None,
        brp_typ=None,
        response="sampled at 20 Hz: up to 50 ms late",
        supply="1.65-5.5 V",
        supply_ma=0.002,
        source=(
            "TI SLVSDC7 (DRV5032), 1 Features / 6.6 Magnetic Characteristics: highest-sensitivity option "
            "B_OP max 3.9 mT"
        ),
    ),
    "SM351RT": Switch(
        "Honeywell SM351RT",
        "amr",
        "in-plane",
        bop_max=1.1,
        bop_typ=0.7,
        bop_min=0.3,
        brp_typ=0.48,
        response="continuous: 10 µs start-up, 1.5 µs output rise/fall",
        supply="3-24 V",
        supply_ma=5.0,
        source=(
            "Honeywell 32304118 / 32304117 (SM351RT, SM451R Standard Power Series), Table 2 Magnetic Specifications: "
            "operate 3/7/11 G (0.3/0.7/1.1 mT) min/typ/max, release 2/4.8/9 G; Table 1: 3-24 V, start-up 10 µs"
        ),
    ),
    "SM353RT": Switch(
        "Honeywell SM353RT",
        "amr",
        "in-plane",
        bop_max=2.0,
        bop_typ=1.4,
        bop_min=0.6,
        brp_typ=0.93,
        response="continuous: 10 µs start-up",
        supply="3-24 V",
        supply_ma=5.0,
        source="Honeywell 32304118 / 32304117, Table 2: SM353RT operate 6/14/20 G (0.6/1.4/2.0 mT), release 3/9.3/18 G",
    ),
}


# ---- the field of a magnet ---------------------------------------------------------------------------------------


def ellipke(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Complete elliptic integrals K(m) and E(m) (parameter m = k²) by the arithmetic-geometric mean."""
    m = np.asarray(m, dtype=float)
    a = np.ones_like(m)
    b = np.sqrt(1.0 - m)
    c = np.sqrt(m)
    s = 0.5 * c * c
    p = 0.5
    for _ in range(12):  # quadratic convergence: 12 steps reach machine precision for m < 1 - 1e-12
        a, b, c = (a + b) / 2, np.sqrt(a * b), (a - b) / 2
        p *= 2
        s = s + p * c * c
    k = np.pi / (2 * a)
    return k, k * (1 - s)


def cylinder_field(magnet: Magnet, rho: Any, z: Any, br: float | None = None, nodes: int = 48) -> tuple[Any, Any]:
    """(B_rho, B_z) in mT at radius rho (mm) from the magnet's axis and height z (mm) above its centre.

    The side of the magnet carries the surface current K = Br/µ0: the field is that of loops of radius R stacked
    from -L/2 to L/2, each carrying K dz. A loop's field (Smythe; Simpson et al., NASA/TM-2013-217919):
    B_z = µ0 I / (2π α² β) [(R² - ρ² - z²) E(k²) + α² K(k²)],
    B_ρ = µ0 I z / (2π α² β ρ) [(R² + ρ² + z²) E(k²) - α² K(k²)],
    α² = R² + ρ² + z² - 2Rρ, β² = R² + ρ² + z² + 2Rρ, k² = 1 - α²/β². With µ0 I = Br dz the lengths cancel.
    Not for points on the magnet's side wall (the integrand is singular there).
    """
    brem = magnet.br_nom if br is None else br
    r = magnet.diameter / 2
    half = magnet.thickness / 2
    x, w = np.polynomial.legendre.leggauss(nodes)
    zs = x * half
    w = w * half
    rho = np.asarray(rho, dtype=float)[..., None]
    zz = np.asarray(z, dtype=float)[..., None] - zs
    s = r * r + rho * rho + zz * zz
    alpha2 = s - 2 * r * rho
    beta2 = s + 2 * r * rho
    beta = np.sqrt(beta2)
    kk, ee = ellipke(1.0 - alpha2 / beta2)
    c = brem / np.pi * 1000.0  # mT
    bz = c / (2 * alpha2 * beta) * ((r * r - rho * rho - zz * zz) * ee + alpha2 * kk)
    safe = np.where(rho > 1e-9, rho, 1.0)
    brho = np.where(
        rho > 1e-9, c * zz / (2 * alpha2 * beta * safe) * ((r * r + rho * rho + zz * zz) * ee - alpha2 * kk), 0
    )
    return (brho * w).sum(-1), (bz * w).sum(-1)


def on_axis(magnet: Magnet, gap: float, br: float | None = None) -> float:
    """B_z (mT) on the axis, `gap` mm from the magnet's face: Br/2 [(g+L)/sqrt((g+L)²+R²) - g/sqrt(g²+R²)]."""
    brem = magnet.br_nom if br is None else br
    r, t = magnet.diameter / 2, magnet.thickness
    return brem / 2 * ((gap + t) / math.hypot(gap + t, r) - gap / math.hypot(gap, r)) * 1000.0


def dipole_field(magnet: Magnet, rho: Any, z: Any, br: float | None = None) -> tuple[Any, Any]:
    """(B_rho, B_z) in mT of a point dipole with the magnet's moment, at the magnet's centre."""
    c = 1e-7 * magnet.moment(br) * 1e9 * 1000.0  # µ0 m / 4π in mT·mm³
    rho = np.asarray(rho, dtype=float)
    z = np.asarray(z, dtype=float)
    r2 = rho * rho + z * z
    r5 = r2**2.5
    return c * 3 * rho * z / r5, c * (3 * z * z - r2) / r5


def zero_ring(magnet: Magnet, gap: float) -> float:
    """Lateral distance (mm) at which B_z changes sign, the sensor `gap` mm under the magnet's face."""
    z = -(gap + magnet.thickness / 2)
    lo, hi = 0.1, 10 * (gap + magnet.thickness)
    for _ in range(60):
        mid = (lo + hi) / 2
        _, bz = cylinder_field(magnet, mid, z)
        if bz > 0:  # the sign straight under the magnet (south face down gives the other sign throughout)
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def reach(magnet: Magnet, switch: Switch, depth: float, threshold: float | None = None) -> float:
    """For a face-normal (Hall) switch `depth` mm under the surface: the lateral distance (mm) within which |B_z|
    reaches the threshold (default: B_OP max + stray), i.e. the radius of the disc it sees a magnet in."""
    thr = switch.bop_max + STRAY_MT[switch.axis] if threshold is None else threshold
    rho = np.arange(0.0, 40.0, 0.02)
    _, bz = cylinder_field(magnet, rho, -(depth + magnet.thickness / 2), br=magnet.br_min)
    ok = np.abs(bz) >= thr
    if not ok[0]:
        return 0.0
    return float(rho[np.argmin(ok)] if not ok.all() else rho[-1])


def puck_force(magnet: Magnet, distance_mm: float) -> float:
    """Force (N) between two pucks' magnets side by side, axes parallel, centres `distance_mm` apart:
    3 µ0 m² / (4π d⁴) (dipoles, repulsive for like poles down, attractive for unlike)."""
    m = magnet.moment()
    return 3 * 1e-7 * m * m / (distance_mm * 1e-3) ** 4


# ---- the strip ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    radius: float  # mm from the hole's centre
    per_quadrant: int
    end_gap: float | None = None  # arc length (mm) from each quadrant line to the row's first and last sensor
    pitch: float | None = None  # or: this pitch (mm of arc), centred on the quadrant's middle
    axis_deg: float = 0.0  # in-plane switches: sensitive axis, degrees from the local tangent (clockwise)
    shift: float = 0.0  # arc length (mm) the whole row is shifted clockwise (staggered rows)


@dataclass(frozen=True)
class Strip:
    switch: Switch
    magnet: Magnet
    depth: float  # sensing element below the playing surface, mm
    rows: tuple[Row, ...]
    depth_tolerance: float = 0.0
    placement_tolerance: float = 0.0
    name: str = ""

    @property
    def per_quadrant(self) -> int:
        return sum(r.per_quadrant for r in self.rows)


@dataclass
class Sensor:
    index: int
    quadrant: int
    x: float
    y: float
    angle: float  # polar angle of the sensor, degrees, clockwise on the drawing from 3 o'clock
    axis: tuple[float, float] | None  # unit vector of the in-plane sensitive axis, None for face-normal
    row: int


def quadrant_centre(geo: dict[str, Any], q: int) -> float:
    return float(geo["quadrant_centres"][str(q)])


def sensors(geo: dict[str, Any], strip: Strip) -> list[Sensor]:
    """Every sensor of the strip, in profile order: quadrant 1 first; within a quadrant clockwise (rows merged by
    angle, so that neighbouring indices are neighbours on the board)."""
    out: list[Sensor] = []
    quadrants = len(geo["quadrant_centres"])
    half_span = 180.0 / quadrants
    for q in range(1, quadrants + 1):
        centre = quadrant_centre(geo, q)
        mine = []
        for k, row in enumerate(strip.rows):
            n = row.per_quadrant
            if row.pitch is not None:
                offsets = [(j - (n - 1) / 2) * row.pitch for j in range(n)]
            else:
                assert row.end_gap is not None
                span = math.radians(2 * half_span) * row.radius - 2 * row.end_gap
                step = span / (n - 1) if n > 1 else 0.0
                offsets = [-span / 2 + j * step for j in range(n)]
            for off in offsets:
                ang = centre + math.degrees((off + row.shift) / row.radius)
                a = math.radians(ang)
                axis = None
                if strip.switch.axis == "in-plane":
                    t = a + math.pi / 2 + math.radians(row.axis_deg)  # tangent (clockwise) turned by axis_deg
                    axis = (math.cos(t), math.sin(t))
                mine.append((ang, k, row.radius * math.cos(a), row.radius * math.sin(a), axis))
        mine.sort(key=lambda s: (s[0], s[1]))
        for ang, k, x, y, axis in mine:
            out.append(Sensor(len(out), q, x, y, ang, axis, k))
    return out


def legal_band(geo: dict[str, Any], q: int, widen: float = 0.0, step: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Sample points (x, y arrays, mm) of every centre a shooting puck of quadrant q may have.

    Touching the baseline (a line `line_width` wide): the centre is within d/2 + w/2 of the baseline's middle,
    and the puck lies flat on the playing surface (its centre at most d/2 inside the edge). Not beyond a quadrant
    line: the centre is at least d/2 - w/2 from the line's middle, on its own side. `widen` grows the band on every
    side (the sensors' placement tolerance)."""
    d = geo["puck"]["diameter"]
    w = geo["line_width"]
    r_in = geo["baseline_radius"] - w / 2 - d / 2 - widen
    r_out = min(geo["baseline_radius"] + w / 2 + d / 2, geo["playing_radius"] - d / 2) + widen
    clear = d / 2 - w / 2 - widen  # from the quadrant line's middle
    centre = math.radians(quadrant_centre(geo, q))
    half = math.pi / len(geo["quadrant_centres"])
    xs, ys = [], []
    for r in np.arange(r_in, r_out + 1e-9, step):
        lim = half - math.asin(clear / r)
        n = max(2, int(2 * lim * r / step) + 1)
        th = centre + np.linspace(-lim, lim, n)
        xs.append(r * np.cos(th))
        ys.append(r * np.sin(th))
    return np.concatenate(xs), np.concatenate(ys)


def _response_table(strip: Strip, depth: float, br: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rho = np.arange(0.0, 80.0, 0.02)
    b_rho, b_z = cylinder_field(strip.magnet, rho, -(depth + strip.magnet.thickness / 2), br=br)
    return rho, b_rho, b_z


def sensed(strip: Strip, ss: list[Sensor], px: np.ndarray, py: np.ndarray, depth: float, br: float) -> np.ndarray:
    """|field along each sensor's axis| (mT) for a magnet centred at each point: array [points, sensors]."""
    rho_t, brho_t, bz_t = _response_table(strip, depth, br)
    sx = np.array([s.x for s in ss])[None, :]
    sy = np.array([s.y for s in ss])[None, :]
    dx = sx - px[:, None]
    dy = sy - py[:, None]
    rho = np.hypot(dx, dy)
    if strip.switch.axis == "normal":
        return np.abs(np.interp(rho, rho_t, bz_t, right=0.0))
    ax = np.array([s.axis[0] for s in ss if s.axis])[None, :]
    ay = np.array([s.axis[1] for s in ss if s.axis])[None, :]
    safe = np.where(rho > 1e-9, rho, 1.0)
    cos = (dx * ax + dy * ay) / safe  # the horizontal field points away from the magnet's axis (or towards it)
    return np.abs(np.interp(rho, rho_t, brho_t, right=0.0) * cos)


@dataclass
class Report:
    strip: str
    count: int
    threshold: float  # mT, worst-case switch-on field (B_OP max + stray)
    worst: float  # mT, the weakest best-sensor field over the band, worst case
    worst_at: tuple[float, float]  # (arc mm from the quadrant's first line, radius mm)
    blind_fraction: float  # of the band's sample points, worst case
    crosstalk: float  # mT, strongest field at a sensor of another quadrant (most sensitive case)
    crosstalk_limit: float  # mT, B_OP min - stray: under it no switch can turn on
    seen_by: tuple[int, int]  # fewest and most sensors on at once for one puck in the band (typical switch)
    inward_reach: float  # mm: a puck this far inside the band's inner edge may still switch a sensor on
    inward_reach_typ: float  # mm: the same for a typical switch and magnet
    depths: tuple[float, ...] = field(default_factory=tuple)

    @property
    def covered(self) -> bool:
        return self.worst >= self.threshold

    @property
    def margin(self) -> float:
        return self.worst / self.threshold


def worst_field(geo: dict[str, Any], strip: Strip, step: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample points of quadrant 1's band (widened by the placement tolerance) and, at each, the field at the
    quadrant's best-placed sensor in the worst case (weakest magnet, either end of the depth tolerance)."""
    own = [s for s in sensors(geo, strip) if s.quadrant == 1]
    px, py = legal_band(geo, 1, widen=strip.placement_tolerance, step=step)
    best = np.full(px.shape, np.inf)
    for dep in _depths(strip):
        best = np.minimum(best, sensed(strip, own, px, py, dep, strip.magnet.br_min).max(axis=1))
    return px, py, best


def _depths(strip: Strip) -> tuple[float, ...]:
    return tuple(sorted({strip.depth - strip.depth_tolerance, strip.depth, strip.depth + strip.depth_tolerance}))


def threshold(strip: Strip) -> float:
    """The field that is sure to switch any sample of the part on, whatever way the stray field points."""
    return strip.switch.bop_max + STRAY_MT[strip.switch.axis]


def covered(geo: dict[str, Any], strip: Strip, step: float = 0.5) -> bool:
    return bool(worst_field(geo, strip, step)[2].min() >= threshold(strip))


def check(geo: dict[str, Any], strip: Strip, step: float = 0.5) -> Report:
    """Coverage of quadrant 1 (the others are the same turned by 90°) in the worst case, cross-talk in the most
    sensitive case, and how many sensors see one puck."""
    ss = sensors(geo, strip)
    own = [s for s in ss if s.quadrant == 1]
    others = [s for s in ss if s.quadrant != 1]
    sw, mag = strip.switch, strip.magnet
    depths = _depths(strip)
    px, py, best = worst_field(geo, strip, step)
    i = int(np.argmin(best))
    centre = math.radians(quadrant_centre(geo, 1))
    first_line = centre - math.pi / len(geo["quadrant_centres"])
    r_i = math.hypot(px[i], py[i])
    arc = (math.atan2(py[i], px[i]) - first_line) % (2 * math.pi) * r_i
    # cross-talk: quadrant 1's pucks against the other quadrants' sensors, with the most sensitive switch
    bx, by = legal_band(geo, 1, widen=0.0, step=step)
    limit = (sw.bop_min if sw.bop_min is not None else sw.bop_typ / 2) - STRAY_MT[sw.axis]
    cross = 0.0
    for dep in depths:
        cross = max(cross, float(sensed(strip, others, bx, by, dep, mag.br_max).max()))
    # how many sensors see one puck (typical switch, nominal magnet and depth)
    on = (sensed(strip, own, bx, by, strip.depth, mag.br_nom) >= sw.bop_typ).sum(axis=1)
    # inward over-reach: pucks inside the band's inner edge, most sensitive case
    d, w = geo["puck"]["diameter"], geo["line_width"]
    r_in = geo["baseline_radius"] - w / 2 - d / 2
    inward, inward_typ = 0.0, 0.0
    th = centre + np.linspace(-math.radians(30), math.radians(30), 241)
    for extra in np.arange(0.5, 40.0, 0.5):
        r = r_in - extra
        rx, ry = r * np.cos(th), r * np.sin(th)
        if max(float(sensed(strip, own, rx, ry, dep, mag.br_max).max()) for dep in depths) >= limit:
            inward = float(extra)
        if float(sensed(strip, own, rx, ry, strip.depth, mag.br_nom).max()) >= sw.bop_typ:
            inward_typ = float(extra)
    return Report(
        strip=strip.name or sw.part,
        count=len(ss),
        threshold=threshold(strip),
        worst=float(best[i]),
        worst_at=(round(arc, 1), round(r_i, 1)),
        blind_fraction=float((best < threshold(strip)).mean()),
        crosstalk=cross,
        crosstalk_limit=limit,
        seen_by=(int(on.min()), int(on.max())),
        inward_reach=inward,
        inward_reach_typ=inward_typ,
        depths=depths,
    )


def field_map(
    geo: dict[str, Any], strip: Strip, s_step: float = 1.0, r_step: float = 0.5, margin: float = 6.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Quadrant 1 as a grid for drawing: arc positions s (mm along the baseline, from the quadrant's first line),
    radii r, the worst-case best-sensor field (mT) at each (r, s), and whether the point is a legal start."""
    own = [x for x in sensors(geo, strip) if x.quadrant == 1]
    d, w = geo["puck"]["diameter"], geo["line_width"]
    r_in = geo["baseline_radius"] - w / 2 - d / 2
    r_out = min(geo["baseline_radius"] + w / 2 + d / 2, geo["playing_radius"] - d / 2)
    ref = geo["baseline_radius"]
    half = math.pi / len(geo["quadrant_centres"])
    first = math.radians(quadrant_centre(geo, 1)) - half
    s = np.arange(0.0, 2 * half * ref + 1e-9, s_step)
    r = np.arange(r_in - margin, r_out + margin + 1e-9, r_step)
    ss, rr = np.meshgrid(s, r)
    th = first + ss / ref
    px, py = (rr * np.cos(th)).ravel(), (rr * np.sin(th)).ravel()
    best = np.full(px.shape, np.inf)
    for dep in _depths(strip):
        best = np.minimum(best, sensed(strip, own, px, py, dep, strip.magnet.br_min).max(axis=1))
    clear = d / 2 - w / 2
    dist_first = rr * np.sin(th - first)
    dist_last = rr * np.sin(first + 2 * half - th)
    legal = (rr >= r_in - 1e-9) & (rr <= r_out + 1e-9) & (dist_first >= clear) & (dist_last >= clear)
    return s, r, best.reshape(rr.shape), legal


def blind_along_line(geo: dict[str, Any], strip: Strip, step: float = 0.1) -> float:
    """Fraction of the baseline's middle line, over the span of quadrant 1's sensors (first to last), where no
    sensor sees a magnet centred on the line (typical switch, nominal magnet and depth)."""
    own = [s for s in sensors(geo, strip) if s.quadrant == 1]
    r = geo["baseline_radius"]
    a0, a1 = math.radians(own[0].angle), math.radians(own[-1].angle)
    th = np.arange(a0, a1 + 1e-12, step / r)
    f = sensed(strip, own, r * np.cos(th), r * np.sin(th), strip.depth, strip.magnet.br_nom).max(axis=1)
    return float((f < strip.switch.bop_typ).mean())


# ---- designs -----------------------------------------------------------------------------------------------------


def load_geometry(path: Path = GEOMETRY) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def strip_from_geometry(geo: dict[str, Any]) -> Strip:
    h = geo["hall"]
    rows = tuple(
        Row(
            radius=r["radius"],
            per_quadrant=r["per_quadrant"],
            end_gap=r.get("end_gap"),
            pitch=r.get("pitch"),
            axis_deg=r.get("axis_deg", 0.0),
            shift=r.get("shift", 0.0),
        )
        for r in h["rows"]
    )
    return Strip(
        switch=SWITCHES[h["sensor"]],
        magnet=MAGNETS[h["magnet"]],
        depth=h["depth_below_surface"],
        rows=rows,
        depth_tolerance=h.get("depth_tolerance", 0.0),
        placement_tolerance=h.get("placement_tolerance", 0.0),
        name=f"{h['sensor']}, {sum(r.per_quadrant for r in rows)} per quadrant",
    )


def old_strip(geo: dict[str, Any]) -> Strip:
    """The first design: DRV5033FA, 4 per quadrant, 25 mm apart on the baseline, 4 mm under the magnet's face."""
    return Strip(
        switch=SWITCHES["DRV5033FA"],
        magnet=MAGNETS["6x2-N42"],
        depth=4.0,
        rows=(Row(radius=geo["baseline_radius"], per_quadrant=4, pitch=25.0),),
        name="DRV5033FA, 4 per quadrant at 25 mm (the first design)",
    )


def _layouts(mid: float, n: int, rows: int, axis: float, gap: float = 10.0) -> tuple[Row, ...]:
    """n sensors per quadrant in 1-3 staggered rows 4.5 mm apart, centred on radius `mid`."""
    if rows == 1:
        return (Row(mid, n, end_gap=gap, axis_deg=axis),)
    per = max(2, n // rows)
    pitch = (math.pi / 2 * mid - 2 * gap) / (per - 1)
    offsets = [(k - (rows - 1) / 2) * 4.5 for k in range(rows)]
    return tuple(Row(mid + o, per, end_gap=gap + k * pitch / rows, axis_deg=axis) for k, o in enumerate(offsets))


def smallest(geo: dict[str, Any], switch: Switch, magnet: Magnet, depth_tol: float, place_tol: float) -> Strip | None:
    """The strip with the fewest sensors per quadrant and no gap for `switch`: one to three staggered rows (in-plane
    switches at 45°, where either in-plane axis of the package gives the same coverage) at depths of 2-14 mm. A
    coarse search (1 mm samples, bisection on the count) for comparing parts, not a design tool."""
    d, w = geo["puck"]["diameter"], geo["line_width"]
    r_in = geo["baseline_radius"] - w / 2 - d / 2
    r_out = min(geo["baseline_radius"] + w / 2 + d / 2, geo["playing_radius"] - d / 2)
    mid = (r_in + r_out) / 2
    axis = 45.0 if switch.axis == "in-plane" else 0.0
    best: Strip | None = None
    for rows in (1, 2, 3):
        for depth in np.arange(2.0, 14.1, 2.0):

            def make(n: int, rows: int = rows, depth: float = float(depth)) -> Strip:
                return Strip(switch, magnet, depth, _layouts(mid, n, rows, axis), depth_tol, place_tol, switch.part)

            lo, hi = 2 * rows, 240
            if not covered(geo, make(hi), step=1.0):
                continue
            while hi - lo > rows:
                n = (lo + hi) // 2 // rows * rows
                if n <= lo:
                    break
                if covered(geo, make(n), step=1.0):
                    hi = n
                else:
                    lo = n
            if best is None or hi < best.per_quadrant:
                best = make(hi)
    return best


def summary(rep: Report) -> str:
    return (
        f"{rep.strip}: {rep.count} sensors; worst-case field {rep.worst:.2f} mT against {rep.threshold:.2f} mT "
        f"({'no gap' if rep.covered else 'GAPS'}, margin x{rep.margin:.2f}, blind {rep.blind_fraction:.0%} of the "
        f"band, weakest at {rep.worst_at[0]} mm along the arc, r {rep.worst_at[1]} mm); other quadrants' sensors "
        f"see at most {rep.crosstalk:.2f} mT (switch-on possible from {rep.crosstalk_limit:.2f} mT); one puck "
        f"turns on {rep.seen_by[0]}-{rep.seen_by[1]} sensors; a puck up to {rep.inward_reach_typ:.1f} mm "
        f"(typical parts; {rep.inward_reach:.1f} mm at worst) inside the band is seen too"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compare", action="store_true", help="search the smallest gap-free strip for every switch")
    args = ap.parse_args(argv)
    geo = load_geometry()
    strip = strip_from_geometry(geo)
    mag = strip.magnet
    aside4 = float(cylinder_field(mag, 4.0, -5.0)[1])
    aside6 = float(cylinder_field(mag, 6.0, -5.0)[1])
    print(
        f"{mag.name}: on the axis 4 mm from its face {on_axis(mag, 4.0):.1f} mT; B_z 4 mm below, 4 mm aside "
        f"{aside4:.1f} mT, 6 mm aside {aside6:.1f} mT; B_z changes sign {zero_ring(mag, 4.0):.2f} mm aside"
    )
    print(summary(check(geo, strip)))
    old = old_strip(geo)
    print(summary(check(geo, old)), f"; blind along its own span of the line: {blind_along_line(geo, old):.0%}")
    if args.compare:
        for sw in SWITCHES.values():
            s = smallest(geo, sw, mag, strip.depth_tolerance, strip.placement_tolerance)
            if s is None:
                print(f"{sw.part}: no gap-free strip up to 240 per quadrant")
            else:
                print(f"{sw.part}: {s.per_quadrant} per quadrant, {len(s.rows)} row(s), depth {s.depth:.0f} mm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
