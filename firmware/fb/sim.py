"""The simulated board: the real firmware app (fb.app) on the simulated pin backend (fb.simpins).

It speaks the real protocol on stdout and reads host commands on stdin, exactly as the board does on USB,
so a bench test or the host bridge cannot tell it from a board. It runs under the MicroPython unix port
and under CPython:

    micropython firmware/simboard.py SCENARIO.json [--realtime]

A scenario is JSON:
    {"profile": "pico_w", "board_id": "sim1",
     "hall_start": [3, 20],                        segments with a puck resting on them at boot
     "events": [{"at_ms": 100, "beam": "hole", "dur_us": 800},
                {"at_ms": 400, "hall": "baseline", "seg": 3, "present": false},
                {"at_ms": 900, "hall": "baseline", "seg": 40, "width": 2, "present": true}],
                                                   a puck over `width` neighbouring segments (default 1)
     "end_ms": 2000,                               stop after this much simulated time (null: run on)
     "mqtt": {"host": "127.0.0.1", "port": 1883},  optional: also publish to a broker (use --realtime)
     "holds": [{"at_ms": 500, "name": "shot-1"}],  optional, sorted by at_ms: pause points (needs control)
     "control": "/abs/dir",                        optional: the directory of the hold files
     "stamps": "/abs/file"}                        optional: for benchmarks, "SEQ WALL_US" per reliable message,
                                                   the wall clock (µs) when the main loop pass that sent it began
Times are simulated: without --realtime the board runs as fast as it can, in steps of step_us; while no pin is
due to change for a while, a pass covers up to IDLE_STEP_US of simulated time (idle time is skipped, as a board
that sleeps between passes would; the detectors read the IRQ timestamps, which stay exact).

Holds let a driver on the host run a game in lock-step with the board. When simulated time reaches a hold,
the board writes <control>/<name>.at (atomically: <name>.at.tmp, then a rename) holding its high-water
sequence number (the last reliable seq it assigned) and a newline, then freezes simulated time: no sensor
event fires and no heartbeat is due, but the main loop keeps running (every ~2 ms of real time), so host
commands (ack, ping, ...) are answered and pending lines still go out. While lines wait for an ack, a
heartbeat still goes out every heartbeat_ms of real time (on the frozen clock), as a real board's would: a
host that missed the lines learns the high-water mark from it and asks for them again. It goes on once <control>/<name>.go
exists. Without "control" the holds are ignored. MQTT keepalive defaults to 0 (off) when there is a control
directory: a frozen clock sends no keepalive pings, and the broker would drop the board during a long hold.
"""

import json
import os
import time

from fb.app import App
from fb.config import Config, read_json
from fb.serial_link import SerialLink
from fb.simpins import SimBoard


def build(scenario, profiles_dir, serial=None, mqtt=None, boot_id=1):
    """(app, board, strips): the app wired to a simulated board with the scenario's timeline loaded."""
    prof = read_json(profiles_dir.rstrip("/") + "/" + scenario["profile"] + ".json")
    if prof is None:
        raise ValueError("no profile " + scenario["profile"] + " in " + profiles_dir)
    user = {"board_id": scenario.get("board_id", "sim")}
    for key in ("heartbeat_ms", "outbox_size"):
        if key in scenario:
            user[key] = scenario[key]
    cfg = Config(prof, user)
    board = SimBoard()
    beams = {}
    strips = {}
    for s in cfg.data["sensors"]:
        if s["kind"] == "beam":
            board.pin(s["pin"], 1 if s["invert"] else 0)  # idle: beam intact
            beams[s["name"]] = s
        else:
            strips[s["name"]] = board.strip(s)
    for name, strip in strips.items():
        for seg in scenario.get("hall_start", []):
            strip.set(seg, True)
    for ev in scenario.get("events", []):
        t = int(ev["at_ms"] * 1000)
        if "beam" in ev:
            s = beams[ev["beam"]]
            board.beam(s["pin"], t, ev["dur_us"], 0 if s["invert"] else 1, ev.get("lost"))
        else:
            for seg in range(ev["seg"], ev["seg"] + ev.get("width", 1)):
                strips[ev["hall"]].at(t, seg, ev["present"])
    app = App(cfg, board, boot_id, "simulated", serial, mqtt)
    return app, board, strips


IDLE_STEP_US = 5000  # the most simulated time one main loop pass covers while no pin change is near


def stride(app, board, t, step_us, limit_us):
    """Simulated time to the next main loop pass: step_us near a pin change (or `limit_us`, a hold or the end), or
    while the board's MQTT link is down (its reconnect backoff keeps its pace against the wall clock); else up to
    IDLE_STEP_US, landing one step before the change and on a multiple of step_us."""
    if app.mqtt is not None and not app.mqtt.is_connected():
        return step_us
    nxt = board.next_at()
    if limit_us is not None and (nxt is None or limit_us < nxt):
        nxt = limit_us
    room = IDLE_STEP_US if nxt is None else nxt - t - step_us
    if room <= step_us:
        return step_us
    if room > IDLE_STEP_US:
        room = IDLE_STEP_US
    return room - room % step_us


def run(scenario, profiles_dir, realtime=False, step_us=500, serial=None):
    """Run the scenario; returns the app (for tests) when end_ms is reached or a `reboot` is asked."""
    mqtt = None
    m = scenario.get("mqtt")
    if m:
        from fb.mqtt_link import Link

        mqtt = Link(
            scenario.get("board_id", "sim"), m["host"], m.get("port", 1883), user=m.get("user"),
            password=m.get("password"), keepalive=m.get("keepalive", 0 if scenario.get("control") else 30),
        )
    link = serial if serial is not None else SerialLink()
    app, board, _ = build(scenario, profiles_dir, link, mqtt, scenario.get("boot_id", 1))
    end = scenario.get("end_ms")
    end_us = None if end is None else int(end * 1000)
    sleep = None
    if realtime:
        sleep = time.sleep
    control = scenario.get("control")
    holds = scenario.get("holds", []) if control else []
    next_hold = 0
    hold_us = int(holds[0]["at_ms"] * 1000) if holds else None  # when the next hold is due
    shift = 0  # µs the scenario waited in holds while the link was down
    t = 0
    stamps = open(scenario["stamps"], "w") if scenario.get("stamps") else None
    try:
        while (end_us is None or t <= end_us) and not app.dispatcher.reboot_requested:
            while hold_us is not None and t >= hold_us:
                late = hold(app, control, holds[next_hold]["name"], board=board)
                if late:  # the scenario's future waited that long: its later holds and its end too
                    shift += late
                    if end_us is not None:
                        end_us += late
                t = board.now if board.now > t else t
                next_hold += 1
                hold_us = int(holds[next_hold]["at_ms"] * 1000) + shift if next_hold < len(holds) else None
            if app.dispatcher.reboot_requested:
                break
            board.run_until(t)
            if stamps is None:
                app.step()
            else:
                _stamped_step(app, stamps)
            if sleep is not None:
                t += step_us
                sleep(step_us / 1000000)
            else:
                t += stride(app, board, t, step_us, end_us if hold_us is None else hold_us)
    finally:
        board.close()
        if stamps is not None:
            stamps.close()
    return app


def _stamped_step(app, stamps):
    """One main loop pass; each reliable message it sent is written to `stamps` with the pass's start time."""
    seq = app.enc.seq
    t0 = time.time_ns() // 1000
    app.step()
    while seq < app.enc.seq:
        seq += 1
        stamps.write("%d %d\n" % (seq, t0))


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def hold(app, control, name, pause_s=0.002, board=None):
    """Announce the hold (<name>.at: the high-water seq) and keep the app's links running, with the
    simulated clock frozen, until <name>.go exists or a `reboot` is asked. While the board's MQTT link is
    down, the clock runs at the wall clock's pace and the scenario's future waits as long (Board.delay), so a board
    held while it reconnects keeps trying on its backoff, as a real board would, however near its next sensor event
    is. Returns the µs it waited so (0 when the link stayed up)."""
    base = control.rstrip("/") + "/" + name
    with open(base + ".at.tmp", "w") as f:
        f.write(str(app.enc.seq) + "\n")
    os.rename(base + ".at.tmp", base + ".at")
    go = base + ".go"
    beat = time.time_ns() // 1000000
    late = 0
    last = time.time_ns() // 1000
    while not app.dispatcher.reboot_requested:
        now = app.step()
        if _exists(go):
            return late
        time.sleep(pause_s)
        wall_us = time.time_ns() // 1000
        if board is not None and app.mqtt is not None and not app.mqtt.is_connected():
            board.delay(wall_us - last)
            late += wall_us - last
        last = wall_us
        wall = wall_us // 1000
        if wall - beat >= app.beat_ms:
            beat = wall
            if app.outbox.depth():  # lines nobody acknowledged: say the high-water mark, so the host asks again
                app._heartbeat(now)
    return late


def main(argv):
    if len(argv) < 2:
        print("usage: simboard.py SCENARIO.json [--realtime] [--profiles DIR]")
        return 2
    with open(argv[1]) as f:
        scenario = json.load(f)
    profiles = "hardware/profiles"
    if "--profiles" in argv:
        profiles = argv[argv.index("--profiles") + 1]
    run(scenario, profiles, "--realtime" in argv)
    return 0
