"""The strip segment's KiCad board (hardware/strip_pcb.py) against the coverage model, without KiCad: the committed
board is what the generator writes, every switch sits where `hall_field.sensors` puts it and is turned to its
axis, one board fits all eight segments, and the board house's zip holds every layer and the drill files.
KiCad's own checks (design rules, its reading of the file, the Gerbers) run under `make pcb`
(tests/firmware/test_kicad_pcb.py)."""

from __future__ import annotations

import math
import re
import zipfile
from typing import Any

import hall_field as hf
import pytest
import strip_pcb

BOARD = strip_pcb.OUT_DIR / f"{strip_pcb.NAME}.kicad_pcb"
ZIP = strip_pcb.OUT_DIR / "strip_segment_gerbers.zip"


@pytest.fixture(scope="module")
def geo() -> dict[str, Any]:
    return hf.load_geometry()


def footprints(text: str) -> dict[str, tuple[float, float, float]]:
    """Reference -> (x, y, rotation) of every footprint in a .kicad_pcb."""
    out = {}
    for m in re.finditer(
        r'\(footprint "[^"]+" \(layer "[FB]\.Cu"\)\s+\(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)\s+'
        r'\(property "Reference" "([^"]+)"\)',
        text,
    ):
        out[m.group(4)] = (float(m.group(1)), float(m.group(2)), float(m.group(3) or 0.0))
    return out


def test_the_committed_board_is_what_the_generator_writes() -> None:
    assert strip_pcb.main(["--check"]) == 0, "run: python hardware/strip_pcb.py (and make pcb)"


def test_every_switch_sits_where_the_model_puts_it_turned_to_its_axis(geo: dict[str, Any]) -> None:
    strip = hf.strip_from_geometry(geo)
    model = [s for s in hf.sensors(geo, strip) if s.quadrant == 1][: strip_pcb.PER_SEGMENT]
    fps = footprints(BOARD.read_text(encoding="utf-8"))
    switches = {ref: v for ref, v in fps.items() if ref.startswith("U") and ref not in ("U1", "U2")}
    assert len(switches) == 16
    turn = 270.0 - strip_pcb.MID_ANGLE  # the page shows the segment's middle at the top
    for k, s in enumerate(model):
        x, y, rot = switches[f"U{k + 3}"]
        r = math.hypot(s.x, s.y)
        px, py = strip_pcb.model_to_page(s.angle, r)
        assert math.hypot(x - px, y - py) < 1e-3, f"switch {k} is off its place"
        hx, hy = x - strip_pcb.HOLE[0], y - strip_pcb.HOLE[1]
        assert math.hypot(hx, hy) == pytest.approx(geo["hall"]["rows"][0]["radius"], abs=1e-3)
        assert s.axis is not None
        axis = math.degrees(math.atan2(s.axis[1], s.axis[0])) + turn  # the model's axis, on the page
        long_side = -rot  # a KiCad rotation turns counter-clockwise on the page; the package's pins 1-2 lie along x
        assert (long_side - axis + 90.0) % 180.0 == pytest.approx(90.0, abs=1e-3), f"switch {k} is not on its axis"


def test_one_board_serves_all_eight_segments(geo: dict[str, Any]) -> None:
    """Every segment's sixteen switches are the first segment's, turned about the hole's centre."""
    strip = hf.strip_from_geometry(geo)
    ss = hf.sensors(geo, strip)
    first = ss[:16]
    for k in range(len(ss) // 16):
        seg = ss[16 * k : 16 * k + 16]
        turn = math.radians(seg[0].angle - first[0].angle)
        c, s_ = math.cos(turn), math.sin(turn)
        for a, b in zip(first, seg, strict=True):
            assert math.hypot(a.x * c - a.y * s_ - b.x, a.x * s_ + a.y * c - b.y) < 1e-6
            assert a.axis is not None and b.axis is not None
            ax = (a.axis[0] * c - a.axis[1] * s_, a.axis[0] * s_ + a.axis[1] * c)
            assert abs(ax[0] * b.axis[0] + ax[1] * b.axis[1]) == pytest.approx(1.0, abs=1e-9)


def test_the_board_house_zip_has_every_layer_and_the_drill_files() -> None:
    with zipfile.ZipFile(ZIP) as z:
        names = set(z.namelist())
    layers = ["F_Cu", "B_Cu", "F_Mask", "B_Mask", "F_Paste", "F_SilkS", "B_SilkS", "Edge_Cuts"]
    assert {f"strip_segment-{n}.gbr" for n in layers} | {"strip_segment-PTH.drl", "strip_segment-NPTH.drl"} == names


def test_the_assembly_files_place_every_part_as_the_board_does() -> None:
    board = strip_pcb.build()
    rows = (strip_pcb.OUT_DIR / "strip_segment_positions.csv").read_text(encoding="utf-8").splitlines()[1:]
    placed = {r.split(",")[0]: r.split(",")[1:] for r in rows}
    parts = [f for f in board.footprints if not f.ref.startswith(("H", "JP"))]  # holes and the jumper are no parts
    assert set(placed) == {f.ref for f in parts}
    for f in parts:
        x, y, side, rot = placed[f.ref]
        assert (float(x), -float(y)) == pytest.approx(f.at, abs=1e-4)
        assert side == ("Bottom" if f.back else "Top")
        assert float(rot) == pytest.approx(f.rot % 360.0, abs=1e-4)
    bom = (strip_pcb.OUT_DIR / "strip_segment_bom.csv").read_text(encoding="utf-8")
    assert '"Honeywell SM351RT, magnetoresistive switch, SOT-23","U3 U4' in bom and ",SOT-23,16" in bom
