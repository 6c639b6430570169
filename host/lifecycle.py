"""How a command ends: what it started ends with it.

Three rules, for every command that starts a process or holds a port, a pty or a broker connection:

- **Stop signals.** SIGINT, SIGTERM and SIGHUP all mean "stop cleanly": `on_stop_signals` runs the command's own
  stop (a `threading.Event` to set) or, with `interrupting()`, raises `KeyboardInterrupt` once in the main thread so
  the command's `finally` blocks stop what it started. A second signal during that clean-up is ignored, so it
  cannot cut the clean-up short; a clean-up still running after STOP_GRACE seconds is ended, with every thread's
  stack on stderr. A command started with SIGHUP ignored (`nohup`) keeps it ignored.
- **Children die with us.** `spawn` starts a child that gets SIGTERM from the kernel the moment this process dies,
  even by `kill -9`, when it has no chance to clean up (Linux `PR_SET_PDEATHSIG`). The kernel sends it when the
  *thread* that started the child ends, so only the main thread binds its children this way; a child started from
  another thread is stopped by that thread's own clean-up. A child runs in a process group of its own: a
  terminal's Ctrl-C or hang-up reaches the command alone, which stops its children in order (a child caught
  halfway through its own start by the terminal's signal would print a traceback).
- **Tools die with their parent.** `follow_parent()`: a foreground tool (`sim`, `demo`, `make bench`, `make soak`)
  gets SIGHUP when the process that started it dies — a test harness killed, a `make` killed — and so stops what it
  started. The services (`bridge`, `web`, `integrations`) do not: like any daemon they outlive the shell that
  started them, and stop on a signal.

Elsewhere than Linux the kernel part is left out and the signals still work.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_GRACE = 30.0  # seconds a command stopped by a signal has for its clean-up (interrupting())
PR_SET_PDEATHSIG = 1  # linux/prctl.h

_libc: Any = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        _prctl = _libc.prctl  # looked up now: a forked child must not load anything before it execs
    except (OSError, AttributeError):
        _libc = None


def _bind(sig: int, parent: int) -> bool:
    """This process gets `sig` when its parent dies. False if the parent died before the binding took (nobody will
    send the signal now)."""
    if _libc is not None:
        _prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    return os.getppid() == parent


def _bind_child(parent: int) -> None:
    """In a forked child before it execs: bound to `parent`, or gone at once if the parent already is."""
    if not _bind(signal.SIGTERM, parent):
        os._exit(1)


def _is_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _binding() -> Callable[[], None] | None:
    """What a forked child runs before it execs to be bound to this process; None where it cannot be."""
    if _libc is None or not _is_main_thread():
        return None
    parent = os.getpid()
    return lambda: _bind_child(parent)


def spawn(cmd: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """`subprocess.Popen(cmd, **kwargs)`, the child bound to end when this process does (see the module's rules)."""
    if "preexec_fn" not in kwargs:
        kwargs["preexec_fn"] = _binding()
    if not kwargs.get("start_new_session"):
        kwargs.setdefault("process_group", 0)
    return subprocess.Popen(cmd, **kwargs)


def run(
    cmd: Sequence[str], timeout: float | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `cmd` to its end and return its text output (not checked), the child bound like `spawn`'s; it is killed
    if the wait is interrupted or times out (`subprocess.TimeoutExpired`)."""
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
        preexec_fn=_binding(),
        process_group=0,
    )


def follow_parent() -> None:
    """This process gets SIGHUP when its parent dies (not under `nohup`, and not when the parent is init)."""
    parent = os.getppid()
    if parent == 1 or signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
        return
    if not _bind(signal.SIGHUP, parent):
        os.kill(os.getpid(), signal.SIGHUP)  # the parent already went: stop as if it had just gone


class Handlers:
    """The stop handlers installed; `restore()` (or the end of a `with` block) puts the previous ones back."""

    def __init__(self, previous: dict[int, Any]) -> None:
        self.previous = previous

    def restore(self) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.previous = {}

    def __enter__(self) -> Handlers:
        return self

    def __exit__(self, *_: object) -> None:
        self.restore()


def on_stop_signals(stop: Callable[[], None]) -> Handlers:
    """Call `stop()` on SIGINT, SIGTERM or SIGHUP (main thread only; elsewhere the caller stops us)."""
    previous: dict[int, Any] = {}
    if not _is_main_thread():
        return Handlers(previous)
    for sig in STOP_SIGNALS:
        old = signal.getsignal(sig)
        if sig == signal.SIGHUP and old is signal.SIG_IGN:
            continue  # nohup: a hang-up is not ours to act on
        previous[sig] = old
        signal.signal(sig, lambda *_: stop())
    return Handlers(previous)


def interrupting(grace: float = STOP_GRACE) -> Handlers:
    """SIGINT, SIGTERM and SIGHUP raise `KeyboardInterrupt` in the main thread, once: the same clean stop as Ctrl-C.
    A process still running `grace` seconds later (its clean-up stuck, or the interrupt lost: raised while the main
    thread ran a finaliser, which Python reports and ignores) says so with every thread's stack on stderr and ends
    with status 130; its children, bound by `spawn`, end with it."""
    fired = threading.Event()

    def stop() -> None:
        if fired.is_set():
            return  # already stopping: let the clean-up finish
        fired.set()
        threading.Thread(target=_end_after, args=(grace,), name="stop-deadline", daemon=True).start()
        raise KeyboardInterrupt

    return on_stop_signals(stop)


def _end_after(grace: float) -> None:
    time.sleep(grace)
    name = os.path.basename(sys.argv[0]) or "flickboard"
    try:
        print(f"{name}: still stopping {grace:.0f} s after the stop signal: ending now; where each thread was:",
              file=sys.stderr, flush=True)  # fmt: skip
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    finally:
        os._exit(130)


def end(proc: subprocess.Popen[Any] | None, timeout: float = 5.0) -> None:
    """Stop a child: SIGTERM, then SIGKILL if it has not ended within `timeout`; always reaped."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
