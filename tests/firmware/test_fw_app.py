"""The whole firmware app (fb/app.py) on the simulated board (fb/sim.py): sensors -> protocol -> outbox ->
serial link, under the real MicroPython unix port and under CPython (one firmware, many hosts).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from board_lines import STAND_IN_MACHINE, frame, parse
from firmware_runner import APP_PRELUDE, BOARD_HEAP, FIRMWARE, ROOT, check_micropython, micropython_exe

PROFILES = str(ROOT / "hardware" / "profiles")

SCENARIO = {
    "profile": "pico_w",
    "board_id": "sim1",
    "hall_start": [3],
    "events": [
        {"at_ms": 100, "beam": "hole", "dur_us": 800},
        {"at_ms": 200, "hall": "baseline", "seg": 3, "present": False},
        {"at_ms": 300, "beam": "ditch2", "dur_us": 5000},
        {"at_ms": 400, "beam": "hole", "dur_us": 500},  # the 0.5 ms floor of the issue
        {"at_ms": 600, "hall": "baseline", "seg": 40, "present": True},  # quadrant 2 of the 128-sensor strip
    ],
    "end_ms": 1200,
}


def sim_cmd(interpreter: str, scenario_path: str, *extra: str) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "MICROPYPATH": f"{FIRMWARE}:.frozen", "PYTHONPATH": str(FIRMWARE)}
    exe = micropython_exe() if interpreter == "micropython" else sys.executable
    return [exe, str(FIRMWARE / "simboard.py"), scenario_path, "--profiles", PROFILES, *extra], env


def write_scenario(tmp_path: Path, scenario: dict[str, Any]) -> str:
    p = tmp_path / "scenario.json"
    p.write_text(json.dumps(scenario))
    return str(p)


@pytest.mark.parametrize("interpreter", ["micropython", "cpython"])
def test_scenario_gives_the_right_events_in_order(tmp_path: Path, interpreter: str) -> None:
    cmd, env = sim_cmd(interpreter, write_scenario(tmp_path, SCENARIO))
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    msgs = [parse(ln) for ln in p.stdout.splitlines()]
    assert all(m["v"] == 1 and m["b"] == "sim1" and m["bt"] == 1 for m in msgs)
    reliable = [m for m in msgs if m["m"] != "heartbeat"]
    assert [m["s"] for m in reliable] == [1, 2, 3, 4, 5, 6], "hello and every event take the next seq"
    assert reliable[0]["m"] == "hello" and reliable[0]["prof"] == "pico_w" and reliable[0]["rst"] == "simulated"
    got = [(m["m"], m["n"], m["t"]) for m in reliable[1:]]
    assert got == [
        ("pass", "hole", 100_000),
        ("shot_start", "baseline", 200_000),
        ("pass", "ditch2", 300_000),
        ("pass", "hole", 400_000),
        ("baseline_rest", "baseline", 600_000),
    ]
    assert [m.get("dur_us") for m in reliable[1:]] == [800, None, 5000, 500, None]
    assert (reliable[2]["q"], reliable[2]["seg"]) == (1, 3) and (reliable[5]["q"], reliable[5]["seg"]) == (2, 40)
    beats = [m for m in msgs if m["m"] == "heartbeat"]
    assert beats and all(b["drop"] == 0 for b in beats)


class LiveSim:
    """A simulated board in real time, driven through its stdin/stdout like a USB serial port."""

    def __init__(self, tmp_path: Path, scenario: dict[str, Any]) -> None:
        cmd, env = sim_cmd("micropython", write_scenario(tmp_path, scenario), "--realtime")
        self.p = subprocess.Popen(
            cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
        )
        self.buf = b""

    def send(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def read_until(self, pred: Any, timeout: float = 15) -> list[dict[str, Any]]:
        """Messages read until one satisfies pred (returned list ends with it)."""
        assert self.p.stdout is not None
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                m = parse(line.decode())
                out.append(m)
                if pred(m):
                    return out
            r, _, _ = select.select([self.p.stdout], [], [], 0.2)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.buf += chunk
        raise AssertionError(f"timed out; got {out}")

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def test_host_commands_through_the_serial_link(tmp_path: Path) -> None:
    sim = LiveSim(tmp_path, {**SCENARIO, "end_ms": None, "heartbeat_ms": 60000})
    try:
        sim.read_until(lambda m: m["m"] == "baseline_rest")
        sim.send(frame({"c": "status", "id": 1}))
        st = sim.read_until(lambda m: m["m"] == "reply" and m.get("c") == "status")[-1]
        assert st["ok"] is True and st["d"]["q"] == 6, "hello + 5 events wait for an ack"
        sim.send(frame({"c": "ack", "bt": 1, "s": 4}))
        sim.send("this is not a protocol line\n")
        bad = sim.read_until(lambda m: m["m"] == "reply" and m.get("ok") is False)[-1]
        assert bad["err"] and bad["msg"]
        sim.send(frame({"c": "ping", "id": 2}))
        got = sim.read_until(lambda m: m["m"] == "baseline_rest")
        assert [m["s"] for m in got if m["m"] not in ("reply", "heartbeat")] == [5, 6], "ping resends the un-acked"
        sim.send(frame({"c": "selftest", "id": 3}))
        test = sim.read_until(lambda m: m["m"] == "reply" and m.get("c") == "selftest")[-1]
        sensors = test["d"]["sensors"]
        assert sensors["hole"] == "clear" and sensors["baseline"] == [40]
        sim.send(frame({"c": "reboot", "id": 4}))
        sim.read_until(lambda m: m["m"] == "reply" and m.get("c") == "reboot")
        assert sim.p.wait(10) == 0, "the simulated board stops on reboot"
    finally:
        sim.close()


def test_a_host_that_does_not_read_never_stops_the_board(tmp_path: Path) -> None:
    """The board's USB port is open on the host but nobody reads it (a stuck program, a terminal scrolled back).
    The board must go on capturing and reach the end of its timeline: lines that do not fit are skipped (counted),
    and the host gets the reliable ones again with `ping` once it reads. Before: the board blocked in its write."""
    control = tmp_path / "control"
    control.mkdir()
    # A ditch beam: the hole's rebound_ms would take passes 5 ms apart for bounces, and the hole is not the point here.
    events = [{"at_ms": 50 + 5 * i, "beam": "ditch1", "dur_us": 700} for i in range(3000)]  # ~330 KB of lines
    scenario = {**SCENARIO, "events": events, "hall_start": [], "end_ms": None, "heartbeat_ms": 1000,
                "control": str(control), "holds": [{"at_ms": 16000, "name": "end"}]}  # fmt: skip
    cmd, env = sim_cmd("micropython", write_scenario(tmp_path, scenario))
    sim = LiveSim.__new__(LiveSim)
    sim.p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sim.buf = b""
    try:
        deadline = time.monotonic() + 60
        while not (control / "end.at").exists():  # nobody reads the board's output meanwhile
            assert sim.p.poll() is None, sim.p.stderr.read() if sim.p.stderr else ""
            assert time.monotonic() < deadline, "the board stopped: blocked writing to a host that does not read"
            time.sleep(0.1)
        assert int((control / "end.at").read_text()) == 3001, "every pass was captured and numbered"
        sim.send(frame({"c": "status", "id": 1}))
        st = sim.read_until(lambda m: m["m"] == "reply" and m.get("c") == "status", timeout=30)[-1]
        assert st["d"]["usb_skip"] > 1000 and st["d"]["drop"] == 3001 - 64, st["d"]
        sim.send(frame({"c": "ping", "id": 2}))
        got = sim.read_until(lambda m: m["m"] == "pass" and m["s"] == 3001)
        assert [m["s"] for m in got if m["m"] == "pass"][-64:] == list(range(2938, 3002)), "the outbox, resent"
    finally:
        (control / "end.go").touch()
        sim.close()


def test_outbox_overflow_reports_the_exact_gap(tmp_path: Path) -> None:
    events = [{"at_ms": 50 + 20 * i, "beam": "ditch1", "dur_us": 700} for i in range(10)]  # (not the hole: rebound_ms)
    sim = LiveSim(tmp_path, {**SCENARIO, "events": events, "hall_start": [], "end_ms": None, "outbox_size": 4})
    try:
        got = sim.read_until(lambda m: m["m"] == "pass" and m["s"] == 11)
        assert [m["s"] for m in got if m["m"] == "pass"] == list(range(2, 12)), "every event is sent once live"
        sim.send(frame({"c": "ping", "id": 9}))
        resent = sim.read_until(lambda m: m["m"] == "pass" and m["s"] == 11)
        gap = [m for m in resent if m["m"] == "gap"]
        assert len(gap) == 1 and (gap[0]["first"], gap[0]["last"]) == (1, 7), "hello..7 were dropped, exactly"
        assert [m["s"] for m in resent if m["m"] == "pass"] == [8, 9, 10, 11]
    finally:
        sim.close()


def test_ten_thousand_events_through_the_whole_app_in_a_board_sized_heap() -> None:
    """Principle 5 and the issue's proof: 10,000 events through IRQ -> detector -> encoder -> outbox in a
    heap the size of the app (BOARD_HEAP), the host acking as it goes: none dropped and no heap growth after
    gc.collect()."""
    script = (
        APP_PRELUDE
        + """
import gc
board = SimBoard()
board.pin(2, 0)
sink = Sink()
app = App(Settings({"board_id": "heap", "profile": "pico_w", "outbox_size": 64, "heartbeat_ms": 1000000,
                    "sensors": [hole_beam()]}), board, 1, "test", sink)
t = 1000
acked = 0
mark = 0
for i in range(10000):
    board.beam(2, t, 700, 1)
    t += 3000
    board.run_until(t)
    app.step()
    if app.enc.seq - acked >= 16:
        acked = app.enc.seq
        app.dispatcher.handle('FB1|{"c":"ack","bt":1,"s":' + str(acked) + '}', t)
    if i == 999:
        gc.collect()
        mark = gc.mem_alloc()
gc.collect()
print(app.enc.seq, app.outbox.dropped, app.sensors.dropped, gc.mem_alloc() - mark, sink.sent)
"""
    )
    # A board-sized run uses the precompiled firmware, as a board does (firmware_runner.compiled_firmware).
    stdout = check_micropython(script, heapsize=BOARD_HEAP, timeout=120)
    seq, dropped, ring_dropped, growth, lines = (int(x) for x in stdout.split())
    assert seq == 10001, "hello + 10,000 passes, each with its own seq"
    assert lines == 10002, "each sent once, plus the heartbeat of the first pass"
    assert dropped == 0 and ring_dropped == 0
    assert growth <= 0, f"heap grew by {growth} bytes between the 1,000th and the 10,000th event"


def test_simulated_board_publishes_to_a_real_broker_and_takes_commands(tmp_path: Path) -> None:
    """The same app over MQTT: retained online, events as bare JSON on .../raw, commands on .../cmd, and the
    retained last will when the board dies."""
    import queue

    import paho.mqtt.client as mqtt

    from flickboard.sim.broker import mosquitto

    got: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
    with mosquitto() as b:
        obs = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="observer")
        obs.on_connect = lambda c, *_: c.subscribe("flickboard/sim1/#", qos=1)
        obs.on_message = lambda c, u, m: got.put((m.topic, m.payload, m.retain))
        listening = threading.Event()
        obs.on_subscribe = lambda *_a: listening.set()
        obs.connect(b.host, b.port)
        obs.loop_start()
        assert listening.wait(15), "the observer's subscription was not acknowledged"  # before the board publishes
        events = [{"at_ms": 1500 + 100 * i, "beam": "hole", "dur_us": 900} for i in range(3)]
        scenario = {
            **SCENARIO,
            "events": events,
            "hall_start": [],
            "end_ms": None,
            "heartbeat_ms": 60000,
            "mqtt": {"host": b.host, "port": b.port, "keepalive": 5},
        }
        sim = LiveSim(tmp_path, scenario)

        def wait(pred: Any, timeout: float = 15) -> tuple[str, Any]:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    topic, payload, _retained = got.get(timeout=0.2)
                except queue.Empty:
                    continue
                doc = payload.decode() if topic.endswith("/status") else json.loads(payload)
                if pred(topic, doc):
                    return topic, doc
            raise AssertionError("timed out waiting for an MQTT message")

        try:
            wait(lambda t, d: t == "flickboard/sim1/status" and d == "online")
            seen = []
            while len(seen) < 3:
                _, d = wait(lambda t, d: t == "flickboard/sim1/raw" and isinstance(d, dict) and d["m"] == "pass")
                seen.append(d["s"])
            assert seen == [2, 3, 4], "events arrive in order as bare JSON (json.loads read each payload)"
            obs.publish("flickboard/sim1/cmd", json.dumps({"c": "ack", "bt": 1, "s": 3}), qos=1)
            obs.publish("flickboard/sim1/cmd", json.dumps({"c": "status", "id": 7}), qos=1)
            _, reply = wait(lambda t, d: isinstance(d, dict) and d.get("m") == "reply" and d.get("id") == 7)
            assert reply["ok"] and reply["d"]["q"] == 1, "the ack over MQTT trimmed the outbox to seq 4"
            sim.p.kill()
            wait(lambda t, d: t == "flickboard/sim1/status" and d == "offline", timeout=20)
        finally:
            sim.close()
            obs.loop_stop()
            obs.disconnect()


def test_board_entry_wires_config_pins_watchdog_carrier_and_resets_on_reboot(tmp_path: Path) -> None:
    """fb.app.run(profile), the path a real board takes: profile + config.json (a bad override becomes a fault
    event), hello with the reset cause, IRQs on the beam pins, the 38 kHz carrier, the watchdog fed by the loop,
    and machine.reset() after a `reboot` command from the host."""
    (tmp_path / "machine.py").write_text(STAND_IN_MACHINE)
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "pico_w.json").write_text((ROOT / "hardware" / "profiles" / "pico_w.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({"board_id": "table2", "sensors": {"hole": {"stuck_ms": 1}}}))
    script = f"""
import machine
from fb import app
try:
    app.run({{"profile": "pico_w"}}, {str(tmp_path) + "/"!r})
except SystemExit:
    pass
print("LOG", machine.log)
"""
    reboot = frame({"c": "reboot", "id": 1})
    p = subprocess.run(
        [micropython_exe(), "-c", script],
        input=reboot,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "MICROPYPATH": f"{tmp_path}:{FIRMWARE}:.frozen"},
    )
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    log = next(ln for ln in lines if ln.startswith("LOG"))
    msgs = [parse(ln) for ln in lines if ln.startswith("FB1|")]
    hello = msgs[0]
    assert hello["m"] == "hello" and hello["b"] == "table2" and hello["rst"] == "watchdog" and hello["bt"] == 1
    faults = [m for m in msgs if m["m"] == "fault"]
    # This port has no rp2 module: the profile's PIO counter on the hole beam cannot exist, and says so.
    assert faults[0]["s"] == 2 and faults[0]["code"] == "counter" and faults[0]["n"] == "hole", faults
    assert "needs an RP2040" in faults[0]["msg"], faults
    assert faults[1]["s"] == 3 and "stuck_ms" in faults[1]["msg"], "the refused override is reported, not silent"
    assert any(m["m"] == "reply" and m["c"] == "reboot" and m["ok"] for m in msgs)
    assert "'wdt 8000'" in log and "'fed'" in log and "'pwm 27 38000'" in log and "'irq 2'" in log
    assert log.rstrip("]").endswith("'reset'"), "the board resets after the reboot reply"
    assert (tmp_path / "boot_id").read_text().strip() == "1", "the boot counter is persisted"


MEMORY_SCRIPT = (
    APP_PRELUDE
    + """
import micropython
board = SimBoard()
board.pin(2, 0)
sink = Sink(keep=True)
app = App(Settings({"board_id": "mem", "profile": "pico_w", "outbox_size": 64, "heartbeat_ms": 5,
                    "sensors": [hole_beam()]}), board, 1, "test", sink)
for k in range(PASSES_OF_EVENTS):
    board.beam(2, 5000 + k * 3000, 700, 1)   # a pass every 3 ms
passes = [0]
step = app.step
def counted():
    passes[0] += 1
    if passes[0] == 3:
        micropython.heap_lock()       # from here on every allocation fails, as on a board out of memory
    if passes[0] == LOCKED_UNTIL:
        micropython.heap_unlock()
    if passes[0] == 200:
        app.dispatcher.reboot_requested = True
    return step()
app.step = counted
app.loop()                            # the board's own loop, 1 ms of board time a pass
print("SEQ", [l.split('"s":')[1].split(",")[0] for l in sink.lines if '"m":"pass"' in l])
print("T", [l.split('"t":')[1].split(",")[0] for l in sink.lines if '"m":"pass"' in l])
print("FAULT", [l for l in sink.lines if '"m":"fault"' in l])
print("Q", app.outbox.depth(), app.memory_errors, app.lost)
"""
)


def _memory_run(events: int, locked_until: int) -> dict[str, Any]:
    script = MEMORY_SCRIPT.replace("PASSES_OF_EVENTS", str(events)).replace("LOCKED_UNTIL", str(locked_until))
    out = check_micropython(script, timeout=60)
    got = {}
    for line in out.splitlines():
        key, _, rest = line.partition(" ")
        got[key] = rest
    return got


def test_out_of_memory_never_ends_the_loop_and_loses_no_event() -> None:
    """The heap is locked (every allocation fails) for 25 passes while 8 beam passes happen. Before, the first
    MemoryError left the main loop and the watchdog reset lost the outbox. Now every event is sent once memory is
    back, in order, with the time it happened, and a `memory` fault says so."""
    got = _memory_run(events=10, locked_until=28)
    seqs = [int(x) for x in got["SEQ"].strip("[]").replace("'", "").split(",")]
    assert len(seqs) == 10 and seqs == sorted(seqs) and seqs[0] == 2, got  # hello is 1; ten passes, none lost
    assert got["T"] == str([str(5000 + k * 3000) for k in range(10)]), got
    assert "out of memory" in got["FAULT"] and "events lost: 0" in got["FAULT"], got
    assert set(range(2, 13)) - set(seqs) == {int(got["FAULT"].split('"s":')[1].split(",")[0])}, "the fault is the 11th"
    depth, errors, lost = (int(x) for x in got["Q"].split())
    assert depth == 12 and errors >= 5 and lost == 0, got["Q"]  # hello, ten passes and the fault, all un-acked


def test_out_of_memory_for_long_keeps_edges_in_the_ring_and_says_what_overflowed() -> None:
    """Locked for 147 passes while forty beam passes happen (80 edges): the interrupt ring keeps the first 64
    edges until memory is back; the rest overflow, and both faults say so. Nothing is lost without a word."""
    got = _memory_run(events=40, locked_until=150)
    seqs = [int(x) for x in got["SEQ"].strip("[]").replace("'", "").split(",")]
    lost_edges = int(got["FAULT"].split("irq_overflow")[1].split('"msg":"')[1].split(" ")[0])
    assert "sensor edges lost" in got["FAULT"] and "out of memory" in got["FAULT"], got["FAULT"]
    # Every edge is either in a pass or counted lost (a break whose end was lost is dropped, not invented).
    assert 78 <= 2 * len(seqs) + lost_edges <= 80 and len(seqs) >= 32, (len(seqs), lost_edges)
    depth, errors, lost = (int(x) for x in got["Q"].split())
    assert lost == 0 and depth == 1 + len(seqs) + 2, got["Q"]  # hello, the passes, two faults: a gapless numbering
    assert errors >= 140, got["Q"]  # every locked pass failed, and the loop went on


def test_an_idle_pass_of_the_whole_board_allocates_nothing() -> None:
    """The shipped pico_w profile (five beams, the 128-sensor strip behind eight multiplexers) on the simulated pins:
    with the heap locked, every pass, those that scan the strip included, runs without allocating (on the board an
    allocation in every pass churns the heap of a long game)."""
    script = (
        APP_PRELUDE
        + f"""
import json, micropython
from fb.config import Config
cfg = Config(json.load(open({str(ROOT / "hardware" / "profiles" / "pico_w.json")!r})), {{"board_id": "idle"}})
board = SimBoard()
for s in cfg.data["sensors"]:
    if s["kind"] == "beam":
        board.pin(s["pin"], 0)
    else:
        strip = board.strip(s)
strip.set(40, True)
strip.set(41, True)
app = App(cfg, board, 1, "test", Sink())
app.next_beat = 10 ** 9
t = 0
for i in range(50):
    t += 1000
    board.run_until(t)
    app.step()
scans = 0
for i in range(100):
    t += 1000
    board.run_until(t)
    slot = app.sensors.halls[0]._slot
    micropython.heap_lock()
    try:
        app.step()
    finally:
        micropython.heap_unlock()
    scans += app.sensors.halls[0]._slot != slot
print("SCANS", scans, app.sensors.live()["baseline"])
"""
    )
    out = check_micropython(script, timeout=60)
    assert "SCANS 10 [40, 41]" in out, out
