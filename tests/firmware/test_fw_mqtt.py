"""The firmware's own MQTT client (firmware/fb/mqtt.py, fb/mqtt_link.py) against a REAL Mosquitto.

The client runs as a separate process under the REAL MicroPython unix port (one test also under CPython), driven
by the small script DRIVER below, which prints one JSON object per line (`up`, `down`, `cmd`, `stats`). The
host side watches the broker with paho-mqtt, restarts or freezes the broker (SIGSTOP) and kills the client
(SIGKILL) while it runs.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from firmware_runner import FIRMWARE, micropython_exe
from mqtt_firmware import Firmware

from flickboard.sim.broker import Broker, mosquitto


class Observer:
    """A paho-mqtt subscriber on the host side (resubscribes in on_connect, so it survives broker restarts)."""

    def __init__(self, broker: Broker, topic: str, client_id: str = "", clean: bool = True):
        self.msgs: list[mqtt.MQTTMessage] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
        self.c.on_connect = lambda c, u, f, rc, p: c.subscribe(topic, qos=1)
        self.c.on_subscribe = lambda c, u, mid, rcs, p: self.subscribed.set()
        self.c.on_message = self._on_message
        self.c.reconnect_delay_set(1, 1)
        self.c.connect(broker.host, broker.port, keepalive=10)
        self.c.loop_start()
        assert self.subscribed.wait(15), "observer could not subscribe"

    def _on_message(self, c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.msgs.append(msg)

    def payloads(self, topic: str) -> list[str]:
        with self.lock:
            return [m.payload.decode() for m in self.msgs if m.topic == topic]

    def wait_for(self, pred: Callable[[], bool], timeout: float = 10, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred():
                return
            time.sleep(0.02)
        with self.lock:
            seen = [(m.topic, m.payload[:20]) for m in self.msgs][-10:]
        raise AssertionError(f"observer: {what} not seen in {timeout}s; last messages: {seen}")

    def retained(self, topic: str) -> list[tuple[str, bool]]:
        with self.lock:
            return [(m.payload.decode(), m.retain) for m in self.msgs if m.topic == topic]

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def log_conf(tmp_path: Path) -> tuple[str, Path]:
    log = tmp_path / "mosquitto.log"
    return f"log_dest file {log}\nlog_type all\n", log


def wait_log(log: Path, needle: str, count: int = 1, timeout: float = 15) -> list[str]:
    """The broker log lines containing `needle`, once there are at least `count` of them."""
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while time.monotonic() < deadline:
        lines = [x for x in log.read_text(errors="replace").splitlines() if needle in x] if log.exists() else []
        if len(lines) >= count:
            return lines
        time.sleep(0.05)
    raise AssertionError(f"{count} x {needle!r} not in the broker log (found {len(lines)})")


def test_connect_publishes_retained_online(tmp_path: Path, broker: Broker) -> None:
    fw = Firmware(tmp_path, broker, "t1")
    try:
        fw.wait(lambda e: e["ev"] == "up", 10)
        late = Observer(broker, "flickboard/t1/status")  # subscribes after the fact: only a retained copy reaches it
        try:
            late.wait_for(lambda: ("online", True) in late.retained("flickboard/t1/status"), 10, "retained online")
        except AssertionError as e:
            links = fw.of("up") + fw.of("down")
            raise AssertionError(f"{e}; the client's own link events: {links}") from None
        finally:
            late.close()
    finally:
        fw.stop()


@pytest.mark.parametrize("interpreter", ["micropython", "cpython"])
def test_qos1_publishes_all_received_and_acked(tmp_path: Path, broker: Broker, interpreter: str) -> None:
    n = 60
    obs = Observer(broker, "flickboard/t2/raw")
    fw = Firmware(tmp_path, broker, "t2", interpreter, n=n, interval=5)
    try:
        want = {f"m{i}" for i in range(n)}
        obs.wait_for(lambda: want <= set(obs.payloads("flickboard/t2/raw")), 10, "all QoS 1 messages")
        s = fw.stats_where(lambda e: e["sent"] == n and e["inflight"] == 0, 15)
        assert s["errors"] == 0 and s["reconnects"] == 0 and s["dropped"] == 0, s
        assert s["max_poll_ms"] < 100, s  # never blocks the main loop
        assert all(m.qos == 1 for m in obs.msgs)
    finally:
        fw.stop()
        obs.close()


def test_command_reaches_callback_puback_sent_and_oversized_skipped(tmp_path: Path) -> None:
    conf, log = log_conf(tmp_path)
    with mosquitto(conf) as b:
        fw = Firmware(tmp_path, b, "t3", max_packet=256)
        try:
            fw.wait(lambda e: e["ev"] == "up", 15)
            fw.stats_where(lambda e: e["state"] == "up", 15)
            pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="host-t3")
            pub.connect(b.host, b.port)
            pub.loop_start()
            try:
                # the subscription is in place once the broker logged our SUBSCRIBE
                wait_log(log, "flickboard-t3 1 flickboard/t3/cmd")
                pub.publish("flickboard/t3/cmd", "x" * 1000, qos=1).wait_for_publish(5)  # > max_packet
                pub.publish("flickboard/t3/cmd", "ping", qos=1).wait_for_publish(5)
                fw.wait(lambda e: e["ev"] == "cmd" and e["payload"] == "ping", 15)
            finally:
                pub.loop_stop()
                pub.disconnect()
            assert [e["payload"] for e in fw.of("cmd")] == ["ping"]
            s = fw.stats_where(lambda e: e["oversized"] == 1, 15)
            assert s["state"] == "up" and s["connects"] == 1, s
            # both QoS 1 deliveries were acknowledged by the firmware, the oversized one included
            acks = wait_log(log, "Received PUBACK from flickboard-t3", count=2)
            time.sleep(0.3)
            assert len(wait_log(log, "Received PUBACK from flickboard-t3")) == 2, acks
        finally:
            fw.stop()


def test_last_will_offline_retained_when_killed(tmp_path: Path, broker: Broker) -> None:
    obs = Observer(broker, "flickboard/t4/status")
    fw = Firmware(tmp_path, broker, "t4")
    try:
        obs.wait_for(lambda: "online" in obs.payloads("flickboard/t4/status"), 15, "online")
        fw.proc.send_signal(signal.SIGKILL)
        obs.wait_for(lambda: obs.payloads("flickboard/t4/status")[-1:] == ["offline"], 15, "last will")
    finally:
        fw.stop()
        obs.close()
    late = Observer(broker, "flickboard/t4/status")
    try:
        late.wait_for(lambda: late.retained("flickboard/t4/status") == [("offline", True)], 15, "retained offline")
    finally:
        late.close()


def test_broker_restart_reconnects_resubscribes_and_loses_nothing(tmp_path: Path) -> None:
    # persistence on, so the observer's own (non-clean) session keeps its queued messages across the restart
    (tmp_path / "db").mkdir()
    with mosquitto(f"persistence true\npersistence_location {tmp_path / 'db'}/\n") as b:
        n = 150
        obs = Observer(b, "flickboard/t5/#", client_id="observer-t5", clean=False)
        fw = Firmware(tmp_path, b, "t5", n=n, interval=10, bmin=200, bmax=1000)
        try:
            obs.wait_for(lambda: len(obs.payloads("flickboard/t5/raw")) >= 40, 10, "40 messages")
            b.restart()
            fw.wait(lambda e: e["ev"] == "down", 15)
            fw.wait(lambda e: e["ev"] == "up" and e["reconnects"] == 1, 10)
            want = {f"m{i}" for i in range(n)}
            obs.wait_for(lambda: want <= set(obs.payloads("flickboard/t5/raw")), 15, "every message")
            s = fw.stats_where(lambda e: e["sent"] == n and e["inflight"] == 0, 15)
            assert s["reconnects"] == 1 and s["max_poll_ms"] < 100, s
            # resubscribed after the reconnect: a command still reaches the callback
            obs.c.publish("flickboard/t5/cmd", "after-restart", qos=1)
            fw.wait(lambda e: e["ev"] == "cmd" and e["payload"] == "after-restart", 15)
            # and the retained status says online again (birth republished on the new connection)
            obs.wait_for(lambda: obs.payloads("flickboard/t5/status")[-1:] == ["online"], 15, "online again")
        finally:
            fw.stop()
            obs.close()


def test_connect_refused_reported_and_retried_with_backoff(tmp_path: Path) -> None:
    pw = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(pw), "board", "s3cret"], check=True, capture_output=True)
    with mosquitto(f"allow_anonymous false\npassword_file {pw}\n") as b:
        bad = Firmware(tmp_path, b, "t6", user="board", password="wrong", bmin=200, bmax=1600)
        try:
            bad.wait(lambda e: e["ev"] == "down" and len(bad.of("down")) >= 5, 20)
            with bad.cond:
                downs = [(t, e) for t, e in bad.events if e["ev"] == "down"]
            assert all(e["reason"].startswith(("refused: 5", "refused: 4")) for _, e in downs), downs
            gaps = [b2[0] - b1[0] for b1, b2 in itertools.pairwise(downs)]
            # jittered delays in [d/2, d] with d = 200, 400, 800, 1600 ms: they grow
            assert gaps[0] < 0.4 and gaps[3] > 0.7 and gaps[3] > gaps[0], gaps
            assert bad.proc.poll() is None and not bad.of("up")
            s = bad.stats_where(lambda e: e["errors"] >= 5)
            assert s["last_connack"] in (4, 5) and s["state"] != "up", s
        finally:
            bad.stop()
        good = Firmware(tmp_path, b, "t6ok", user="board", password="s3cret")
        try:
            good.wait(lambda e: e["ev"] == "up", 15)
        finally:
            good.stop()


def test_keepalive_detects_frozen_broker_then_resends_with_dup(tmp_path: Path) -> None:
    ka = 2
    conf, log = log_conf(tmp_path)
    with mosquitto(conf) as b:
        n = 40
        obs = Observer(b, "flickboard/t7/raw")
        fw = Firmware(tmp_path, b, "t7", ka=ka, n=n, interval=100, bmin=200, bmax=800, cto=600)
        try:
            obs.wait_for(lambda: len(obs.payloads("flickboard/t7/raw")) >= 5, 15, "5 messages")
            os.kill(b.proc.pid, signal.SIGSTOP)
            stopped_at = time.monotonic()
            try:
                t, down = fw.wait(lambda e: e["ev"] == "down", 3 * ka)
                assert "keepalive" in down["reason"] or "PINGRESP" in down["reason"], down
                assert t - stopped_at <= 2 * ka, (t - stopped_at, down)  # a bound on behaviour, with room for load
                # a reconnect attempt meets the frozen broker: its CONNACK timeout (0.6 s), then backoff
                fw.wait(lambda e: e["ev"] == "down" and "no CONNACK" in e["reason"], 15)
            finally:
                os.kill(b.proc.pid, signal.SIGCONT)
            fw.wait(lambda e: e["ev"] == "up" and e["reconnects"] >= 1, 15)
            want = {f"m{i}" for i in range(n)}
            obs.wait_for(lambda: want <= set(obs.payloads("flickboard/t7/raw")), 10, "every message")
            s = fw.stats_where(lambda e: e["sent"] == n and e["inflight"] == 0, 15)
            assert s["resent"] >= 1, s
            assert any("no CONNACK" in e["reason"] for e in fw.of("down")), fw.of("down")
            # the resent publishes carried the DUP flag on the wire
            assert wait_log(log, "Received PUBLISH from flickboard-t7 (d1, q1")
        finally:
            fw.stop()
            obs.close()


FAKE_NETWORK = r"""
# Stand-in for the board's `network` module (no Wi-Fi radio here): the join succeeds or fails as FAKE says.
STA_IF = 0
STAT_IDLE = 0
STAT_CONNECTING = 1
STAT_GOT_IP = 3
STAT_CONNECT_FAIL = -1
STAT_NO_AP_FOUND = -2
STAT_WRONG_PASSWORD = -3
FAKE = {"reject": 0, "radio": True, "connects": 0}


class WLAN:
    def __init__(self, interface):
        self._st = STAT_IDLE

    def active(self, on=None):
        return True

    def config(self, **kw):
        pass

    def connect(self, ssid, password):
        FAKE["connects"] += 1
        if FAKE["reject"] > 0:
            FAKE["reject"] -= 1
            self._st = STAT_WRONG_PASSWORD
        else:
            self._st = STAT_GOT_IP if FAKE["radio"] else STAT_CONNECTING

    def disconnect(self):
        self._st = STAT_IDLE

    def isconnected(self):
        return self._st == STAT_GOT_IP and FAKE["radio"]

    def status(self, param=None):
        if param == "rssi":
            return -61
        return self._st if FAKE["radio"] else STAT_CONNECTING
"""

WIFI_SCRIPT = r"""
import json, sys, time
import network
from fb.mqtt_link import Link

A = json.loads(sys.argv[1])
ev = []
link = Link("t8", A["host"], A["port"], ssid="club", wifi_password="pw", keepalive=5, backoff_min_ms=100,
            wifi_timeout_ms=300, wifi_backoff_min_ms=100, wifi_backoff_max_ms=400)
link.client.on_connect = lambda: ev.append("up")
link.client.on_disconnect = lambda r: ev.append("down: " + r)

def run(ms, until):
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms:
        link.poll(time.ticks_ms())
        if until():
            return True
        time.sleep_ms(2)
    return False

network.FAKE["reject"] = 2  # the access point refuses the first two joins
assert run(5000, link.is_connected), (ev, link.stats())
first = link.stats()
assert link.publish("before") is not None
network.FAKE["radio"] = False  # the access point goes away
assert run(3000, lambda: "down: wifi down" in ev), (ev, link.stats())
assert run(1000, lambda: link.stats()["wifi_errors"] >= 4), link.stats()  # join timeouts while it is away
queued = link.publish("during")  # QoS 1 accepted while offline, sent after the reconnect
network.FAKE["radio"] = True
assert run(5000, lambda: link.is_connected() and link.client.inflight() == 0), (ev, link.stats())
print(json.dumps({"first": first, "last": link.stats(), "ev": ev, "queued": queued}))
"""


def test_wifi_join_backoff_and_loss_with_a_stand_in_network_module(tmp_path: Path, broker: Broker) -> None:
    # the only stand-in in this file: the Wi-Fi radio; the broker and the interpreter are real
    (tmp_path / "network.py").write_text(FAKE_NETWORK)
    obs = Observer(broker, "flickboard/t8/raw")
    try:
        env = {**os.environ, "MICROPYPATH": ":".join([str(tmp_path), str(FIRMWARE), ".frozen"])}
        script = tmp_path / "wifi.py"
        script.write_text(WIFI_SCRIPT)
        args = json.dumps({"host": broker.host, "port": broker.port})
        p = subprocess.run(
            [micropython_exe(), str(script), args], capture_output=True, text=True, env=env, timeout=30, check=False
        )
        assert p.returncode == 0, p.stdout + p.stderr
        r = json.loads(p.stdout.strip().splitlines()[-1])
        assert r["first"]["wifi"] == "up" and r["first"]["wifi_errors"] == 2, r
        assert r["first"]["wifi_last_error"] == "wrong password" and r["first"]["rssi"] == -61, r
        assert r["ev"][:2] == ["up", "down: wifi down"] and r["ev"][-1] == "up", r
        assert r["last"]["wifi_reconnects"] == 1 and r["last"]["reconnects"] == 1, r
        assert r["queued"] is not None
        obs.wait_for(lambda: {"before", "during"} <= set(obs.payloads("flickboard/t8/raw")), 15, "both events")
    finally:
        obs.close()


def test_idle_client_keeps_one_connection_across_keepalives(tmp_path: Path) -> None:
    """An idle board only exchanges PINGREQ/PINGRESP with the broker. A PINGRESP has a remaining length of 0; it must
    keep the connection up, over more than two keepalive periods (issue: every idle board dropped its link)."""
    conf, log = log_conf(tmp_path)
    with mosquitto(conf) as b:
        obs = Observer(b, "flickboard/t9/status")
        fw = Firmware(tmp_path, b, "t9", ka=1)
        try:
            fw.wait(lambda e: e["ev"] == "up", 15)
            wait_log(log, "Sending PINGRESP to flickboard-t9", count=5, timeout=15)
            s = fw.of("stats")[-1]
            assert s["connects"] == 1 and s["errors"] == 0 and s["state"] == "up", s
            assert fw.of("down") == [], fw.of("down")
            assert obs.payloads("flickboard/t9/status") == ["online"], obs.payloads("flickboard/t9/status")
            assert len(wait_log(log, "New client connected")) == 2  # the observer and the board, once each
        finally:
            fw.stop()
            obs.close()


def test_idle_simulated_board_stays_online(tmp_path: Path) -> None:
    """As a maker tries it: `flickboard sim` of a one-shot scenario to a live Mosquitto with `--run-on`, then idle
    for more than two keepalive periods. One connection, `online` once, never `offline`."""
    conf, log = log_conf(tmp_path)
    scenario = tmp_path / "one-shot.json"
    scenario.write_text(
        json.dumps(
            {
                "profile": "pico_w",
                "board_id": "idle1",
                "hall_start": [3],
                "events": [{"at_ms": 100, "hall": "baseline", "seg": 3, "present": False}],
                "end_ms": 500,
                "mqtt": {"keepalive": 1},
            }
        )
    )
    with mosquitto(conf) as b:
        obs = Observer(b, "flickboard/idle1/#")
        url = f"mqtt://{b.host}:{b.port}"
        cmd = [sys.executable, "-m", "flickboard.cli.main", "sim", str(scenario), "--mqtt", url, "--run-on"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            obs.wait_for(lambda: '"m":"shot_start"' in "".join(obs.payloads("flickboard/idle1/raw")), 15, "shot_start")
            wait_log(log, "Sending PINGRESP to flickboard-idle1", count=5, timeout=15)
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert obs.payloads("flickboard/idle1/status") == ["online"], obs.payloads("flickboard/idle1/status")
            assert len(wait_log(log, "New client connected from")) == 2  # the observer and the board, once each
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
            obs.close()


# Every packet a broker could send with a remaining length of 0 (or too short for its type), and what the client
# must make of it: None = the connection stays up; otherwise the start of the reason it gives for closing.
ZERO_LENGTH = [
    (b"\xd0\x00", None),  # PINGRESP: has no body
    (b"\xd0\x01\x00", "malformed PINGRESP"),
    (b"\xe0\x00", "broker sent DISCONNECT"),
    (b"\x20\x00", "malformed packet type 2"),  # CONNACK
    (b"\x30\x00", "malformed packet type 3"),  # PUBLISH
    (b"\x40\x00", "malformed packet type 4"),  # PUBACK
    (b"\x90\x00", "malformed packet type 9"),  # SUBACK
    (b"\xb0\x00", "malformed packet type 11"),  # UNSUBACK
    (b"\xc0\x00", "unexpected packet type 12"),  # PINGREQ: only clients send it
    (b"\xf0\x00", "unexpected packet type 15"),
]


def _read_packet(conn: Any) -> bytes:
    head = conn.recv(1)
    if not head:
        return b""
    rl, mult = 0, 1
    while True:
        c = conn.recv(1)[0]
        rl += (c & 0x7F) * mult
        mult <<= 7
        if not c & 0x80:
            break
    body = b""
    while len(body) < rl:
        chunk = conn.recv(rl - len(body))
        if not chunk:
            break
        body += chunk
    return head + body


def test_every_zero_length_packet_type(tmp_path: Path) -> None:
    """A scripted broker accepts the board, then sends one packet of ZERO_LENGTH per connection. PINGRESP keeps the
    link up; every other zero-length packet is a protocol error that closes it with a reason (and a reconnect)."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(10)
    port = server.getsockname()[1]
    fake = Broker.__new__(Broker)
    fake.host, fake.port = "127.0.0.1", port  # the driver only reads host and port
    fw = Firmware(tmp_path, fake, "t10", ka=60, bmin=50, bmax=100)
    try:
        for packet, reason in ZERO_LENGTH:
            conn, _ = server.accept()
            conn.settimeout(15)
            assert _read_packet(conn)[:1] == b"\x10"  # CONNECT
            ups, downs = len(fw.of("up")), len(fw.of("down"))
            conn.sendall(b"\x20\x02\x00\x00")
            fw.wait(lambda e, n=ups: e["ev"] == "up" and len(fw.of("up")) > n, 15)
            conn.sendall(packet)
            if reason is None:
                time.sleep(0.5)
                assert len(fw.of("down")) == downs, fw.of("down")[downs:]
                conn.sendall(b"\xe0\x00")  # the next case: close it from our side
                fw.wait(lambda e, n=downs: e["ev"] == "down" and len(fw.of("down")) > n, 15)
            else:
                fw.wait(lambda e, n=downs: e["ev"] == "down" and len(fw.of("down")) > n, 15)
                got = fw.of("down")[downs]["reason"]
                assert got.startswith(reason), (packet, got)
            conn.close()
    finally:
        fw.stop()
        server.close()
