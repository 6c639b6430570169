"""The big terminal scoreboard (host/terminal.py), drawn from real scoreboard documents made by a real bridge."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from host.bridge import Bridge, GameSetup
from host.terminal import ALERT, SIDE_COLORS, big_number, big_view

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "firmware"))
from fb import proto


def bridge(tmp_path: Path) -> Bridge:
    return Bridge(tmp_path, GameSetup("tournament-2019", ("Ana", "Ben"), "games:2"), None, lambda *_: None)


def test_block_digits_are_five_rows_and_differ() -> None:
    assert len(big_number(115)) == 5
    assert big_number(0) != big_number(8) and big_number(65)[0].count("█") > 0


def test_mid_game_view_says_what_a_room_needs(tmp_path: Path) -> None:
    b = bridge(tmp_path)
    line = proto.Encoder("t1", 1, 0)
    b.serial_line("/dev/x", line.hello(0, "1", "pico_w", [], "power"), lambda _l: None)
    b.serial_line("/dev/x", line.event("shot_start", "baseline", 1, {"q": 1, "seg": 1}), lambda _l: None)
    b.serial_line("/dev/x", line.event("pass", "hole", 2, {"dur_us": 900}), lambda _l: None)
    doc = b.scoreboard("t1")
    text = big_view(doc, width=80)
    assert "ANA" in text and "BEN" in text and "board t1" in text
    assert "Ana's free shot in play (in)" in text and "provisional twenty for Ana" in text
    assert "twenties  1" in text and "BOARD OFFLINE" not in text
    colored = big_view(doc, width=80, color=True, bridge_online=False)
    assert SIDE_COLORS[0] in colored and SIDE_COLORS[1] in colored and ALERT in colored
    assert "SCORER OFFLINE" in colored
    assert "\x1b" not in text  # no colour codes unless asked


def test_flags_review_waiting_and_offline(tmp_path: Path) -> None:
    b = bridge(tmp_path)
    b.submit("t1", "shot zone")
    line = proto.Encoder("t1", 1, 0)
    send = lambda _l: None  # noqa: E731
    b.serial_line("/dev/x", line.hello(0, "1", "pico_w", [], "power"), send)
    b.serial_line("/dev/x", line.event("shot_start", "baseline", 1, {"q": 3, "seg": 9}), send)
    b.serial_line("/dev/x", line.event("shot_start", "baseline", 2, {"q": 1, "seg": 1}), send)  # waits: contact?
    b.serial_line("/dev/x", line.gap(1, 1), send)  # nothing really lost here: a duplicate range is ignored
    doc: dict[str, Any] = json.loads(json.dumps(b.scoreboard("t1")))
    text = big_view(doc)
    assert "waiting: answer first" in text and "1 sensor event waiting" in text
    assert "? " in text  # the open question, with its answers
    doc["review"] = [{"entry": 9, "text": "the board lost events 4..5"}]
    doc["board_link"]["online"] = False
    text = big_view(doc)
    assert "NEEDS REVIEW: the board lost events 4..5" in text and "BOARD OFFLINE" in text


def test_match_over_and_shootout_views(tmp_path: Path) -> None:
    """000 rule 9: a match level on points goes to a twenties shoot-out (a forfeit at 0-0 in a games:1 match)."""
    b = Bridge(tmp_path / "a", GameSetup("beginner", ("Ana", "Ben"), "games:1"), None, lambda *_: None)
    b.submit("t1", "forfeit Ben phone")
    text = big_view(b.scoreboard("t1"))
    assert "SHOOT-OUT FOR THE MATCH" in text and "next: Ben" in text and "match points after 1 game" in text
    b = Bridge(tmp_path / "b", GameSetup("beginner", ("Ana", "Ben"), "wins:1"), None, lambda *_: None)
    b.submit("t1", "forfeit Ben phone")
    assert "MATCH OVER: Ana wins" in big_view(b.scoreboard("t1"))
