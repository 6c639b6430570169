"""Runs on the emulated Pico, on the real MicroPython rp2 port, with the board in safe mode (bench/rp2_bench.py copies
it there compiled, and calls it with mpremote exec). Each function prints one JSON line; those that wait for the
host's timeline print "ready" first, then run the board's main loop while the host plays the timeline.

Times are read with time.ticks_us(): the emulated chip runs at 125 MHz and its timer counts emulated µs, so inside
a busy stretch (no sleep) one µs is 125 cycles. Heap figures are gc.mem_alloc() after gc.collect(); the largest free
block is printed by micropython.mem_info() after the JSON line (bench/rp2_bench.py reads it there).
"""

import gc
import json
import time

from micropython import const

NO_BEAT = const(1 << 28)  # a heartbeat this far ahead (ms) does not come within a measurement


def _app(keep=None, mqtt=None):
    """The board's App as fb.app.run builds it, from the board's profile and config.json, without the watchdog and
    the loop; `keep`: the names of the sensors to keep (None: all)."""
    from fb import app, config, pins, serial_link

    cfg, _problems = config.load("profiles", None, "config.json")
    if keep is not None:
        cfg.data["sensors"] = [s for s in cfg.data["sensors"] if s["name"] in keep]
    return app.App(cfg, pins, 1, "power", serial_link.SerialLink(), mqtt)


def idle(passes):
    """Main-loop passes with nothing happening, in three states of the heap: as building the app left it (with its
    garbage, as after boot), after gc.collect(), and with the heap locked. Each pass's µs, with those that scanned
    the hall strip apart; bytes allocated per pass (the collector off).

    Why three: MicroPython puts the frame of a call that needs more than 11 words of state (most methods here) on
    the heap when it can, and frees it on return. That search for a free block is all the heap state changes: in a
    heap full of small holes it is long; with the heap locked the frame goes on the C stack."""
    from array import array

    import micropython

    a = _app()
    a.next_beat = NO_BEAT
    hall = a.sensors.halls[0]
    ticks = time.ticks_us
    diff = time.ticks_diff
    us = array("i", bytes(4 * passes))
    scanned = bytearray(passes)
    # what reading the clock twice costs, to take off each pass
    clock = 0
    i = 0
    while i < 200:
        t0 = ticks()
        t1 = ticks()
        clock += diff(t1, t0)
        i += 1
    out = {"clock_pair_us": clock / 200, "passes": passes, "sensors": len(a.sensors.beams), "segments": hall.count}
    refused = 0  # passes that allocated with the heap locked (MemoryError): left out, and counted
    for state in ("built", "collected", "locked"):
        if state == "collected":
            gc.collect()
        lock = state == "locked"
        i = 0
        while i < passes:
            slot = hall._slot
            if lock:
                micropython.heap_lock()
            t0 = ticks()
            try:
                a.step()
            except MemoryError:
                micropython.heap_unlock()
                refused += 1
                if refused > passes:
                    raise
                continue
            t1 = ticks()
            if lock:
                micropython.heap_unlock()
            us[i] = diff(t1, t0)
            scanned[i] = 1 if hall._slot != slot else 0
            i += 1
        out[state] = {
            "plain_us": [us[k] for k in range(passes) if not scanned[k]],
            "scan_us": [us[k] for k in range(passes) if scanned[k]],
        }
    out["refused_locked"] = refused
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    i = 0
    while i < passes:
        a.step()
        i += 1
    after = gc.mem_alloc()
    gc.enable()
    out["alloc_bytes"] = after - before
    print(json.dumps(out))


def events(count, timeout_ms):
    """The app's main loop as App.loop runs it (a pass, then sleep_ms(1)) with the five beams (the hall strip left
    out: its scans would add 3 ms to every tenth pass), the heap collected once after building the app, while the
    host passes the beams `count` times in turn. Each pass is timed; a pass that drains edges from the ring or sends a
    line is a working pass. Prints the median µs of the other passes, and the µs and number of the working ones."""
    from array import array

    from fb import compat

    a = _app(keep=("hole", "ditch1", "ditch2", "ditch3", "ditch4"))
    a.next_beat = NO_BEAT
    ring = a.sensors.ring
    ticks = time.ticks_us
    diff = time.ticks_diff
    cap = 8000
    us = array("i", bytes(4 * cap))
    work = bytearray(cap)
    gc.collect()
    _wait_ready()
    end = time.ticks_add(time.ticks_ms(), timeout_ms)
    n = 0
    while a.enc.seq < 1 + count and n < cap and time.ticks_diff(end, time.ticks_ms()) > 0:
        waiting = len(ring)
        seq = a.enc.seq
        t0 = ticks()
        a.step()
        us[n] = diff(ticks(), t0)
        work[n] = 1 if waiting or a.enc.seq != seq else 0
        n += 1
        compat.sleep_ms(1)
    plain = sorted(us[k] for k in range(n) if not work[k])
    busy = [us[k] for k in range(n) if work[k]]
    print(
        json.dumps(
            {
                "passes": n,
                "seq": a.enc.seq,
                "plain_median_us": plain[len(plain) // 2] if plain else None,
                "work_us": sum(busy),
                "work_passes": len(busy),
                "dropped": a.outbox.dropped + a.sensors.dropped,
            }
        )
    )


def emit_path(n):
    """The event path's parts, timed on the board with the heap collected after building the app: a detector event
    encoded (fb.proto.Encoder.event), kept in the outbox, written to USB serial; and the whole of App._emit (all
    three). The median µs of n of each; the bytes one App._emit allocates."""
    a = _app()
    a.next_beat = NO_BEAT
    gc.collect()
    ticks = time.ticks_us
    diff = time.ticks_diff
    f = {"dur_us": 1000}
    enc = a.enc
    line = enc.event("pass", "hole", 1000, f)
    out = {"line_bytes": len(line)}
    for name in ("encode", "outbox", "usb_write", "emit"):
        us = []
        i = 0
        while i < n:
            if name == "encode":
                t0 = ticks()
                enc.event("pass", "hole", 1000, f)
            elif name == "outbox":
                t0 = ticks()
                a.outbox.add(enc.seq, line)
            elif name == "usb_write":
                t0 = ticks()
                a.serial.send(line)
            else:
                t0 = ticks()
                a._emit("pass", "hole", 1000, f)
            us.append(diff(ticks(), t0))
            i += 1
        us.sort()
        out[name] = us[n // 2]
    gc.collect()
    gc.disable()
    m0 = gc.mem_alloc()
    i = 0
    while i < n:
        a._emit("pass", "hole", 1000, f)
        i += 1
    out["alloc_per_emit"] = (gc.mem_alloc() - m0) // n
    gc.enable()
    print(json.dumps(out))


def module_sizes():
    """The heap each of the firmware's modules takes once imported (bytecode, constants, globals), in the order
    their imports need (a module's own imports come before it)."""
    names = (
        "compat",
        "ring",
        "proto",
        "outbox",
        "config",
        "pins",
        "detect",
        "strip",
        "serial_link",
        "app",
        "dns",
        "mqtt",
        "mqtt_link",
    )
    out = {}
    for name in names:
        gc.collect()
        before = gc.mem_alloc()
        __import__("fb." + name)
        gc.collect()
        out[name] = gc.mem_alloc() - before
    print(json.dumps(out))


def start():
    """What the app's start costs after MicroPython has booted, as main.py and fb.app.run do it (the watchdog and
    the loop left out): importing fb.app and the modules it needs, loading the configuration, building the App with
    the whole profile, the collection after it. The µs of each step, and the heap held live after the collection.
    Run first in a fresh interpreter (mpremote's soft reset), so that no fb module is imported yet."""
    gc.collect()
    base = gc.mem_alloc()
    ticks = time.ticks_us
    t0 = ticks()
    from fb import app, config, pins, serial_link

    t1 = ticks()
    cfg, _problems = config.load("profiles", None, "config.json")
    a = app.App(cfg, pins, 1, "power", serial_link.SerialLink(), None)
    t2 = ticks()
    gc.collect()
    t3 = ticks()
    held = gc.mem_alloc() - base
    print(
        json.dumps(
            {
                "import_us": time.ticks_diff(t1, t0),
                "build_us": time.ticks_diff(t2, t1),
                "collect_us": time.ticks_diff(t3, t2),
                "live_after_start": held,
                "free_after_start": gc.mem_free(),
                "sensors": len(a.sensors.beams),
                "app_file": getattr(app, "__file__", "?"),
            }
        )
    )


def _wait_ready():
    print("ready")


def busy_latency(edges, timeout_ms):
    """The firmware's own IRQ handler on the hole beam's pin, in a ring of its own that nothing drains, while the
    main loop runs the app's passes without a pause (the other beams and the strip, which the host keeps busy).
    Prints the ticks_us the handler stored for each edge."""
    from fb.ring import EdgeIrq, Ring
    from machine import Pin

    a = _app(keep=("ditch1", "ditch2", "ditch3", "ditch4", "baseline"))
    a.next_beat = NO_BEAT
    gc.collect()
    ring = Ring(256)
    irq = EdgeIrq(ring, 0)
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    pin.irq(handler=irq.handler, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True)
    _wait_ready()
    end = time.ticks_add(time.ticks_ms(), timeout_ms)
    passes = 0
    while irq.edges < edges and time.ticks_diff(end, time.ticks_ms()) > 0:
        a.step()
        passes += 1
    pin.irq(handler=None)
    m = ring.m
    got = [m[8 + 2 * k + 1] for k in range(len(ring))]
    print(json.dumps({"ticks": got, "passes": passes, "events": a.enc.seq}))


def budget(events, timeout_ms, with_mqtt=True, pio=True):
    """Everything a board holds live, step by step: the app's modules, the configuration, the MQTT client
    (fb.mqtt_link, fb.mqtt, fb.dns, over the stand-in socket module), the App with every sensor of the profile; then
    a game of `events` events that nobody acknowledges, with the MQTT link failing to connect; then the client's
    16-message QoS 1 window filled from the outbox, as after a dropped connection (with_mqtt False: a board on USB
    only, without any of the MQTT part; pio False: an ESP32, which has no PIO, so its strip is scanned by the CPU and
    fb.muxscan is never loaded). Each figure is printed as soon as
    it is known ("M name bytes"), so that a heap too small for the whole still says how far it got; a MemoryError
    outside the app's own handling ends the run with "M out_of_memory <where>". The heap's size is the caller's:
    bench/rp2_bench.py takes part of it away first."""
    import micropython

    where = ["start"]
    base = [0]

    def step(name):
        where[0] = name
        gc.collect()
        now = gc.mem_alloc()
        print("M", name, now - base[0])
        base[0] = now

    gc.collect()
    base[0] = gc.mem_alloc()
    try:
        if with_mqtt:
            import socket  # noqa: F401  (the stand-in: a board has it in its firmware image, not on the heap)

            step("stand_in_socket")
        from fb import app, compat, config, detect, outbox, pins, proto, serial_link  # noqa: F401  (fb.app.run's)

        if not pio:
            pins.make_mux_scanner = lambda *_args: None  # as on an ESP32: no PIO, the CPU scans the strip
        step("modules")
        cfg, _problems = config.load("profiles", None, "config.json")
        step("config")
        link = None
        if with_mqtt:
            from fb import dns, mqtt, mqtt_link  # noqa: F401

            step("mqtt_modules")
            link = mqtt_link.Link(
                cfg.data["board_id"], "192.168.1.20", 1883, "clubhouse", "wifi-password", "board", "broker-password"
            )
            step("mqtt_client")
        a = app.App(cfg, pins, 1, "power", serial_link.SerialLink(), link)
        step("app")
        a.next_beat = NO_BEAT
        where[0] = "game"
        _wait_ready()
        end = time.ticks_add(time.ticks_ms(), timeout_ms)
        while a.enc.seq < 1 + events and time.ticks_diff(end, time.ticks_ms()) > 0:
            try:
                a.step()
            except MemoryError:  # as App.loop does
                a.memory_errors += 1
                gc.collect()
            compat.sleep_ms(1)
        step("game")
        inflight = errors = 0
        if link is not None:
            for _seq, line in a.outbox.after(0):
                if link.publish(app._payload(line), 1) is None:
                    break
            step("mqtt_window")
            inflight = link.client.inflight()
            errors = link.client.errors
        print(
            "R",
            a.enc.seq,
            a.outbox.depth(),
            a.outbox.dropped,
            a.sensors.dropped,
            inflight,
            errors,
            a.memory_errors,
            a.lost,
            a.serial.skipped,
        )
    except MemoryError:
        print("M out_of_memory", where[0])
    gc.collect()
    print("M free_end", gc.mem_free())
    micropython.mem_info()
