"""hardware/: the board profiles the firmware loads, and the sensor-placement drawing made from the geometry.

Pin rules (datasheets): Pico W GP23/GP24/GP25/GP29 belong to the CYW43439 Wi-Fi chip, GP0-GP22 and GP26-GP28 are
the user GPIOs. ESP32 (WROOM) GPIO6-11 are the SPI flash; 0, 2, 5, 12, 15 are strapping pins (not for sensor
inputs: a sensor holding one at the wrong level at reset changes how the chip boots); 34-39 are input-only
without internal pulls; 1 and 3 are the USB serial console.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from firmware_runner import FIRMWARE, ROOT, check_micropython

HARDWARE = ROOT / "hardware"
PROFILES = HARDWARE / "profiles"
SVG_NS = "{http://www.w3.org/2000/svg}"

VALID = {
    "rp2": set(range(0, 23)) | {26, 27, 28},
    "esp32": {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 25, 26, 27, 32, 33, 34, 35, 36, 37, 38, 39},
}
NOT_FOR_INPUTS = {"rp2": set(), "esp32": {0, 1, 2, 3, 5, 12, 15}}
INPUT_ONLY = {"rp2": set(), "esp32": set(range(34, 40))}


def load_svg_module() -> Any:
    spec = importlib.util.spec_from_file_location("board_svg", HARDWARE / "board_svg.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["board_svg"] = mod
    spec.loader.exec_module(mod)
    return mod


def profiles() -> list[Path]:
    return sorted(PROFILES.glob("*.json"))


def pin_uses(p: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(who, pin, direction) for every pin the profile uses; direction "in" or "out"."""
    uses = [("safe_mode_pin", p["safe_mode_pin"], "in")]
    if isinstance(p["led"], int):
        uses.append(("led", p["led"], "out"))
    for k in ("ir_carrier", "ir_carrier2"):
        if p.get(k):
            uses.append((k, p[k]["pin"], "out"))
    for s in p["sensors"]:
        if s["kind"] == "beam":
            uses.append((s["name"], s["pin"], "in"))
        elif s["pins"] is not None:
            uses += [(f"{s['name']}[{i}]", n, "in") for i, n in enumerate(s["pins"])]
        else:
            mux = s["mux"]
            uses += [(f"{s['name']}.select[{i}]", n, "out") for i, n in enumerate(mux["select"])]
            signals = mux["signal"] if isinstance(mux["signal"], list) else [mux["signal"]]
            uses += [(f"{s['name']}.signal[{i}]", n, "in") for i, n in enumerate(signals)]
            if mux.get("enable") is not None:
                uses.append((f"{s['name']}.enable", mux["enable"], "out"))
    return uses


def test_both_boards_have_a_profile() -> None:
    assert {p.stem for p in profiles()} >= {"pico_w", "esp32_devkit", "pico_w_pockets"}


@pytest.mark.parametrize("path", profiles(), ids=lambda p: p.stem)
def test_profile_schema(path: Path) -> None:
    p = json.loads(path.read_text())
    assert p["profile"] == path.stem
    assert p["port"] in ("rp2", "esp32") and isinstance(p["board"], str) and isinstance(p["wifi"], bool)
    assert p["led"] == "LED" or isinstance(p["led"], int)
    assert 1000 <= p["watchdog_ms"] <= (8000 if p["port"] == "rp2" else 60000)
    names = [s["name"] for s in p["sensors"]]
    assert len(names) == len(set(names)), names
    if path.stem.endswith("_pockets"):  # a Québec Pichenottes board: a beam per pocket (host/core/pockets.py)
        assert names == ["pocket1", "pocket2", "pocket3", "pocket4"]
    else:
        assert "hole" in names and {"ditch1", "ditch2", "ditch3", "ditch4"} <= set(names)
    for s in p["sensors"]:
        if s["kind"] == "beam":
            assert s["pull"] in ("up", "down", None) and isinstance(s["invert"], bool)
            assert 0 < s["min_pulse_us"] <= 250, "a 0.5 ms break must pass the glitch filter"
            assert s["stuck_ms"] * 1000 > s["min_pulse_us"] and s["min_gap_us"] >= 0
            assert s["counter"] in ({"rp2": "pio", "esp32": "pcnt"}[p["port"]], None)
        else:
            assert s["kind"] == "hall" and 16 <= s["count"] <= 128 and s["quadrants"] == 4
            assert s["count"] % s["quadrants"] == 0 and isinstance(s["active_low"], bool) and s["settle_ms"] >= 0
            assert (s["pins"] is None) != (s["mux"] is None)
            if s["pins"] is not None:
                assert len(s["pins"]) == s["count"]
            else:
                signals = s["mux"]["signal"] if isinstance(s["mux"]["signal"], list) else [s["mux"]["signal"]]
                assert len(s["mux"]["select"]) == 4
                assert len(signals) == -(-s["count"] // 16), "one 74HC4067 (one signal pin) per 16 channels"
    if p["port"] == "esp32":
        assert any(s.get("counter") == "pcnt" for s in p["sensors"]), "ESP32 pin IRQs are lossy: reconcile with PCNT"


@pytest.mark.parametrize("path", profiles(), ids=lambda p: p.stem)
def test_profile_pins_valid_unique_and_not_reserved(path: Path) -> None:
    p = json.loads(path.read_text())
    port = p["port"]
    uses = pin_uses(p)
    seen: dict[int, str] = {}
    for who, pin, direction in uses:
        assert isinstance(pin, int) and pin in VALID[port], f"{who}: GPIO{pin} is not a usable {port} pin"
        assert pin not in seen, f"GPIO{pin} used by both {seen[pin]} and {who}"
        seen[pin] = who
        if direction == "in":
            assert pin not in NOT_FOR_INPUTS[port], f"{who}: GPIO{pin} is a strapping/console pin"
        else:
            assert pin not in INPUT_ONLY[port], f"{who}: GPIO{pin} is input-only"
    for s in p["sensors"]:
        if s["kind"] == "beam" and s["pin"] in INPUT_ONLY[port]:
            assert s["pull"] is None, f"{s['name']}: GPIO{s['pin']} has no internal pull (the receiver's own)"


def test_profiles_and_example_config_pass_the_firmware_loader_under_micropython() -> None:
    out = check_micropython(
        f"""
from fb import config
for name in {[p.stem for p in profiles()]!r}:
    cfg, problems = config.load({str(PROFILES)!r}, name, None)
    print("OK", name, len(cfg.data["sensors"]), problems)
cfg, problems = config.load({str(PROFILES)!r}, None, {str(FIRMWARE / "config.example.json")!r})
print("EXAMPLE", cfg.data["profile"], cfg.data["board_id"], problems)
"""
    )
    for p in profiles():
        assert re.search(rf"OK {p.stem} \d+ \[\]", out), out
    assert "EXAMPLE pico_w board1 []" in out


def test_example_config_has_placeholders_not_secrets() -> None:
    cfg = json.loads((FIRMWARE / "config.example.json").read_text())
    assert cfg["wifi"]["password"].startswith("YOUR-")
    assert "firmware/config.json" in (ROOT / ".gitignore").read_text()


# ---- geometry and drawing ------------------------------------------------------------------------------------------


def test_geometry_is_nested_and_plausible() -> None:
    g = json.loads((HARDWARE / "geometry.json").read_text())
    c = g["circles"]
    assert g["hole_diameter"] / 2 < c["15"] < c["10"] < c["5"] < g["baseline_radius"] < g["playing_radius"]
    assert g["playing_radius"] + g["ditch_width"] <= g["board_size"] / 2
    assert g["puck"]["diameter"] < g["hole_diameter"], "a puck must fit through the hole"
    assert c["10"] > g["posts"]["radius"] > c["15"]


def test_hall_sensors_lie_along_the_baseline_inside_their_quadrant_in_profile_order() -> None:
    mod = load_svg_module()
    geo, profile = mod.load()
    hall = next(s for s in profile["sensors"] if s["kind"] == "hall")
    pos = mod.hall_positions(geo)
    assert [i for i, _, _, _ in pos] == list(range(hall["count"])), "the drawing and the profile count differently"
    rows = geo["hall"]["rows"]
    end_gap = min(r["end_gap"] for r in rows)
    for i, q, angle, radius in pos:
        assert q == i * hall["quadrants"] // hall["count"] + 1, "the firmware's quadrant of segment i (fb/detect.py)"
        off = (angle - geo["quadrant_centres"][str(q)] + 180) % 360 - 180
        assert abs(off) < 45, "a sensor must not cross into the next quadrant"
        assert math.radians(45 - abs(off)) * radius >= end_gap - 1e-6
        assert any(math.isclose(radius, r["radius"]) for r in rows)
    for (_, q1, a1, _), (_, q2, a2, _) in itertools.pairwise(pos):
        if q1 == q2:
            assert (a2 - a1) % 360 > 0, "clockwise within a quadrant"


def test_every_pichenotte_profile_counts_the_sensors_the_geometry_places() -> None:
    geo = json.loads((HARDWARE / "geometry.json").read_text())
    per_quadrant = sum(r["per_quadrant"] for r in geo["hall"]["rows"])
    for name in ("pico_w", "esp32_devkit"):
        p = json.loads((PROFILES / f"{name}.json").read_text())
        hall = next(s for s in p["sensors"] if s["kind"] == "hall")
        assert hall["count"] == per_quadrant * hall["quadrants"], name
        assert hall["count"] % geo["hall"]["per_multiplexer"] == 0, "whole multiplexers: two per quadrant"
        assert hall["count"] // geo["hall"]["per_multiplexer"] % hall["quadrants"] == 0, "no multiplexer spans two"


def test_board_svg_is_well_formed_with_the_expected_elements(tmp_path: Path) -> None:
    mod = load_svg_module()
    out = tmp_path / "board.svg"
    assert mod.main(["--out", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG_NS}svg"
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    geo, profile = mod.load()
    expected = {"board", "ditch", "baseline", "hole", "circle-15", "circle-10", "circle-5", "legend"}
    expected |= {f"post-{k}" for k in range(1, geo["posts"]["count"] + 1)}
    expected |= {f"beam-{s['name']}" for s in profile["sensors"] if s["kind"] == "beam"}
    hall = next(s for s in profile["sensors"] if s["kind"] == "hall")
    expected |= {f"hall-{i}" for i in range(hall["count"])}
    assert expected <= ids, sorted(expected - ids)


def test_committed_board_svg_is_up_to_date() -> None:
    mod = load_svg_module()
    fresh = mod.render(*mod.load())
    assert (HARDWARE / "board.svg").read_text() == fresh, "run 'python hardware/board_svg.py' and commit board.svg"
    assert mod.main(["--check"]) == 0
