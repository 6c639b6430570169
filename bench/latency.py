"""Figure 1: sensor to scoreboard. The simulated board (the real firmware under MicroPython, in real time) breaks
a ditch beam again and again (not the twenty hole's: a break within its rebound_ms of a pass is that twenty bouncing,
no event); each pass goes over USB serial (a pseudo-terminal) or MQTT to the bridge
process, which journals it, folds it, acks it and publishes the retained scoreboard; a subscriber on the same
broker takes the time it arrives. Beside it, the floor: a plain MQTT QoS 1 round trip through the same broker.

The board writes the wall-clock time of the main loop pass that sent each message (the `stamps` file of
fb/sim.py); the subscriber notes when the first scoreboard counting that message arrived. Both read the same
system clock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import BridgeProc, Watcher, bridge_args
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.sim.simulator import spawn_board

from .common import ratio, summary


class StampWatcher(Watcher):
    """The tests' display client, also noting when each scoreboard arrived and how many events it counted."""

    def __init__(self, port: int, board: str) -> None:
        self.arrivals: list[tuple[int, int]] = []  # (wall µs, board_link.processed)
        super().__init__(port, board)

    def _message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic.endswith("/scoreboard"):
            at = time.time_ns() // 1000
            doc = json.loads(msg.payload)
            self.arrivals.append((at, int((doc.get("board_link") or {}).get("processed") or 0)))
        super()._message(c, u, msg)


def _latencies(stamps: dict[int, int], arrivals: list[tuple[int, int]]) -> tuple[list[float], list[int]]:
    """(latency in ms of each message, seqs never counted by a scoreboard)."""
    out: list[float] = []
    lost: list[int] = []
    i = 0
    for seq in sorted(stamps):
        while i < len(arrivals) and arrivals[i][1] < seq:
            i += 1
        if i == len(arrivals):
            lost.append(seq)
            continue
        out.append((arrivals[i][0] - stamps[seq]) / 1000)
    return out, lost


def chain(
    broker: Any, tmp: Path, via: str, events: int, spacing_ms: float = 10, board_id: str | None = None
) -> dict[str, Any]:
    """`events` beam passes `spacing_ms` apart (board time), from the board to a display, `via` serial or mqtt (a
    board id of its own for each chain on one broker: a retained scoreboard of another run would be counted)."""
    board_id = board_id or f"lat-{via}"
    run = tmp / f"latency-{via}"
    control = run / "control"
    control.mkdir(parents=True)
    stamps_file = run / "stamps.txt"
    start_ms = 10
    scenario: dict[str, Any] = {
        "profile": "pico_w",
        "board_id": board_id,
        "heartbeat_ms": 60000,
        "events": [{"at_ms": start_ms + i * spacing_ms, "beam": "ditch1", "dur_us": 800} for i in range(events)],
        "end_ms": start_ms + events * spacing_ms + 200,
        "holds": [{"at_ms": 1, "name": "go"}],  # the board waits, links running, until the bridge has its hello
        "control": str(control),
        "stamps": str(stamps_file),
    }
    url = f"mqtt://127.0.0.1:{broker.port}"
    watcher = StampWatcher(broker.port, board_id)
    if via == "mqtt":
        scenario["mqtt"] = {"host": "127.0.0.1", "port": broker.port}
        board = spawn_board(scenario, realtime=True, pty=False, stdout=subprocess.DEVNULL)
        link = ["--mqtt", url]
    else:
        board = spawn_board(scenario, realtime=True, pty=True)
        assert board.port is not None
        link = ["--serial", board.port, "--mqtt", url]
    bridge = BridgeProc([*link, "--boards", board_id, *bridge_args(run / "journals")], run)
    try:
        if not watcher.wait(lambda w: w.processed() >= 1, timeout=60):
            raise RuntimeError(f"the bridge never counted the board's hello ({via})\n{bridge.output()[-2000:]}")
        t0 = time.monotonic()
        (control / "go.go").write_text("")
        board.proc.wait(timeout=60 + events * spacing_ms / 1000 * 5)
        wall = time.monotonic() - t0
        last = events + 1  # hello is seq 1
        watcher.wait(lambda w: w.processed() >= last, timeout=30)
        stamps = {}
        for line in stamps_file.read_text().splitlines():
            seq, at = (int(x) for x in line.split())
            if seq >= 2:
                stamps[seq] = at
        lat, lost = _latencies(stamps, list(watcher.arrivals))
    finally:
        watcher.close()
        bridge.stop()
        board.stop()
    if not lat:
        raise RuntimeError(f"no scoreboard arrived ({via})\n{bridge.output()[-2000:]}")
    return {
        "via": via,
        "events": len(stamps),
        "lost": len(lost),
        "events_per_s": round(len(stamps) / wall, 1),
        "latency_ms": summary(lat),
    }


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def mqtt_floor(port: int, n: int) -> dict[str, Any]:
    """A QoS 1 message published and received back by one client through the broker, one at a time."""
    got = threading.Event()
    topic = f"bench/floor/{uuid.uuid4().hex[:8]}"
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"floor-{uuid.uuid4().hex[:6]}")
    subscribed = threading.Event()
    c.on_connect = lambda cl, *_: cl.subscribe(topic, qos=1)
    c.on_subscribe = lambda *_: subscribed.set()
    c.on_message = lambda *_: got.set()
    c.on_socket_open = _no_delay  # as the bridge's own client (host/board/links.py)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        if not subscribed.wait(10):
            raise RuntimeError("the floor client could not subscribe")
        samples = []
        body = b'{"v":1,"b":"floor","bt":1,"s":2,"t":1000,"m":"pass","dur_us":800,"n":"hole"}'
        for _ in range(n):
            got.clear()
            t0 = time.perf_counter_ns()
            c.publish(topic, body, qos=1)
            if not got.wait(5):
                raise RuntimeError("a QoS 1 message did not come back within 5 s")
            samples.append((time.perf_counter_ns() - t0) / 1e6)
    finally:
        c.loop_stop()
        c.disconnect()
    return {"round_trip_ms": summary(samples)}


def fsync_probe(folder: Path, seconds: float = 10.0, every_s: float = 0.01) -> dict[str, Any]:
    """The disk under the journal: one line appended and fsync'd every `every_s`, as the bridge does for an event at a
    game's pace, for `seconds`: the fsync's time in ms (its p99 and max are where figure 1's tails come from)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fsync-probe.jsonl"
    samples: list[float] = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.write(fd, b'{"probe":"' + b"x" * 200 + b'"}\n')
            t = time.perf_counter()
            os.fsync(fd)
            samples.append((time.perf_counter() - t) * 1000)
            time.sleep(every_s)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return {"fsync_ms": summary(samples), "over_10_ms": sum(x > 10 for x in samples)}


def latency(
    broker: Any, tmp: Path, events: int = 2000, spacing_ms: float = 10, vias: tuple[str, ...] = ("mqtt", "serial")
) -> dict[str, Any]:
    floor = mqtt_floor(broker.port, events)
    out: dict[str, Any] = {"mqtt_qos1_round_trip": floor}
    for via in vias:
        r = chain(broker, tmp, via, events, spacing_ms)
        r["p99_over_floor_p99"] = ratio(r["latency_ms"]["p99"], floor["round_trip_ms"]["p99"])
        out[via] = r
    return out
