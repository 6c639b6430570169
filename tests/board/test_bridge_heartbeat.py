"""A board's heartbeat on its scoreboard (`board_link.heartbeat`, docs/mqtt.md): the bridge in-process, fed heartbeat
lines from the firmware's own encoder (firmware/fb/proto.py, as firmware/fb/app.py builds them), with a fake clock.
The heartbeat shows the protocol's own fields and units (docs/protocol.md: `up` ms, `heap` bytes, `q`, `drop`,
`rc`, `rssi` dBm or null) and when it came; a heartbeat republishes the scoreboard only when it says something new
or HEARTBEAT_EVERY has passed, so a board beating every few seconds does not flood the displays."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.board.bridge.messages import HEARTBEAT_EVERY, HEARTBEAT_RSSI_STEP

ROOT = Path(__file__).resolve().parents[2]
from fb import proto  # noqa: E402

TOPIC = "flickboard/t1/scoreboard"


class Run:
    def __init__(self, tmp_path: Path) -> None:
        self.now = [100.0]
        self.docs: list[dict[str, Any]] = []
        self.bridge = Bridge(
            tmp_path / "j", GameSetup("tournament-2019", ("Ana", "Ben")), None, self.publish, clock=lambda: self.now[0]
        )
        self.enc = proto.Encoder("t1", 7, 0)
        self.up = 0  # the board's uptime, ms

    def publish(self, topic: str, payload: bytes, _qos: int, _retain: bool) -> None:
        if topic == TOPIC:
            self.docs.append(json.loads(payload))

    def feed(self, line: str) -> None:
        self.bridge.serial_line("/dev/ttyX", line, lambda _line: None)

    def beat(self, seconds: float = 10, *, q: int = 0, drop: int = 0, rc: int = 0, rssi: int | None = -61) -> int:
        """One heartbeat `seconds` after the last; how many scoreboards it published."""
        self.now[0] += seconds
        self.up += int(seconds * 1000)
        before = len(self.docs)
        self.feed(self.enc.heartbeat(self.up * 1000, self.up, 81234, q, drop, rc, rssi))
        return len(self.docs) - before

    def shown(self) -> Any:
        return self.docs[-1]["board_link"]["heartbeat"]


def test_the_heartbeat_is_on_the_scoreboard_with_the_protocols_fields(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.feed(run.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    assert run.docs[-1]["board_link"]["heartbeat"] is None  # none yet
    assert run.beat(rssi=-61, q=2, drop=1, rc=3) == 1
    hb = run.shown()
    assert set(hb) == {"at", "up", "heap", "q", "drop", "rc", "rssi"}
    assert (hb["up"], hb["heap"], hb["q"], hb["drop"], hb["rc"], hb["rssi"]) == (10000, 81234, 2, 1, 3, -61)
    at = datetime.datetime.strptime(hb["at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
    assert abs((datetime.datetime.now(datetime.UTC) - at).total_seconds()) < 60
    assert run.bridge.scoreboard("t1")["board_link"]["heartbeat"]["up"] == 10000
    run.beat(HEARTBEAT_EVERY, rssi=None)  # a USB board, or Wi-Fi not associated
    assert run.shown()["rssi"] is None


def test_a_quiet_boards_heartbeats_republish_at_most_every_30_s(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.feed(run.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    assert run.beat() == 1  # the first one
    published = [run.beat() for _ in range(9)]  # every 10 s for 90 s, nothing new but the uptime
    assert published == [0, 0, 1] * 3, published
    assert HEARTBEAT_EVERY == 30.0
    assert run.shown()["up"] == 100000
    # an event between heartbeats carries the latest heartbeat, and restarts the 30 s
    run.beat()
    run.feed(run.enc.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}))
    assert run.shown()["up"] == 110000
    assert [run.beat() for _ in range(3)] == [0, 0, 1]


def test_a_heartbeat_that_says_something_new_republishes_at_once(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.feed(run.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    run.beat(rssi=-60)
    assert run.beat(rssi=-60 - HEARTBEAT_RSSI_STEP + 1) == 0  # the signal wobbles: not news
    assert run.beat(rssi=-60 - HEARTBEAT_RSSI_STEP) == 1 and run.shown()["rssi"] == -65  # it moved
    assert run.beat(rssi=-65, q=4) == 1  # the outbox fills
    assert run.beat(rssi=-65, q=4) == 0
    assert run.beat(rssi=-65, q=4, drop=2) == 1  # it dropped messages
    assert run.beat(rssi=-65, q=4, drop=2, rc=1) == 1  # it reconnected
    assert run.beat(rssi=None, q=4, drop=2, rc=1) == 1  # Wi-Fi gone
    assert run.shown() == {**run.shown(), "q": 4, "drop": 2, "rc": 1, "rssi": None}
    # a heartbeat whose high-water mark shows an event the bridge has not received: the link changed
    run.enc.event("pass", "hole", 5, {"dur_us": 900})  # lost on the wire
    assert run.beat(1, rssi=None, q=5, drop=2, rc=1) == 1
    assert run.docs[-1]["board_link"]["missing"] == [[2, 2]] and not run.docs[-1]["board_link"]["in_sync"]


def test_a_new_boot_hides_the_old_boots_heartbeat(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.feed(run.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    run.beat()
    assert run.shown()["up"] == 10000
    run.enc = proto.Encoder("t1", 8, 0)  # the board restarts
    run.feed(run.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    assert run.docs[-1]["board_link"]["boot"] == 8 and run.docs[-1]["board_link"]["heartbeat"] is None
    run.up = 0
    assert run.beat() == 1 and run.shown()["up"] == 10000
