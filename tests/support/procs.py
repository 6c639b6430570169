"""What a command left running, read from /proc: its descendants, and TCP connections still open to a broker.

A process is named by (pid, start time), so a pid the kernel hands to a new process later is not taken for the old
one; a zombie has finished (only its exit status waits for a parent to read it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

Proc = tuple[int, int]  # (pid, start time in clock ticks since boot)


def as_a_terminal_starts_it() -> None:
    """For Popen's preexec_fn: SIGHUP at its default, as a terminal's job has it. A suite run under `nohup` would
    otherwise pass SIGHUP ignored to the commands it stops with SIGHUP, and they keep it ignored, as they should."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state is [0], ppid [1], start time [19])."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants(pid: int) -> set[Proc]:
    """Every process below `pid` now."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat(int(entry.name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    out: set[Proc] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            fields = _stat(c)
            if fields is not None:
                out.add((c, int(fields[19])))
                todo.append(c)
    return out


def alive(procs: set[Proc]) -> set[Proc]:
    """The processes of `procs` still running."""
    out = set()
    for pid, start in procs:
        fields = _stat(pid)
        if fields is not None and fields[0] != "Z" and int(fields[19]) == start:
            out.add((pid, start))
    return out


def names(procs: set[Proc]) -> set[str]:
    out = set()
    for pid, _ in procs:
        with contextlib.suppress(OSError):
            out.add(Path(f"/proc/{pid}/comm").read_text().strip())
    return out


def connections_to(port: int) -> int:
    """Established TCP connections from this machine to a local listener on `port` (the client's side)."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == port:
                    n += 1
    return n


class Watch:
    """Every descendant `pid` has had from now until `stop()`, sampled every 20 ms (a process started and ended
    between two samples could be missed; one still running at the end is not)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._seen: set[Proc] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            found = descendants(self.pid)
            with self._lock:
                self._seen |= found
            self._stop.wait(0.02)

    @property
    def seen(self) -> set[Proc]:
        """A copy of what has been seen so far (the sampling thread keeps adding to the original)."""
        with self._lock:
            return set(self._seen)

    def wait_for(self, *wanted: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not set(wanted) <= names(self.seen):
            assert time.monotonic() < deadline, f"never started {set(wanted) - names(self.seen)}: {names(self.seen)}"
            time.sleep(0.05)

    def stop(self) -> set[Proc]:
        self._stop.set()
        self._t.join(5)
        return self.seen


def left_behind(procs: set[Proc], timeout: float = 10.0) -> set[Proc]:
    """The processes of `procs` still running after up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while alive(procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive(procs)


def kill_all(procs: set[Proc]) -> None:
    """After a failed check: whatever is left goes, so one failure does not leave processes to the next test."""
    for pid, _ in alive(procs):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
