"""The firmware's MQTT client against the errors a real network stack raises (docs/firmware.md, "When the network stack
says no"), on the real MicroPython unix port, against a real Mosquitto.

The Pico W's lwIP socket layer raises MicroPython's own (Linux) errno numbers and its Wi-Fi driver a -110; the ESP32's
raises ESP-IDF's newlib numbers (EINPROGRESS 119 turned into 115, ETIMEDOUT 116, EHOSTUNREACH 118, ENOTCONN 128...).
Neither runs here, so the script puts a socket in front of the real one that raises, on the calls it is told, the
errno a given stack would, and runs the client with that stack's table (fb.mqtt.errno_table). Each "busy" errno must
leave the connection up and every QoS 1 message acknowledged by the broker; each failure must recycle the connection
and still lose nothing.

Also fb.mqtt_link's Wi-Fi power saving: network.WLAN.PM_NONE on both ports, never the CYW43's number on an ESP32, and
a refusal said in the stats, not swallowed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from firmware_runner import FIRMWARE, micropython_exe

from flickboard.sim.broker import Broker

SCRIPT = r"""
import sys, json, time
import select as _select
import socket as _socket
import fb.mqtt as M

A = json.loads(sys.argv[1])
PLAN = {"connect": [], "send": [], "recv": []}  # errnos to raise on the next calls of each kind, in order


class Sock:
    # the real socket, but a call with an errno planned raises it instead (connect: after the real connect)
    def __init__(self, fam, typ):
        self.real = _socket.socket(fam, typ)
    def setsockopt(self, *a):
        return self.real.setsockopt(*a)
    def setblocking(self, f):
        return self.real.setblocking(f)
    def settimeout(self, t):
        return self.real.settimeout(t)
    def connect(self, addr):
        err = None
        try:
            self.real.connect(addr)
        except OSError as e:
            err = e
        if PLAN["connect"]:
            raise OSError(PLAN["connect"].pop(0))
        if err is not None:
            raise err
    def send(self, b):
        if PLAN["send"]:
            raise OSError(PLAN["send"].pop(0))
        return self.real.send(b)
    def readinto(self, mv):
        if PLAN["recv"]:
            raise OSError(PLAN["recv"].pop(0))
        return self.real.readinto(mv)
    def close(self):
        self.real.close()


class SocketModule:
    socket = Sock
    SOCK_STREAM = _socket.SOCK_STREAM
    AF_INET = _socket.AF_INET
    getaddrinfo = _socket.getaddrinfo


class Poll:
    def __init__(self):
        self.p = _select.poll()
    def register(self, s, m):
        self.p.register(s.real, m)
    def modify(self, s, m):
        self.p.modify(s.real, m)
    def unregister(self, s):
        self.p.unregister(s.real)
    def poll(self, t):
        return self.p.poll(t)


class SelectModule:
    POLLIN = _select.POLLIN
    POLLOUT = _select.POLLOUT
    POLLERR = _select.POLLERR
    POLLHUP = _select.POLLHUP
    poll = Poll


M.socket = SocketModule
M.select = SelectModule

c = M.MQTTClient("errno-" + A["stack"], A["host"], A["port"], keepalive=10, backoff_min_ms=20, backoff_max_ms=40,
                 connect_timeout_ms=1000, stable_ms=0)
M.STACK[:] = [A["stack"], True]
M.ERRNOS = M.errno_table(A["stack"], True)
c.start(time.ticks_ms())


def run(until, ms=3000):
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms:
        c.poll(time.ticks_ms())
        if until():
            return True
        time.sleep_ms(1)
    return False


def settled():
    return c.is_connected() and c.inflight() == 0 and not PLAN["send"] and not PLAN["recv"]


assert run(c.is_connected), c.stats()
out = []
k = 0
for n, kind in sorted(M.ERRNOS.items()):
    name = M.errno_name(n, A["stack"], True)
    for where in ("connect", "send", "recv"):
        if where == "connect":
            c.drop("next case", time.ticks_ms())  # a new connection, whose connect() raises n
            c.retry_now(time.ticks_ms())
        e0, r0 = c.errors, c.connects
        PLAN[where] = [n] * (3 if where != "connect" and kind in (1, 2, 3) else 1)  # busy: three times in a row
        for i in range(4):
            k += 1
            assert c.publish("flickboard/errno/raw", "m%d" % k, 1) is not None
        ok = run(settled)
        PLAN[where] = []
        out.append({"n": n, "name": name, "kind": kind, "where": where, "ok": ok, "errors": c.errors - e0,
                    "reconnects": c.connects - r0, "last_error": c.last_error, "busy": c.busy})
print(json.dumps(out))
"""


def cases(tmp_path: Path, broker: Broker, stack: str) -> list[dict[str, object]]:
    script = tmp_path / "errno_driver.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "MICROPYPATH": ":".join([str(FIRMWARE), ".frozen"])}
    args = json.dumps({"stack": stack, "host": broker.host, "port": broker.port})
    p = subprocess.run(
        [micropython_exe(), str(script), args], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert p.returncode == 0, p.stdout + p.stderr
    rows: list[dict[str, object]] = json.loads(p.stdout.strip().splitlines()[-1])
    return rows


BUSY, PROGRESS, AWAY, NOT_YET = 1, 2, 3, 4

# What each stack must raise and be understood as (a few numbers each, from the stacks' own errno headers).
MUST = {
    "rp2": {11: BUSY, 110: BUSY, -110: BUSY, 115: PROGRESS, 113: AWAY, 107: NOT_YET, 104: 0},
    "esp32": {11: BUSY, 116: BUSY, 115: PROGRESS, 119: PROGRESS, 120: PROGRESS, 118: AWAY, 128: NOT_YET, 104: 0},
    "linux": {11: BUSY, 110: BUSY, 115: PROGRESS, 114: PROGRESS, 113: AWAY, 107: NOT_YET, 104: 0, 32: 0},
}


@pytest.mark.parametrize("stack", ["rp2", "esp32", "linux"])
def test_each_errno_of_a_stack_is_retried_or_recycled_and_nothing_is_lost(
    tmp_path: Path, broker: Broker, stack: str
) -> None:
    rows = cases(tmp_path, broker, stack)
    kinds = {r["n"]: r["kind"] for r in rows}
    for n, kind in MUST[stack].items():
        assert kinds.get(n) == kind, (stack, n, kinds.get(n), kind)
    bad = []
    for r in rows:
        kind, where = r["kind"], r["where"]
        if not r["ok"]:
            bad.append(("messages not all acknowledged", r))
            continue
        if where == "connect":
            # in progress: the connect goes on; anything else is one failed attempt, then a connection
            want_errors = 0 if kind == PROGRESS or r["n"] == 11 else 1
        elif kind in (BUSY, PROGRESS, AWAY):
            want_errors = 0  # tried again on the next poll: the connection stays up
        else:
            want_errors = 1  # ENOTCONN on a connection that is up, ECONNRESET, EPIPE...: recycled once
        want_connects = 1 if where == "connect" else want_errors  # a connect case starts from a dropped connection
        if r["errors"] != want_errors or r["reconnects"] != want_connects:
            bad.append((f"{r['errors']} failures, {r['reconnects']} reconnects, wanted {want_errors}", r))
        if want_errors and where != "connect":
            assert str(r["last_error"]).startswith(f"{where}: {r['n']} {r['name']}"), r
    assert not bad, bad[:6]
    assert rows[-1]["busy"] > 0


FAKE_NETWORK = r"""
# Stand-in for the board's `network` module: WLAN.config records what it is given, and refuses pm values the port's
# driver would refuse.
STA_IF = 0
STAT_GOT_IP = 3
CALLS = []
PORT = {"pm_none": None, "accepts": ()}


class WLAN:
    def __init__(self, interface):
        pass
    def active(self, on=None):
        return True
    def config(self, **kw):
        CALLS.append(kw)
        if "pm" in kw and kw["pm"] not in PORT["accepts"]:
            raise ValueError("invalid pm")
    def connect(self, ssid, password):
        pass
    def isconnected(self):
        return True
    def status(self, param=None):
        return -60 if param == "rssi" else STAT_GOT_IP
    def ifconfig(self):
        return ("10.0.0.2", "255.255.255.0", "10.0.0.1", "10.0.0.1")
"""

PM_SCRIPT = r"""
import sys, json, time
import network
from fb.mqtt_link import Link
case = json.loads(sys.argv[1])
if case["pm_none"] is not None:
    network.WLAN.PM_NONE = case["pm_none"]
network.PORT["accepts"] = tuple(case["accepts"])
link = Link("pm", "127.0.0.1", 1, ssid="club", wifi_password="pw")
link.poll(time.ticks_ms())
print(json.dumps({"calls": [c.get("pm") for c in network.CALLS if "pm" in c], "pm": link.stats()["wifi_pm"]}))
"""


@pytest.mark.parametrize(
    ("case", "want_calls", "want_pm"),
    [
        ({"pm_none": 0, "accepts": [0, 1, 2]}, [0], "none"),  # ESP32 1.28: WLAN.PM_NONE is WIFI_PS_NONE, 0
        ({"pm_none": 0xA11140, "accepts": [0xA11140]}, [0xA11140], "none"),  # Pico W 1.28
        ({"pm_none": 0, "accepts": [1]}, [0], "refused: ValueError('invalid pm',)"),  # said, not swallowed
    ],
)
def test_wifi_power_saving_uses_the_ports_own_pm_none(
    tmp_path: Path, case: dict[str, object], want_calls: list[int], want_pm: str
) -> None:
    (tmp_path / "network.py").write_text(FAKE_NETWORK)
    (tmp_path / "pm.py").write_text(PM_SCRIPT)
    env = {**os.environ, "MICROPYPATH": ":".join([str(tmp_path), str(FIRMWARE), ".frozen"])}
    p = subprocess.run(
        [micropython_exe(), str(tmp_path / "pm.py"), json.dumps(case)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["calls"] == want_calls, r
    assert r["pm"].replace(",)", ")") == want_pm.replace(",)", ")"), r
