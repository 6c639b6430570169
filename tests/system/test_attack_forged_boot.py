"""Issue 19 on a live Mosquitto: an open broker lets anyone publish on a board's raw topic. A forger publishes one
valid `hello` with another boot id, retained, so that the broker hands it to the bridge again after every restart.
The real `flickboard bridge` process follows the board; the board's lines come from the firmware's own encoder.

Before the fix, every later real event was 'stale': dropped, never acked, the scoreboard in sync, no hold. Now the
real board's events are journaled and acked under their own boot, the game is held ("two boots alive") on the
retained scoreboard and in the health document, and after a restart the retained copy is not taken as new input."""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import BridgeProc, Watcher, bridge_args, proto
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.core import journal

BOARD = "t1"
SENSORS = [{"name": "hole", "kind": "beam"}]


class MqttBoard:
    """A board on MQTT as the firmware behaves: publish a line, resend it until the bridge acks it."""

    def __init__(self, port: int, boot: int) -> None:
        self.enc = proto.Encoder(BOARD, boot, 0)
        self.boot = boot
        self.acked = 0
        self.cond = threading.Condition()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"board-{uuid.uuid4().hex[:6]}")
        self.c.on_connect = lambda c, *_: c.subscribe(f"flickboard/{BOARD}/cmd", 1)
        self.c.on_message = self._cmd
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _cmd(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        cmd = json.loads(msg.payload)
        if cmd.get("c") == "ack" and cmd.get("bt") == self.boot:
            with self.cond:
                self.acked = max(self.acked, cmd["s"])
                self.cond.notify_all()

    def send(self, line: str, timeout: float = 10) -> bool:
        """True once acked; resends every half second, as the firmware's outbox does."""
        seq = self.enc.seq
        body = line.strip()[4:].rsplit("|", 1)[0].encode()
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.acked < seq:
                if time.monotonic() > deadline:
                    return False
                self.c.publish(f"flickboard/{BOARD}/raw", body, qos=1)
                self.cond.wait(0.5)
        return True

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def test_a_retained_forged_hello_on_an_open_broker_never_silences_the_board(broker: Any, tmp_path: Path) -> None:
    journals = tmp_path / "journals"
    link = ["--mqtt", f"mqtt://127.0.0.1:{broker.port}", "--boards", BOARD]
    bridge = BridgeProc([*link, *bridge_args(journals)], tmp_path)
    board = MqttBoard(broker.port, boot=7)
    watcher = Watcher(broker.port, BOARD)
    forger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="forger")
    try:
        assert board.send(board.enc.hello(0, "1.0", "pico_w", SENSORS, "power")), bridge.output()[-2000:]
        assert board.send(board.enc.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}))
        # The forger: the firmware's own encoder, another boot id, published retained on the board's raw topic.
        forged = proto.Encoder(BOARD, 99, 0).hello(0, "1.0", "pico_w", SENSORS, "power")
        forger.connect("127.0.0.1", broker.port)
        forger.loop_start()
        forger.publish(
            f"flickboard/{BOARD}/raw", forged.strip()[4:].rsplit("|", 1)[0], qos=1, retain=True
        ).wait_for_publish(5)
        assert watcher.wait(lambda w: (w.health or {}).get("protocol", {}).get("counters", {}).get("reboots") == 1)

        assert board.send(board.enc.event("pass", "hole", 2000, {"dur_us": 900}))  # was: stale, never acked
        assert watcher.wait(lambda w: w.scoreboard is not None and w.scoreboard["needs_review"])
        assert watcher.scoreboard is not None
        assert "two boots alive" in watcher.scoreboard["review"][0]["text"]
        assert watcher.wait(lambda w: (w.health or {}).get("holds", {}).get("two_boots") == 1)

        bridge.stop()  # the broker keeps the retained forgery and hands it to the bridge again at its start
        bridge.start()
        assert board.send(board.enc.event("baseline_rest", "baseline", 3000, {"q": 1, "seg": 1}))
        late = Watcher(broker.port, BOARD)
        try:
            assert late.wait(lambda w: w.scoreboard is not None and w.scoreboard["entries"] == 6)
            assert late.scoreboard is not None and late.scoreboard["needs_review"]
            refused = lambda w: any(v.get("refused_retained") for v in ((w.health or {}).get("links") or {}).values())  # noqa: E731
            assert late.wait(refused)  # the link did not take the broker's stored copy as new input
        finally:
            late.close()
        [path] = sorted((journals / BOARD).glob("*.jsonl"))
        recs = journal.read(str(path)).records
        assert [(r["bt"], r["s"], r["m"]) for r in recs if r["src"] == "board"] == [
            (7, 1, "hello"),
            (7, 2, "shot_start"),
            (99, 1, "hello"),
            (7, 3, "pass"),
            (7, 4, "baseline_rest"),
        ]
        assert [r["hold"] for r in recs if r["src"] == "bridge"] == ["two-boots"]
        assert "ON HOLD" in bridge.output() and "two boots alive" in bridge.output()
        assert "on hold since entry 4: board t1 seems to have two boots alive" in bridge.output()  # said at start
    finally:
        forger.loop_stop()
        forger.disconnect()
        watcher.close()
        board.close()
        bridge.stop()
