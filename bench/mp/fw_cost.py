"""Runs under MicroPython (bench/firmware_bench.py compiles it to .mpy, as a board runs its modules): one board of
the pico_w profile (five beams, the 16-segment hall strip) on the simulated pins, its serial link replaced by a
counter, the host acking every 16 messages. main() prints one JSON line."""

import gc
import json
import sys
import time

from fb import compat
from fb.app import App
from fb.simpins import SimBoard

ACK = '{"c":"ack","bt":1,"s":'


class Sink:
    def __init__(self):
        self.lines = 0
        self.skipped = 0
        self.cut = 0

    def send(self, line):
        self.lines += 1

    def service(self, dispatcher, t):
        return 0


class Settings:
    """The profile's sensors as the board uses them. fb.config's loader runs once at boot and is left out, so that
    the heap holds what the event path needs."""

    def __init__(self, sensors):
        self.data = {
            "board_id": "bench",
            "profile": "pico_w",
            "outbox_size": 64,
            "heartbeat_ms": 1000000000,
            "sensors": sensors,
        }

    def get(self, key=None):
        return False, "not here"

    def set(self, key, value):
        return False, "not here"


class Bench:
    def __init__(self, profile, only):
        with open(profile) as f:
            sensors = [s for s in json.load(f)["sensors"] if only is None or s["name"] == only]
        for s in sensors:
            # The passes here come 3 ms apart, thousands of them: with the hole's rebound_ms (60) every other one
            # would be that twenty bouncing, no line sent, and the figure would divide by passes the app never
            # encoded. A board's twenties come seconds apart; the rebound test is one comparison of the same path.
            s["rebound_ms"] = 0
        self.board = SimBoard()
        for s in sensors:
            if s["kind"] == "beam":
                self.board.pin(s["pin"], 0)
            else:
                self.board.strip(s)
        gc.collect()
        self.sink = Sink()
        self.app = App(Settings(sensors), self.board, 1, "bench", self.sink)
        self.hole = sensors[0]["pin"]
        self.t = 1000
        self.acked = 0

    def events(self, n):
        """n beam passes, one main loop pass each (3 ms of board time apart)."""
        board, app, hole = self.board, self.app, self.hole
        t = self.t
        i = 0
        while i < n:
            board.beam(hole, t, 700, 1)
            t += 3000
            board.run_until(t)
            app.step()
            if app.enc.seq - self.acked >= 16:
                self.acked = app.enc.seq
                app.dispatcher.handle("FB1|" + ACK + str(self.acked) + "}", t)
            i += 1
        self.t = t

    def idle(self, n):
        """n main loop passes with nothing happening (0.3 ms of board time apart)."""
        board, app = self.board, self.app
        t = self.t
        i = 0
        while i < n:
            t += 300
            board.run_until(t)
            app.step()
            i += 1
        self.t = t


def pins_alone(pin, n):
    """The floor: the simulated pins scheduling and firing the same edges into a handler that does nothing."""
    b = SimBoard()
    b.pin(pin, 0)
    b.make_input(pin, "up", lambda p: None)
    t = 1000
    i = 0
    t0 = time.ticks_us()
    while i < n:
        b.beam(pin, t, 700, 1)
        t += 3000
        b.run_until(t)
        i += 1
    return time.ticks_diff(time.ticks_us(), t0)


def allocated(run, n):
    """Bytes allocated per call of run(n): the collector off, the heap before and after (a few calls fit)."""
    gc.collect()
    before = gc.mem_alloc()
    gc.disable()
    run(n)
    after = gc.mem_alloc()
    gc.enable()
    return (after - before) / n


def main(events, growth, profile, only, before_imports):
    """`only`: a sensor name to keep just that sensor of the profile (None: all of them)."""
    gc.collect()
    imports = gc.mem_alloc() - before_imports
    bench = Bench(profile, only)
    gc.collect()
    built = gc.mem_alloc()
    clock = (bench.board._clock, bench.board.advance_ms)
    bench.events(200)  # warm up: every code path once
    gc.collect()
    t0 = time.ticks_us()
    bench.events(events)
    t_app = time.ticks_diff(time.ticks_us(), t0)
    t0 = time.ticks_us()
    bench.idle(events)
    t_idle = time.ticks_diff(time.ticks_us(), t0)
    t_floor = pins_alone(bench.hole, events)
    compat.set_clock(clock[0], clock[1])  # the floor's board took the clock over

    per_event = allocated(bench.events, 2)
    per_idle = allocated(bench.idle, 5)

    # Heap growth over `growth` events, after 1,000 that fill every buffer once: the live heap after a collection,
    # every 500 events; the most seen.
    bench.events(1000)
    gc.collect()
    base = gc.mem_alloc()
    samples = []
    i = 0
    while i < growth:
        bench.events(500)
        gc.collect()
        samples.append(gc.mem_alloc())
        i += 500
    gc.collect()
    end = gc.mem_alloc()
    peak = base
    for m in samples:
        peak = max(peak, m)
    app = bench.app
    out = {
        "events": events,
        "sensors": len(bench.app.sensors.irqs) + (0 if only else 1),
        "heap_imports": imports,
        "heap_built": built,
        "t_app_us": t_app,
        "t_idle_us": t_idle,
        "t_floor_us": t_floor,
        "alloc_per_event": per_event,
        "alloc_per_idle_pass": per_idle,
        "heap_live_start": base,
        "heap_live_end": end,
        "heap_live_peak": peak,
        "heap_total": end + gc.mem_free(),
        "sent": bench.sink.lines,
        "seq": app.enc.seq,
        "dropped": app.outbox.dropped + app.sensors.dropped,
    }
    # Written a piece at a time: one string of the whole document (the samples are thousands of numbers) would need
    # more room than the board-sized heap has left, and measure the dump rather than the app.
    del bench, app
    gc.collect()
    head = json.dumps(out)
    sys.stdout.write(head[:-1] + ', "heap_samples": [')
    for i, m in enumerate(samples):
        sys.stdout.write(("," if i else "") + str(m))
    sys.stdout.write("]}\n")
