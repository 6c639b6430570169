"""One-tap questions (host/core/asks.py): every choice the phone offers is a line the rules accept and that settles its
question; each question is asked once; the spectators' sentence has no notation in it.

Rules cited: R-8 (contact shot, declared twenty and the opponent's choice B), R-9 (free shot zone), A-4 (a puck on
edge in the hole) of the 2019 tournament sheet; the end-of-game zones of the beginner sheet (rule 9)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from flickboard.core.scoreboard import scoreboard_doc
from flickboard.core.session import Session
from flickboard.rules.pichenotte import Pichenotte

BOOT = 7


class Table:
    """A session on a real journal, fed board events and taps like the bridge does."""

    def __init__(
        self, tmp_path: Path, rules: str = "tournament-2019", name: str = "j", players: tuple[str, str] = ("Ana", "Ben")
    ) -> None:
        self.s = Session.create(str(tmp_path / f"{name}.jsonl"), Pichenotte.create(rules, list(players)))
        self.seq = 0

    def line(self, text: str) -> None:
        out = self.s.submit(text)
        assert out.accepted, f"{text!r}: {out.message}"

    def sensor(self, kind: str, sensor: str = "", **fields: int) -> None:
        self.seq += 1
        self.s.record("t1", BOOT, self.seq, kind, {"n": sensor, **fields})

    def doc(self) -> dict[str, Any]:
        return scoreboard_doc("t1", self.s, {"online": True, "in_sync": True}, "now")

    def asks(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.doc()["asks"] if kind is None or a["kind"] == kind]


def lines(ask: dict[str, Any]) -> list[str]:
    return [c["line"] for c in ask["choices"]]


def labels(ask: dict[str, Any]) -> list[str]:
    return [c["label"] for c in ask["choices"]]


NOTATION = re.compile(r"'[\w ]+'|\b\w+:\w+|@sensor|\breviewed\b|\bdismiss\b|\(\d+ board events")


def each_choice_settles(tmp_path: Path, build: Any, kind: str) -> list[str]:
    """Build the situation afresh per choice, tap the choice, and see the question gone; returns the lines."""
    first = build(Table(tmp_path, name="probe"))
    (ask,) = first.asks(kind)
    for i, line in enumerate(lines(ask)):
        t = build(Table(tmp_path, name=f"c{i}"))
        t.line(line)
        assert not t.asks(kind), f"{line!r} left the {kind} question open: {t.asks(kind)}"
    return lines(ask)


def ana_shoots_ditch_pass(t: Table) -> Table:
    t.sensor("shot_start", "baseline", q=1, seg=1)  # Ana's free first shot begins
    t.sensor("pass", "ditch1")
    return t


def test_a_ditch_pass_asks_whose_with_a_button_per_puck_that_could_be(tmp_path: Path) -> None:
    t = ana_shoots_ditch_pass(Table(tmp_path))
    (ask,) = t.asks("ditch")
    # Only Ana's shooting puck is on the board: no "Ben puck" button, and the sensor may have been wrong.
    assert labels(ask) == ["Ana's shooting puck", "No puck went in (the sensor was wrong)"]
    assert each_choice_settles(tmp_path, ana_shoots_ditch_pass, "ditch") == ["ditch", "reviewed"]
    assert t.doc()["now"] == "Waiting for the scorer: whose puck went into the ditch?"


def ben_knocks_one_in(t: Table) -> Table:
    t.sensor("shot_start", "baseline", q=1, seg=1)  # Ana's free shot stays on the board
    t.line("zone")
    t.sensor("shot_start", "baseline", q=3, seg=9)  # Ana's shot ends; Ben's contact shot begins
    t.sensor("pass", "ditch2")
    return t


def test_a_ditch_pass_in_a_contact_shot_offers_either_sides_puck(tmp_path: Path) -> None:
    t = ben_knocks_one_in(Table(tmp_path))
    (ask,) = t.asks("ditch")
    assert labels(ask) == ["Ben's shooting puck", "A Ana puck", "No puck went in (the sensor was wrong)"]
    assert each_choice_settles(tmp_path, ben_knocks_one_in, "ditch") == ["ditch", "Ana:ditch", "reviewed"]


def twenty_from_the_hole(t: Table) -> Table:
    t.sensor("shot_start", "baseline", q=1, seg=1)
    t.sensor("pass", "hole")
    return t


def test_a_provisional_twenty_is_confirmed_given_away_or_struck_in_one_tap(tmp_path: Path) -> None:
    t = twenty_from_the_hole(Table(tmp_path))
    (ask,) = t.asks("twenty")
    # No Ben puck is on the board yet: it cannot have been Ben's.
    assert labels(ask) == ["Yes, a twenty", "No twenty"]
    assert ask["side"] == "Ana"
    each_choice_settles(tmp_path, twenty_from_the_hole, "twenty")


def ben_sinks_one(t: Table) -> Table:
    t.line("zone")  # Ana's free shot rests in the zone
    t.line("hit")  # Ben touches it: both have a puck on the board
    t.sensor("shot_start", "baseline", q=1, seg=1)
    t.sensor("pass", "hole")  # Ana's contact shot: a puck drops
    return t


def test_a_twenty_may_be_given_to_the_other_side_when_it_has_a_puck_on_the_board(tmp_path: Path) -> None:
    t = ben_sinks_one(Table(tmp_path))
    (ask,) = t.asks("twenty")
    assert labels(ask) == ["Yes, a twenty", "It was Ben's puck", "No twenty"]
    each_choice_settles(tmp_path, ben_sinks_one, "twenty")


def on_edge(t: Table) -> Table:
    t.sensor("shot_start", "baseline", q=1, seg=1)
    t.sensor("stuck", "hole", after_ms=3000)  # a puck stands on edge in the hole
    return t


def test_a_puck_on_edge_asks_whose_or_no_puck(tmp_path: Path) -> None:
    t = on_edge(Table(tmp_path))
    (ask,) = t.asks("edge")
    assert lines(ask) == ["edge", "reviewed"]
    each_choice_settles(tmp_path, on_edge, "edge")
    assert t.doc()["now"] == "Waiting for the scorer: a puck stands on edge in the hole"


def free_shot_ended(t: Table) -> Table:
    t.line("begin Ana")
    t.line("end")  # did the free shot rest in the zone?
    return t


def test_the_engines_questions_in_plain_words(tmp_path: Path) -> None:
    t = free_shot_ended(Table(tmp_path))
    (ask,) = t.asks("zone")
    assert labels(ask) == ["Yes, in the zone", "No, short of it"]
    assert ask["text"].startswith("Did Ana's free shot rest in the 10 zone")
    each_choice_settles(tmp_path, free_shot_ended, "zone")


def failed_call(t: Table) -> Table:
    t.line("zone")  # Ana's free shot rests in the zone: Ben must contact or call
    t.line("begin Ben call")
    t.line("end")  # the declared twenty failed: Ana chooses (R-8 choice B)
    return t


def test_the_opponents_choice_after_a_failed_declared_twenty(tmp_path: Path) -> None:
    t = failed_call(Table(tmp_path, rules="santa-fe-2018"))
    (ask,) = t.asks("choice")
    assert ask["side"] == "Ana"
    assert labels(ask) == ["Leave it on the board", "Remove it to the ditch"]
    for i, line in enumerate(lines(ask)):
        u = failed_call(Table(tmp_path, rules="santa-fe-2018", name=f"r{i}"))
        u.line(line)
        assert not u.asks("choice")


def test_zones_are_a_keypad_per_side_once_every_puck_is_shot(tmp_path: Path) -> None:
    t = Table(tmp_path)
    while (cur := t.doc()["score"]["current"]) and cur["to_shoot"]:
        t.line("zone" if cur["shot_kind"] == "free" else "hit")
    zones = t.asks("zones")
    on_board = t.doc()["score"]["current"]["on_board"]
    assert [(a["side"], a["pucks"], a["prefix"]) for a in zones] == [
        (side, n, f"zones {side}") for side, n in zip(("Ana", "Ben"), on_board, strict=True) if n
    ]
    assert not t.asks("contact") and not t.asks("zone")  # nothing else is asked once every puck is shot
    assert t.doc()["now"] == "Waiting for the scorer: counting the pucks left on the board"
    for a in zones:
        t.line(f"{a['prefix']} " + " ".join(["5"] * a["pucks"]))
    assert not t.asks("zones")


def stuck_beam(t: Table) -> Table:
    t.sensor("stuck", "ditch3")  # no shot in progress: a note, not a question
    t.sensor("count", "hole", seen=3, expected=2)  # a review hold
    return t


def test_a_review_hold_is_one_question_and_says_checking_to_the_room(tmp_path: Path) -> None:
    t = stuck_beam(Table(tmp_path))
    (ask,) = t.asks("review")
    assert lines(ask) == ["reviewed"]
    assert t.doc()["now"] == "Waiting for the scorer to check the board"
    each_choice_settles(tmp_path, stuck_beam, "review")


@pytest.mark.parametrize("build", [ana_shoots_ditch_pass, ben_knocks_one_in, twenty_from_the_hole, on_edge, stuck_beam])
def test_each_question_once_and_the_room_never_sees_notation(tmp_path: Path, build: Any) -> None:
    t = build(Table(tmp_path))
    asked = t.asks()
    keys = [(a["kind"], a["side"]) for a in asked]
    assert len(keys) == len(set(keys)), keys
    for a in asked:
        assert not NOTATION.search(a["spectator"]), a["spectator"]
        for c in a["choices"]:
            assert not NOTATION.search(c["label"]), c["label"]
    assert not NOTATION.search(t.doc()["now"])


def test_a_ditch_pass_and_its_queued_shot_are_one_question(tmp_path: Path) -> None:
    """The next shot's start waits behind the unanswered ditch pass: the wait is that same question, not a second."""
    t = ana_shoots_ditch_pass(Table(tmp_path))
    t.sensor("shot_start", "baseline", q=3, seg=9)
    doc = t.doc()
    assert doc["waiting"] is not None  # the scorer's console still has the full text
    assert [a["kind"] for a in doc["asks"]] == ["ditch"]


PEOPLE = [
    ("Ana Costa", "Ana Silva"),  # the same first name: each goes by her whole name in a line
    ("Marie-Claire O'Neil", "Zoé Lévesque"),
    ("Miss Piggy", "Ben"),  # a first word that is a word of the notation
]


@pytest.mark.parametrize("players", PEOPLE, ids=["same-first-name", "hyphen-apostrophe-accents", "keyword-first"])
def test_peoples_names_are_kept_whole_and_every_tap_is_a_line_the_rules_take(
    tmp_path: Path, players: tuple[str, str]
) -> None:
    """Names as people have them (rules/names.py): shown whole on the scoreboard, and every one-tap answer built from
    them is a line the rules accept and that settles its question; the journal resumed gives the same game."""
    a, b = players
    builds = {
        "ditch": lambda t: ana_shoots_ditch_pass(t),
        "twenty": lambda t: ben_sinks_one(t),
        "edge": lambda t: on_edge(t),
    }
    for kind, build in builds.items():
        probe = build(Table(tmp_path, name=f"{kind}-probe", players=players))
        (ask,) = probe.asks(kind)
        for i, line in enumerate(lines(ask)):
            t = build(Table(tmp_path, name=f"{kind}-{i}", players=players))
            t.line(line)
            assert not t.asks(kind), f"{line!r} left the {kind} question open"
    t = Table(tmp_path, name="whole", players=players)
    t.line(f"begin {a}")  # the whole name, as a person types it
    t.line("end")
    t.line("zone")
    t.line(f"shot {b.lower()} hit")  # in any case
    doc = t.doc()
    assert [s["name"] for s in doc["score"]["sides"]] == [a, b]
    while (cur := t.doc()["score"]["current"]) and cur["to_shoot"]:
        t.line("zone" if cur["shot_kind"] == "free" else "hit")
    for z in t.asks("zones"):
        assert z["side"] in players  # the keypad shows the side's whole name; its line reads back
        t.line(f"{z['prefix']} " + " ".join(["5"] * z["pucks"]))
    state = t.doc()["score"]
    t.s.close()
    again = Session.resume(t.s.journal.path)
    assert scoreboard_doc("t1", again, {"online": True}, "now")["score"] == state
