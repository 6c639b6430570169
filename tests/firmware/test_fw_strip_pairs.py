"""Two pucks side by side on the baseline strip are two pucks: a shot from beside a resting puck gives its shot_start.

The switches' changes come from the field model (hardware/hall_pairs.py over hardware/hall_field.py): a puck placed
on quadrant 1's baseline, the shooter placed beside it (touching it, 5, 10 or 20 mm away), then flicked towards the
centre, at positions all along the quadrant's baseline. bench/strip_pairs.py plays them on the firmware's strip
detector under the real MicroPython unix port; `make bench`-size runs (every 2 mm) give the figures in
hardware/README.md, this test a sample of them with the same judge: in `make test` a fixed one, every 96 mm of arc (103
cases, a few seconds), in `make soak` every 16 mm (581 cases, FLICKBOARD_STRIP_LONG=1). Before the detector counted
pucks in a run, the touching case was missed in most positions (77 % with the issue's sampling)."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import hall_field as hf
import hall_pairs as hp
import pytest

from bench import strip_pairs as sp

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("FLICKBOARD_STRIP_LONG") == "1"
STEP_MM = 16.0 if LONG else 96.0  # the shooter's positions along the quadrant's baseline, this far apart
MIN_PER_GAP = 140 if LONG else 25  # cases per gap at that step (three radii, the resting puck on either side)

# The share of cases the detector may still miss, per gap: a resting puck centred over a switch lights the two either
# side of it as two runs of one sensor each; a shooter touching it can merge with one of them into a run no wider
# than one puck, which the width cannot tell from one puck (hardware/README.md gives the figures).
ALLOWED_MISS = {0.0: 0.03, 5.0: 0.01, 10.0: 0.0, 20.0: 0.0}


def profile_hall(name: str) -> dict:
    prof = json.loads((ROOT / "hardware" / "profiles" / f"{name}.json").read_text())
    return next(s for s in prof["sensors"] if s["kind"] == "hall")


def test_puck_max_is_the_widest_run_one_puck_lights_on_the_model() -> None:
    """The profiles' puck_max is the model's: one puck alone (typical parts and worst-case ones) turns on at most
    that many neighbouring sensors anywhere in its band; two pucks side by side in one run light more."""
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    typ = hp.widths(geo, strip, worst=False, step_mm=1.0)
    worst = hp.widths(geo, strip, worst=True, step_mm=1.0)
    for name in ("pico_w", "esp32_devkit"):
        assert profile_hall(name)["puck_max"] == max(typ[1], worst[1]) == 3, (typ, worst)


@functools.cache
def sample() -> list[hp.Case]:
    geo = hf.load_geometry()
    return hp.cases(geo, hf.strip_from_geometry(geo), step_mm=STEP_MM)


@pytest.mark.parametrize("rested", [False, True], ids=["placed", "rested"])
def test_a_shot_from_beside_a_resting_puck_is_a_shot_start_on_micropython(rested: bool) -> None:
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    cases = sample()
    results = sp.run_cases(cases, "micropython", rested, geo, strip)
    by: dict[float, list[str]] = {}
    for c, r in zip(cases, results, strict=True):
        by.setdefault(c.gap, []).append(r)
    assert sorted(by) == [0.0, 5.0, 10.0, 20.0]
    for gap, rs in by.items():
        wrong = [r for r in rs if r not in ("ok", "missed")]
        assert not wrong, (gap, wrong[:3])  # never another event, never the other puck's segment
        missed = rs.count("missed")
        assert missed <= ALLOWED_MISS[gap] * len(rs), f"gap {gap} mm: missed {missed} of {len(rs)}"
        assert len(rs) >= MIN_PER_GAP, len(rs)
