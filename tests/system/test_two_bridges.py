"""Two bridges on one broker, each keeping its own board: each has its own status topic (its last will) and names
itself in its scoreboards, so when one stops only its board's score shows the scorer offline, in
`flickboard scoreboard` and in `BridgeWatch`. The real `flickboard bridge` processes and a real Mosquitto."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.mqtt import STATUS, BridgeWatch, bridge_topic
from flickboard.sim.broker import Broker

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
OFFLINE = "is offline: this score may be stale"


class Display:
    """What a display built on BridgeWatch sees: the two scoreboards and every bridge's status."""

    def __init__(self, broker: Broker) -> None:
        self.watch = BridgeWatch()
        self.docs: dict[str, dict[str, Any]] = {}
        self.cond = threading.Condition()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"display-{uuid.uuid4().hex[:6]}")
        topics = [*BridgeWatch.TOPICS, "flickboard/+/scoreboard"]
        self.c.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.c.on_message = self._message
        self.c.connect(broker.host, broker.port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            if not self.watch.feed(msg.topic, msg.payload):
                self.docs[msg.topic.split("/")[1]] = json.loads(msg.payload)
            self.cond.notify_all()

    def live(self, board: str) -> bool | None:
        doc = self.docs.get(board)
        return None if doc is None else self.watch.owner_online(doc)

    def wait(self, pred: Any, timeout: float = 20) -> bool:
        with self.cond:
            return self.cond.wait_for(pred, timeout)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def _bridge(url: str, board: str, journals: Path, *ident: str) -> subprocess.Popen[str]:
    args = ["bridge", "--mqtt", url, "--boards", board, "--journals", str(journals), "--keepalive", "5", *ident]
    return subprocess.Popen([FLICKBOARD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _scoreboard(url: str, board: str) -> str:
    p = subprocess.run(
        [FLICKBOARD, "scoreboard", "--mqtt", url, "--board", board, "--once", "--plain"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_one_bridge_stopping_marks_only_its_own_board(broker: Broker, tmp_path: Path) -> None:
    url = f"mqtt://{broker.host}:{broker.port}"
    display = Display(broker)
    # one named on the command line, one named after its client id (each needs its own client id anyway)
    hall = _bridge(url, "hall-1", tmp_path / "a", "--client-id", "bridge-hall", "--bridge-id", "hall")
    annex = _bridge(url, "annex-1", tmp_path / "b", "--client-id", "bridge.annex")
    procs = [hall, annex]
    try:
        said = []
        for p in procs:
            assert p.stdout is not None
            said.append(p.stdout.readline())
            assert "flickboard bridge: mqtt" in said[-1], said[-1] + (p.stderr.read() if p.stderr else "")
        assert said[0].rstrip().endswith("bridge id hall") and said[1].rstrip().endswith("bridge id bridge-annex")
        assert display.wait(lambda: display.live("hall-1") is True and display.live("annex-1") is True)
        assert display.docs["hall-1"]["bridge"] == "hall"
        assert display.docs["annex-1"]["bridge"] == "bridge-annex"  # the client id, '.' made '-'
        assert display.watch.bridges == {"hall": True, "bridge-annex": True}
        assert OFFLINE not in _scoreboard(url, "hall-1") and OFFLINE not in _scoreboard(url, "annex-1")

        # The annex bridge dies (no clean stop): the broker says its last will on its own topic only.
        annex.send_signal(signal.SIGKILL)
        annex.wait(10)
        assert display.wait(lambda: display.live("annex-1") is False, 20), display.watch.bridges
        assert display.live("hall-1") is True
        shown = _scoreboard(url, "annex-1")
        assert "the scorer (bridge bridge-annex) is offline: this score may be stale" in shown, shown
        assert OFFLINE not in _scoreboard(url, "hall-1")

        # The hall bridge stops cleanly (SIGTERM): now its board too.
        hall.send_signal(signal.SIGTERM)
        assert hall.wait(20) == 0
        assert display.wait(lambda: display.live("hall-1") is False)
        assert "the scorer (bridge hall) is offline" in _scoreboard(url, "hall-1")
        assert display.watch.bridges == {"hall": False, "bridge-annex": False}
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)
            err = p.stderr.read() if p.stderr else ""
            assert "Traceback" not in err, err
            for f in (p.stdout, p.stderr):
                if f is not None:
                    f.close()
        display.close()


def test_the_own_topics_are_retained_for_a_late_display(broker: Broker, tmp_path: Path) -> None:
    """A display that connects after the bridge stopped still learns from the retained own status."""
    url = f"mqtt://{broker.host}:{broker.port}"
    bridge = _bridge(url, "late-1", tmp_path, "--bridge-id", "late")
    try:
        assert bridge.stdout is not None and "bridge id late" in bridge.stdout.readline()
        display = Display(broker)
        assert display.wait(lambda: display.live("late-1") is True)
        display.close()
        bridge.send_signal(signal.SIGTERM)
        assert bridge.wait(20) == 0
        time.sleep(0.2)
        late = Display(broker)
        assert late.wait(lambda: late.live("late-1") is False)
        assert late.watch.online("late") is False and bridge_topic("late", STATUS) == "flickboard/bridge/late/status"
        late.close()
    finally:
        if bridge.poll() is None:
            bridge.kill()
        bridge.wait(10)
        for f in (bridge.stdout, bridge.stderr):
            if f is not None:
                f.close()


class HomeAssistantView:
    """What Home Assistant makes of `flickboard integrations --homeassistant`: the latest message on every topic it
    would read, each board's device config, and whether an entity is available as Home Assistant decides it
    (https://www.home-assistant.io/integrations/mqtt/#availability: each item's topic's latest payload against its
    `payload_available`; with `availability_mode` `all`, every item; a topic never heard: unavailable)."""

    def __init__(self, broker: Broker) -> None:
        self.latest: dict[str, bytes] = {}
        self.inputs: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"ha-{uuid.uuid4().hex[:6]}")
        topics = ["homeassistant/#", "flickboard/#"]
        self.c.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.c.on_message = self._message
        self.c.connect(broker.host, broker.port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.latest[msg.topic] = bytes(msg.payload)
            if msg.topic.endswith("/input"):
                self.inputs.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def config(self, board: str) -> dict[str, Any] | None:
        raw = self.latest.get(f"homeassistant/device/flickboard_{board}/config")
        return json.loads(raw) if raw else None

    def available(self, board: str, key: str) -> bool:
        config = self.config(board)
        assert config is not None, board
        items = config["cmps"][key]["availability"]
        assert config["cmps"][key].get("availability_mode", "all") == "all" or len(items) == 1
        for item in items:
            payload = self.latest.get(item["topic"])
            if payload is None or "value_template" in item:  # the buttons' second item: the scoreboard's state
                if payload is None:
                    return False
                continue
            if payload.decode() != item["payload_available"]:
                return False
        return True

    def wait(self, pred: Any, timeout: float = 20) -> bool:
        with self.cond:
            return self.cond.wait_for(pred, timeout)

    def press(self, board: str, button: str) -> None:
        self.c.publish(f"homeassistant/flickboard/{board}/command", button, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_home_assistant_follows_the_bridge_that_keeps_each_board(broker: Broker, tmp_path: Path) -> None:
    """`flickboard integrations --homeassistant --ha-commands` with two bridges on one broker, each keeping its board:
    each board's Home Assistant device is available from its own bridge's status topic (the one its scoreboard names).
    One bridge is killed: the broker says its last will on its own topic, that board's entities go unavailable and a
    press for it is ignored (one log line, nothing sent), while the other board stays available and its presses go
    through to its bridge."""
    url = f"mqtt://{broker.host}:{broker.port}"
    ha = HomeAssistantView(broker)
    hall = _bridge(url, "hall-1", tmp_path / "a", "--client-id", "bridge-hall", "--bridge-id", "hall")
    annex = _bridge(url, "annex-1", tmp_path / "b", "--client-id", "bridge-annex", "--bridge-id", "annex")
    log = (tmp_path / "integrations.log").open("w")
    integrations = subprocess.Popen(
        [FLICKBOARD, "integrations", "--mqtt", url, "--homeassistant", "--ha-commands", "--client-id", "ha-int"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    procs = [hall, annex, integrations]

    def said() -> str:
        return (tmp_path / "integrations.log").read_text()

    try:
        for p in (hall, annex):
            assert p.stdout is not None and "flickboard bridge: mqtt" in p.stdout.readline()
        for board, bridge in (("hall-1", "hall"), ("annex-1", "annex")):
            assert ha.wait(lambda b=board: ha.config(b) is not None and ha.available(b, "points_1")), board
            config = ha.config(board)
            assert config is not None
            topic = f"flickboard/bridge/{bridge}/status"
            cmps = config["cmps"]
            watched = {a["topic"] for c in cmps.values() for a in c.get("availability", [])}
            assert {t for t in watched if t.startswith("flickboard/")} == {topic}, watched
            # every entity but the press event (this program's own: its status only) follows the board's bridge
            without = {k for k, c in cmps.items() if "availability" in c and topic not in str(c["availability"])}
            assert without == {"press"}, without
            assert ha.available(board, "undo") and ha.available(board, "board")

        annex.send_signal(signal.SIGKILL)  # no clean stop: only its last will speaks
        annex.wait(10)
        assert ha.wait(lambda: ha.latest.get("flickboard/bridge/annex/status") == b"offline", 20)
        assert not ha.available("annex-1", "points_1") and not ha.available("annex-1", "undo")
        assert ha.available("hall-1", "points_1") and ha.available("hall-1", "undo")
        assert ha.latest.get("flickboard/bridge/status") == b"online"  # the shared status still says online

        deadline = time.monotonic() + 20
        while "bridge annex is offline" not in said():  # the integrations heard it too
            assert time.monotonic() < deadline, said()
            time.sleep(0.1)
        ha.press("annex-1", "undo")
        while "ignored: its bridge annex is offline" not in said():
            assert time.monotonic() < deadline, said()
            time.sleep(0.1)
        ha.press("hall-1", "undo")  # the other board: sent, and its bridge answers
        assert ha.wait(lambda: any(t == "flickboard/hall-1/input" for t, _ in ha.inputs))
        assert ha.wait(lambda: "flickboard/hall-1/result" in ha.latest)
        assert not any(t == "flickboard/annex-1/input" for t, _ in ha.inputs)

        integrations.send_signal(signal.SIGTERM)
        out, _ = integrations.communicate(timeout=10)
        assert integrations.returncode == 0, said()
        assert "0 unreadable messages, 0 failures" in out and "unanswered" in out and "1 ignored" in out, out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)
            if p.stdout is not None:
                p.stdout.close()
            if p.stderr is not None:
                p.stderr.close()
        ha.close()
        log.close()
    assert "Traceback" not in said()
