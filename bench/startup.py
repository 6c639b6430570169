"""Figure 9: how long a command takes, start to end, run as a person runs it, beside `python -c pass`.

Each command is the real `flickboard` executable in a process of its own, with the bytecode cache Python keeps
beside the modules (as an installed package has it: PYTHONDONTWRITEBYTECODE is left out of its environment, and one
round runs first to fill the cache). The commands take turns, round after round, so that a moment when the machine
is busy falls on all of them alike; the floor, `python -c pass` with the same interpreter, takes its turn too.

`enter` and `scoreboard --once` talk to a live Mosquitto and a real `flickboard bridge` following the board, so their
time includes the broker's round trip and the bridge's answer; the tournament commands read an event of 16 entrants
in a Swiss stage with a round played; `tournament result` enters the round's last result, and `tournament pair` pairs
the next round, each in a fresh copy of the event each time (the pairing's maximum-weight matching included).

    python -m bench.startup [--rounds N] [--flickboard PATH]     # prints the figure as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from flickboard import lifecycle
from flickboard.sim.broker import mosquitto

from .common import NODELAY, percentile

TARGET_MS = 200  # a command answers at once: under 0.2 s from start to end
ENTRANTS = ["Ana", "Ben", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu", "Mo", "Ned", "Oz", "Pia"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_COLOR"] = "1"
    return env


def _event(exe: str, folder: Path) -> tuple[Path, Path]:
    """A Swiss stage of 16 seeded entrants with its first round paired: (the round played, all but its last match)."""
    path = folder / "open.jsonl"

    def t(*args: str) -> str:
        p = subprocess.run([exe, "tournament", *args], capture_output=True, text=True, timeout=120, env=_env())
        if p.returncode != 0:
            raise RuntimeError(f"tournament {args[0]}: {p.stderr.strip()}")
        return p.stdout

    t("new", str(path), "--name", "Bench Open")
    for seed, name in enumerate(ENTRANTS, 1):
        t("add", str(path), name, "--seed", str(seed))
    t("start", str(path), "swiss", "--format", "swiss", "--rounds", "4")
    t("pair", str(path), "swiss")  # seed k meets seed k + 8 in match k
    half = len(ENTRANTS) // 2
    for k in range(1, half):
        t("result", str(path), f"swiss/R1-{k}", ENTRANTS[k - 1], "--points", "300-200")
    pending = folder / "pending.jsonl"
    shutil.copy(path, pending)
    t("result", str(path), f"swiss/R1-{half}", ENTRANTS[half - 1], "--points", "300-200")
    return path, pending


def measure(
    exe: str | None = None, rounds: int = 15, broker_conf: str = NODELAY, skip: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The figure for the `flickboard` at `exe` (default: this venv's); `skip`: commands left out (by the start of
    their name)."""
    exe = exe or str(Path(sys.executable).parent / "flickboard")
    python = str(Path(exe).parent / "python")
    with tempfile.TemporaryDirectory(prefix="flickboard-startup-") as tmp, mosquitto(broker_conf) as broker:
        folder = Path(tmp)
        event, pending = _event(exe, folder)
        bridge = lifecycle.spawn(
            [exe, "bridge", "--mqtt", broker.url, "--boards", "t1", "--journals", str(folder / "journals"),
             "--players", "Ana", "Ben", "--client-id", "startup-bridge"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=_env(), cwd=folder,
        )  # fmt: skip
        try:
            commands: dict[str, list[str]] = {
                "python -c pass": [python, "-c", "pass"],
                "--help": [exe, "--help"],
                "rules list": [exe, "rules", "list"],
                "replay --sample": [exe, "replay", "--sample"],
                "enter (a bridge answers)": [exe, "enter", "--mqtt", broker.url, "--board", "t1", "undo"],
                "scoreboard --once": [exe, "scoreboard", "--mqtt", broker.url, "--board", "t1", "--once"],
                "tournament standings": [exe, "tournament", "standings", str(event)],
                "tournament show": [exe, "tournament", "show", str(event)],
                "tournament result": [
                    exe,
                    "tournament",
                    "result",
                    "PENDING",
                    "swiss/R1-8",
                    ENTRANTS[7],
                    "--points",
                    "300-200",
                ],
                "tournament pair (Swiss)": [exe, "tournament", "pair", "PLAYED", "swiss"],
            }
            commands = {k: v for k, v in commands.items() if not k.startswith(skip) or not skip}
            times: dict[str, list[float]] = {name: [] for name in commands}
            failed: dict[str, str] = {}
            for r in range(rounds + 1):  # round 0 fills the bytecode cache and is not counted
                for name, cmd in commands.items():
                    cmd = _fresh(cmd, event, pending, folder, r)
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_env(), cwd=folder)
                    took = (time.perf_counter() - t0) * 1000
                    if p.returncode not in (0, 1):
                        failed[name] = (p.stderr or p.stdout).strip()[-300:]
                    if r:
                        times[name].append(took)
            if failed:
                raise RuntimeError(f"a command failed: {failed}")
            bridge_alive = bridge.poll() is None
        finally:
            lifecycle.end(bridge)
    if not bridge_alive:
        raise RuntimeError("the bridge stopped during the figure")
    floor = statistics.median(times["python -c pass"])
    out: dict[str, Any] = {"rounds": rounds, "flickboard": exe, "target_ms": TARGET_MS, "commands": {}}
    for name, samples in times.items():
        p50 = statistics.median(samples)
        out["commands"][name] = {
            "p50_ms": round(p50, 1),
            "p90_ms": round(percentile(samples, 90), 1),
            "min_ms": round(min(samples), 1),
            "over_floor": round(p50 / floor, 1),
        }
    return out


def _fresh(cmd: list[str], played: Path, pending: Path, folder: Path, r: int) -> list[str]:
    """A command that changes the event works on a fresh copy of it each time, made before the clock starts."""
    for word, event in (("PLAYED", played), ("PENDING", pending)):
        if word in cmd:
            copy = folder / f"copy-{r}-{word.lower()}.jsonl"
            shutil.copy(event, copy)
            return [str(copy) if w == word else w for w in cmd]
    return cmd


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--flickboard", help="the flickboard command to time (default: this venv's)")
    ap.add_argument("--skip", action="append", default=[], help="leave out the commands whose name starts so")
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.flickboard, args.rounds, skip=tuple(args.skip)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
