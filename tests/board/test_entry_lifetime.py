"""An entry counts only while its sender still waits for it (docs/mqtt.md, "An entry's lifetime"; issue 30). Every
Flickboard sender publishes an entry with an MQTT 5 message expiry shorter than its wait, and sends nothing when the
board's bridge is known to be offline. Before, an undo tapped while the bridge was down, and reported as failed,
was applied minutes later when the bridge came back, and reopened a finished match."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from flickboard import mqtt
from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.core import journal
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.hub import Hub
from flickboard.sim.broker import Broker

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
BOARD = "t1"


def bridge(broker: Broker, folder: Path, client_id: str) -> Running:
    """A bridge with a persistent session under `client_id`: started again with the same id, it is handed what the
    broker kept for it meanwhile."""
    cfg = BridgeConfig(
        mqtt=parse_mqtt_url(broker.url), boards=(BOARD,), journals=str(folder), players=("Ana", "Ben"),
        client_id=client_id,
    )  # fmt: skip
    running = start_bridge(cfg)
    assert running.mqtt is not None and running.mqtt.wait_ready(10), "the bridge did not connect"
    return running


def request_ids(folder: Path) -> list[str]:
    path = next((folder / BOARD).glob("*.jsonl"))
    return [str(r["rid"]) for r in journal.read(str(path)).records if "rid" in r]


def sender(broker: Broker) -> paho.Client:
    c = mqtt.client(parse_mqtt_url(broker.url), f"sender-{uuid.uuid4().hex[:6]}", entries=True)
    c.connect(broker.host, broker.port)
    c.loop_start()
    return c


def until(pred: Any, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_an_entry_nobody_waits_for_is_dropped_by_the_broker_not_applied_later(broker: Broker, tmp_path: Path) -> None:
    """The bridge is down; an entry with a 1 s lifetime (its sender waits 3 s) is not applied when the bridge comes
    back 3 s later, while one published without a lifetime (a client of its own, MQTT 3.1.1) still is: the bridge's
    MQTT 3.1.1 session gets what the broker kept, and the broker applies the expiry to it."""
    client_id = f"bridge-{uuid.uuid4().hex[:6]}"
    bridge(broker, tmp_path, client_id).stop()  # its persistent session stays on the broker
    s = sender(broker)
    try:
        late = json.dumps({"id": "late-1", "line": "shot in"})
        assert mqtt.publish_entry(s, BOARD, late, wait=3).wait_for_publish(5) is None
        assert mqtt.entry_lifetime(3) == 1
        plain = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"plain-{uuid.uuid4().hex[:6]}")
        plain.connect(broker.host, broker.port)
        plain.loop_start()
        kept = plain.publish(
            mqtt.board_topic(BOARD, mqtt.INPUT), json.dumps({"id": "kept-1", "line": "shot in"}), qos=1
        )
        kept.wait_for_publish(10)  # on the broker before this client leaves
        assert kept.is_published(), "the entry without a lifetime did not reach the broker"
        time.sleep(3)  # the bridge comes back 3 s later: past the late entry's 1 s lifetime
        plain.loop_stop()
        plain.disconnect()
    finally:
        s.loop_stop()
        s.disconnect()
    running = bridge(broker, tmp_path, client_id)
    try:
        until(lambda: "str:kept-1" in request_ids(tmp_path), "the entry without a lifetime")
        time.sleep(0.5)
        assert "str:late-1" not in request_ids(tmp_path)
    finally:
        running.stop()


def test_senders_give_each_entry_its_lifetime_and_send_nothing_to_an_offline_bridge(
    broker: Broker, tmp_path: Path
) -> None:
    """The web page's hub and `flickboard enter`: each entry carries a message expiry 2 s shorter than the sender's
    wait; with the board's bridge offline (its retained status), nothing is sent and the user is told so."""
    seen: list[tuple[dict[str, Any], int | None]] = []
    lock = threading.Lock()

    def on_message(_c: Any, _u: Any, m: paho.MQTTMessage) -> None:
        expiry = getattr(m.properties, "MessageExpiryInterval", None)
        with lock:
            seen.append((json.loads(m.payload), expiry))

    spy = paho.Client(CallbackAPIVersion.VERSION2, protocol=MQTTProtocolVersion.MQTTv5)
    spy.on_message = on_message
    listening = threading.Event()
    spy.on_subscribe = lambda *_a: listening.set()
    spy.connect(broker.host, broker.port)
    spy.subscribe(mqtt.board_topic(BOARD, mqtt.INPUT), qos=1)
    spy.loop_start()
    assert listening.wait(10), "the spy's subscription was not acknowledged"
    running = bridge(broker, tmp_path, f"bridge-{uuid.uuid4().hex[:6]}")
    hub = Hub(WebConfig(parse_mqtt_url(broker.url), answer_timeout=10), lambda _line: None)
    said: list[str] = []
    hub.refusals.say = said.append
    hub.start()
    try:
        assert hub.subscriber.wait_ready(10)
        until(lambda: hub.status(BOARD).get("bridge") == "online", "the hub to see the bridge online")
        status, body = hub.send(BOARD, {"line": "shot in"})
        assert status == 200 and body["ok"], body
        enter = [FLICKBOARD, "enter", "--mqtt", broker.url, "--board", BOARD, "--timeout", "6", "undo"]
        done = subprocess.run(enter, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        until(lambda: len(seen) == 2, "both entries on the broker")
        assert [expiry for _doc, expiry in seen] == [8, 4]

        running.stop()  # a clean stop: its status says offline
        until(lambda: hub.status(BOARD).get("bridge") == "offline", "the hub to see the bridge offline")
        status, body = hub.send(BOARD, {"line": "shot in"})
        assert status == 503 and "offline: nothing was sent" in body["error"], body
        assert any("bridge offline" in line for line in said), said
        done = subprocess.run(enter, capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "is offline: nothing was sent" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        time.sleep(0.5)
        assert len(seen) == 2, seen  # nothing more reached the broker
    finally:
        hub.stop()
        running.stop()
        spy.loop_stop()
        spy.disconnect()
