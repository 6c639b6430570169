"""Where the ditch beams and the twenty-hole beam sit, and what the board must measure for them to work.

    python hardware/mechanics.py     # the numbers for geometry.json, and every requirement it breaks

Ditch. Pucks that go into the ditch stay there all game, lying flat on its floor, sometimes one on another. A puck
going in leaves the playing surface at its level and ends on the floor, so on its way it passes every height in
between; a resting puck reaches only its own thickness (two stacked: twice that). A beam across the ditch just
under the level of the playing surface is therefore crossed by every puck that falls through it and by no puck
that rests under it, as long as the ditch is deep enough for two stacked pucks to pass under the beam.

Twenty hole. The hole goes through the top plate into a tube of the same bore, closed 20 mm below the tube's
end by the catch floor (a slide the players pull out to take the twenties). A puck that drops flat lies on the
floor, under the beam; so do two. A puck standing on its edge or leaning, whatever its height, reaches above the
beam and holds it broken: the firmware's `stuck`, rule A-4.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GEOMETRY = HERE / "geometry.json"


def load(path: Path = GEOMETRY) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


# ---- ditch --------------------------------------------------------------------------------------------------------


def ditch_beam_height(geo: dict[str, Any]) -> float:
    """Height of the ditch beams' axis above the ditch floor."""
    return float(geo["ditch_depth"] - geo["ditch_beams"]["below_surface"])


def ditch_stack_cleared(geo: dict[str, Any], depth: float | None = None) -> int:
    """How many pucks lying flat one on another pass under the ditch beams (the top one may lie a little askew:
    `stack_allowance`)."""
    o = geo["beam_optics"]
    d = geo["ditch_depth"] if depth is None else depth
    bottom = d - geo["ditch_beams"]["below_surface"] - o["aperture"] / 2
    t = geo["puck"]["thickness"]
    return max(0, math.floor((bottom - o["stack_allowance"]) / t))


def min_ditch_depth(geo: dict[str, Any], stacked: int = 2) -> float:
    """The shallowest ditch (playing surface above the ditch floor) under whose beams `stacked` flat pucks pass."""
    o = geo["beam_optics"]
    return (
        stacked * geo["puck"]["thickness"]
        + o["stack_allowance"]
        + o["aperture"] / 2
        + geo["ditch_beams"]["below_surface"]
    )


def ditch_chord(geo: dict[str, Any]) -> dict[str, float]:
    """The chord beam of a quadrant: its distance from the centre and the half-angles (degrees, from the quadrant's
    middle) over which it catches a puck. A puck that tips over the edge passes the beam's height with its body
    over [edge, edge + diameter]; one that flies and falls down the outer wall, over [wall - diameter, wall]. The
    chord point at angle a lies at radius dist / cos(a)."""
    rp = geo["playing_radius"]
    wall = rp + geo["ditch_width"]
    dia = geo["puck"]["diameter"]
    dist = rp + geo["ditch_beams"]["offset_from_edge"]
    tipping = math.degrees(math.acos(min(1.0, dist / min(wall, rp + dia))))
    flying = math.degrees(math.acos(dist / wall)) if dist >= wall - dia else 0.0
    return {
        "distance": dist,
        "length": 2 * math.sqrt(wall**2 - dist**2),
        "tipping_half_angle": tipping,
        "flying_half_angle": flying,
        "both_half_angle": min(tipping, flying),
    }


def ditch_problems(geo: dict[str, Any]) -> list[str]:
    o = geo["beam_optics"]
    t = geo["puck"]["thickness"]
    h = ditch_beam_height(geo)
    out = []
    if ditch_stack_cleared(geo) < 2:
        out.append(
            f"the ditch is {geo['ditch_depth']} mm deep: two stacked pucks ({2 * t} mm) reach the ditch beams "
            f"({h - o['aperture'] / 2:.1f}-{h + o['aperture'] / 2:.1f} mm above the floor); it needs "
            f"{min_ditch_depth(geo):.1f} mm (see hardware/README.md, 'Ditch beams')"
        )
    if geo["ditch_beams"]["below_surface"] < o["aperture"] / 2 + 1:
        out.append("the ditch beams must pass at least 1 mm under the level of the playing surface")
    stated = geo["ditch_beams"].get("ditch_depth_min")
    if stated is not None and abs(stated - min_ditch_depth(geo)) > 1e-9:
        out.append(
            f"geometry.json states a minimum ditch depth of {stated} mm; the beams need {min_ditch_depth(geo):g}"
        )
    dist = ditch_chord(geo)["distance"]
    if dist >= geo["playing_radius"] + geo["ditch_width"]:
        out.append("the ditch beams' chord misses the ditch")
    return out


# ---- twenty hole --------------------------------------------------------------------------------------------------


def hole_margins(geo: dict[str, Any]) -> dict[str, float]:
    """Clearances (mm, all must be >= 0) of the twenty hole's design."""
    hole = geo["hole"]
    o = geo["beam_optics"]
    t, dia = geo["puck"]["thickness"], geo["puck"]["diameter"]
    a, c, hd = o["aperture"] / 2, o["clearance"], o["housing_size"] / 2
    beam, floor, tube_end = hole["beam_depth"], hole["catch_floor_depth"], hole["tube_end_depth"]
    return {
        # two twenties lying flat on the catch floor stay under the beam
        "two_flat_under_beam": (floor - 2 * t) - (beam + a) - c,
        # a puck standing on its edge on the floor reaches above the beam
        "standing_over_beam": (beam - a) - (floor - dia) - c,
        # a puck standing on a flat one too
        "standing_on_flat_over_beam": (beam - a) - (floor - t - dia) - c,
        # the LED and receiver housings fit under the top plate and inside the tube
        "housing_under_plate": (beam - hd) - geo["top_plate_thickness"],
        "housing_in_tube": tube_end - (beam + hd),
        # two flat twenties slide out under the tube's end
        "slide_gap": (floor - tube_end) - 2 * t - c,
        # the tube is no narrower than the hole, and a puck falls through it in any attitude
        "tube_bore": hole["tube_inner_diameter"] - geo["hole_diameter"],
        "falls_through": geo["hole_diameter"] - math.hypot(dia, t),
    }


G = 9.81  # m/s²
# Coefficient of restitution of a maple puck landing flat on another resting on the slide. The field review reports a
# rebound of 6-8 mm after a drop of about 25 mm: e = sqrt(h_rebound / h_drop) = 0.49-0.57. The upper end is taken.
PUCK_RESTITUTION = 0.57
REBOUND_MS = 60  # the hole beam's rebound_ms to set (hardware/README.md): after the latest start of a bounce


def hole_capacity(geo: dict[str, Any], rebound_mm: float = 0.0) -> int:
    """How many twenties can lie flat on the slide, with a rebound of rebound_mm above them, and stay under the beam
    while a puck standing on the slide still reaches it. Whatever the beam's depth: n t + rebound <= diameter - 2
    (half aperture + clearance), so the slide can hold two twenties, not three (2 x 9 = 18 <= 25 < 27)."""
    o = geo["beam_optics"]
    room = geo["puck"]["diameter"] - 2 * (o["aperture"] / 2 + o["clearance"]) - rebound_mm
    return int(room // geo["puck"]["thickness"])


def hole_rebound(geo: dict[str, Any], e: float = PUCK_RESTITUTION) -> dict[str, float]:
    """A twenty landing flat on one already on the slide: when (ms after its pass ended) it bounces back into the
    beam, and when it leaves it again. Its pass ends when its top edge falls past the beam's lower edge; it then falls
    the rest of the way (the margin between the beam and the resting twenty), lands, and bounces up e^2 x its drop
    (from the playing surface). It re-enters the beam if it rises more than that margin."""
    hole, o = geo["hole"], geo["beam_optics"]
    t = geo["puck"]["thickness"]
    beam_low = hole["beam_depth"] + o["aperture"] / 2
    rest = hole["catch_floor_depth"] - t  # the top of the twenty already there
    margin = rest - t - beam_low  # mm the falling puck still drops after its pass ends
    drop = rest  # its underside falls from the playing surface to the resting twenty
    v_end = math.sqrt(2 * G * (drop - margin) / 1000)  # m/s when the pass ends
    fall_ms = (math.sqrt(v_end**2 + 2 * G * margin / 1000) - v_end) / G * 1000
    rise = e * e * drop
    out = {"margin_mm": margin, "rebound_mm": rise, "fall_ms": fall_ms, "start_ms": math.inf, "end_ms": math.inf}
    if rise > margin:
        v0 = math.sqrt(2 * G * rise / 1000)
        up = (v0 - math.sqrt(v0 * v0 - 2 * G * margin / 1000)) / G * 1000
        apex = v0 / G * 1000
        out["start_ms"] = fall_ms + up
        out["end_ms"] = fall_ms + 2 * apex - up
    return out


def follow_gap_ms(geo: dict[str, Any], delay_ms: float) -> float:
    """Two twenties: the second starts to fall from the playing surface delay_ms after the first. How long (ms) after
    the first one's pass ends the second breaks the beam (negative: before; the two breaks merge into one pass). Both
    fall from rest: the first's pass ends when its top edge passes the beam's lower edge (its underside has fallen
    beam depth + half aperture + thickness), the second's starts when its underside reaches the beam's upper edge."""
    hole, o = geo["hole"], geo["beam_optics"]
    t = geo["puck"]["thickness"]

    def fall(mm: float) -> float:
        return math.sqrt(2 * mm / 1000 / G) * 1000

    first_end = fall(hole["beam_depth"] + o["aperture"] / 2 + t)
    second_start = delay_ms + fall(hole["beam_depth"] - o["aperture"] / 2)
    return second_start - first_end


def follow_limit_ms(geo: dict[str, Any], rebound_ms: float = REBOUND_MS) -> float:
    """The delay under which a second twenty's break starts within rebound_ms of the first's pass: read as the first
    bouncing, one twenty. The bore is one puck wide (35 mm against 32), so the second can start to fall only once the
    first's top edge is under the surface; the second then rides in on the first, or drops within this delay."""
    return rebound_ms - follow_gap_ms(geo, 0.0)


def upright_offset(geo: dict[str, Any]) -> float:
    """How far (mm) the plane of a puck standing upright in the tube can lie from the tube's axis: a chord of the
    bore as long as the puck's diameter. With one beam, an upright puck parallel to it and further than half its
    thickness from the axis stands beside the beam; a second beam at 90° always crosses it."""
    r = geo["hole"]["tube_inner_diameter"] / 2
    return math.sqrt(max(0.0, r * r - (geo["puck"]["diameter"] / 2) ** 2))


def hole_problems(geo: dict[str, Any]) -> list[str]:
    return [f"twenty hole: {k} is {v:.1f} mm (must be >= 0)" for k, v in hole_margins(geo).items() if v < 0]


def problems(geo: dict[str, Any]) -> list[str]:
    return ditch_problems(geo) + hole_problems(geo)


def main() -> int:
    geo = load()
    t = geo["puck"]["thickness"]
    chord = ditch_chord(geo)
    print(
        f"ditch: depth {geo['ditch_depth']} mm, beams {ditch_beam_height(geo):.1f} mm above the floor; "
        f"{ditch_stack_cleared(geo)} stacked pucks ({ditch_stack_cleared(geo) * t} mm) pass under; "
        f"needs at least {min_ditch_depth(geo):.1f} mm for two"
    )
    print(
        f"ditch chord {chord['distance']:.0f} mm from the centre, {chord['length']:.0f} mm long: catches a puck "
        f"tipping over the edge within ±{chord['tipping_half_angle']:.1f}° of the quadrant's middle, one flying to "
        f"the outer wall within ±{chord['flying_half_angle']:.1f}°"
    )
    print("twenty hole:", ", ".join(f"{k} {v:+.1f}" for k, v in hole_margins(geo).items()))
    print(f"an upright puck's plane may lie {upright_offset(geo):.1f} mm off the tube's axis")
    rb = hole_rebound(geo)
    print(
        f"twenty slide: holds {hole_capacity(geo)} flat twenties under the beam "
        f"({hole_capacity(geo, rb['rebound_mm'])} with a rebound); a twenty landing on one bounces "
        f"{rb['rebound_mm']:.1f} mm against {rb['margin_mm']:.1f} mm: "
        f"back in the beam {rb['start_ms']:.0f}-{rb['end_ms']:.0f} ms after its pass (rebound_ms)"
    )
    top_in = math.sqrt(2 * geo["puck"]["thickness"] / 1000 / G) * 1000
    print(
        f"a second twenty is read as the first's bounce (rebound_ms {REBOUND_MS}) only if it starts to fall within "
        f"{follow_limit_ms(geo):.0f} ms of the first, which takes {top_in:.0f} ms to sink its 9 mm under the surface"
    )
    bad = problems(geo)
    for p in bad:
        print("PROBLEM:", p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
