"""Issue 34: Mosquitto killed with `kill -9` starts again from its last autosave and hands the bridge messages it
had already taken. An entry answered in one match must not be applied again in the next, and a board's old events
must not hold the game: the real broker (persistence on, as docs/mosquitto/mosquitto.conf ships it), the
`flickboard bridge` process, a phone's and a board's client (lines from the firmware's encoder). On the code before
the fix the copy was entered in the new match ("shot in" for Ana in match 1, then a twenty for Cy in match 2), and
the old events put the board on a "two boots alive" hold.

The autosave is taken at a known moment: `autosave_interval` is long, and SIGUSR1 makes Mosquitto write its
persistence file then, as an autosave would, while the entry waits for the bridge in its persistent session."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import BridgeProc, bridge_args
from fb import proto  # the firmware's encoder
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.core import journal
from flickboard.sim.broker import Broker, start_mosquitto


class Phone:
    """A scorer's phone: requests on flickboard/t1/input, answers from flickboard/t1/result."""

    def __init__(self, broker: Broker) -> None:
        self.answers: list[dict[str, Any]] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="phone-crash")
        self.client.on_connect = lambda c, *_: c.subscribe("flickboard/t1/result", qos=1)
        self.client.on_message = lambda _c, _u, m: self.answers.append(json.loads(m.payload))
        listening = threading.Event()
        self.client.on_subscribe = lambda *_a: listening.set()
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        assert listening.wait(10), "the phone's subscription to the answers was not acknowledged"

    def send(self, body: dict[str, Any]) -> None:
        self.client.publish("flickboard/t1/input", json.dumps(body), qos=1).wait_for_publish(10)

    def answer(self, rid: str, count: int = 1, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mine = [a for a in self.answers if a.get("id") == rid]
            if len(mine) >= count:
                return mine[count - 1]
            time.sleep(0.05)
        raise AssertionError(f"no answer {count} to {rid}: {self.answers}")

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def autosave(broker: Broker, db: Path) -> None:
    """What Mosquitto's autosave does, now: write the persistence file (SIGUSR1)."""
    before = db.stat().st_mtime_ns if db.exists() else 0
    assert broker.proc is not None
    os.kill(broker.proc.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while not (db.exists() and db.stat().st_mtime_ns != before):
        assert time.monotonic() < deadline, "mosquitto wrote no persistence file"
        time.sleep(0.02)


def connected(bridge: BridgeProc, times: int) -> None:
    """Wait for the bridge's `times`-th connection to the broker (its log says each)."""
    deadline = time.monotonic() + 20
    while bridge.output().count(": connected (") < times:
        assert time.monotonic() < deadline, bridge.output()
        time.sleep(0.05)


def manual(path: Path) -> list[str]:
    return [r["in"] for r in journal.read(str(path), damaged_ok=True).records if r.get("src") == "manual"]


def test_an_entry_answered_before_a_broker_kill9_is_not_applied_again_in_the_next_match(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    broker = start_mosquitto(f"persistence true\npersistence_location {store}/\nautosave_interval 3600\n")
    journals = tmp_path / "journals"
    bridge = BridgeProc([*bridge_args(journals), "--mqtt", broker.url], tmp_path)
    phone = Phone(broker)
    try:
        connected(bridge, 1)
        phone.send({"id": "new-1", "new": {"players": ["Ana", "Ben"]}})
        assert phone.answer("new-1")["ok"]
        bridge.stop()  # its session stays on the broker: the entry waits there for it
        phone.send({"id": "phone-41", "line": "shot in"})
        autosave(broker, store / "mosquitto.db")  # the autosave holds the entry, queued for the bridge
        bridge.start()
        first = phone.answer("phone-41")
        assert first["ok"] and first["entry"] == 1
        phone.send({"id": "new-2", "new": {"players": ["Cy", "Di"]}})
        assert phone.answer("new-2")["ok"]
        match2 = max((journals / "t1").glob("*.jsonl"))
        assert "Cy" in match2.read_text()

        broker.crash()  # kill -9: it starts again from the autosave, with the entry still queued for the bridge
        deadline = time.monotonic() + 30
        while "came again" not in bridge.output() and "shot in" not in manual(match2):
            assert time.monotonic() < deadline, "the broker did not hand the entry over again"
            time.sleep(0.1)
        time.sleep(0.5)
        assert manual(match2) == []  # was: ["shot in"], a twenty for Cy
        assert "already entered in the previous match as entry 1" in bridge.output()
        assert bridge.proc is not None and bridge.proc.poll() is None
    finally:
        phone.close()
        bridge.stop()
        broker.close()


def board_records(journals: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted((journals / "t1").glob("*.jsonl")):
        out += [r for r in journal.read(str(path), damaged_ok=True).records if r.get("src") in ("board", "bridge")]
    return out


def test_board_events_handed_over_again_after_a_broker_kill9_raise_no_hold(tmp_path: Path) -> None:
    """The same crash for a board's events: boot 7's events, taken by the bridge, come again after the board has
    restarted (boot 8) and a new match began. On the code before, 14 of 32 boards went on a false "two boots alive"
    hold this way."""
    store = tmp_path / "store"
    store.mkdir()
    broker = start_mosquitto(f"persistence true\npersistence_location {store}/\nautosave_interval 3600\n")
    journals = tmp_path / "journals"
    bridge = BridgeProc([*bridge_args(journals), "--mqtt", broker.url], tmp_path)
    phone = Phone(broker)
    board = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board-t1")
    board.connect(broker.host, broker.port)
    board.loop_start()

    def publish(line: str) -> None:
        payload = line[len(proto.PREFIX) : line.rindex("|")]
        board.publish("flickboard/t1/raw", payload, qos=1).wait_for_publish(10)

    def journaled(count: int) -> None:
        deadline = time.monotonic() + 20
        while len([r for r in board_records(journals) if r["src"] == "board"]) < count:
            assert time.monotonic() < deadline, bridge.output()
            time.sleep(0.05)

    try:
        connected(bridge, 1)
        bridge.stop()
        boot7 = proto.Encoder("t1", 7, 0)
        publish(boot7.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
        publish(boot7.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}))
        publish(boot7.event("pass", "hole", 2000, {"dur_us": 900}))
        autosave(broker, store / "mosquitto.db")  # boot 7's events wait for the bridge in the autosave
        bridge.start()
        journaled(3)
        boot8 = proto.Encoder("t1", 8, 0)  # the board restarts
        publish(boot8.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
        journaled(4)
        phone.send({"id": "new-2", "new": {"players": ["Cy", "Di"]}})
        assert phone.answer("new-2")["ok"]

        broker.crash()
        deadline = time.monotonic() + 30
        while "came again" not in bridge.output() and "ON HOLD" not in bridge.output():
            assert time.monotonic() < deadline, "the broker did not hand the events over again"
            time.sleep(0.1)
        time.sleep(0.5)
        assert [r for r in board_records(journals) if r["src"] == "bridge"] == []  # was: a two-boots hold
        assert [(r["bt"], r["s"]) for r in board_records(journals)] == [(7, 1), (7, 2), (7, 3), (8, 1)]
        assert "ON HOLD" not in bridge.output()
    finally:
        board.loop_stop()
        phone.close()
        bridge.stop()
        broker.close()


def shipped(*names: str) -> str:
    """The lines of docs/mosquitto/mosquitto.conf that set `names`, as shipped."""
    conf = Path(__file__).parents[2] / "docs" / "mosquitto" / "mosquitto.conf"
    lines = [ln for ln in conf.read_text().splitlines() if ln.split(" ", 1)[0] in names]
    assert len(lines) == len(names), lines
    return "\n".join(lines) + "\n"


def test_the_shipped_queue_limits_keep_2000_entries_for_a_bridge_that_is_away(tmp_path: Path) -> None:
    """Mosquitto's default `max_queued_messages` (1,000) dropped 1,491 of 2,000 entries queued for a bridge that kept
    restarting, and said nothing to the phones."""
    limits = shipped("max_queued_messages", "max_queued_bytes", "queue_qos0_messages")
    broker = start_mosquitto(limits)
    got: list[bytes] = []
    bridge = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="queue-bridge", clean_session=False)
    bridge.on_message = lambda _c, _u, m: got.append(m.payload)
    subscribed = threading.Event()
    bridge.on_subscribe = lambda *_a: subscribed.set()
    phone = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="queue-phone")
    try:
        bridge.connect(broker.host, broker.port)
        bridge.subscribe("flickboard/+/input", qos=1)
        bridge.loop_start()
        assert subscribed.wait(10), "the bridge's subscription was not acknowledged"
        bridge.loop_stop()
        bridge.disconnect()  # away: its session keeps what comes
        phone.connect(broker.host, broker.port)
        phone.loop_start()
        sent = [phone.publish("flickboard/t1/input", json.dumps({"id": i, "line": "hit"}), qos=1) for i in range(2000)]
        for info in sent:
            info.wait_for_publish(10)
        bridge.reconnect()
        bridge.loop_start()
        deadline = time.monotonic() + 20
        while len(got) < 2000 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(got) == 2000  # was: 1,000 (the default limit)
    finally:
        bridge.loop_stop()
        phone.loop_stop()
        broker.close()
