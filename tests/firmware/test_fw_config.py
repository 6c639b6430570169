"""fb.config: defaults, overrides, every bad value refused with a message and nothing changed, atomic
persistence, the boot counter. Each scenario is one script run under CPython and the real MicroPython."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from firmware_runner import FIRMWARE, ROOT, check_micropython

PROFILE = {
    "profile": "bench",
    "board": "Bench Pico W",
    "port": "rp2",
    "wifi": True,
    "led": "LED",
    "safe_mode_pin": 26,
    "watchdog_ms": 8000,
    "sensors": [
        {"name": "hole", "kind": "beam", "pin": 2},
        {"name": "ditch1", "kind": "beam", "pin": 3, "pull": None, "invert": True, "stuck_ms": 3000, "counter": "pio"},
        {"name": "strip", "kind": "hall", "count": 16, "mux": {"select": [10, 11, 12, 13], "signal": 14}},
    ],
}

PRELUDE = """
import json, os
from fb import config
D = {dir!r}
PROF = D + "/profiles"
USER = D + "/config.json"
def text(p):
    with open(p) as f:
        return f.read()
def exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False
"""

SCENARIOS = {
    "defaults_filled": """
c, problems = config.load(PROF, "bench", USER)
assert problems == [], problems
d = c.data
assert d["board_id"] == "flickboard" and d["heartbeat_ms"] == 10000 and d["outbox_size"] == 64
assert d["has_wifi"] is True and d["port"] == "rp2" and d["safe_mode_pin"] == 26
assert d["mqtt"] == {"host": None, "port": 1883, "user": None, "password": None, "tls": False}
assert d["wifi"] == {"ssid": None, "password": None}
h = c.sensor("hole")
assert (h["pull"], h["invert"], h["min_pulse_us"], h["min_gap_us"], h["stuck_ms"], h["counter"]) == \
    ("up", False, 200, 1000, 2000, None)
s = c.sensor("strip")
assert s["pins"] is None and s["mux"]["enable"] is None and s["settle_ms"] == 30 and s["active_low"] is True
assert [x["name"] for x in d["sensors"]] == ["hole", "ditch1", "strip"]
assert c.get("sensors.ditch1.stuck_ms") == (True, 3000)
assert c.get("mqtt.host") == (True, None)
ok, msg = c.get("sensors.nope.pin")
assert not ok and "no such setting" in msg
""",
    "overrides_apply_and_bad_ones_are_skipped": """
with open(USER, "w") as f:
    f.write(json.dumps({"profile": "bench", "board_id": "table-3",
        "wifi": {"ssid": "club", "password": "s3cret"},
        "mqtt": {"host": "10.0.0.2", "port": 99999},
        "sensors": {"hole": {"min_pulse_us": 400}, "ditch1": {"pin": 99}, "ghost": {"pin": 5}}}))
c, problems = config.load(PROF, None, USER)  # the profile name comes from config.json
assert c.data["board_id"] == "table-3" and c.data["wifi"]["ssid"] == "club"
assert c.sensor("hole")["min_pulse_us"] == 400
assert c.data["mqtt"]["host"] is None and c.sensor("ditch1")["pin"] == 3  # the bad ones did not apply
assert len(problems) == 3, problems
assert "mqtt.port must be an integer 1..65535" in problems[0]  # top-level keys in sorted order
assert "sensors.ditch1.pin must be an integer 0..48" in problems[1]
assert "sensors.ghost: no such sensor in profile bench" in problems[2]
assert c.get("wifi.password") == (True, "***") and c.get()[1]["wifi"]["password"] == "***"
assert c.data["wifi"]["password"] == "s3cret"
""",
    "every_bad_value_is_refused_and_nothing_changes": """
c, problems = config.load(PROF, "bench", USER)
c.set("board_id", "table-1")
before_data = json.dumps(c.data)
before_file = text(USER)
BAD = [
    ("board_id", "", "board_id"), ("board_id", "has space", "board_id"), ("board_id", 7, "board_id"),
    ("heartbeat_ms", 10, "heartbeat_ms"), ("heartbeat_ms", True, "heartbeat_ms"), ("outbox_size", 100000, "outbox"),
    ("wifi.ssid", "x" * 40, "wifi.ssid"), ("wifi.nope", 1, "wifi: unknown setting"), ("wifi", 3, "wifi"),
    ("mqtt.port", 0, "mqtt.port"), ("mqtt.port", "1883", "mqtt.port"), ("mqtt.tls", 1, "mqtt.tls"),
    ("mqtt.host", ["a"], "mqtt.host"), ("mqtt.password", 5, "mqtt.password"),
    ("sensors.hole.pin", -1, "sensors.hole.pin"), ("sensors.hole.pin", 49, "sensors.hole.pin"),
    ("sensors.hole.pin", 3, "pin 3 is used by both"), ("sensors.hole.pin", 26, "safe_mode_pin"),
    ("sensors.hole.pin", "GP2", "sensors.hole.pin"), ("sensors.hole.pull", "sideways", "sensors.hole.pull"),
    ("sensors.hole.invert", "no", "invert"), ("sensors.hole.min_pulse_us", 19, "min_pulse_us"),
    ("sensors.hole.min_pulse_us", 100001, "min_pulse_us"), ("sensors.hole.min_gap_us", -5, "min_gap_us"),
    ("sensors.hole.stuck_ms", 10, "stuck_ms"), ("sensors.hole.counter", "pcnt", "esp32"),
    ("sensors.hole.kind", "hall", "cannot be overridden"), ("sensors.hole.name", "x", "cannot be overridden"),
    ("sensors.hole.colour", "red", "unknown setting"), ("sensors.ghost.pin", 5, "no such setting"),
    ("sensors.ghost", {"pin": 5}, "no such sensor"),
    ("sensors.strip.count", 0, "count"), ("sensors.strip.count", 129, "count"),
    ("sensors.strip.count", 20, "20 sensors need 2 multiplexer signal pin(s)"),
    ("sensors.strip.pins", [1, 2, 3], "exactly one of pins"), ("sensors.strip.mux", None, "exactly one of pins"),
    ("sensors.strip.mux.select", [10, 11, 12], "select must be a list of 4"),
    ("sensors.strip.mux.signal", 2, "used by both"), ("sensors.strip.settle_ms", 10001, "settle_ms"),
    ("sensors.strip.quadrants", 5, "quadrants"), ("sensors.strip.active_low", None, "active_low"),
    ("sensors", 3, "sensors"), ("sensors.hole", 4, "must be an object"),
    ("watchdog_ms", 1000, "cannot be set"), ("port", "esp32", "cannot be set"), ("", 1, "key"),
    ("sensors.hole.pin.x", 1, "no such setting"),
]
for key, val, words in BAD:
    ok, msg = c.set(key, val)
    assert not ok, (key, val)
    assert words in msg, (key, val, msg)
    assert json.dumps(c.data) == before_data, key
    assert text(USER) == before_file, key
print(len(BAD), "refused")
""",
    "set_persists_atomically": """
c, _ = config.load(PROF, "bench", USER)
assert not exists(USER)
assert c.set("sensors.hole.min_pulse_us", 500) == (True, "")
assert c.set("mqtt", {"host": "broker.local", "tls": True}) == (True, "")
assert c.set("sensors.strip", {"mux": None, "pins": [30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44,
                               45]}) == (True, "")
# 17-32 sensors: a second 74HC4067 on the same select lines, with its own signal pin
two = {"select": [10, 11, 12, 13], "signal": [14, 15]}
assert c.set("sensors.strip", {"count": 32, "pins": None, "mux": two}) == (True, "")
assert c.sensor("strip")["mux"]["signal"] == [14, 15]
need = "sensors.strip.mux.signal: 32 sensors need 2 multiplexer signal pin(s)"
assert c.set("sensors.strip.mux.signal", [14]) == (False, need)
assert not exists(USER + ".tmp")
saved = json.loads(text(USER))
assert saved["sensors"]["hole"] == {"min_pulse_us": 500} and saved["mqtt"] == {"host": "broker.local", "tls": True}
c2, problems = config.load(PROF, "bench", USER)
assert problems == [] and json.dumps(c2.data) == json.dumps(c.data)
assert c2.data["mqtt"] == {"host": "broker.local", "port": 1883, "user": None, "password": None, "tls": True}
# an interrupted write leaves only the temp file: it is recovered on load
os.rename(USER, USER + ".tmp")
c3, problems = config.load(PROF, "bench", USER)
assert problems == [] and c3.sensor("hole")["min_pulse_us"] == 500
""",
    "broken_config_file_falls_back_to_profile": """
with open(USER, "w") as f:
    f.write('{"board_id": "half')
c, problems = config.load(PROF, "bench", USER)
assert c.data["board_id"] == "flickboard" and len(problems) == 1 and "not valid JSON" in problems[0]
with open(USER, "w") as f:
    f.write('[1, 2]')
c, problems = config.load(PROF, "bench", USER)
assert "must be a JSON object" in problems[0]
try:
    config.load(PROF, "nope", USER)
    raise SystemExit("missing profile accepted")
except config.ConfigError as e:
    assert "nope.json" in str(e)
""",
    "second_carrier": """
base = json.loads(text(PROF + "/bench.json"))
def load_with(**kw):
    p = dict(base)
    p.update(kw)
    with open(PROF + "/two.json", "w") as f:
        f.write(json.dumps(p))
    return config.load(PROF, "two", USER)[0]
ir = {"pin": 27, "freq_hz": 38000, "duty_u16": 16384}
c = load_with(ir_carrier=ir, ir_carrier2={"pin": 28, "freq_hz": 56000, "duty_u16": 16384})
assert c.data["ir_carrier2"]["freq_hz"] == 56000 and c.data["ir_carrier"]["pin"] == 27
assert load_with(ir_carrier=ir).data["ir_carrier2"] is None  # a profile without it: one carrier, as before
for bad, why in (({"pin": 27, "freq_hz": 56000, "duty_u16": 16384}, "ir_carrier's pin"),
                 ({"pin": 2, "freq_hz": 56000, "duty_u16": 16384}, "also used by hole"),
                 ({"pin": 28, "freq_hz": 560000, "duty_u16": 16384}, "ir_carrier2.freq_hz"),
                 ({"pin": 28, "freq_hz": 56000}, "ir_carrier2.duty_u16"),
                 (56000, "ir_carrier2 must be an object")):
    try:
        load_with(ir_carrier=ir, ir_carrier2=bad)
        raise SystemExit("accepted " + repr(bad))
    except config.ConfigError as e:
        assert why in str(e), (why, str(e))
""",
    "boot_id_increments": """
p = D + "/boot_id"
assert [config.next_boot_id(p) for i in range(3)] == [1, 2, 3]
assert text(p) == "3" and not exists(p + ".tmp")
with open(p, "w") as f:
    f.write("garbage")
assert config.next_boot_id(p) == 1
r = config.next_boot_id(D + "/no/such/dir/boot_id")  # cannot persist: random, marked by bit 30
assert r >= config.BOOT_RANDOM and r < 2 * config.BOOT_RANDOM
""",
}


def _setup(tmp_path: Path) -> str:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "bench.json").write_text(json.dumps(PROFILE))
    return PRELUDE.format(dir=str(tmp_path))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_config_cpython(name, tmp_path):
    script = _setup(tmp_path) + SCENARIOS[name] + "\nprint('ok')\n"
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={"PYTHONPATH": str(FIRMWARE)}, timeout=60
    )
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr + p.stdout


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_config_micropython(name, tmp_path):
    assert check_micropython(_setup(tmp_path) + SCENARIOS[name] + "\nprint('ok')\n").strip().endswith("ok")


@pytest.mark.parametrize("profile", ["pico_w", "esp32_devkit"])
def test_shipped_profiles_load(profile):
    from fb import config

    c, problems = config.load(str(ROOT / "hardware" / "profiles"), profile, None)
    assert problems == [] and c.data["profile"] == profile
    assert {s["kind"] for s in c.data["sensors"]} == {"beam", "hall"}


def test_config_commands_through_the_dispatcher(tmp_path):
    """config_set over the protocol: a bad value gets an `invalid` reply and leaves config.json untouched."""
    from fb import config, proto

    _setup(tmp_path)
    user = tmp_path / "config.json"
    c, _ = config.load(str(tmp_path / "profiles"), "bench", str(user))
    d = proto.Dispatcher(proto.Encoder("fb-01", 7), config=c)

    def run(j):
        line = d.handle(proto.frame(json.dumps(j)), 0)[0]
        return json.loads(line[4:].rsplit("|", 1)[0])

    r = run({"c": "config_set", "id": 1, "k": "sensors.hole.min_pulse_us", "val": 300})
    assert r["ok"] and r["d"] == {"k": "sensors.hole.min_pulse_us", "val": 300}
    saved = user.read_text()
    r = run({"c": "config_set", "id": 2, "k": "sensors.hole.min_pulse_us", "val": 5})
    assert (r["ok"], r["err"]) == (False, "invalid")
    assert r["msg"] == "sensors.hole.min_pulse_us must be an integer 20..100000, not 5"
    assert user.read_text() == saved and c.sensor("hole")["min_pulse_us"] == 300
    r = run({"c": "config_get", "id": 3, "k": "sensors.zzz"})
    assert (r["ok"], r["err"]) == (False, "key")
    assert run({"c": "config_get", "id": 4})["d"]["val"]["board_id"] == "flickboard"
