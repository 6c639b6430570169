"""A real `flickboard play` process killed with SIGKILL, then resumed: nothing acknowledged is lost, and the
match ends exactly as if it had never been interrupted (the journal is the truth)."""

from __future__ import annotations

import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from flickboard.core import journal
from flickboard.core.session import fold_entries
from flickboard.rules.pichenotte import Pichenotte

FLICKBOARD = Path(sys.executable).with_name("flickboard")
SETUP = ["--rules", "tournament-2019", "--players", "North", "South"]
ACK = re.compile(r"^\s*(?:>\s*)?(ok|refused) \[(\d+)\]")
WAIT = 30.0  # seconds; generous, a step takes milliseconds

# A whole game under the 2019 tournament rules and the start of the next, with every kind of entry.
LINES = [
    "shot North zone",  # 1 free shot
    "shot South hit",  # 2
    "shot North call in",  # 3 declared twenty, made
    "shot South miss",  # 4
    "shot Nort hit",  # 5 a typo: refused, journaled
    "shot North hit South:ditch",  # 6
    "shot South call",  # 7 declared twenty missed: North must choose (question open)
    "choose ditch",  # 8
    "shot North zone",  # 9
    "begin South",  # 10
    "in @sensor",  # 11 provisional twenty for South
    "correct 11 North:in",  # 12 no: South knocked a North puck in
    "end",  # 13 contact question open
    "hit",  # 14
    "shot North hit base",  # 15
    "shot South call in",  # 16
    "shot North hit in",  # 17
    "penalty South",  # 18
    "shot South hit South:ditch",  # 19
    "shot North call edge",  # 20 on edge: South chooses
    "choose leave",  # 21
    "shot South hit",  # 22
    "shot North hit South:off",  # 23
    "undo",  # 24
    "shot North hit South:rebound",  # 25
    "shot South miss",  # 26
    "shot North hit",  # 27
    "shot South hit North:rebound",  # 28
    "shot North hit",  # 29
    "shot South call in",  # 30
    "shot North hit hand",  # 31 (R-10-B)
    "shot South hit",  # 32
    "shot North hit",  # 33
    "shot South hit North:ditch",  # 34 the Hammer: zones are asked
    "North 15 10 10 5 edge",  # 35
    "South 15 15 10 5",  # 36 game 1 over
    "shot South zone",  # 37 game 2: the Hammer breaks
    "shot North hit",  # 38
    "begin South",  # 39
    "in @sensor",  # 40 provisional
    "confirm",  # 41
    "end",  # 42 contact question
    "miss",  # 43 no contact: the twenty is void (RULES-NOTES decision 1)
    "shot North call",  # 44
    "choose leave",  # 45
    "bogus",  # 46 refused
    "shot South hit",  # 47
]


def game() -> Pichenotte:
    return Pichenotte.create("tournament-2019", ["North", "South"])


def uninterrupted(lines: list[str]) -> dict[str, Any]:
    """The summary of the same lines folded in process, as one uninterrupted session would have it."""
    g = game()
    fold = fold_entries(g, [(i, text, "manual") for i, text in enumerate(lines, 1)])
    return g.summary(fold.state, len(fold.rejected))


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True)


class Play:
    """A running `flickboard play` whose stdout is read line by line on a thread."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        assert FLICKBOARD.exists(), f"{FLICKBOARD} is missing: install the package into the venv"
        self.stderr_path = cwd / f"stderr-{time.monotonic_ns()}.txt"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [str(FLICKBOARD), "play", *args],
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw.decode("utf-8", "replace"))
        self.lines.put(None)

    def next_line(self, timeout: float = WAIT) -> str | None:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"flickboard said nothing for {timeout}s; so far: {self.seen[-5:]}") from None
        if line is not None:
            self.seen.append(line)
        return line

    def wait_for(self, pattern: str) -> str:
        while True:
            line = self.next_line()
            assert line is not None, f"flickboard ended before {pattern!r}: {self.stderr()}"
            if pattern in line:
                return line

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def submit(self, text: str) -> tuple[str, int]:
        """Send one input and wait for its acknowledgement: ('ok' or 'refused', n)."""
        self.send(text)
        while True:
            line = self.next_line()
            assert line is not None, f"flickboard ended before acknowledging {text!r}: {self.stderr()}"
            m = ACK.match(line)
            if m:
                return m.group(1), int(m.group(2))

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        assert self.proc.wait(timeout=WAIT) == -signal.SIGKILL
        self.reader.join(timeout=WAIT)

    def acks(self) -> list[tuple[str, int]]:
        """Every acknowledgement printed (after the process ended: the queue is complete)."""
        while self.next_line(timeout=WAIT) is not None:
            pass
        return [(m.group(1), int(m.group(2))) for m in map(ACK.match, self.seen) if m]

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", "replace")


def run(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(FLICKBOARD), *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def replay_json(path: Path) -> dict[str, Any]:
    out = run(["replay", "--json", str(path)], path.parent)
    assert out.returncode == 0, out.stderr
    doc: dict[str, Any] = json.loads(out.stdout)
    return doc


def resume(path: Path, lines: list[str], replayed: int) -> subprocess.CompletedProcess[str]:
    """`play --resume` with more lines and quit; checks it replayed `replayed` entries and numbered on."""
    out = run(["play", "--resume", str(path)], path.parent, "".join(f"{t}\n" for t in [*lines, "quit"]))
    assert out.returncode == 0, out.stderr
    assert f"Resumed {path}: {replayed} entries replayed" in out.stdout
    acks = [int(m.group(2)) for m in map(ACK.match, out.stdout.splitlines()) if m]
    assert acks == list(range(replayed + 1, replayed + len(lines) + 1)), out.stdout
    return out


def journal_lines(path: Path) -> list[str]:
    return [r["in"] for r in journal.read(str(path)).records]


# (entries acknowledged before the kill, what the journal must show at that point)
KILL_POINTS = {
    "after-the-first-input": 1,
    "mid-game": 9,
    "choice-question-open": 7,
    "sensor-twenty-provisional": 11,
    "contact-question-open": 13,
    "between-the-zones": 35,
    "next-game-provisional": 40,
}


@pytest.mark.parametrize("killed_after", KILL_POINTS.values(), ids=KILL_POINTS.keys())
def test_sigkill_after_an_ack_then_resume_matches_an_uninterrupted_run(tmp_path: Path, killed_after: int) -> None:
    path = tmp_path / "j.jsonl"
    play = Play([*SETUP, "--journal", str(path)], tmp_path)
    play.wait_for("New match")
    for n, text in enumerate(LINES[:killed_after], 1):
        kind, acked = play.submit(text)
        assert acked == n
        assert kind == ("refused" if n == 5 else "ok"), play.seen[-3:]
    play.kill()

    # Every acknowledged entry is on disk, and nothing else; the state is the one at the kill.
    snap = journal.read(str(path))
    assert snap.torn_bytes == 0
    assert [r["in"] for r in snap.records] == LINES[:killed_after]
    at_kill = replay_json(path)
    assert dump(at_kill) == dump(uninterrupted(LINES[:killed_after]))
    if killed_after in (7, 13):
        assert at_kill["questions"], "the open question must survive the crash"
    if killed_after in (11, 40):
        assert at_kill["current"]["provisional_twenties"], "the provisional twenty must survive the crash"
    if killed_after == 35:
        assert [q["kind"] for q in at_kill["questions"]] == ["zones"]

    more = LINES[killed_after : killed_after + 6]
    out = resume(path, more, killed_after)
    assert "note:" not in out.stdout  # nothing was torn
    sent = LINES[: killed_after + len(more)]
    assert journal_lines(path) == sent
    final = replay_json(path)
    assert dump(final) == dump(uninterrupted(sent))
    assert final["rejected_inputs"] == sum(1 for n in (5, 46) if n <= len(sent))


def test_the_whole_scenario_is_what_the_test_thinks_it_is() -> None:
    """Guards the scenario itself: only entries 5 and 46 are refused, game 1 ends at entry 36."""
    g = game()
    fold = fold_entries(g, [(i, text, "manual") for i, text in enumerate(LINES, 1)])
    assert [n for n, _, _ in fold.rejected] == [5, 46]
    doc = g.summary(fold.state, len(fold.rejected))
    assert len(doc["games"]) == 1
    # North: 3 twenties + zones 15+10+10+5+15; South: 2 twenties + 15+15+10+5 - 20.
    assert doc["games"][0]["points"] == [115, 65]
    assert doc["current"]["game"] == 2


@pytest.mark.parametrize("seed", range(8))
def test_sigkill_at_a_random_moment_loses_nothing_acknowledged(tmp_path: Path, seed: int) -> None:
    """A burst of input, killed a few milliseconds later: usually in the middle of the burst (one input
    takes about half a millisecond here), sometimes between writing an entry and printing its ack."""
    rng = random.Random(seed)
    path = tmp_path / "j.jsonl"
    play = Play([*SETUP, "--journal", str(path)], tmp_path)
    play.wait_for("New match")  # the journal and its header are on disk before this is printed
    burst = LINES[: rng.randint(1, len(LINES))]
    assert play.proc.stdin is not None
    play.proc.stdin.write("".join(f"{t}\n" for t in burst).encode("utf-8"))
    play.proc.stdin.flush()
    time.sleep(rng.uniform(0.0, 0.01))
    play.kill()
    acks = play.acks()

    # Acknowledgements come in order, and every acknowledged input is in the journal as it was sent.
    assert [n for _, n in acks] == list(range(1, len(acks) + 1))
    snap = journal.read(str(path))
    stored = [r["in"] for r in snap.records]
    assert len(acks) <= len(stored) <= len(burst)
    assert stored == LINES[: len(stored)]
    for kind, n in acks:
        assert kind == ("refused" if n in (5, 46) else "ok")

    # Resume succeeds (setting aside a torn tail, if the kill tore one) and the match finishes as if
    # nothing had happened.
    k = len(stored)
    out = resume(path, LINES[k:], k)
    assert ("note:" in out.stdout) == (snap.torn_bytes > 0)
    assert journal_lines(path) == LINES
    assert dump(replay_json(path)) == dump(uninterrupted(LINES))
