"""A game transcript turned into a simulated-board timeline, played by the real firmware under MicroPython:
the sensor events that come out are the ones the game implies (issue: timelines "generated from a game")."""

from __future__ import annotations

import json
import os
import subprocess
import zlib
from collections import Counter
from pathlib import Path

from firmware_runner import FIRMWARE, ROOT, micropython_exe

from host.board_scenario import from_transcript, quadrant_of
from host.cli import sample_path
from rules.transcript import parse_transcript


def test_sample_game_on_the_simulated_board(tmp_path: Path) -> None:
    t = parse_transcript(Path(sample_path()).read_text())
    scenario = from_transcript(t, board_id="table1")
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    p = subprocess.run(
        [
            micropython_exe(),
            str(FIRMWARE / "simboard.py"),
            str(tmp_path / "s.json"),
            "--profiles",
            str(ROOT / "hardware" / "profiles"),
        ],
        env={**os.environ, "MICROPYPATH": f"{FIRMWARE}:.frozen"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, p.stderr
    msgs = []
    for line in p.stdout.splitlines():
        body, _, crc = line[4:].rpartition("|")
        assert line.startswith("FB1|") and f"{zlib.crc32(body.encode()):08x}" == crc
        msgs.append(json.loads(body))
    kinds = Counter((m["m"], m.get("n", "")[:5]) for m in msgs if m["m"] not in ("hello", "heartbeat"))
    # The sample game (host/samples/club-night.pich): 24 shots; twenties: 'call in', 'Ana:in', 'hit in',
    # 'call in' x2 -> 5 hole passes; to the ditch: Ben:ditch x2, Ben:off, Ana:rebound, Ana:ditch -> 5 ditch
    # passes; one 'edge' (A-4) -> stuck then clear; one 'base' -> baseline_rest, lifted off later.
    assert kinds[("pass", "hole")] == 5
    assert kinds[("pass", "ditch")] == 5
    assert kinds[("stuck", "hole")] == 1 and kinds[("clear", "hole")] == 1
    assert kinds[("baseline_rest", "basel")] == 1
    assert kinds[("shot_start", "basel")] == 24 + 1, "every shot, plus the baseline puck lifted off by hand"
    starts = [m for m in msgs if m["m"] == "shot_start"]
    assert [s["q"] for s in starts[:4]] == [1, 3, 1, 3], "Ana (seat 0) shoots from quadrant 1, Ben from 3"
    reliable = [m["s"] for m in msgs if m["m"] != "heartbeat"]
    assert reliable == list(range(1, len(reliable) + 1)), "hello and every event, once each, in order"


def test_quadrants_follow_the_seats() -> None:
    assert [quadrant_of(s, 2) for s in (0, 1)] == [1, 3]
    assert [quadrant_of(s, 4) for s in (0, 1, 2, 3)] == [1, 2, 3, 4]
