"""Sensor evidence -> session inputs (host/core/evidence.py), folded by the real session fold (host/core/session.py):
the lines it produces are accepted by the rules, the events wait behind a person's answer instead of running ahead, and
what the sensors cannot tell becomes a visible review hold, never a guess."""

from __future__ import annotations

from typing import Any

import pytest

from flickboard import i18n
from flickboard.core.evidence import quadrant_seats
from flickboard.core.session import Fold, fold_records
from flickboard.rules.pichenotte import Pichenotte


class Bench:
    def __init__(self, rules: str = "tournament-2019", players: tuple[str, ...] = ("Ana", "Ben")) -> None:
        self.game = Pichenotte.create(rules, list(players))
        self.fold = Fold(self.game, self.game.start())
        self.n = 0
        self.records: list[dict[str, Any]] = []

    def submit(self, line: str, ok: bool = True) -> str:
        self.n += 1
        self.records.append({"n": self.n, "src": "manual", "in": line})
        out = self.fold.step(self.n, line)
        assert out.accepted == ok, f"{line!r}: {out.message}"
        return out.message

    def sensor(self, kind: str, sensor: str = "", **fields: int) -> int:
        self.n += 1
        f: dict[str, Any] = {"n": sensor, **fields}
        self.records.append({"n": self.n, "src": "board", "m": kind, "f": f})
        assert self.fold.event(self.n, kind, f).accepted
        return self.n

    def doc(self) -> dict[str, Any]:
        return self.game.summary(self.fold.state)

    @property
    def cur(self) -> dict[str, Any]:
        c = self.doc()["current"]
        assert c is not None
        return c

    def review(self) -> list[str]:
        return [text for _, text in self.fold.review]

    def waiting(self) -> str:
        return self.fold.waiting[1] if self.fold.waiting else ""


def test_a_sensor_driven_shot_sequence() -> None:
    """The first shot of a game is a free shot (R-9, seed 001): begin, twenty, end, next shot by quadrant."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1, seg=1)  # Ana, quadrant 1: her shot begins
    assert b.cur["shot_open"] and b.cur["to_shoot"] == "Ana"
    n = b.sensor("pass", "hole", dur_us=900)  # a provisional twenty for the shooting puck
    assert b.cur["provisional_twenties"] == [{"entry": n, "side": "Ana"}]
    b.sensor("shot_start", "baseline", q=3, seg=9)  # Ben flicks: Ana's shot ends, Ben's begins
    assert b.cur["twenties"] == [1, 0] and b.cur["provisional_twenties"] == [] and b.cur["to_shoot"] == "Ben"
    # Ben's free shot slides into the ditch: the beam cannot say whose puck it was
    b.sensor("pass", "ditch2", dur_us=4000)
    b.sensor("shot_start", "baseline", q=1, seg=1)
    assert "1 puck(s) went into the ditch" in b.waiting() and b.cur["shot_open"] and b.cur["to_shoot"] == "Ben"
    b.sensor("pass", "hole")  # Ana's next shot is already under way: its evidence waits in the queue
    assert len(b.fold.queue) == 2 and b.cur["twenties"] == [1, 0]
    b.submit("ditch")  # the scorer says: the shooting puck. The queue runs on.
    assert b.fold.queue == [] and b.waiting() == ""
    assert b.cur["in_ditch"] == [0, 1] and b.cur["to_shoot"] == "Ana" and b.cur["shot_open"]
    assert b.cur["provisional_twenties"][0]["side"] == "Ana"


def test_a_question_holds_the_next_shot_until_it_is_answered() -> None:
    """R-8: a contact shot must touch an opponent's puck; the sensors cannot feel contact, so they ask."""
    b = Bench()
    b.submit("shot zone")  # Ana's free shot, entered by hand
    b.sensor("shot_start", "baseline", q=3)  # Ben's contact shot
    b.sensor("shot_start", "baseline", q=1)  # Ana: Ben's shot ends first, and its contact is unknown
    assert "did" in b.waiting().lower() and b.cur["to_shoot"] == "Ben"
    b.submit("hit")  # the answer closes Ben's shot; Ana's queued start goes through
    assert b.cur["to_shoot"] == "Ana" and b.cur["shot_open"] and not b.fold.queue


def test_second_twenty_in_one_shot_goes_to_a_side_with_a_puck_on_the_board() -> None:
    b = Bench()
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("pass", "hole")
    b.sensor("pass", "hole")  # Ana's first shot: no other puck is on the board
    assert "no other puck is on the board" in b.review()[0]
    b.submit("reviewed")
    b.sensor("shot_start", "baseline", q=3)  # Ben: free shot (Ana has no puck on the board)
    b.submit("zone")
    b.sensor("shot_start", "baseline", q=1)  # Ana, contact shot: Ben's puck is on the board
    b.sensor("pass", "hole")  # her shooting puck...
    b.sensor("pass", "hole")  # ...and, as she has no other on the board, one of Ben's (provisional, correctable)
    assert [p["side"] for p in b.cur["provisional_twenties"]] == ["Ana", "Ben"]


def test_a_provisional_twenty_is_corrected_by_its_entry_number() -> None:
    """docs/transcript.md: an opponent's puck knocked in is corrected with `correct N SIDE:in`."""
    b = Bench()
    b.submit("shot zone")
    b.sensor("shot_start", "baseline", q=3)
    n = b.sensor("pass", "hole")
    b.submit(f"correct {n} Ana:in")
    b.submit("hit")
    assert b.cur["provisional_twenties"] == [] and b.doc()["current"]["twenties"] == [1, 0]
    start = b.sensor("shot_start", "baseline", q=1)  # end + begin: one event, two inputs
    assert "several inputs" in b.submit(f"correct {start} -", ok=False)


def test_what_the_sensors_cannot_tell_is_a_review_not_a_guess() -> None:
    b = Bench()
    b.sensor("pass", "hole")
    assert "no shot in progress" in b.review()[-1]
    b.submit("reviewed")
    b.sensor("shot_start", "baseline", q=3)
    assert "Ben's quadrant, but it is Ana's turn" in b.review()[-1]
    b.submit("reviewed")
    b.sensor("shot_start", "baseline", q=2)
    assert "nobody is seated" in b.review()[-1]
    b.submit("reviewed")
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("gap", first=5, last=9)
    assert "lost events 5..9" in b.review()[-1]
    b.sensor("pass", "hole")  # held behind the review: nothing applied while a person checks
    assert b.cur["twenties"] == [0, 0] and b.cur["provisional_twenties"] == [] and len(b.fold.queue) == 1
    b.submit("reviewed")
    assert b.cur["provisional_twenties"] and not b.fold.queue
    b.sensor("count", "ditch1", expected=4, seen=3)
    assert "saw 3 edges but reported 4" in b.review()[-1]
    b.submit("reviewed")
    b.submit("reviewed", ok=False)  # nothing left to review


def test_a_puck_on_edge_is_the_A4_question() -> None:
    """A-4 (seed 001): a puck standing on edge in the hole is not a twenty; it scores 15. The shot cannot end
    until someone says so."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("stuck", "hole", after_ms=1500)
    b.submit("zone")
    b.sensor("shot_start", "baseline", q=3)
    assert "(A-4)" in b.waiting() and b.cur["to_shoot"] == "Ana"
    b.submit("edge")
    assert b.cur["to_shoot"] == "Ben" and b.cur["on_board"] == [1, 1]


def test_baseline_rest_is_base_for_the_shooting_puck() -> None:
    """000 rule 8 / R-5A: a puck resting on the baseline is out of bounds and goes to the ditch."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("baseline_rest", "baseline", q=1, seg=2)
    b.submit("short")
    b.sensor("shot_start", "baseline", q=3)
    assert b.cur["in_ditch"] == [1, 0] and b.cur["on_board"] == [0, 1]  # Ben's shooting puck is out


def test_declare_makes_the_next_or_the_open_shot_a_call() -> None:
    """R-8 choice B: a declared twenty is said aloud before the flick; the scorer enters `declare` (the next shot to
    start) or, when late, `declare this` (the shot in progress)."""
    b = Bench()
    b.submit("declare", ok=False)  # Ana's first shot is a free shot: nothing to declare
    b.submit("shot zone")
    b.submit("declare")
    b.submit("declare", ok=False)  # once is enough
    b.sensor("shot_start", "baseline", q=3)
    assert b.cur["shot_kind"] == "call"
    b.sensor("pass", "hole")
    b.submit("declare")  # Ana declares before her flick, while Ben's shot is still the open one
    b.sensor("shot_start", "baseline", q=1)  # a made call: no question, the next shot starts
    assert b.cur["twenties"] == [0, 1] and b.cur["to_shoot"] == "Ana" and b.cur["shot_kind"] == "free"
    assert any("does not apply" in t for _, t in b.fold.notes) and not b.fold.declared  # Ben has no puck left
    b.submit("zone")
    b.sensor("shot_start", "baseline", q=3)
    b.sensor("pass", "hole")  # Ben's shot is already under way when the scorer hears his call
    assert b.cur["shot_kind"] == "contact"
    b.submit("declare this")
    assert b.cur["shot_kind"] == "call" and b.cur["provisional_twenties"][0]["side"] == "Ben"
    b.submit("declare this", ok=False)
    b.submit("declare that", ok=False)


def test_dismiss_drops_a_waiting_event() -> None:
    b = Bench()
    b.submit("shot zone")
    b.sensor("shot_start", "baseline", q=3)
    b.sensor("shot_start", "baseline", q=1)  # waits for Ben's contact answer...
    assert b.fold.queue and b.waiting()
    b.submit("dismiss")  # ...but it was somebody leaning on the baseline
    assert not b.fold.queue and b.cur["to_shoot"] == "Ben" and b.cur["shot_open"]
    b.submit("dismiss", ok=False)
    b.submit("dismiss now", ok=False)


def test_refold_of_the_same_records_is_identical() -> None:
    b = Bench()
    b.submit("shot zone")
    b.sensor("shot_start", "baseline", q=3)
    b.sensor("pass", "ditch1")
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("pass", "hole")
    b.submit("hit ditch")
    again = fold_records(b.game, b.records)
    assert again.state == b.fold.state and again.queue == b.fold.queue and again.review == b.fold.review
    assert again.evidence == b.fold.evidence and again.waiting == b.fold.waiting


@pytest.mark.parametrize(("players", "seats"), [(2, {1: 0, 3: 1}), (4, {1: 0, 2: 1, 3: 2, 4: 3})])
def test_seats_by_quadrant(players: int, seats: dict[int, int]) -> None:
    assert quadrant_seats(players) == seats


def test_lifting_an_out_of_bounds_puck_off_the_baseline_is_not_a_shot() -> None:
    """000 rule 8 / R-5A: the puck at rest on the baseline goes to the ditch as soon as the shot is over; the strip
    sees it leave its segment, which the firmware reports like any puck leaving (a shot_start)."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1, seg=1)
    b.sensor("baseline_rest", "baseline", q=1, seg=2)
    b.submit("short")
    b.sensor("shot_start", "baseline", q=1, seg=2)  # lifted off: Ana's shot stays open, nobody is flagged
    assert b.cur["shot_open"] and b.cur["to_shoot"] == "Ana" and not b.fold.review
    assert "lifted off" in b.fold.notes[-1][1]
    b.sensor("shot_start", "baseline", q=3, seg=9)
    assert b.cur["to_shoot"] == "Ben" and b.cur["in_ditch"] == [1, 0]
    b.sensor("shot_start", "baseline", q=3, seg=9)  # a second start from there is a shot again: Ben's is open
    assert "answer first" in b.waiting()
    # What the sensor side waits for is a sentence the catalogue says (a French session: no English)
    said = i18n.say(b.waiting(), "fr")
    assert said.startswith("répondez d'abord : ") and "answer first" not in said, said


def test_chatter_is_a_note_and_changes_nothing() -> None:
    """A flickering beam counts no puck (the firmware never makes a pass of it); the scorer is told, nothing waits."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1)
    before = b.doc()["current"]
    b.sensor("chatter", "hole", bursts=2, edges=18)
    assert b.doc()["current"] == before and not b.review()
    assert any("hole flickered (2 burst(s), 18 edges)" in text for _, text in b.fold.notes), b.fold.notes


def test_a_puck_resting_across_a_ditch_beam_is_a_ditch_pass_not_a_review() -> None:
    """Pucks stay in the ditch all game (A-3): one that comes to rest across a ditch beam keeps it broken. It went
    into the ditch (the scorer says whose), and the beam is blind until cleared: a note, never a review hold."""
    b = Bench()
    b.sensor("shot_start", "baseline", q=1, seg=1)  # Ana's free shot slides into the ditch and rests on the beam
    b.sensor("stuck", "ditch2", after_ms=3000)
    assert not b.review(), b.review()
    assert any("ditch2 is blocked by a puck resting across it" in text for _, text in b.fold.notes)
    b.sensor("shot_start", "baseline", q=3, seg=9)
    assert "1 puck(s) went into the ditch" in b.waiting() and b.cur["to_shoot"] == "Ana"
    b.submit("ditch")
    assert b.cur["in_ditch"] == [1, 0] and b.cur["to_shoot"] == "Ben" and not b.review()
    b.sensor("clear", "ditch2", dur_us=90_000_000)
    assert not b.review() and any("ditch2 is clear again" in text for _, text in b.fold.notes)
