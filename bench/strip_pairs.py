"""Two pucks side by side on the baseline strip: the firmware's strip detector driven by the field model.

    .venv/bin/python -m bench.strip_pairs            # every case, on the MicroPython unix port: the miss rate per gap
    .venv/bin/python -m bench.strip_pairs --impl cpython --step 4

hardware/hall_pairs.py gives, for a shooter's puck resting beside another puck (touching it, 5, 10 or 20 mm away) at
every position along a quadrant's baseline, which switches turn on and off, ms by ms, as the other puck is placed,
the shooter placed beside it and then flicked towards the centre. Each case is played on `fb.detect.Sensors` over
`fb.simpins.SimBoard` (the strip on direct pins: the detector's logic, not the scan, is under test here; the rp2
test drives the same changes through the 74HC4067s). Two ways the resting puck got there:

- "placed": it was put there (no shot before): the shot must give one `shot_start`, named by a sensor under the
  shooter, and nothing else;
- "rested": it came to rest there after an earlier shot (its `baseline_rest`): the shot must still be a
  `shot_start` named by the shooter's sensor, not by the rest's segment (the host would take that for the rested
  puck lifted off).

A case is missed when there is no such `shot_start`; wrong when it comes with another event or names a sensor more
than one away from the shooter's own.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "hardware", ROOT / "tests" / "support"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import hall_field as hf  # noqa: E402
import hall_pairs as hp  # noqa: E402

OFFSET_MS = 200  # the first change comes this long after boot (the first scan saw an empty strip)
# The "rested" variant: a puck of quadrant 3 on the strip at boot is shot at BOOT_SHOT_MS; the resting puck of the case
# comes to rest within the rest window (REST_WINDOW_MS), the shooter is placed after it.
BOOT_SHOT_MS = 100
REST_WINDOW_MS = 300

# The firmware side: reads the cases (JSON on stdin), plays each, prints one JSON line per case.
SCRIPT = """
import sys, json
from fb.simpins import SimBoard
from fb.compat import Uptime
from fb.detect import Sensors
EV = []
def emit(kind, sensor, t_us, fields):
    EV.append((kind, t_us, fields["seg"], fields["q"]))
data = json.loads(sys.stdin.read())
cfg = data["cfg"]
n = cfg["count"]
cfg["pins"] = list(range(200, 200 + n))
out = []
for c in data["cases"]:
    b = SimBoard()
    strip = b.strip(cfg)
    if c["rested"]:
        strip.set(c["boot"], True)
    s = Sensors([cfg], b, emit, Uptime(), 16)
    if c["rested"]:
        strip.at(c["boot_shot_us"], c["boot"], False)
    for t, seg, on in c["changes"]:
        strip.at(t, seg, on)
    del EV[:]
    end = c["end_us"]
    while b.now < end:
        b.advance(10000)
        s.step()
    b.close()
    print(json.dumps([[e[0], e[1], e[2], e[3]] for e in EV]))
"""


def payload(cases: list[hp.Case], cfg: dict[str, Any], rested: bool) -> dict[str, Any]:
    n = cfg["count"]
    out = []
    for c in cases:
        changes = [[(t + OFFSET_MS) * 1000, i, v] for t, i, v in c.changes]
        out.append(
            {
                "rested": rested,
                "boot": n // 2 + 5,  # quadrant 3
                "boot_shot_us": BOOT_SHOT_MS * 1000,
                "changes": changes,
                "end_us": changes[-1][0] + 250_000,
            }
        )
    c = dict(cfg)
    if rested:
        c["rest_window_ms"] = REST_WINDOW_MS
    return {"cfg": c, "cases": out}


def judge(case: hp.Case, events: list[list[Any]], rested: bool, quadrants: int, count: int) -> str:
    """ "ok", "missed" or "wrong" (with what was seen)."""
    flick_us = (case.flick_ms + OFFSET_MS) * 1000
    shots = [e for e in events if e[0] == "shot_start" and e[1] >= flick_us]
    expected_before = []
    if rested:
        expected_before = [["baseline_rest"]]
    before = [e for e in events if not (e[0] == "shot_start" and e[1] >= flick_us)]
    before = [e for e in before if not (e[0] == "shot_start" and e[1] == BOOT_SHOT_MS * 1000)]
    if not shots:
        return "missed"
    mid = case.shooter[len(case.shooter) // 2] if case.shooter else -99
    seg = shots[0][2]
    q = seg * quadrants // count + 1
    near = seg in case.shooter or abs(seg - mid) <= 1
    if len(shots) > 1 or not near or q != 1 or [[e[0]] for e in before] != expected_before:
        return f"wrong: {events}"
    return "ok"


def run_cases(
    cases: list[hp.Case], impl: str, rested: bool, geo: dict[str, Any], strip: hf.Strip, firmware: Path | None = None
) -> list[str]:
    """Play the cases on the firmware in `firmware` (this checkout's by default) under MicroPython or CPython."""
    import os
    import subprocess

    cfg = hp.strip_config(strip, geo)
    data = json.dumps(payload(cases, cfg, rested))
    fw = firmware or ROOT / "firmware"
    if impl == "micropython":
        from firmware_runner import micropython_exe

        cmd = [micropython_exe(), "-X", "heapsize=8m", "-c", SCRIPT]
        env = {**os.environ, "MICROPYPATH": f"{fw}:.frozen"}
    else:
        cmd = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(fw)!r})\n" + SCRIPT]
        env = dict(os.environ)
    p = subprocess.run(cmd, input=data, capture_output=True, text=True, timeout=900, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{impl} exited {p.returncode}: {p.stderr[-2000:]}")
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == len(cases), (len(lines), len(cases))
    return [judge(c, ev, rested, cfg["quadrants"], cfg["count"]) for c, ev in zip(cases, lines, strict=True)]


def rates(
    impl: str = "micropython", step_mm: float = 2.0, worst: bool = False, firmware: Path | None = None
) -> dict[str, dict[str, Any]]:
    """{gap: {"cases", "missed", "wrong"} per variant} for the strip of hardware/geometry.json."""
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    cs = hp.cases(geo, strip, step_mm=step_mm, worst=worst)
    out: dict[str, dict[str, Any]] = {}
    for rested in (False, True):
        res = run_cases(cs, impl, rested, geo, strip, firmware)
        for c, r in zip(cs, res, strict=True):
            key = f"{'rested' if rested else 'placed'} {c.gap:g} mm"
            d = out.setdefault(key, {"cases": 0, "missed": 0, "wrong": 0, "examples": []})
            d["cases"] += 1
            if r == "missed":
                d["missed"] += 1
                if len(d["examples"]) < 3:
                    d["examples"].append({"arc": c.arc, "r": c.radius, "side": c.side, "shooter": c.shooter, "got": r})
            elif r != "ok":
                d["wrong"] += 1
                if len(d["examples"]) < 3:
                    d["examples"].append({"arc": c.arc, "r": c.radius, "side": c.side, "shooter": c.shooter, "got": r})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", choices=("micropython", "cpython"), default="micropython")
    ap.add_argument("--step", type=float, default=2.0, help="mm between two shooter positions along the arc")
    ap.add_argument("--worst", action="store_true", help="the least sensitive switch and the weakest magnet")
    ap.add_argument("--firmware", type=Path, help="another checkout's firmware/ folder (e.g. to compare with main's)")
    args = ap.parse_args(argv)
    for key, d in rates(args.impl, args.step, args.worst, args.firmware).items():
        n = d["cases"]
        print(
            f"{key}: {n} cases, missed {d['missed']} ({100 * d['missed'] / n:.1f} %), "
            f"wrong {d['wrong']} ({100 * d['wrong'] / n:.1f} %)"
        )
        for ex in d["examples"]:
            print("   ", ex)
    return 0


if __name__ == "__main__":
    sys.exit(main())
