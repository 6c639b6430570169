"""KiCad's own tools on the strip segment (`make pcb`): its design-rule check passes with every pad connected, it
reads every pad where hardware/strip_pcb.py means it, and the committed zip of Gerbers and drill files is what
KiCad plots from the committed board today. `make pcb` installs KiCad and sets FLICKBOARD_KICAD=1; `make test` does
not install KiCad and does not collect this file (tests/firmware/conftest.py); tests/firmware/test_strip_pcb.py checks
the board against the model there."""

from __future__ import annotations

import json
import math
import os
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import kicad_outputs
import pytest
import strip_pcb

ROOT = Path(__file__).resolve().parents[2]
KICAD_PYTHON = os.environ.get("KICAD_PYTHON", "/usr/bin/python3")


@pytest.fixture(scope="module")
def kicad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("pcb")
    run = subprocess.run(
        [KICAD_PYTHON, str(ROOT / "hardware" / "kicad_outputs.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    result["dir"] = out
    return result


def test_kicad_design_rule_check_passes_with_every_pad_connected(kicad: dict[str, Any]) -> None:
    report = (kicad["dir"] / "drc.txt").read_text(encoding="utf-8")
    assert kicad["violations"] == 0, report
    assert kicad["unconnected"] == 0, report


def test_kicad_reads_every_pad_where_the_generator_put_it(kicad: dict[str, Any]) -> None:
    board = strip_pcb.build()
    mine = {(f.ref, p.number): f.pad_at(p.number) for f in board.footprints for p in f.pads}
    theirs = {(p["ref"], p["pad"]): (p["x"], p["y"]) for p in kicad["pads"]}
    assert set(mine) == set(theirs)
    for key, (x, y) in mine.items():
        assert math.hypot(x - theirs[key][0], y - theirs[key][1]) < 2e-3, key


def test_the_committed_gerbers_are_what_kicad_plots_today(kicad: dict[str, Any]) -> None:
    fresh = zipfile.ZipFile(kicad["dir"] / kicad["zip"])
    committed = zipfile.ZipFile(strip_pcb.OUT_DIR / kicad["zip"])
    assert sorted(fresh.namelist()) == sorted(committed.namelist())
    for name in fresh.namelist():
        assert kicad_outputs.content(fresh.read(name)) == kicad_outputs.content(committed.read(name)), name
