"""The big terminal scoreboard (host/displays/terminal.py), drawn from real scoreboard documents made by a real
bridge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fb import proto

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.displays.terminal import ALERT, SIDE_COLORS, big_number, big_view


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
    """R-1-B: a match of only the twenties shoot-out shows it and whose shot is next; a forfeited game is lost, so a
    games:1 or wins:1 match forfeited at 0-0 is over (rules-coverage.md, decision 8)."""
    b = Bridge(tmp_path / "a", GameSetup("tournament-2019", ("Ana", "Ben"), "shootout"), None, lambda *_: None)
    b.submit("t1", "shot in")
    text = big_view(b.scoreboard("t1"))
    assert "SHOOT-OUT FOR THE MATCH" in text and "next: Ben" in text
    for n, match in enumerate(("games:1", "wins:1")):
        b = Bridge(tmp_path / f"b{n}", GameSetup("beginner", ("Ana", "Ben"), match), None, lambda *_: None)
        b.submit("t1", "forfeit Ben phone")
        assert "MATCH OVER: Ana wins" in big_view(b.scoreboard("t1"))


def test_quebec_view_shows_manche_colours_dames_and_compteuses(tmp_path: Path) -> None:
    """Seed 003: a partie to 31 in manches, a colour per side (règle 10), dames and compteuses (règles 11-13)."""
    b = Bridge(tmp_path, GameSetup("officiel", ("Ana", "Ben"), target="31"), None, lambda *_: None)
    for line in ["shot", "color red", "shot red red", "shot none"]:
        assert b.submit("t1", line).accepted, line
    doc = b.scoreboard("t1")
    doc["score"]["current"]["compteuses"] = [  # as a manche further on has them
        {"value": 5, "where": "won", "side": "Ben"},
        {"value": 10, "where": "pending", "side": "Ana"},
    ]
    text = big_view(doc, width=80)
    assert "Québec Pichenottes · officiel · partie to 31 · Ana vs Ben" in text and "match" not in text
    assert "first to 31" in text and "Manche 1 (break: Ana)" in text and "next: Ana to shoot" in text
    rows = {ln.split()[0]: ln for ln in text.splitlines() if ln.startswith("  ")}
    assert "green" in rows["Ana"] and "dames left 12" in rows["Ana"] and "to bury c10" in rows["Ana"]
    assert "red" in rows["Ben"] and "dames left 10" in rows["Ben"] and "compteuses c5" in rows["Ben"]
    assert "twenties" not in text and "\x1b" not in text
    colored = big_view(doc, color=True, bridge_online=False)
    assert SIDE_COLORS[0] + rows["Ana"] in colored and "SCORER OFFLINE" in colored


def test_flicochet_view_shows_discs_jacks_penalties_and_rounds(tmp_path: Path) -> None:
    """Seed 004: red against white, rounds scored by distance to the jack(s), a jack off the table a penalty."""
    b = Bridge(tmp_path, GameSetup("flicochet+double-jack", ("Cy", "Di")), None, lambda *_: None)
    for line in ["flick"] * 12 + ["order 1 R W R", "order 2 W R", "flick", "off W", "jack off 1", "flick"]:
        assert b.submit("t1", line).accepted, line
    doc = b.scoreboard("t1")
    text = big_view(doc, width=80)
    assert "Flicochet · double-jack · to 12 · red (Cy) vs white (Di)" in text
    assert "points after 1 round · first to 12" in text and "rounds (red-white): 1: 1-1" in text
    assert "Round 2 (white starts, Di), 2 flick(s)" in text and "next: Di (white) to flick" in text
    assert "red    in hand  5  on the table  1  off  0  penalty +2" in text
    assert "white  in hand  5  on the table  0  off  1" in text and "jacks: 1 off, 2 table" in text
    b.submit("t1", "flick")
    b.submit("t1", "flick")
    doc = b.scoreboard("t1")
    doc["review"] = [{"entry": 3, "text": "check the table"}]
    text = big_view(doc)
    assert "NEEDS REVIEW: check the table" in text


def test_a_finished_flicochet_game_says_who_won(tmp_path: Path) -> None:
    b = Bridge(tmp_path, GameSetup("flicochet", ("Cy", "Di"), target="2"), None, lambda *_: None)
    for line in ["flick"] * 12 + ["order R R W"]:
        assert b.submit("t1", line).accepted, line
    text = big_view(b.scoreboard("t1"))
    assert "GAME OVER: red wins 2-0" in text and "rounds (red-white): 1: 2-0" in text


def test_a_game_kept_by_hand_says_so_instead_of_a_missing_board(tmp_path: Path) -> None:
    """A club that scores by phone has no board: the scoreboard says the game is scored by hand, not that a board
    was "not seen yet" above a live score (issue 20, 5). A board that spoke says how it is linked."""
    from flickboard.core.scoreboard import text_view
    from flickboard.displays.terminal import big_view

    b = bridge(tmp_path)
    assert b.submit("t1", "shot zone").accepted  # a scorer's phone: no board has spoken
    doc: dict[str, Any] = json.loads(json.dumps(b.scoreboard("t1")))
    assert doc["board_link"]["online"] is None
    assert text_view(doc).splitlines()[0] == "board t1 · scored by hand (no board connected)"
    assert "not seen" not in big_view(doc, width=100) and "BOARD" not in big_view(doc, width=100)
    doc["board_link"] = {"online": True, "via": "mqtt"}
    assert text_view(doc).splitlines()[0] == "board t1 · online via mqtt"
    doc["board_link"] = {"online": False, "via": "serial /dev/ttyACM0"}
    assert "BOARD OFFLINE" in big_view(doc, width=100)
