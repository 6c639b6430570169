"""Sensor evidence -> session inputs (host/evidence.py), applied to a real session fold: the lines it
produces are accepted by the rules, and what the sensors cannot tell becomes a review item, never a guess."""

from __future__ import annotations

from host.evidence import Evidence, quadrant_seats
from host.session import Fold
from rules.pichenotte import Pichenotte


class Bench:
    def __init__(self) -> None:
        self.game = Pichenotte.create("tournament-2019", ["Ana", "Ben"])
        self.fold = Fold(self.game, self.game.start())
        self.ev = Evidence(self.game)
        self.n = 0

    def submit(self, line: str) -> None:
        self.n += 1
        out = self.fold.step(self.n, line)
        assert out.accepted, f"{line!r} refused: {out.message}"

    def sensor(self, kind: str, sensor: str = "", **fields: int) -> list[str]:
        r = self.ev.react(self.fold.state, kind, fields, sensor)
        for line in r.lines:
            self.submit(line)
        return r.review

    def doc(self) -> dict:  # type: ignore[type-arg]
        return self.game.summary(self.fold.state)


def test_a_sensor_driven_shot_sequence() -> None:
    b = Bench()
    assert b.sensor("shot_start", "baseline", q=1, seg=1) == []  # Ana, quadrant 1: her shot begins
    assert b.doc()["current"]["shot_open"] and b.doc()["current"]["to_shoot"] == "Ana"
    assert b.sensor("pass", "hole", dur_us=900) == []  # a provisional twenty for the shooting puck
    assert b.doc()["current"]["provisional_twenties"][0]["side"] == "Ana"
    assert b.sensor("shot_start", "baseline", q=3, seg=9) == []  # Ben flicks: Ana's shot ends, Ben's begins
    cur = b.doc()["current"]
    assert cur["twenties"] == [1, 0] and cur["provisional_twenties"] == [] and cur["to_shoot"] == "Ben"
    # Ben's free shot slides into the ditch: the beam cannot say whose puck it was
    assert b.sensor("pass", "ditch2", dur_us=4000) == []
    review = b.sensor("shot_start", "baseline", q=1, seg=1)
    assert review and "1 puck(s) went into the ditch" in review[0] and b.doc()["current"]["shot_open"]
    b.submit("ditch")  # the scorer says: the shooting puck
    assert b.sensor("shot_start", "baseline", q=1, seg=1) == []
    assert b.doc()["current"]["in_ditch"] == [0, 1] and b.doc()["current"]["to_shoot"] == "Ana"


def test_second_twenty_in_one_shot_goes_to_a_side_with_a_puck_on_the_board() -> None:
    b = Bench()
    b.sensor("shot_start", "baseline", q=1)
    b.sensor("pass", "hole")
    assert "no other puck is on the board" in b.sensor("pass", "hole")[0]  # Ana's first shot: nothing else there
    b.sensor("shot_start", "baseline", q=3)  # Ben: free shot (Ana has no puck on the board)
    b.submit("zone")
    b.sensor("shot_start", "baseline", q=1)  # Ana, contact shot: Ben's puck is on the board
    b.sensor("pass", "hole")  # her shooting puck...
    b.sensor("pass", "hole")  # ...and, as she has no other on the board, one of Ben's (provisional, correctable)
    assert [p["side"] for p in b.doc()["current"]["provisional_twenties"]] == ["Ana", "Ben"]


def test_what_the_sensors_cannot_tell_is_a_review_not_a_guess() -> None:
    b = Bench()
    assert "no shot in progress" in b.sensor("pass", "hole")[0]
    assert "Ben's quadrant, but it is Ana's turn" in b.sensor("shot_start", "baseline", q=3)[0].replace(
        "started from Ben's quadrant", "Ben's quadrant"
    )
    assert "nobody is seated" in b.sensor("shot_start", "baseline", q=2)[0]
    b.sensor("shot_start", "baseline", q=1)
    assert "(A-4)" in b.sensor("stuck", "hole", after_ms=1500)[0]
    assert "lost events 5..9" in b.sensor("gap", "", first=5, last=9)[0]
    assert "saw 3 edges but counted 4" in b.sensor("count", "ditch1", expected=4, seen=3)[0]
    before = b.doc()
    b.sensor("baseline_rest", "baseline", q=1, seg=2)  # the shooting puck is still on the board: 'base'
    assert b.doc()["current"]["in_ditch"] == [before["current"]["in_ditch"][0] + 1, 0]


def test_seats_by_quadrant() -> None:
    assert quadrant_seats(2) == {1: 0, 3: 1}
    assert quadrant_seats(4) == {1: 0, 2: 1, 3: 2, 4: 3}
