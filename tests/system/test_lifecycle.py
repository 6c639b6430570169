"""A stopped command leaves nothing running (host/lifecycle.py).

Every long-running command is started as a user, a service manager or a test harness starts it, then stopped: by
SIGINT (Ctrl-C), SIGTERM (a service manager, `kill`), SIGHUP (a closed terminal), by `kill -9` (its children must
notice), or by the death of its parent (a foreground tool stops with it; a service keeps running, as daemons do).
Afterwards no process it started is left, and no TCP connection to the test's broker is still open. The rig's
commands with the emulated Pico's firmware image (`sim --rp2`, `demo --rp2`) are stopped the same way in
tests/firmware/test_rp2_game.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import procs
import pytest
from e2e import FLICKBOARD

from flickboard.sim.broker import Broker, free_port

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGHUP": signal.SIGHUP}
# A parent that starts the command and waits: killed with SIGKILL, it cannot pass anything on.
PARENT = "import subprocess, sys, time\nsubprocess.Popen(sys.argv[1:])\ntime.sleep(3600)\n"


@dataclass
class Command:
    """How to start one command, the line it prints once it runs, what it starts, whether it uses the broker."""

    argv: list[str]
    ready: str
    starts: set[str] = field(default_factory=set)
    broker: bool = False
    tool: bool = True  # a foreground tool stops with its parent; a service does not


def commands(name: str, url: str, tmp: Path) -> Command:
    scenario = tmp / "idle.json"
    scenario.write_text(json.dumps({"profile": "pico_w", "events": [], "end_ms": 1000}))
    py = sys.executable
    return {
        "sim": Command([FLICKBOARD, "sim", str(scenario), "--pty", "--run-on", "--board", "lc"],
                       "simulated board lc on", {"micropython"}),
        "sim-mqtt": Command([FLICKBOARD, "sim", str(scenario), "--mqtt", url, "--run-on", "--board", "lc"],
                            "simulated board lc", {"micropython"}, broker=True),
        "demo": Command([FLICKBOARD, "demo", "--live", "--journals", str(tmp / "j")], "demo: simulated board",
                        {"micropython", "mosquitto"}),
        "bridge": Command([FLICKBOARD, "bridge", "--mqtt", url, "--boards", "lc", "--journals", str(tmp / "j")],
                          "flickboard bridge:", broker=True, tool=False),
        "web": Command([FLICKBOARD, "web", "--mqtt", url, "--port", str(free_port()), "--board", "lc"],
                       "TV:", broker=True, tool=False),
        "integrations": Command([FLICKBOARD, "integrations", "--mqtt", url, "--awtrix", "clock", "--board", "lc"],
                                "flickboard integrations:", broker=True, tool=False),
        "bench": Command([py, "-m", "bench.run", "--quick", "--only", "latency", "--out", str(tmp / "r.json")],
                         "==> latency", {"micropython", "mosquitto"}),
        "soak": Command([py, "tests/support/soak.py", "--seeds", "1", "--only", "network_drop_realtime", "--no-write"],
                        "", {"micropython", "mosquitto"}),
        "rig": Command([py, "-m", "flickboard.sim.rp2", "run"], "emulated Pico on", {"node"}),
    }[name]  # fmt: skip


NAMES = ["sim", "sim-mqtt", "demo", "bridge", "web", "integrations", "bench", "soak", "rig"]


class Running:
    """One command (or its parent, `parent=True`) started, its output read, its descendants watched. `session`:
    in a session of its own, as a terminal's foreground job is."""

    def __init__(self, cmd: Command, parent: bool = False, session: bool = False) -> None:
        argv = [sys.executable, "-c", PARENT, *cmd.argv] if parent else cmd.argv
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        env["PYTHONFAULTHANDLER"] = "1"  # SIGABRT prints every thread's stack (Running.stopped)
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=session,
            preexec_fn=procs.as_a_terminal_starts_it,
        )
        self.watch = procs.Watch(self.proc.pid)
        self.out: list[str] = []
        self._ready = threading.Event()
        self._want = cmd.ready
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace")
            self.out.append(line)
            if self._want in line:
                self._ready.set()

    def text(self) -> str:
        return "".join(self.out)

    def wait_ready(self, cmd: Command, port: int, timeout: float = 90.0) -> None:
        if cmd.ready:  # (the soak prints nothing before its first game ends)
            assert self._ready.wait(timeout), f"never said {cmd.ready!r}:\n{self.text()}"
        self.watch.wait_for(*cmd.starts, timeout=timeout)
        deadline = time.monotonic() + timeout
        while cmd.broker and procs.connections_to(port) == 0:
            assert time.monotonic() < deadline, f"never connected to the broker:\n{self.text()}"
            time.sleep(0.05)

    def stopped(self, timeout: float) -> int:
        """Its exit status; a command still running after `timeout` fails the test with every thread's stack (the
        faulthandler's, on SIGABRT) and what it said."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(20)
            time.sleep(0.5)  # the reader thread takes the last lines
            raise AssertionError(f"still running {timeout:.0f} s after the signal:\n{self.text()[-8000:]}") from None

    def command_pid(self) -> int:
        """The command under the parent (`parent=True`)."""
        kids = [pid for pid, _ in procs.descendants(self.proc.pid)]
        assert kids, self.text()
        return min(kids)

    def finish(self) -> set[procs.Proc]:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        seen = self.watch.stop()
        procs.kill_all(seen)
        return seen


def _check_nothing_left(run: Running, how: str, port: int) -> None:
    seen = run.watch.stop()
    left = procs.left_behind(seen)
    assert not left, f"{how} left {procs.names(left)} running:\n{run.text()}"
    deadline = time.monotonic() + 10
    while procs.connections_to(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert procs.connections_to(port) == 0, f"{how} left a connection to the broker open"
    assert "Traceback" not in run.text(), run.text()


@pytest.mark.parametrize("sig", list(SIGNALS), ids=list(SIGNALS))
@pytest.mark.parametrize("name", NAMES)
def test_a_signal_stops_the_command_and_what_it_started(name: str, sig: str, broker: Broker, tmp_path: Path) -> None:
    cmd = commands(name, broker.url, tmp_path)
    run = Running(cmd)
    try:
        run.wait_ready(cmd, broker.port)
        run.proc.send_signal(SIGNALS[sig])
        assert run.stopped(60) in (0, 1, 2, 130), run.text()  # a stop, not a death by the signal
        _check_nothing_left(run, f"{name} stopped by {sig}", broker.port)
        if not cmd.tool:  # a service said goodbye: its status went offline by its own hand, not by the broker's will
            assert "stopped" in run.text().splitlines()[-1], run.text()
    finally:
        run.finish()


@pytest.mark.parametrize("name", NAMES)
def test_a_killed_command_takes_its_children_with_it(name: str, broker: Broker, tmp_path: Path) -> None:
    """`kill -9`: no chance to clean up, yet every process it started ends (the kernel tells them)."""
    cmd = commands(name, broker.url, tmp_path)
    run = Running(cmd)
    try:
        run.wait_ready(cmd, broker.port)
        run.proc.kill()
        run.proc.wait(10)
        _check_nothing_left(run, f"{name} killed", broker.port)
    finally:
        run.finish()


@pytest.mark.parametrize("name", NAMES)
def test_when_the_parent_dies(name: str, broker: Broker, tmp_path: Path) -> None:
    """A tool stops with the program that started it (a harness, `make`); a service keeps running, as a daemon
    outlives the shell that started it, until it is told to stop."""
    cmd = commands(name, broker.url, tmp_path)
    run = Running(cmd, parent=True)
    try:
        run.wait_ready(cmd, broker.port)
        command = run.command_pid()
        run.proc.kill()
        run.proc.wait(10)
        if cmd.tool:
            _check_nothing_left(run, f"{name} whose parent died", broker.port)
        else:
            time.sleep(1.0)
            assert procs.alive({p for p in run.watch.seen if p[0] == command}), f"{name} ended with its parent"
            os.kill(command, signal.SIGTERM)
            _check_nothing_left(run, f"{name} stopped after its parent died", broker.port)
    finally:
        run.finish()


@pytest.mark.parametrize("how", ["SIGTERM to make", "SIGINT to the terminal", "SIGHUP to the terminal", "make killed"])
def test_make_bench_stops_with_make(how: str, tmp_path: Path) -> None:
    """make passes SIGTERM on to its recipe; a terminal's Ctrl-C and hang-up reach the whole foreground group; a
    killed make leaves the bench to notice its parent is gone."""
    out = tmp_path / "r.json"
    cmd = Command(["make", "--no-print-directory", "bench", f"BENCH_ARGS=--quick --only latency --out {out}"],
                  "==> latency", {"micropython", "mosquitto"})  # fmt: skip
    run = Running(cmd, session=True)
    proc = run.proc
    try:
        run.wait_ready(cmd, 0, timeout=180)
        if how == "SIGTERM to make":
            proc.send_signal(signal.SIGTERM)
        elif how == "make killed":
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGINT if "SIGINT" in how else signal.SIGHUP)
        proc.wait(60)
        _check_nothing_left(run, f"make bench ({how})", 0)
        assert not out.exists(), "the bench stopped before writing its results"
    finally:
        run.finish()


LOST_INTERRUPT = """
import sys, time
from flickboard import lifecycle
child = lifecycle.spawn(["sleep", "120"])
print("child", child.pid, flush=True)
with lifecycle.interrupting(grace=1.0):
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        pass  # as a finaliser that was running when the signal came: Python reports the exception and goes on
    time.sleep(60)
"""


def test_a_stop_whose_interrupt_was_lost_still_ends_and_says_where_it_was() -> None:
    proc = subprocess.Popen([sys.executable, "-c", LOST_INTERRUPT], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline().split()[1])
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 130
        err = proc.stderr.read() if proc.stderr else ""
        assert "still stopping 1 s after the stop signal: ending now; where each thread was:" in err, err
        assert 'File "<string>", line 11 in <module>' in err, err  # the main thread's place: the second sleep
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{child}") and "Z" not in _state(child):
            assert time.monotonic() < deadline, "the child outlived the forced end"
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
