"""`flickboard accuracy JOURNAL`: a board's sensor evidence against the truth the players recorded.

A scripted match goes through the real bridge (board lines from the firmware's own encoder, decoded, journaled and
folded by the bridge), with misses and false triggers put in on purpose; the report must count each one where it
belongs. Bad input gives one line, never a traceback.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from e2e import FLICKBOARD, proto

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.cli.main import main
from flickboard.core.session import Session
from flickboard.rules.pichenotte import Pichenotte

SENSORS = [
    {"name": "hole", "kind": "beam"},
    {"name": "ditch1", "kind": "beam"},
    {"name": "ditch2", "kind": "beam"},
    {"name": "baseline", "kind": "hall", "count": 16},
]
Q1 = {"q": 1, "seg": 2}  # Ana's quadrant
Q3 = {"q": 3, "seg": 10}  # Ben's


class Table:
    """One board on an in-process bridge: `event` sends a board line, `enter` a person's entry."""

    def __init__(self, tmp: Path) -> None:
        self.bridge = Bridge(tmp / "journals", GameSetup("tournament-2019", ("Ana", "Ben"), "games:1"))
        self.enc = proto.Encoder("t1", 1)
        self.t0 = time.monotonic()
        self.acks: list[str] = []
        self.line(self.enc.hello(0, "test", "pico_w", SENSORS, "power"))

    def line(self, text: str) -> None:
        self.bridge.serial_line("/dev/ttyACM0", text, self.acks.append)

    def event(self, kind: str, sensor: str, **fields: Any) -> int:
        """Send a sensor event now (board time follows the wall clock); returns its journal entry."""
        t_us = int((time.monotonic() - self.t0) * 1e6)
        self.line(self.enc.event(kind, sensor, t_us, fields))
        return len(self.bridge.games["t1"].session.journal.records)

    def enter(self, text: str) -> None:
        out = self.bridge.submit("t1", text)
        assert out.accepted, f"{text}: {out.message}"

    def journal(self) -> str:
        path = self.bridge.games["t1"].session.journal.path
        self.bridge.close()
        return path


def accuracy(path: str) -> dict[str, Any]:
    out = io.StringIO()
    assert main(["accuracy", path, "--json"], out) == 0
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


def row(doc: dict[str, Any], sensor: str, evidence_word: str) -> dict[str, Any]:
    found = [r for r in doc["sensors"] if r["sensor"] == sensor and evidence_word in r["evidence"]]
    assert len(found) == 1, doc["sensors"]
    return found[0]


def play_with_mistakes(tmp: Path) -> str:
    t = Table(tmp)
    t.event("pass", "hole", dur_us=900)  # false: nobody is shooting (a hand over the hole)
    t.enter("reviewed")
    t.event("shot_start", "baseline", **Q1)  # Ana's free shot
    t.event("pass", "hole", dur_us=900)  # a real twenty
    t.enter("confirm")
    t.event("shot_start", "baseline", **Q3)  # Ben's shot
    struck = t.event("pass", "hole", dur_us=900)  # false: no puck went in
    t.enter(f"correct {struck} -")
    t.enter("zone")
    t.event("shot_start", "baseline", **Q1)  # Ana
    t.enter("hit")
    t.event("pass", "ditch1", dur_us=3000)  # a real one: Ben's puck knocked into the ditch
    t.enter("Ben:ditch")
    t.event("pass", "ditch2", dur_us=3000)  # false: nothing else went in
    t.event("shot_start", "baseline", **Q3)  # Ben; waits for the extra ditch pass to be explained
    t.enter("reviewed")
    t.enter("hit in")  # missed by the hole beam: a twenty nobody's sensor saw
    t.enter("Ana:ditch")  # missed by the ditch beams
    t.event("shot_start", "baseline", **Q1)  # Ana
    t.enter("short")  # a free shot short of the zone: her puck goes to the ditch by rule, across a beam or not
    t.event("pass", "ditch1", dur_us=3000)  # it did: a detection, not a false trigger
    t.enter("end")
    t.enter("shot Ben zone")  # Ben's whole shot typed by hand: the baseline strip missed its start
    return t.journal()


def test_report_counts_each_injected_miss_and_false_trigger(tmp_path: Path) -> None:
    doc = accuracy(play_with_mistakes(tmp_path))
    assert doc["format"] == "flickboard-accuracy" and doc["shots"] == 6
    hole = row(doc, "hole", "twenty hole")
    assert (hole["events"], hole["detections"], hole["misses"]) == (3, 1, 1), hole
    assert (hole["false_triggers"], hole["outside_a_shot"]) == (2, 1), hole
    d1, d2 = row(doc, "ditch1", "ditch"), row(doc, "ditch2", "ditch")
    assert (d1["events"], d1["detections"], d1["false_triggers"]) == (2, 2, 0), d1
    assert (d2["events"], d2["detections"], d2["false_triggers"]) == (1, 0, 1), d2
    assert d1["misses"] is None and d2["misses"] is None, "a ditch miss is not one beam's"
    assert doc["ditch_misses_all_beams"] == 1
    start = row(doc, "baseline", "shots begun")
    assert (start["events"], start["detections"], start["misses"], start["false_triggers"]) == (5, 5, 1, 0), start
    for r in (hole, d1, d2, start):
        lat = r["latency_ms"]
        assert lat is not None and 0 <= lat["p50"] <= lat["max"] < 5000, r
    assert doc["waiting_unjudged"] == 0


def test_text_report_is_a_table_per_sensor(tmp_path: Path) -> None:
    path = play_with_mistakes(tmp_path)
    p = subprocess.run([FLICKBOARD, "accuracy", path], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].endswith("6 shots, 11 sensor events"), lines[0]
    assert lines[1].split()[:3] == ["sensor", "evidence", "events"]
    hole = next(ln for ln in lines if ln.startswith("hole "))
    assert "pucks through the twenty hole" in hole
    assert hole.split("hole", 2)[2].split()[:5] == ["3", "1", "1", "2", "1"], hole
    assert "ditch beams together: 1 missed" in p.stdout


def test_a_journal_without_sensors_says_so(tmp_path: Path) -> None:
    path = tmp_path / "hand.jsonl"
    s = Session.create(str(path), Pichenotte.create("tournament-2019", ["Ana", "Ben"]))
    s.submit("shot zone")
    s.close()
    out = io.StringIO()
    assert main(["accuracy", str(path)], out) == 0
    assert "no sensor events to judge" in out.getvalue()


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("this is not a journal\nnor is this\n")
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\xff\xfe\x00{{\n")
    for arg, says in [
        (str(tmp_path / "missing.jsonl"), "does not exist"),
        (str(text), "damaged"),
        (str(binary), "not a usable journal"),
        (str(tmp_path), "could not be read"),
    ]:
        p = subprocess.run([FLICKBOARD, "accuracy", arg], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (arg, p.stdout, p.stderr)
        assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stderr.startswith("flickboard: ") and says in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    p = subprocess.run([FLICKBOARD, "accuracy"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_the_cli_lists_accuracy() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "flickboard.cli.main", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "accuracy" in p.stdout
