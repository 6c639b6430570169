"""What `pip install` of Flickboard ships, and what a person who installs the wheel can do with it.

The wheel is built once, from a copy of the sources (setuptools reuses a checkout's build/lib, which may hold files
since removed). One test reads what it holds; the other installs it with pip into a fresh venv outside the checkout,
as pipx does, and runs the commands from an empty folder with nothing of the checkout on the path: the firmware under
the real MicroPython unix port (the `sim` extra), the whole demo through a live Mosquitto, a game at the prompt, and
the firmware compiled for a board (the `board` extra)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The installed flickboard's emulated Pico is its own (set up in a cache of the test's): not the checkout's group
pytestmark = pytest.mark.xdist_group("packaging")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".*", "build", "node_modules", "*.egg-info", "__pycache__", "journals")
    )
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return next(tmp.glob("*.whl"))


def test_the_wheel_holds_every_package_and_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    # one import package: host/ is installed as flickboard/, rules/ as flickboard/rules/, and nothing else at the top
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"flickboard"}
    for folder, installed in (("host", "flickboard"), ("rules", "flickboard/rules")):
        for pkg in (ROOT / folder).rglob("__init__.py"):
            if "node_modules" not in pkg.parts:
                assert f"{installed}/{pkg.relative_to(ROOT / folder).as_posix()}" in names, pkg
    for f in (
        "flickboard/rules/pichenotte/engine.py",
        "flickboard/displays/web/ui/tv.html",
        "flickboard/displays/tournament_pages/ui/hall.html",
        "flickboard/samples/club-night.pich",
        "flickboard/cli/main.py",
        "flickboard/py.typed",
        "flickboard/sim/rp2/emulator.mjs",
        "flickboard/sim/rp2/package-lock.json",
        "flickboard/firmware/simboard.py",
        "flickboard/firmware/config.example.json",
        "flickboard/i18n/locale/fr/LC_MESSAGES/flickboard.po",
    ):
        assert f in names, f
    # the board's files, every one: the firmware's sources and the board profiles (host/board/files.py)
    for path in (ROOT / "firmware").rglob("*.py"):
        assert f"flickboard/firmware/{path.relative_to(ROOT / 'firmware').as_posix()}" in names, path
    for path in (ROOT / "hardware" / "profiles").glob("*.json"):
        assert f"flickboard/firmware/profiles/{path.name}" in names, path
    # and nothing of the checkout's own tooling
    assert not [n for n in names if n.endswith((".ini", "config.json")) and "/firmware/" in n]


def outside_the_checkout() -> dict[str, str]:
    """The environment of a person's shell: no PYTHONPATH, no venv, and nothing of this checkout on the PATH (where
    its own micropython and mpy-cross are)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    keep = [p for p in env.get("PATH", "").split(os.pathsep) if p and not Path(p).resolve().is_relative_to(ROOT)]
    env["PATH"] = os.pathsep.join(keep)
    return env


def test_the_installed_wheel_runs_the_commands_from_any_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    env = outside_the_checkout()
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=600, env=env)
    assert installed.returncode == 0, installed.stderr[-2000:]
    club = tmp_path / "club"
    club.mkdir()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"

    def flickboard(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(
            [str(venv / "bin" / "flickboard"), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=club,
            env=env,
            check=False,
        )
        assert "Traceback" not in p.stdout + p.stderr, p.stdout + p.stderr
        return p

    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import flickboard; print(flickboard.__file__)"],
        capture_output=True, text=True, cwd=club, env=env, timeout=60,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr

    p = flickboard("--help")
    assert p.returncode == 0 and "flash" in p.stdout and "serve" in p.stdout, p.stdout
    p = flickboard("serve", "--help")
    assert p.returncode == 0 and "--print-systemd-unit" in p.stdout, p.stderr
    p = flickboard("rules", "list")
    assert p.returncode == 0 and "tournament-2019" in p.stdout, p.stderr
    p = flickboard("replay", "--sample")
    assert p.returncode == 0 and "Ana" in p.stdout, p.stderr
    p = flickboard("play", "--players", "Ana", "Ben", stdin="shot zone\n")
    assert p.returncode == 0 and "Journal saved: journals/" in p.stdout, p.stdout + p.stderr
    assert "2/24" in p.stdout and len(list((club / "journals").glob("*.jsonl"))) == 1
    p = flickboard("play", "--game", "quebec", "--players", "Ana", "Ben", "--journal", "q.jsonl", stdin="coup rien\n")
    assert p.returncode == 0 and "fin du tour (règle 10 : « si aucune dame n'entre dans la poche" in p.stdout, (
        p.stdout + p.stderr
    )

    # Without the extras: each missing part is asked for in one sentence.
    p = flickboard("sim", "--random-game", "--seed", "3")
    assert p.returncode == 2 and "pipx install 'flickboard[sim]'" in p.stderr and len(p.stderr.splitlines()) == 1
    p = flickboard("demo")
    assert p.returncode == 2 and "pipx install 'flickboard[sim]'" in p.stderr and not p.stdout, p.stdout + p.stderr
    p = flickboard("flash", "--help")
    assert p.returncode == 0 and "pico_w" in p.stdout, p.stderr
    p = flickboard("flash", "--board", "pico_w", "--to", "as-source")
    assert p.returncode == 0 and "mpy-cross is not installed" in p.stdout, p.stdout + p.stderr
    source = club / "as-source"
    assert (source / "fb" / "app.py").is_file() and (source / "profiles" / "pico_w.json").is_file()

    extras = subprocess.run([*pip, f"{wheel}[sim,board]"], capture_output=True, text=True, timeout=600, env=env)
    assert extras.returncode == 0, extras.stderr[-2000:]
    p = flickboard("sim", "--random-game", "--seed", "3")
    assert p.returncode == 0 and '"m":"hello"' in p.stdout.replace(" ", ""), p.stdout[-1000:] + p.stderr
    p = flickboard("flash", "--board", "esp32_devkit", "--to", "compiled")
    assert p.returncode == 0 and "compiled" in p.stdout, p.stdout + p.stderr
    assert (club / "compiled" / "fb" / "app.mpy").is_file() and not (club / "compiled" / "fb" / "app.py").exists()
    p = flickboard("flash", "--board", "pico_w", "--port", "/dev/no-such-port")
    assert p.returncode == 2 and "no board at /dev/no-such-port" in p.stderr, p.stderr
    # The installed `flickboard flash` onto the emulated Pico: the real MicroPython rp2 firmware in rp2040js, which an
    # installed flickboard sets up in the user's cache with npm (host/sim/rp2/images.py).
    images = os.environ.get("RP2_IMAGES") or str(ROOT.parent / "shared" / "firmware-images")
    rp2 = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "flickboard.sim.rp2", "flash", "--out", "pico.img"],
        capture_output=True, text=True, timeout=600, cwd=club,
        env={**env, "RP2_IMAGES": images, "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert rp2.returncode == 0, rp2.stdout[-2000:] + rp2.stderr[-2000:]
    assert "installing rp2040js" in rp2.stderr and "runs the new firmware (profile pico_w" in rp2.stdout, rp2.stdout
    assert (club / "pico.img").stat().st_size > 1 << 20
    p = flickboard("demo", timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "private Mosquitto" in p.stdout and "The same as `flickboard replay` of the game" in p.stdout, p.stdout
