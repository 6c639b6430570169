"""What `pip install` of Flickboard ships: every package and subpackage, the pages and the sample game."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_every_package_and_data_file(tmp_path: Path) -> None:
    # built from a copy of the sources: setuptools reuses a checkout's build/lib, which may hold files since removed
    src = tmp_path / "src"
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".*", "build", "node_modules", "*.egg-info", "__pycache__")
    )
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    names = set(zipfile.ZipFile(next(tmp_path.glob("*.whl"))).namelist())
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
    ):
        assert f in names, f
