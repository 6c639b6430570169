"""Issue 19, bounds: a bridge without a list of boards used to open a journal (two files) for every board id it was
sent, so 1,200 forged ids opened 2,400 files and hit the 1,024-file limit. The real bridge, real journal files, and
board lines from the firmware's own encoder: new boards are taken up to a ceiling, the rest are refused, counted and
said, and idle journals are closed and resumed without counting anything twice."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fb import proto  # the firmware's encoder

from flickboard.board.bridge import Bridge, GameSetup, journals
from flickboard.board.bridge.admission import MAX_NEW_BOARDS
from flickboard.board.bridge.journals import IDLE_CLOSE

SENSORS = [{"name": "hole", "kind": "beam"}]


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


class Bus:
    def __init__(self) -> None:
        self.health: dict[str, Any] = {}

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        if topic == "flickboard/bridge/health":
            self.health = json.loads(payload)


def make(tmp: Path, now: list[float]) -> tuple[Bridge, Bus]:
    bus = Bus()
    setup = GameSetup("tournament-2019", ("Ana", "Ben"))
    return Bridge(tmp / "journals", setup, None, bus, clock=lambda: now[0]), bus


def test_1200_forged_board_ids_open_a_bounded_number_of_files(tmp_path: Path) -> None:
    now = [0.0]
    bridge, bus = make(tmp_path, now)
    before = open_files()
    acks: list[str] = []
    for i in range(1200):  # every id a valid hello from the firmware's encoder, as an attacker can make them
        line = proto.Encoder(f"forged-{i}", 1, 0).hello(0, "1.0", "pico_w", SENSORS, "power")
        bridge.serial_line("/dev/ttyUSB0", line, acks.append)
    assert open_files() - before <= 2 * MAX_NEW_BOARDS + 8  # was 2,400 files (EMFILE at 1,024)
    assert len(list((tmp_path / "journals").iterdir())) == MAX_NEW_BOARDS == len(bridge.games)
    assert len(acks) == MAX_NEW_BOARDS  # the refused ones are not acked: a real board would send again
    bridge.tick()
    assert bus.health["admission"]["new_boards"] == MAX_NEW_BOARDS
    assert bus.health["admission"]["refused"] == 1200 - MAX_NEW_BOARDS  # every one counted
    said = [e for e in bus.health["recent_errors"] if e["code"] == "board"]
    assert said and "already taken 64 new boards" in said[-1]["reason"]
    # a board that has a journal here is never refused by the ceiling
    assert bridge.scoreboard("forged-0")["board"] == "forged-0"
    bridge.close()


def test_an_idle_journal_is_closed_and_resumed_without_counting_twice(tmp_path: Path) -> None:
    now = [0.0]
    bridge, bus = make(tmp_path, now)
    sent: list[str] = []
    enc = proto.Encoder("t1", 7, 0)
    lines = [enc.hello(0, "1.0", "pico_w", SENSORS, "power"), enc.event("pass", "hole", 1000, {"dur_us": 900})]
    for line in lines:
        bridge.serial_line("/dev/ttyACM0", line, sent.append)
    with_it = open_files()
    now[0] += IDLE_CLOSE + 1
    bridge.tick()
    assert "t1" not in bridge.games and open_files() == with_it - 2  # the journal and its lock
    assert bus.health["admission"]["closed_idle"] == 1
    bridge.serial_line("/dev/ttyACM0", lines[1], sent.append)  # a resend: resumed, a duplicate
    bridge.serial_line("/dev/ttyACM0", enc.event("pass", "hole", 2000, {"dur_us": 950}), sent.append)
    assert [json.loads(x.split("|")[1])["s"] for x in sent] == [1, 2, 2, 3]
    assert bridge.games["t1"].session.journal.count == 3 and bridge.tracker.counters.duplicates == 1
    bridge.close()


def test_at_most_max_open_journals_the_least_recently_used_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journals, "MAX_OPEN", 3)
    now = [0.0]
    bridge, _ = make(tmp_path, now)
    for i in range(5):
        now[0] += 1
        line = proto.Encoder(f"b{i}", 1, 0).hello(0, "1.0", "pico_w", SENSORS, "power")
        bridge.serial_line(f"/dev/tty{i}", line, lambda _: None)
    assert sorted(bridge.games) == ["b2", "b3", "b4"]
    assert bridge.scoreboard("b0")["entries"] == 1  # resumed from its journal, b2 closed in its place
    assert sorted(bridge.games) == ["b0", "b3", "b4"]
    bridge.close()
