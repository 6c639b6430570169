"""The firmware's own MQTT client as a running process under the real MicroPython unix port (or CPython), driven by
a small script that prints one JSON object per line (`up`, `down`, `cmd`, `stats`): for the tests of the client
and of its broker lookup."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_runner import FIRMWARE, micropython_exe

from flickboard.sim.broker import Broker

DRIVER = r"""
import sys, json, time
from fb.mqtt_link import Link

try:
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    sleep_ms = time.sleep_ms
except AttributeError:  # CPython
    def ticks_ms():
        return int(time.monotonic() * 1000) & 0x3FFFFFFF
    def ticks_diff(a, b):
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000
    def sleep_ms(ms):
        time.sleep(ms / 1000)

A = json.loads(sys.argv[1])

def out(ev, d=None):
    d = d or {}
    d["ev"] = ev
    print(json.dumps(d))

def on_cmd(payload):
    out("cmd", {"payload": payload.decode()})

link = Link(A["board"], A["host"], A["port"], keepalive=A.get("ka", 10), user=A.get("user"),
            password=A.get("password"), on_command=on_cmd, backoff_min_ms=A.get("bmin", 200),
            backoff_max_ms=A.get("bmax", 2000), connect_timeout_ms=A.get("cto", 1000),
            max_packet=A.get("max_packet", 2048), stable_ms=500, dns=tuple(A["dns"]) if A.get("dns") else None)
c = link.client
c.on_connect = lambda: out("up", {"reconnects": c.reconnects})
c.on_disconnect = lambda r: out("down", {"reason": r, "backoff": c.backoff_ms, "errors": c.errors})

n = A.get("n", 0)
interval = A.get("interval", 10)
i = 0
t = ticks_ms()
next_pub = t
last_stats = t
max_poll = 0
while True:
    t = ticks_ms()
    link.poll(t)
    if i < n and ticks_diff(t, next_pub) >= 0 and link.publish("m%d" % i) is not None:
        i += 1
        next_pub = t + interval
    d = ticks_diff(ticks_ms(), t)
    if d > max_poll:
        max_poll = d
    if ticks_diff(t, last_stats) >= 100:
        last_stats = t
        s = c.stats()
        s["sent"] = i
        s["max_poll_ms"] = max_poll
        out("stats", s)
    sleep_ms(2)
"""


class Firmware:
    """The client as a running process; every JSON line it prints is kept with its arrival time."""

    def __init__(self, tmp_path: Path, broker: Broker, board: str, interpreter: str = "micropython", **args: Any):
        script = tmp_path / f"driver_{board}.py"
        script.write_text(DRIVER)
        args = {"board": board, "host": broker.host, "port": broker.port, **args}
        if interpreter == "micropython":
            env = {**os.environ, "MICROPYPATH": ":".join([str(FIRMWARE), ".frozen"])}
            cmd = [micropython_exe(), str(script), json.dumps(args)]
        else:
            env = {**os.environ, "PYTHONPATH": str(FIRMWARE), "PYTHONUNBUFFERED": "1"}
            cmd = [sys.executable, str(script), json.dumps(args)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.cond = threading.Condition()
        self.eof = False
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                ev = {"ev": "junk", "line": line}
            with self.cond:
                self.events.append((time.monotonic(), ev))
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self.cond:
            return [e for _, e in self.events if e["ev"] == kind]

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> tuple[float, dict[str, Any]]:
        """The first event (arrival time, event) matching `pred`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for t, e in self.events:
                    if pred(e):
                        return t, e
                left = deadline - time.monotonic()
                if left <= 0 or self.eof:
                    break
                self.cond.wait(min(left, 0.2))
        err = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
        tail = [e for _, e in self.events if e["ev"] != "stats"][-10:]
        last = self.of("stats")[-1:] if self.events else []
        raise AssertionError(f"no matching event in {timeout}s; events: {tail}; last stats: {last}; stderr: {err}")

    def stats_where(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        return self.wait(lambda e: e["ev"] == "stats" and pred(e), timeout)[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        assert "Traceback" not in err, err
