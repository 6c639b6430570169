"""Many boards in one process, for figure 6: `python -m bench.fleet PORT FIRST COUNT EVENTS RATE OUT [WAIT]`.

Each board is its own MQTT connection and speaks the board's protocol as the firmware does on Wi-Fi: the retained
`online` status with an `offline` last will, `hello` then the sensor events as the firmware's encoder writes them
(fb/proto.py, run under CPython), QoS 1 on `flickboard/<board>/raw`; it keeps every message until the bridge's
`ack` on `flickboard/<board>/cmd` and sends the un-acked ones again on `ping`. It is not the firmware's main loop:
no pins, no detectors. The boards start at random moments within one period and send RATE events per second each.

At the end it waits (up to WAIT seconds, 60 by default) for every message to be acked and writes OUT: per board,
each seq with the wall time (µs) it was first published, and what was never acked.
"""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.mqtt import CMD, RAW, STATUS, board_topic

from .common import board_lines, payload, twenty_stream


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Board:
    def __init__(self, port: int, name: str, lines: list[str]) -> None:
        self.name = name
        self.payloads = [payload(x) for x in lines]
        self.sent_at: dict[int, int] = {}
        self.acked = 0
        self.resent = 0
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"board-{name}")
        self.c.will_set(board_topic(name, STATUS), b"offline", qos=1, retain=True)
        self.c.on_connect = self._connected
        self.c.on_message = self._command
        self.c.on_subscribe = lambda *_: self.ready.set()
        self.c.on_socket_open = _no_delay  # as the firmware's MQTT client does
        self.c.connect("127.0.0.1", port, keepalive=30)
        self.c.loop_start()

    def _connected(self, c: mqtt.Client, *_: Any) -> None:
        c.subscribe(board_topic(self.name, CMD), qos=1)
        c.publish(board_topic(self.name, STATUS), b"online", qos=1, retain=True)

    def _command(self, c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        cmd = json.loads(msg.payload)
        if cmd.get("c") == "ack":
            with self.lock:
                self.acked = max(self.acked, int(cmd["s"]))
        elif cmd.get("c") == "ping":
            with self.lock:
                pending = [s for s in sorted(self.sent_at) if s > self.acked]
            for s in pending:
                self.resent += 1
                c.publish(board_topic(self.name, RAW), self.payloads[s - 1], qos=1)

    def send(self, seq: int) -> None:
        with self.lock:
            self.sent_at.setdefault(seq, time.time_ns() // 1000)
        self.c.publish(board_topic(self.name, RAW), self.payloads[seq - 1], qos=1)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def board_name(i: int) -> str:
    """The i-th board of a fleet."""
    return f"b{i:03d}"


def main(argv: list[str]) -> int:
    port, first, count, events = (int(x) for x in argv[1:5])
    rate, out = float(argv[5]), argv[6]
    ack_wait = float(argv[7]) if len(argv) > 7 else 60.0
    stream = twenty_stream(events)
    boards = [Board(port, board_name(i), board_lines(stream, board_name(i))) for i in range(first, first + count)]
    for b in boards:
        if not b.ready.wait(30):
            raise SystemExit(f"board {b.name} could not subscribe")
    total = len(stream) + 1  # hello, then the events
    period = 1 / rate
    rng = random.Random(first)
    start = time.monotonic() + 0.5
    due = [(start + rng.random() * period, b, 1) for b in boards]
    while due:
        due.sort(key=lambda d: d[0])
        at, b, seq = due.pop(0)
        wait = at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        b.send(seq)
        if seq < total:
            due.append((at + period, b, seq + 1))
    deadline = time.monotonic() + ack_wait
    while time.monotonic() < deadline and any(b.acked < total for b in boards):
        time.sleep(0.2)
    result = {b.name: {"sent_at": b.sent_at, "acked": b.acked, "resent": b.resent, "total": total} for b in boards}
    for b in boards:
        b.close()
    with open(out, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
