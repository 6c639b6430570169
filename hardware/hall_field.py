"""The field of a puck's magnet at a sensor under the board, and what a strip of magnetic switches covers.

    python hardware/hall_field.py              # the chosen strip (geometry.json "hall") and the old one, checked
    python hardware/hall_field.py --compare    # the smallest gap-free strip for each switch in SWITCHES
    python hardware/hall_field.py --monte-carlo 400     # the tolerance analysis (make montecarlo)
    python hardware/hall_field.py --go-no-go 0.7        # the per-puck test point for a switch of B_OP 0.7 mT
    python hardware/hall_field.py --bench-map 0.7 [--measured grid.csv]   # the prototype's grid test
    python hardware/hall_field.py --near-miss           # how far a passing puck's magnet pulls a near miss

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

A real build. `monte_carlo` builds many boards with random tolerances (`Tolerances`: each switch's rotation, place
and operate point, each segment's depth and shift, each set's magnet grade) and counts those with a gap;
`response_ratio` can read the switch as a saturated magnetoresistive film instead of a linear one. The bench section
has the arithmetic of the prototype test (hardware/README.md): a solenoid's field, the go/no-go point, the grid map.

Every figure from a datasheet carries its source in `SWITCHES` and `MAGNETS`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from dataclasses import dataclass, field, replace
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
    "6x2-N52": Magnet(
        "6 x 2 mm N52 NdFeB disc, axially magnetised",
        6.0,
        2.0,
        1.42,
        1.445,
        1.47,
        7.5,
        "N52 grade: Br 1.42-1.47 T (the same grade tables); what the bill of materials buys",
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


def puck_force(magnet: Magnet, distance_mm: float, br: float | None = None) -> float:
    """Force (N) between two pucks' magnets side by side, axes parallel, centres `distance_mm` apart:
    3 µ0 m² / (4π d⁴) (dipoles, repulsive for like poles down, attractive for unlike). At one puck's diameter the
    dipole is good to about 1 %: the disc's next term falls as (its radius / d)²."""
    m = magnet.moment(br)
    return 3 * 1e-7 * m * m / (distance_mm * 1e-3) ** 4


def near_miss_offset(magnet: Magnet, miss_mm: float, mu: float, puck_g: float, br: float | None = None) -> float:
    """How far (mm) a sliding puck ends up off its line after passing a resting puck, their centres `miss_mm` apart
    at the closest, on a board of sliding friction `mu`.

    Passing, it takes a sideways impulse ∫F_y dt = (1/v) ∫F_y dx, with F_y = 3k b / r⁵ (k = µ0 m² / 4π, b the
    miss distance, r the distance between the centres), whose integral along the straight path is 4k / b³. That turns
    its velocity by θ = ∫F_y dx / (M v²). Friction then slows it along its new heading over the rest of its slide,
    v² / (2 µ g): the end point moves sideways by θ v² / (2 µ g) = ∫F_y dx / (2 µ M g), the same at any speed.
    Attractive (a light puck, north face down, passing a dark one, south down) it bends towards the resting puck,
    repulsive (the same colour) away. Assumes the pass is short beside the rest of the slide, and the resting puck
    stays put (its peak pull, `puck_force` at b, is under its own static friction)."""
    m = magnet.moment(br)
    k = 1e-7 * m * m
    b = miss_mm * 1e-3
    impulse_x_v = 4 * k / b**3  # ∫F_y dx, N·m
    return impulse_x_v / (2 * mu * puck_g * 1e-3 * 9.81) * 1e3


def puck_mass_g(geo: dict[str, Any], magnet: Magnet) -> float:
    """A wooden puck with the magnet in its pocket (the magnet replaces its own volume of wood)."""
    puck = geo["puck"]
    wood = math.pi * (puck["diameter"] / 2) ** 2 * puck["thickness"] * 1e-3 * puck["wood_density"]
    return wood + magnet.mass_g - magnet.volume_mm3 * 1e-3 * puck["wood_density"]


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


# ---- a real build: tolerances, Monte Carlo over many simulated boards ----------------------------------------------

# Remanence ranges of the sintered NdFeB grades (the common grade tables of magnet makers, e.g. Arnold Magnetic
# Technologies' "Sintered Neodymium-Iron-Boron Magnets" catalogue: N35 11.7-12.1 kG ... N52 14.2-14.7 kG). A magnet
# sold as N42 may be of a lower grade: the Monte Carlo draws the grade from a list.
GRADES_BR = {
    "N35": (1.17, 1.21),
    "N38": (1.22, 1.26),
    "N42": (1.28, 1.32),
    "N45": (1.32, 1.38),
    "N48": (1.37, 1.42),
    "N50": (1.40, 1.45),
    "N52": (1.42, 1.47),
}


@dataclass(frozen=True)
class Tolerances:
    """What a real build gets wrong, and how the Monte Carlo draws it for each simulated board.

    rotation_sd: each switch's package turned off its footprint's angle, normal, σ in degrees (reflowed SOT-23 on a
    hobby assembly: 2-3°, the pads pull the part square; hand-soldered: about 5°). rotation_bias: every switch turned by
    the same angle (a footprint drawn at the wrong angle, a die sensing a slightly different axis). placement_sd:
    each switch off its place, normal, σ in mm on each axis (the pick-and-place and the die's place in its package).
    segment_shift: each segment's board off its place along and across the arc, uniform ± mm (routing and screwing a
    segment into its channel). depth: each segment's sensing depth off nominal, uniform ± mm (the channel's depth).
    bop: "spread" draws each switch's operate point uniformly over the datasheet's min..max window (no distribution is
    published, so the flat one over the whole window, more pessimistic than one crowded round the typical value);
    "max": every switch at its maximum (a lot at the edge of its specification). grades: the magnet grades a set of
    pucks may be; each board draws one grade and a remanence uniformly within it (all its pucks alike).
    saturation_deg: None reads the switch as linear in its sensitive component (the model of `sensed`); an angle
    reads it as a saturated magnetoresistive film, which sees the field's direction: on only where the field also
    makes at least this angle with the film's easy axis (see `response_ratio`)."""

    rotation_sd: float = 2.5
    rotation_bias: float = 0.0
    placement_sd: float = 0.2
    segment_shift: float = 1.0
    depth: float = 1.0
    bop: str = "spread"
    grades: tuple[str, ...] = ("N35", "N38", "N42", "N45", "N48", "N52")
    saturation_deg: float | None = None


@dataclass
class MonteCarlo:
    boards: int
    with_gap: int  # boards with a gap in any quadrant
    quadrant_margins: np.ndarray  # per quadrant simulated: the weakest (field / switch-on field) over its band

    @property
    def gap_share(self) -> float:
        return self.with_gap / self.boards

    def upper95(self) -> float:
        """One-sided 95 % upper bound of the share of boards with a gap (Clopper-Pearson; for 0 gaps, 3/n)."""
        n, k = self.boards, self.with_gap
        if k == 0:
            return 1 - 0.05 ** (1 / n)
        lo, hi = k / n, 1.0
        for _ in range(60):  # binomial tail P(X <= k | p) = 0.05, by bisection
            mid = (lo + hi) / 2
            tail = sum(math.comb(n, i) * mid**i * (1 - mid) ** (n - i) for i in range(k + 1))
            lo, hi = (mid, hi) if tail > 0.05 else (lo, mid)
        return hi


def response_ratio(b_axis: np.ndarray, b_h: np.ndarray, bop: np.ndarray, saturation_deg: float | None) -> np.ndarray:
    """Switch-on ratio (>= 1: on) of in-plane switches for the field component along each one's sensitive axis
    `b_axis` and the whole horizontal field `b_h` (mT).

    Linear (saturation_deg None): |b_axis| / B_OP. Saturated: an anisotropic-magnetoresistive film is magnetised
    along its easy axis; a field across it turns the magnetisation, and the bridge's output grows as the square of
    the turn's sine (hence omnipolar). Weak fields turn it by b_axis / H_k; a field well over the film's anisotropy
    field H_k (a few gauss) drags the magnetisation along with it, and then only its direction counts: the output is
    sin² of the field's angle to the easy axis, whatever its strength. So in the strong, steep field over the strip a
    switch may stay off where its component across the easy axis is large but the field lies mostly along that axis.
    This model asks both: the component reaches B_OP, and the field makes at least `saturation_deg` with the easy
    axis (|b_axis| / |b_h| >= sin of it)."""
    ratio = np.abs(b_axis) / bop
    if saturation_deg is None:
        return ratio
    direction = np.abs(b_axis) / np.maximum(b_h, 1e-12) / math.sin(math.radians(saturation_deg))
    return np.minimum(ratio, np.where(ratio >= 1.0, direction, ratio))


@dataclass(frozen=True)
class _Layout:
    """Quadrant 1's sensors as arrays, and for each sample point of the band the few sensors near enough to matter."""

    x: np.ndarray
    y: np.ndarray
    angle: np.ndarray  # radians
    axis: np.ndarray  # radians, the model's sensitive axis
    seg: np.ndarray  # each sensor's segment (one board, one multiplexer)
    px: np.ndarray
    py: np.ndarray
    near: np.ndarray  # [points, K] indices of the K sensors nearest each point, as drawn


def _layout(geo: dict[str, Any], strip: Strip, step: float, k: int = 6) -> _Layout:
    own = [s for s in sensors(geo, strip) if s.quadrant == 1]
    x = np.array([s.x for s in own])
    y = np.array([s.y for s in own])
    px, py = legal_band(geo, 1, step=step)
    dist = np.hypot(x[None, :] - px[:, None], y[None, :] - py[:, None])
    near = np.argsort(dist, axis=1)[:, : min(k, len(own))]
    per_seg = geo["hall"].get("per_multiplexer", 16)
    return _Layout(
        x,
        y,
        np.radians([s.angle for s in own]),
        np.array([math.atan2(s.axis[1], s.axis[0]) if s.axis else 0.0 for s in own]),
        np.arange(len(own)) // per_seg,
        px,
        py,
        near,
    )


def _quadrant_margin(
    strip: Strip,
    tol: Tolerances,
    rng: np.random.Generator,
    lay: _Layout,
    tables: dict[float, tuple[np.ndarray, np.ndarray]],
    br: float,
    fine: _Layout | None = None,
) -> float:
    """One simulated quadrant: the weakest, over its band's sample points, of the best sensor's switch-on ratio.
    Where that is under x1.15 on `lay`'s samples and a `fine` sampling is given, the same quadrant is looked at again
    on it: a narrow gap can hide between coarse samples."""
    n = len(lay.x)
    nseg = int(lay.seg.max()) + 1
    sw = strip.switch
    # each segment: its depth, and a shift along (tangential) and across (radial) the arc
    depths = strip.depth + rng.uniform(-tol.depth, tol.depth, nseg)
    depths = np.round(depths / 0.25) * 0.25  # the field tables are kept per 0.25 mm of depth
    d_t = rng.uniform(-tol.segment_shift, tol.segment_shift, nseg)[lay.seg]
    d_r = rng.uniform(-tol.segment_shift, tol.segment_shift, nseg)[lay.seg]
    tx, ty = -np.sin(lay.angle), np.cos(lay.angle)  # clockwise tangent on the drawing (y down)
    rx, ry = np.cos(lay.angle), np.sin(lay.angle)
    sx = lay.x + d_t * tx + d_r * rx + rng.normal(0.0, tol.placement_sd, n)
    sy = lay.y + d_t * ty + d_r * ry + rng.normal(0.0, tol.placement_sd, n)
    axis = lay.axis + np.radians(tol.rotation_bias + rng.normal(0.0, tol.rotation_sd, n))
    if tol.bop == "max":
        bop = np.full(n, sw.bop_max)
    else:
        bop = rng.uniform(sw.bop_min if sw.bop_min is not None else sw.bop_typ, sw.bop_max, n)
    bop = bop + STRAY_MT[sw.axis]  # Earth's field against every switch
    worst = _weakest(strip, tol, lay, tables, br, depths, sx, sy, axis, bop)
    if fine is not None and worst < 1.15:
        worst = min(worst, _weakest(strip, tol, fine, tables, br, depths, sx, sy, axis, bop))
    return worst


def _weakest(
    strip: Strip,
    tol: Tolerances,
    lay: _Layout,
    tables: dict[float, tuple[np.ndarray, np.ndarray]],
    br: float,
    depths: np.ndarray,
    sx: np.ndarray,
    sy: np.ndarray,
    axis: np.ndarray,
    bop: np.ndarray,
) -> float:
    nseg = len(depths)
    near = lay.near
    dx = sx[near] - lay.px[:, None]
    dy = sy[near] - lay.py[:, None]
    rho = np.hypot(dx, dy)
    b_h = np.empty_like(rho)
    seg = lay.seg[near]
    for k in range(nseg):
        d = float(depths[k])
        if d not in tables:
            rt = np.arange(0.0, 60.0, 0.02)
            tables[d] = (rt, cylinder_field(strip.magnet, rt, -(d + strip.magnet.thickness / 2), br=1.0)[0])
        rt, bt = tables[d]
        cells = seg == k
        b_h[cells] = np.abs(np.interp(rho[cells], rt, bt, right=0.0)) * br
    safe = np.where(rho > 1e-9, rho, 1.0)
    cos = (dx * np.cos(axis)[near] + dy * np.sin(axis)[near]) / safe
    ratio = response_ratio(b_h * cos, b_h, bop[near], tol.saturation_deg)
    return float(ratio.max(axis=1).min())


def monte_carlo(
    geo: dict[str, Any], strip: Strip, tol: Tolerances, boards: int, seed: int = 1, step: float = 0.5
) -> MonteCarlo:
    """Build `boards` boards with `tol`, each with its four quadrants drawn independently (quadrant 1's layout; the
    others are the same turned), and count those with a gap: a point of some quadrant's legal band (sampled every
    `step` mm; where a quadrant comes within x1.15 of a gap, every `step` / 2 mm) where no sensor of the quadrant
    switches on for a puck of the board's set."""
    rng = np.random.default_rng(seed)
    quadrants = len(geo["quadrant_centres"])
    lay = _layout(geo, strip, step)
    fine = _layout(geo, strip, step / 2)
    tables: dict[float, tuple[np.ndarray, np.ndarray]] = {}
    margins = np.empty((boards, quadrants))
    for b in range(boards):
        lo, hi = GRADES_BR[tol.grades[int(rng.integers(len(tol.grades)))]]  # this board's set of pucks
        br = float(rng.uniform(lo, hi))
        for q in range(quadrants):
            margins[b, q] = _quadrant_margin(strip, tol, rng, lay, tables, br, fine)
    return MonteCarlo(boards, int((margins.min(axis=1) < 1.0).sum()), margins.ravel())


# The tolerances the design is specified for: a hobby assembly house's reflowed SOT-23 (the pads pull each package
# square: σ 3°, σ 0.2 mm), each segment screwed through its own holes into a channel routed with a depth stop
# (±0.5 mm along, across and in depth), switches anywhere in the datasheet's window, magnets bought as N52 and
# accepted by the per-puck go/no-go test (hardware/README.md) only if at least as strong as the weakest N42.
DESIGN = Tolerances(
    rotation_sd=3.0,
    placement_sd=0.2,
    segment_shift=0.5,
    depth=0.5,
    bop="spread",
    grades=("N42", "N45", "N48", "N50", "N52"),
)

# What the figure in hardware/README.md is made of: the design, then each assumption made worse on its own.
SCENARIOS: tuple[tuple[str, Tolerances], ...] = (
    ("the design's tolerances (above)", DESIGN),
    ("every switch at its datasheet maximum B_OP", replace(DESIGN, bop="max")),
    ("the switch read as a saturated film (30°)", replace(DESIGN, saturation_deg=30.0)),
    ("magnets not screened: N35 to N52", replace(DESIGN, grades=tuple(GRADES_BR))),
    ("hand-soldered switches: rotation σ 5°", replace(DESIGN, rotation_sd=5.0)),
    ("rotation σ 10°", replace(DESIGN, rotation_sd=10.0)),
    ("every switch turned 10° (55° instead of 45°)", replace(DESIGN, rotation_bias=10.0)),
    (
        "channel and segments ±1 mm, magnets N35 to N52",
        replace(DESIGN, depth=1.0, segment_shift=1.0, grades=tuple(GRADES_BR)),
    ),
    (
        "worst-case parts, hand-placed: all at B_OP max, N42, σ 5°, ±1 mm",
        replace(DESIGN, bop="max", grades=("N42",), rotation_sd=5.0, depth=1.0, segment_shift=1.0),
    ),
)


def monte_carlo_table(geo: dict[str, Any], strip: Strip, boards: int, seed: int, step: float) -> list[str]:
    """The Markdown table of hardware/README.md: each scenario's share of boards with a gap and its margins."""
    rows = [
        f"| build ({boards} simulated boards each, seed {seed}, band sampled every {step} mm) | boards with a gap "
        "| 95 % upper bound | weakest quadrant margin: 1st percentile, median |",
        "|---|---|---|---|",
    ]
    for name, tol in SCENARIOS:
        mc = monte_carlo(geo, strip, tol, boards, seed=seed, step=step)
        p1, med = np.percentile(mc.quadrant_margins, [1, 50])
        rows.append(f"| {name} | {mc.with_gap} ({mc.gap_share:.1%}) | {mc.upper95():.1%} | x{p1:.2f}, x{med:.2f} |")
        print(rows[-1], flush=True)
    return rows


# ---- the bench: a switch in a uniform field, one segment on a grid, each puck's magnet ------------------------------


def solenoid_mt_per_a(turns: int, length_mm: float, diameter_mm: float) -> float:
    """Field (mT per ampere) at the middle of a solenoid: µ0 N I / sqrt(L² + D²). A switch at its middle sits in the
    uniform field its datasheet specifies its thresholds in."""
    return MU0 * turns / math.hypot(length_mm * 1e-3, diameter_mm * 1e-3) * 1e3


def axis_reach(magnet: Magnet, br: float, depth: float, bop: float) -> float:
    """How far (mm) from a flat in-plane switch `depth` mm under the surface a puck's centre may be, along the
    switch's sensitive axis, and still switch it on (B_rho = bop): the outer edge of its lobe."""
    z = -(depth + magnet.thickness / 2)
    rho = np.arange(0.05, 60.0, 0.01)
    b = np.abs(cylinder_field(magnet, rho, z, br=br)[0])
    peak = int(np.argmax(b))
    if b[peak] < bop:
        return 0.0
    outer = np.nonzero(b[peak:] < bop)[0]
    return float(rho[peak + outer[0]]) if len(outer) else float(rho[-1])


def go_no_go(magnet: Magnet, bop: float, depth: float, br_min: float) -> tuple[float, float]:
    """The per-puck test point: the distance (mm) along a switch's axis at which a magnet of remanence `br_min`
    just switches on that switch, whose operate point `bop` (mT) was measured in the solenoid; and how much nearer
    (mm) the point of a magnet 5 % weaker lies, the test's resolution."""
    d = axis_reach(magnet, br_min, depth, bop)
    return d, d - axis_reach(magnet, br_min * 0.95, depth, bop)


def bench_map(
    geo: dict[str, Any],
    strip: Strip,
    bops: list[float],
    br: float,
    depth: float,
    s_range: tuple[float, float] = (-30.0, 30.0),
    u_range: tuple[float, float] = (-10.0, 10.0),
    step: float = 2.0,
    saturation_deg: float | None = None,
) -> list[tuple[float, float, tuple[int, ...]]]:
    """What the prototype's grid test should read: for a puck centred at each grid point (s mm along the row from
    the segment's middle, clockwise; u mm outward from the row), the channels of the first segment whose switches
    are on, given each switch's operate point measured in the solenoid (`bops`, mT, 16 of them), the magnet's
    remanence and the depth the segment sits at."""
    ss = [x for x in sensors(geo, strip) if x.quadrant == 1][:16]
    row = strip.rows[0].radius
    mid = math.radians((ss[0].angle + ss[-1].angle) / 2)
    grid = [
        (round(float(s), 3), round(float(u), 3))
        for s in np.arange(s_range[0], s_range[1] + 1e-9, step)
        for u in np.arange(u_range[1], u_range[0] - 1e-9, -step)
    ]
    a = mid + np.array([g[0] for g in grid]) / row
    r = row + np.array([g[1] for g in grid])
    px, py = r * np.cos(a), r * np.sin(a)
    comp = sensed(strip, ss, px, py, depth, br)  # |field along each switch's axis|, [points, switches]
    rho_t, brho_t, _ = _response_table(strip, depth, br)
    rho = np.hypot(
        np.array([x.x for x in ss])[None, :] - px[:, None], np.array([x.y for x in ss])[None, :] - py[:, None]
    )
    b_h = np.abs(np.interp(rho, rho_t, brho_t, right=0.0))
    on = response_ratio(comp, b_h, np.asarray(bops)[None, :], saturation_deg) >= 1.0
    out = [(s, u, tuple(int(k) for k in np.nonzero(on[i])[0])) for i, (s, u) in enumerate(grid)]
    return out


def bench_disagreements(
    predicted: list[tuple[float, float, tuple[int, ...]]], measured: dict[tuple[float, float], tuple[int, ...]]
) -> list[tuple[float, float]]:
    """Grid points where the measured switches differ from the prediction, other than at a lobe's edge (where a
    neighbouring grid point of the prediction reads what was measured): the readings that disprove the model."""
    pred = {(s, u): on for s, u, on in predicted}
    steps = sorted({s for s, _ in pred})
    step = min(b - a for a, b in itertools.pairwise(steps)) if len(steps) > 1 else 1.0
    bad = []
    for (s, u), on in pred.items():
        got = measured.get((s, u))
        if got is None or set(got) == set(on):
            continue
        around = [pred.get((s + ds * step, u + du * step)) for ds in (-1, 0, 1) for du in (-1, 0, 1)]
        if not any(a is not None and set(a) == set(got) for a in around):
            bad.append((s, u))
    return bad


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
    ap.add_argument("--monte-carlo", type=int, metavar="BOARDS", help="the tolerance analysis over BOARDS boards")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--step", type=float, default=1.0, help="sampling of the band for the Monte Carlo, mm")
    ap.add_argument(
        "--go-no-go", type=float, metavar="BOP_MT", help="the per-puck test point for a switch of this B_OP"
    )
    ap.add_argument("--bench-map", metavar="BOPS", help="the grid test's expected readings (CSV) for the 16 switches' "
                    "B_OP measured in the solenoid, mT, comma-separated (one value: all alike)")  # fmt: skip
    ap.add_argument("--br", type=float, default=1.30, help="the magnet's remanence for --bench-map, T")
    ap.add_argument("--across", action="store_true", help="--bench-map: the die senses across the package's long side")
    ap.add_argument("--measured", metavar="CSV", help="--bench-map: compare with the readings of the grid test")
    ap.add_argument("--saturation", type=float, metavar="DEG", help="--bench-map: read the switch as a saturated film")
    ap.add_argument("--near-miss", action="store_true", help="how far a passing puck's magnet pulls a near miss")
    args = ap.parse_args(argv)
    if args.go_no_go:
        geo = load_geometry()
        mag = MAGNETS[geo["hall"]["magnet"]]
        depth = geo["hall"]["depth_below_surface"]
        d, res = go_no_go(mag, args.go_no_go, depth, mag.br_min)
        grade = geo["hall"]["magnet"].split("-")[1]
        print(
            f"go/no-go point: the puck's centre {d:.2f} mm from the switch along its axis, {depth:g} mm above it: a "
            f"magnet of Br {mag.br_min:.2f} T (the weakest {grade}) just switches it on; a magnet 5 % weaker would "
            f"need to be {res:.2f} mm nearer"
        )
        return 0
    if args.bench_map:
        geo = load_geometry()
        strip = strip_from_geometry(geo)
        if args.across:  # the other in-plane axis of the package: the mirror image about the tangent
            strip = replace(strip, rows=tuple(replace(r, axis_deg=r.axis_deg - 90.0) for r in strip.rows))
        vals = [float(v) for v in args.bench_map.split(",")]
        bops = vals * 16 if len(vals) == 1 else vals
        pred = bench_map(geo, strip, bops, args.br, strip.depth, saturation_deg=args.saturation)
        if args.measured:
            rows = Path(args.measured).read_text(encoding="utf-8").splitlines()[1:]
            measured = {}
            for line in rows:
                s_, u_, on = [*line.split(","), ""][:3]
                measured[(round(float(s_), 3), round(float(u_), 3))] = tuple(int(k) for k in on.split())
            bad = bench_disagreements(pred, measured)
            expected = {(a, b): o for a, b, o in pred}
            for s_, u_ in bad:
                print(
                    f"disagrees at s {s_:g} mm, u {u_:g} mm: predicted {expected[(s_, u_)]}, read {measured[(s_, u_)]}"
                )
            print(f"{len(measured)} points read, {len(bad)} disagree beyond a lobe's edge")
            return 1 if bad else 0
        print("s_mm,u_mm,switches_on")
        for s_, u_, on in pred:
            print(f"{s_:g},{u_:g},{' '.join(str(k) for k in on)}")
        return 0
    if args.near_miss:
        geo = load_geometry()
        print("| magnet | centres at the closest (gap between the pucks) | friction 0.05 | 0.07 | 0.1 |")
        print("|---|---|---|---|---|")
        for name in ("6x2-N42", "6x2-N52"):
            m = MAGNETS[name]
            mass = puck_mass_g(geo, m)
            for b in (32.0, 36.0, 40.0, 48.0):
                offs = " | ".join(f"{near_miss_offset(m, b, mu, mass):.1f} mm" for mu in (0.05, 0.07, 0.1))
                print(f"| {name} ({mass:.2f} g puck) | {b:g} mm ({b - 32:g} mm) | {offs} |")
            print(f"peak pull between touching pucks, {name}: {puck_force(m, 32.0) * 1e3:.2f} mN")
        return 0
    if args.monte_carlo:
        geo = load_geometry()
        monte_carlo_table(geo, strip_from_geometry(geo), args.monte_carlo, args.seed, args.step)
        return 0
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
