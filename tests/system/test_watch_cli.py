"""`flickboard watch` against the simulated board behind a pseudo-terminal, as against a board on USB: a line per change
of any sensor while a timeline breaks beams and walks a magnet along the strip. And the modem lines of every port the
host opens: an ESP32 DevKit resets while RTS is raised without DTR (its auto-reset circuit), so no open or close may
pass through that state (flickboard.board.links.open_board_port)."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from flickboard.board import links

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")


def test_watch_prints_each_change_of_the_simulated_board(tmp_path: Path) -> None:
    scenario = {
        "profile": "pico_w",
        "hall_start": [],
        "events": [  # after `flickboard watch` has started (about a second)
            {"at_ms": 2000, "beam": "hole", "dur_us": 300000},
            {"at_ms": 2500, "hall": "baseline", "seg": 5, "present": True},
            {"at_ms": 2800, "hall": "baseline", "seg": 5, "present": False},
            {"at_ms": 3100, "beam": "ditch2", "dur_us": 200000},
        ],
        "end_ms": 3500,
    }
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    sim = subprocess.Popen(
        [FLICKBOARD, "sim", str(tmp_path / "s.json"), "--pty", "--run-on", "--realtime", "--board", "bench"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sim.stdout is not None
        first = sim.stdout.readline()
        port = first.split(" on ")[1].split()[0]
        w = subprocess.run(
            [FLICKBOARD, "watch", "--port", port, "--seconds", "4"], capture_output=True, text=True, timeout=30
        )
        assert w.returncode == 0, w.stderr
        lines = [ln for ln in w.stdout.splitlines()[1:] if "|" in ln]
        changed = [ln.split("|")[0].split(None, 1)[1].strip() for ln in lines]
        assert changed == [
            "now",
            "hole broken",
            "hole clear",
            "baseline 5",
            "baseline -",
            "ditch2 broken",
            "ditch2 clear",
            "end",
        ], w.stdout
        events = [ln.split("event ", 1)[1] for ln in w.stdout.splitlines() if " event " in ln]
        assert "pass hole dur_us=300000" in events and "pass ditch2 dur_us=200000" in events, w.stdout
        assert lines[0].split("|")[1].split() == [
            *("baseline", "-", "ditch1", "clear", "ditch2", "clear", "ditch3", "clear", "ditch4", "clear"),
            *("hole", "clear"),
        ], w.stdout
    finally:
        sim.send_signal(signal.SIGINT)
        assert sim.wait(10) in (0, 130)


def test_watch_says_in_one_line_when_the_port_is_not_there(tmp_path: Path) -> None:
    w = subprocess.run(
        [FLICKBOARD, "watch", "--port", str(tmp_path / "nothing")], capture_output=True, text=True, timeout=30
    )
    assert w.returncode == 2 and w.stderr.startswith("flickboard: cannot open ") and w.stderr.count("\n") == 1


class Lines:
    """The DTR and RTS lines as a USB-serial chip drives them, from the ioctls pyserial makes; `reset` when an ESP32
    DevKit's auto-reset circuit would pull EN low (RTS asserted, DTR not)."""

    def __init__(self) -> None:
        self.dtr = self.rts = True  # opening a tty raises both at once
        self.steps: list[tuple[bool, bool]] = []
        self.reset = False

    def ioctl(self, real: Any, fd: int, request: int, arg: Any = 0, *rest: Any) -> Any:
        bits = int.from_bytes(arg, sys.byteorder) if isinstance(arg, bytes) and len(arg) == 4 else 0
        if request in (termios.TIOCMBIS, termios.TIOCMBIC):
            on = request == termios.TIOCMBIS
            if bits & termios.TIOCM_DTR:
                self.dtr = on
            if bits & termios.TIOCM_RTS:
                self.rts = on
            self.steps.append((self.dtr, self.rts))
            self.reset = self.reset or (self.rts and not self.dtr)
            return arg  # a pseudo-terminal has no modem lines: record what a USB-serial chip would be told
        return real(fd, request, arg, *rest)


@pytest.mark.parametrize("start", [(True, True), (False, False)])
def test_opening_and_closing_a_board_port_never_raises_rts_alone(start: tuple[bool, bool]) -> None:
    serialposix: Any = __import__("serial.serialposix", fromlist=["fcntl"])
    real = serialposix.fcntl.ioctl
    lines = Lines()
    lines.dtr, lines.rts = start
    serialposix.fcntl.ioctl = lambda fd, req, arg=0, *r: lines.ioctl(real, fd, req, arg, *r)
    master, slave = pty.openpty()
    try:
        ser = links.open_board_port(os.ttyname(slave), 115200, 0.1, exclusive=False)
        assert (lines.dtr, lines.rts) == (True, True)  # a Pico W's USB port sends only while DTR is up
        links.close_board_port(ser)
    finally:
        serialposix.fcntl.ioctl = real
        os.close(master)
        os.close(slave)
    assert not lines.reset, lines.steps
    assert lines.steps[-2:] == [(True, False), (False, False)], lines.steps  # RTS down, then DTR: both down at close
