"""A board that keeps sending while everything it sends is a duplicate (a simulated or re-flashed board reusing a boot
id and its sequence numbers): the bridge says so on the scoreboard (`board_link.only_duplicates`), once in its log
and in its health document, and the first new event clears it. The rule on a bridge clock; then a real bridge (its
MQTT link to a real Mosquitto) fed duplicates by a board on the broker, and `flickboard scoreboard` saying it in plain
words."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from fb import proto
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.board.bridge import Bridge, GameSetup, messages
from flickboard.board.bridge.messages import ONLY_DUPLICATES_AFTER, ONLY_DUPLICATES_MIN
from flickboard.cli.bridge import start_bridge
from flickboard.config import load_config
from flickboard.mqtt import BRIDGE_HEALTH, HEALTH, bridge_topic
from flickboard.sim.broker import Broker

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
SETUP = GameSetup("tournament-2019", ("Ana", "Ben"))


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Bus:
    def __init__(self) -> None:
        self.got: list[tuple[str, Any]] = []

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        self.got.append((topic, json.loads(payload)))

    def last(self, topic: str) -> Any:
        return [d for t, d in self.got if t == topic][-1]


def _events(enc: proto.Encoder, n: int) -> list[str]:
    return [enc.event("shot_start", "baseline", 1000 * (enc.seq + 1), {"q": 1, "seg": 1}) for _ in range(n)]


def test_the_rule_on_the_bridge_clock(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert (ONLY_DUPLICATES_AFTER, ONLY_DUPLICATES_MIN) == (30.0, 3)  # as docs/mqtt.md says
    clock, bus = Clock(), Bus()
    bridge = Bridge(tmp_path, SETUP, None, bus, clock=clock, bridge_id="hall-a")
    enc = proto.Encoder("t1", 5, 0)
    lines = [enc.hello(0, "1.0", "pico_w", [], "power"), *_events(enc, 2)]
    sent: list[str] = []
    for line in lines:
        bridge.serial_line("/dev/ttyX", line, sent.append)

    def link() -> dict[str, Any]:
        doc = bus.last("flickboard/t1/scoreboard")
        assert doc["bridge"] == "hall-a"
        return dict(doc["board_link"])

    assert link()["only_duplicates"] is None
    caplog.set_level(logging.INFO, logger="flickboard.bridge")
    # Many duplicates within 30 s: a normal resend (the board missed an ack), nothing to say.
    for line in lines * 3:
        clock.t += 3
        bridge.serial_line("/dev/ttyX", line, sent.append)
    assert link()["only_duplicates"] is None
    # Past 30 s of nothing but duplicates, but only two of them: not yet.
    bridge.serial_line("/dev/ttyX", _events(enc, 1)[0], sent.append)  # a new event: the count starts again
    bridge.serial_line("/dev/ttyX", lines[1], sent.append)
    clock.t += 40
    bridge.serial_line("/dev/ttyX", lines[2], sent.append)
    assert link()["only_duplicates"] is None
    clock.t += 1
    bridge.serial_line("/dev/ttyX", lines[0], sent.append)  # the third, 41 s after the first
    dup = link()["only_duplicates"]
    assert dup is not None and dup["count"] == 3 and dup["since"].endswith("Z")
    clock.t += 1
    bridge.serial_line("/dev/ttyX", lines[1], sent.append)
    assert link()["only_duplicates"]["count"] == 4  # republished as it grows
    said = [r.getMessage() for r in caplog.records if "repeats of events already counted" in r.getMessage()]
    assert len(said) == 1 and "\n" not in said[0] and "board t1: its last 3 events" in said[0], said
    bridge.tick()
    health = bus.last(bridge_topic("hall-a", HEALTH))
    assert health["bridge"] == "hall-a" and bus.last(BRIDGE_HEALTH) == health  # the deprecated copy, the same
    assert health["only_duplicates"] == {"boards": ["t1"], "times": 1}
    assert health["boards"]["t1"]["only_duplicates"] is True
    # The first new event clears it.
    bridge.serial_line("/dev/ttyX", _events(enc, 1)[0], sent.append)
    assert link()["only_duplicates"] is None
    bridge.tick()
    assert bus.last(bridge_topic("hall-a", HEALTH))["only_duplicates"] == {"boards": [], "times": 1}
    bridge.close()


class Peer:
    """A board (or a display) on the broker."""

    def __init__(self, broker: Broker, topics: tuple[str, ...] = ()) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"peer-{uuid.uuid4().hex[:6]}")
        self.c.on_connect = lambda c, *_: [c.subscribe(t, 1) for t in topics]
        self.c.on_message = self._message
        self.c.connect(broker.host, broker.port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.got.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def wait(self, pred: Any, timeout: float = 15) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: pred(self), timeout)

    def last(self, topic: str) -> Any:
        with self.cond:
            docs = [json.loads(p) for t, p in self.got if t == topic]
        return docs[-1] if docs else None

    def pub(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def _dups(peer: Peer) -> Any:
    doc = peer.last("flickboard/d1/scoreboard")
    return None if doc is None else doc["board_link"].get("only_duplicates")


def test_a_real_bridge_fed_only_duplicates(broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bridge with its MQTT link, a board publishing on the broker, a display; the wait shortened to 1 s."""
    monkeypatch.setattr(messages, "ONLY_DUPLICATES_AFTER", 1.0)
    url = f"mqtt://{broker.host}:{broker.port}"
    cli = {"mqtt": url, "boards": "d1", "journals": str(tmp_path), "client_id": "dup-bridge"}
    running = start_bridge(load_config(None, env={}, cli=cli))
    display = Peer(broker, ("flickboard/d1/scoreboard", bridge_topic("dup-bridge", HEALTH)))
    board = Peer(broker)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(0.1):
            running.bridge.tick()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        assert running.mqtt is not None and running.mqtt.wait_ready(10)
        board.pub("flickboard/d1/status", "online", retain=True)
        enc = proto.Encoder("d1", 9, 0)
        enc.hello(0, "1.0", "pico_w", [], "power")
        sent = [enc.last_json]
        for _ in range(3):
            enc.event("shot_start", "baseline", 1000 * (enc.seq + 1), {"q": 1, "seg": 1})
            sent.append(enc.last_json)
        for body in sent:
            board.pub("flickboard/d1/raw", body)
        assert display.wait(lambda p: (p.last("flickboard/d1/scoreboard") or {}).get("sensor_events") == 4)
        assert _dups(display) is None
        # The board starts again with the same boot id and sends the same events: each one a duplicate.
        for body in sent[:3]:
            board.pub("flickboard/d1/raw", body)
            time.sleep(0.55)
        assert display.wait(lambda p: _dups(p) is not None), _dups(display)
        assert _dups(display)["count"] == 3
        assert display.wait(lambda p: (p.last(bridge_topic("dup-bridge", HEALTH)) or {}).get("only_duplicates"))
        assert display.wait(
            lambda p: p.last(bridge_topic("dup-bridge", HEALTH))["only_duplicates"] == {"boards": ["d1"], "times": 1}
        )
        shown = subprocess.run(
            [FLICKBOARD, "scoreboard", "--mqtt", url, "--board", "d1", "--once", "--plain"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert shown.returncode == 0, shown.stderr
        assert (
            "the board's last 3 messages were all repeats of ones already counted" in shown.stdout
            and "restart the board or check its boot id" in shown.stdout
        ), shown.stdout
        big = subprocess.run(
            [FLICKBOARD, "scoreboard", "--mqtt", url, "--board", "d1", "--once", "--big"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert "REPEATS ONLY: the board's last 3 messages" in big.stdout, big.stdout
        # A new event: it counts, and the warning goes.
        enc.event("shot_start", "baseline", 1000 * (enc.seq + 1), {"q": 1, "seg": 1})
        board.pub("flickboard/d1/raw", enc.last_json)
        assert display.wait(lambda p: (p.last("flickboard/d1/scoreboard") or {}).get("sensor_events") == 5)
        assert _dups(display) is None
    finally:
        stop.set()
        ticker.join(5)
        running.stop()
        display.close()
        board.close()
