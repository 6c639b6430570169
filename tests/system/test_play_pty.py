"""`flickboard play` driven like a person at a terminal: the real program on a pseudo-terminal (so stdin is
a tty and readline is active), one typed line at a time, reading the screen until the next prompt."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flickboard.cli.files import sample_path

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]
TIMEOUT = 5.0
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>]|\x1b\][^\x07]*\x07|[\r\x07]")
_STATUS = re.compile(r"^(Game \d+ · |Match over: |match |Twenties shoot-out |  \S+ +twenties )")


def _controlling_tty() -> None:  # runs in the child, after setsid(): the pty becomes its terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """The screen of one `flickboard play` run, as text with terminal escapes removed."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb", "INPUTRC": "/dev/null"}
        env.pop("FLICKBOARD_DEBUG", None)
        self.proc = subprocess.Popen(
            [*FLICKBOARD, "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_tty,
        )
        os.close(slave)
        self.screen = ""  # everything shown so far
        self.mark = 0  # where the text of the latest exchange starts

    def _read(self, deadline: float) -> bool:
        """Read what is there; False when the program has closed the terminal."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child exited and the slave side is closed
            return False
        if not data:
            return False
        self.screen += _ESCAPES.sub("", data.decode("utf-8", "replace"))
        return True

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """Wait until `pattern` (a regex) appears after the mark; fail with the screen so far if it does not."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        while True:
            m = rx.search(self.screen, self.mark)
            if m:
                return m
            if time.monotonic() >= deadline or not self._read(deadline):
                pytest.fail(f"did not see {pattern!r} within {timeout}s; the screen:\n{self.screen[-4000:]}")

    def prompt(self) -> str:
        """Wait for the input prompt; returns the text of this exchange (from the mark to the prompt)."""
        m = self.expect(r"^> \Z")
        text = self.screen[self.mark : m.start()]
        self.mark = m.end()
        return text

    def type(self, keys: str) -> str:
        """Type a line (or raw keys ending in a newline) at the prompt; returns what the program answered."""
        os.write(self.master, keys.encode())
        return self.prompt()

    def eof(self) -> None:
        os.write(self.master, b"\x04")

    def wait(self) -> int:
        deadline = time.monotonic() + TIMEOUT
        while self._read(deadline) and time.monotonic() < deadline:
            pass
        return self.proc.wait(timeout=TIMEOUT)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


@pytest.fixture
def terminals(tmp_path: Path) -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for t in started:
        t.close()


def start(terminals: list[Terminal], cwd: Path, *args: str) -> Terminal:
    t = Terminal(cwd, *args)
    terminals.append(t)
    return t


def status(text: str) -> list[str]:
    """The compact status printed after each input."""
    return [line for line in text.splitlines() if _STATUS.match(line)]


def prompt_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def test_singles_contact_miss_call_choose_refusals_undo_and_resume(tmp_path: Path, terminals: list[Terminal]) -> None:
    t = start(terminals, tmp_path, "--rules", "tournament-2019", "--players", "North", "South", "--journal", "j.jsonl")
    first = t.prompt()
    assert "New match, journal j.jsonl" in first
    assert status(first) == [
        "Game 1 · 0/24 shots played · match games:8, no game finished yet",
        "  North  twenties  0  board  0  ditch  0  hand 12",
        "  South  twenties  0  board  0  ditch  0  hand 12",
    ]
    assert prompt_line(first).startswith("North to shoot (1/24) · FREE SHOT: must rest in the 10 zone")
    assert prompt_line(first).endswith("→ shot zone | shot short | shot in")

    out = t.type("shot zone\n")
    assert "  ok [1] shot zone" in out
    assert prompt_line(out).startswith("South to shoot (2/24) · CONTACT OR CALL: touch one of North's pucks")
    assert prompt_line(out).endswith("→ shot hit | shot miss | shot call in | shot call")

    out = t.type("shot hit\n")
    assert "  ok [2] shot hit" in out

    out = t.type("shot North miss\n")  # contact shot, no contact: the puck goes to the ditch (R-8 A)
    assert "  ok [3] shot North miss" in out
    assert "→ no contact: shooting puck to the ditch" in out
    assert "  North  twenties  0  board  1  ditch  1  hand 10" in status(out)

    out = t.type("shot call\n")  # South declares a twenty and misses: North chooses (R-8 B)
    assert "  ok [4] shot call" in out
    assert prompt_line(out).startswith("QUESTION: South's declared twenty failed: North chooses")
    assert prompt_line(out).endswith("→ type: choose leave | choose ditch")
    before = status(out)

    out = t.type("shot hit\n")  # refused: the question comes first; nothing changes
    assert re.search(r"^  refused \[5\]: first answer: .*choose leave / choose ditch", out, re.M)
    assert status(out) == before
    assert prompt_line(out).startswith("QUESTION: South's declared twenty failed")

    out = t.type("choose ditch\n")
    assert "  ok [6] choose ditch" in out
    assert "→ declared twenty missed: opponent removed the shooting puck" in out
    assert "  South  twenties  0  board  1  ditch  1  hand 10" in status(out)
    before = status(out)

    out = t.type("shot South hit\n")  # refused: the rotation says North
    assert "  refused [7]: it is North's shot, not South's" in out
    assert status(out) == before

    out = t.type("shot call in\n")
    assert "  ok [8] shot call in" in out and "  TWENTY for North" in out
    assert "  North  twenties  1  board  1  ditch  1  hand  9" in status(out)

    out = t.type("undo\n")
    assert "  ok [9] undid entry 8: shot call in" in out
    assert status(out) == before
    assert prompt_line(out).startswith("North to shoot (5/24) · CONTACT OR CALL")

    # Readline: Ctrl-P recalls the previous line, Tab completes the notation.
    out = t.type("\x10\n")
    assert "  ok [10] undid entry 6: choose ditch" in out
    assert prompt_line(out).startswith("QUESTION: South's declared twenty failed")
    out = t.type("cho\tlea\t\n")
    assert "  ok [11] choose leave" in out
    assert "  South  twenties  0  board  2  ditch  0  hand 10" in status(out)
    now = status(out)

    out = t.type("score\n")
    assert "Game 1 (breaker North), shot 4/24" in out
    assert "  South  twenties  0  board  2  ditch  0  hand 10" in out
    assert "(2 input(s) refused; nothing they said was counted)" in out
    out = t.type("help\n")
    assert "penalty SIDE" in out and "SIDE 15 10 10 5" in out and "undo" in out
    last = t.type("status\n")
    assert status(last) == now

    os.write(t.master, b"quit\n")
    t.expect(r"^Journal saved: j\.jsonl$")
    assert t.wait() == 0

    # A new terminal: the match goes on exactly where it was.
    r = start(terminals, tmp_path, "--resume", "j.jsonl")
    shown = r.prompt()
    assert "Resumed j.jsonl: 11 entries replayed (2 refused)." in shown
    assert "Last input in effect: [11] choose leave" in shown
    assert status(shown) == status(last)
    assert prompt_line(shown) == prompt_line(last)
    r.eof()  # Ctrl-D leaves cleanly too
    r.expect(r"^Journal saved: j\.jsonl$")
    assert r.wait() == 0


def test_full_game_to_the_zones_and_the_match_result(tmp_path: Path, terminals: list[Terminal]) -> None:
    inputs = []
    for line in Path(sample_path()).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("["):
            inputs.append(line)
    assert inputs[-2:] == ["Ana 15 10 10 5 edge", "Ben 15 15 10 5"]
    t = start(terminals, tmp_path, "--players", "Ana", "Ben", "--match", "games:1", "--journal", "club.jsonl")
    t.prompt()
    for n, line in enumerate(inputs[:-2], 1):
        out = t.type(line + "\n")
        assert f"  ok [{n}] " in out, out

    # Every puck is shot: the prompt says what to type for each side.
    zones = out.rstrip("\n").splitlines()[-3:]
    assert zones[0].startswith("ZONES: every puck has been shot.") and "0 5 10 15 25 50; edge = 15" in zones[0]
    assert zones[1] == "  Ana: 5 pucks on the board → type Ana and 5 values, e.g.  Ana 15 15 15 15 15"
    assert zones[2] == "  Ben: 4 pucks on the board → type Ben and 4 values, e.g.  Ben 15 15 15 15"

    out = t.type("Ana 15 10 10 5\n")  # one value short
    assert "  refused [28]: Ana has 5 puck(s) on the board, so enter 5 zone value(s), not 4" in out
    out = t.type("Ana 15 10 10 5 edge\n")
    assert "  ok [29] zones Ana 15 10 10 5 15" in out
    assert prompt_line(out) == "  Ben: 4 pucks on the board → type Ben and 4 values, e.g.  Ben 15 15 15 15"

    out = t.type("Ben 15 15 10 5\n")
    assert "  ok [30] zones Ben 15 15 10 5" in out
    assert "  GAME 1 OVER: 115-65, won by Ana" in out
    assert "  MATCH OVER: Ana wins" in out
    assert status(out) == ["Match over: Ana wins; after 1 game: Ana 115 pts (1 won), Ben 65 pts (0 won)"]
    assert prompt_line(out).startswith("MATCH OVER: Ana wins.")

    out = t.type("score\n")
    assert re.search(r"^Ana +115\* +115 +1$", out, re.M) and re.search(r"^Ben +65 +65 +0$", out, re.M)
    assert "penalties Ben -20" in out
    t.eof()
    t.expect(r"^Journal saved: club\.jsonl$")
    assert t.wait() == 0


def test_doubles_start_goes_clockwise(tmp_path: Path, terminals: list[Terminal]) -> None:
    players = ["Ann", "Bob", "Cat", "Dan"]
    t = start(terminals, tmp_path, "--rules", "beginner", "--players", *players, "--journal", "d.jsonl")
    first = t.prompt()
    assert status(first)[1:] == [
        "  Ann+Cat  twenties  0  board  0  ditch  0  hand 12",
        "  Bob+Dan  twenties  0  board  0  ditch  0  hand 12",
    ]
    assert prompt_line(first).startswith("Ann (Ann+Cat) to shoot (1/24) · FREE SHOT")
    assert prompt_line(first).endswith("→ shot | shot in")  # beginner: a free shot stays where it rests
    out = t.type("shot\n")
    assert prompt_line(out).startswith("Bob (Bob+Dan) to shoot (2/24) · CONTACT OR CALL")
    out = t.type("shot Cat hit\n")  # out of turn: refused (R-2 clockwise)
    assert "  refused [2]: it is Bob's shot, not Cat's" in out
    out = t.type("shot Bob hit\n")
    assert prompt_line(out).startswith("Cat (Ann+Cat) to shoot (3/24)")
    out = t.type("shot hit\n")
    assert prompt_line(out).startswith("Dan (Bob+Dan) to shoot (4/24)")
    out = t.type("shot hit\n")
    assert prompt_line(out).startswith("Ann (Ann+Cat) to shoot (5/24)")
    assert status(out)[1:] == [
        "  Ann+Cat  twenties  0  board  2  ditch  0  hand 10",
        "  Bob+Dan  twenties  0  board  2  ditch  0  hand 10",
    ]
    os.write(t.master, b"quit\n")
    t.expect(r"^Journal saved: d\.jsonl$")
    assert t.wait() == 0
