"""The `watch` command (a bench test's walk along the board: hardware/README.md, steps 8-19): after it, the board sends
a `reply` to `watch` each time a sensor's state changes, with every sensor's state, until its seconds run out or a
`watch` with 0 stops it. On the simulated board under the real MicroPython unix port (and CPython); the emulated Pico
runs it in tests/firmware/test_rp2_watch.py."""

from __future__ import annotations

import json

import pytest
from firmware_runner import APP_PRELUDE, SENSOR_PRELUDE, run_on

BODY = """
from fb import proto
CFG = {"board_id": "bench", "profile": "pico_w", "outbox_size": 64, "heartbeat_ms": 600000,
       "sensors": [beam(), beam(name="ditch1", pin=3),
                   {"name": "baseline", "kind": "hall", "count": 8, "pins": [10, 11, 12, 13, 14, 15, 16, 17],
                    "mux": None, "active_low": True, "settle_ms": 60, "quadrants": 4, "rest_window_ms": 2500}]}
b = SimBoard()
b.pin(2, 0)
b.pin(3, 0)
STRIP = b.strip(CFG["sensors"][2])
sink = Sink(keep=True)
app = App(Settings(CFG), b, 1, "test", sink, uptime=Uptime())
def cmd(obj):
    for ln in app.dispatcher.handle(proto.frame(json.dumps(obj)), app.uptime.now()):
        sink.send(ln)
def go(until):
    while b.now < until:
        b.advance(1000)
        app.step()
go(100000)
cmd({"c": "watch", "id": 7, "s": 2})
b.beam(2, 200000, 300000)            # the hole beam broken 0.3 s (a pencil in it)
STRIP.at(700000, 3, True)            # a magnet over sensor 3, then 4, then gone
STRIP.at(900000, 4, True)
STRIP.at(1100000, 3, False)
STRIP.at(1300000, 4, False)
b.beam(3, 1500000, 400000)
go(2600000)                          # the stream ends by itself at 2.1 s
b.beam(2, 2700000, 300000)           # nothing more
go(3200000)
cmd({"c": "watch", "id": 8, "s": 60})
b.beam(3, 3300000, 50000)
go(3400000)
cmd({"c": "watch", "id": 9, "s": 0})  # stopped by hand
b.beam(3, 3500000, 200000)
go(4000000)
cmd({"c": "watch", "id": 10, "s": 99999})
for ln in sink.lines:
    if '"m":"reply"' in ln:
        print(ln.split("|")[1])
"""


@pytest.mark.parametrize("impl", ["micropython", "cpython"])
def test_watch_streams_every_change_of_every_sensor_then_stops(impl: str) -> None:
    out = run_on(impl, "import json\n" + SENSOR_PRELUDE + APP_PRELUDE + BODY, heapsize="512k")
    replies = [json.loads(x) for x in out.split("\n") if x.startswith("{")]
    watch = [(r["id"], r["d"]["s"], r["d"]["sensors"]) for r in replies if r["c"] == "watch" and r["ok"]]
    idle = {"hole": "clear", "ditch1": "clear", "baseline": []}
    states = [s for i, _, s in watch if i == 7]
    assert states == [
        idle,  # the answer to the command: every sensor now
        {**idle, "hole": "broken"},
        idle,
        {**idle, "baseline": [3]},
        {**idle, "baseline": [3, 4]},
        {**idle, "baseline": [4]},
        idle,
        {**idle, "ditch1": "broken"},
        idle,
        idle,  # the last one: its time is up (s 0)
    ], states
    left = [s for i, s, _ in watch if i == 7]
    assert left[0] == 2 and left[-1] == 0, left
    assert [s for i, _, s in watch if i == 8] == [idle, {**idle, "ditch1": "broken"}, idle]
    assert [s for i, _, s in watch if i == 9] == [idle]  # the stop's own answer; the break after it is not streamed
    bad = [r for r in replies if r["c"] == "watch" and not r["ok"]]
    assert len(bad) == 1 and bad[0]["id"] == 10 and bad[0]["err"] == "schema", bad
