"""host/mqtt.py `Subscriber`, the one way every Flickboard MQTT client stays subscribed: the bridge's link, the web
page's hub, the integrations and the command-line tools, against a live Mosquitto.

Each comes back after a broker restart that forgot its subscriptions, and hears what is published afterwards. A
subscription the broker refuses is said by each in its own way, never waited on in silence: Mosquitto's dynamic
security plugin refuses a subscription with a failure code (its file ACL, docs/security.md, grants it and delivers
nothing, so the secured set-up of tests/system/test_security.py never shows a refusal).
"""

from __future__ import annotations

import glob
import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.board.links import MqttLink
from flickboard.config import parse_mqtt_url
from flickboard.displays.integrations.homeassistant import HomeAssistant
from flickboard.displays.integrations.runner import IntegrationRunner
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.hub import Hub
from flickboard.mqtt import (
    BRIDGE_STATUS,
    EVERY_BRIDGE_STATUS,
    RAW,
    RESULT,
    SCOREBOARD,
    Subscriber,
    board_topic,
    client,
)
from flickboard.sim.broker import Broker, mosquitto

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
ROOT = Path(__file__).resolve().parents[2]


def wait_until(pred: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def publish(broker: Broker, topic: str, payload: bytes, retain: bool = False) -> None:
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.connect(broker.host, broker.port)
    c.loop_start()
    try:
        c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    finally:
        c.disconnect()
        c.loop_stop()


class Started:
    """One of the four clients, started: `ready()`, `connects()`, `heard()` (a message published after the start
    arrived), and `stop()`."""

    def __init__(self, name: str, broker: Broker) -> None:
        url = parse_mqtt_url(broker.url)
        self.name = name
        self.said: list[str] = []
        self.payloads: list[tuple[str, bytes]] = []
        if name == "link":
            self.link = MqttLink(url, "sub-link", None, lambda b, p: self.payloads.append((b, p)))
            self.link.start()
            self.subscriber = self.link.subscriber
            self.topic, self.heard = board_topic("b1", RAW), lambda: ("b1", b"after") in self.payloads
            self.stop: Callable[[], None] = self.link.stop
        elif name == "web":
            self.hub = Hub(WebConfig(url, answer_timeout=1), self.said.append)
            self.hub.start()
            self.subscriber = self.hub.subscriber
            self.topic, self.heard = BRIDGE_STATUS, lambda: self.hub.watch.online(None) is True
            self.stop = self.hub.stop
        elif name == "integrations":
            self.runner = IntegrationRunner(url, client_id="sub-integrations")
            self.runner.start()
            self.subscriber = self.runner.subscriber
            self.topic, self.heard = BRIDGE_STATUS, lambda: self.runner.boards.watch.online(None) is True
            self.stop = self.runner.stop
        else:
            raise AssertionError(name)


@pytest.mark.parametrize("name", ["link", "web", "integrations"])
def test_each_client_subscribes_again_after_a_broker_restart(name: str, broker: Broker) -> None:
    started = Started(name, broker)
    try:
        assert started.subscriber.wait_ready(10), f"{name} never became ready"
        broker.restart()  # persistence off: the broker forgets every session and its subscriptions
        wait_until(lambda: started.subscriber.connects >= 2 and started.subscriber.ready, 20, f"{name} back")
        publish(broker, started.topic, b"online" if started.topic == BRIDGE_STATUS else b"after")
        wait_until(started.heard, 10, f"{name} hearing a message published after the restart")
    finally:
        started.stop()


# ---------------------------------------------------------------- a broker that refuses subscriptions

ALLOWED = ("flickboard/+/scoreboard", "flickboard/+/events", "flickboard/+/status", BRIDGE_STATUS, EVERY_BRIDGE_STATUS)


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[Broker]:
    """Mosquitto with its dynamic security plugin: anonymous clients may subscribe to ALLOWED and nothing else."""
    found = glob.glob("/usr/lib/*/mosquitto_dynamic_security.so") + glob.glob("/usr/lib/mosquitto_dynamic_security.so")
    assert found, "Mosquitto's dynamic security plugin is missing (the mosquitto package installs it)"
    rules = [{"acltype": "subscribePattern", "topic": t, "allow": True} for t in ALLOWED]
    doc = {
        "defaultACLAccess": {
            "publishClientSend": True,
            "publishClientReceive": True,
            "subscribe": False,
            "unsubscribe": True,
        },
        "clients": [],
        "groups": [{"groupname": "anyone", "roles": [{"rolename": "viewer"}]}],
        "anonymousGroup": "anyone",
        "roles": [{"rolename": "viewer", "acls": rules}],
    }
    path = tmp_path / "dynsec.json"
    path.write_text(json.dumps(doc))
    with mosquitto(f"plugin {found[0]}\nplugin_opt_config_file {path}\n") as b:
        yield b


def test_the_subscriber_names_the_topics_refused(strict: Broker) -> None:
    heard: list[list[str]] = []
    done = threading.Event()
    c = client(parse_mqtt_url(strict.url), "sub-bare")
    topics = [board_topic("b1", SCOREBOARD), board_topic("b1", RESULT), BRIDGE_STATUS, board_topic("+", RAW)]
    sub = Subscriber(c, lambda: topics, subscribed=lambda refused: (heard.append(refused), done.set()))
    c.connect(strict.host, strict.port)
    c.loop_start()
    try:
        assert sub.wait_subscribed(10) and done.is_set()
        assert heard == [["flickboard/b1/result", "flickboard/+/raw"]]
        assert sub.refused_topics == heard[0] and sub.connected and not sub.ready
    finally:
        c.disconnect()
        c.loop_stop()


def test_the_bridge_link_is_not_ready_and_logs_the_refusal(strict: Broker, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="flickboard")
    started = Started("link", strict)
    try:
        assert started.subscriber.wait_subscribed(10)
        assert not started.link.wait_ready(0.5), "the bridge would miss every board's events"
        assert any("subscription refused: flickboard/+/raw" in r.getMessage() for r in caplog.records), caplog.text
    finally:
        started.stop()


def test_the_web_page_refuses_an_entry_whose_answer_could_not_come_back(strict: Broker) -> None:
    started = Started("web", strict)
    try:
        assert started.subscriber.wait_subscribed(10)
        status, body = started.hub.send("b1", {"line": "hit"})
        assert status == 503, (status, body)
        assert "refused this server's subscription to flickboard/+/result" in json.dumps(body)
        assert any("refused the subscription to flickboard/+/result" in s for s in started.said), started.said
    finally:
        started.stop()


def test_the_integrations_run_on_and_log_the_refusal(strict: Broker, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="flickboard")
    url = parse_mqtt_url(strict.url)
    runner = IntegrationRunner(url, client_id="sub-integrations-strict")
    ha = HomeAssistant(runner.publish, runner.boards)  # it follows Home Assistant's birth topic: refused here
    runner.add(ha)
    runner.start()
    try:
        assert runner.wait_ready(10), "a refused subscription must not stop what the integrations can still do"
        assert any(f"subscription refused: {ha.birth_topic}" in r.getMessage() for r in caplog.records), caplog.text
        # a board shows up (its first scoreboard, which is what announces a board): it is still announced
        doc = json.loads((ROOT / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```", 1)[0])
        publish(strict, board_topic("b1", SCOREBOARD), json.dumps({**doc, "board": "b1"}).encode())
        wait_until(lambda: ha.announcements >= 1, 10, "Home Assistant's discovery of a board")
    finally:
        runner.stop()


def test_enter_says_the_refusal_in_one_line(strict: Broker) -> None:
    p = subprocess.run(
        [FLICKBOARD, "enter", "--mqtt", strict.url, "--board", "b1", "--timeout", "5", "hit"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stdout, p.stderr)
    assert "refused the subscription to flickboard/b1/result" in lines[0], lines[0]
