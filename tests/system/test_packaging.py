"""What `pip install` of Flickboard ships: every package and subpackage, the pages and the sample game."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_every_package_and_data_file(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    names = set(zipfile.ZipFile(next(tmp_path.glob("*.whl"))).namelist())
    for pkg in [d for d in (ROOT / "host").rglob("__init__.py")] + list((ROOT / "rules").rglob("__init__.py")):
        assert str(pkg.relative_to(ROOT)) in names, pkg
    for f in (
        "rules/pichenotte/engine.py",
        "host/displays/webui/tv.html",
        "host/samples/club-night.pich",
        "host/cli/main.py",
    ):
        assert f in names, f
