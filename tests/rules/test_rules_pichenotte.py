"""Pichenotte rules, tested through the notation a scorer types (like python-chess's SAN).

Every test names the rule it checks: seed 000 = beginner sheet (rules 1-9), 002 = 2018 sheet (beginner
rules 1-9 + Santa Fe tournament part), 001 = tournament rules v9, May 2019 (R-x, A-x, S-x), and
/work/shared/RULES-NOTES.md section 1 (1.1, 1.2 and the numbered decisions).
docs/rules-coverage.md maps every rule to these tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.rules.base import Correct, Illegal, NotationError, Undo
from flickboard.rules.pichenotte import Pichenotte, State
from flickboard.rules.pichenotte.engine import FORFEIT_REASONS, Game, check_accounting
from flickboard.rules.transcript import parse_transcript

ALL = ("beginner", "beginner-advanced", "santa-fe-2018", "tournament-2019")
BEGINNER = ("beginner", "beginner-advanced")
TOURNAMENT = ("santa-fe-2018", "tournament-2019")
SINGLES = ("North", "South")  # seat 0 = side 0 = North breaks unless told otherwise
DOUBLES = ("Ann", "Bob", "Cat", "Dan")  # clockwise; Ann+Cat = Red, Bob+Dan = Blue
DOUBLES_SIDES = ("Red", "Blue")

# ---------------------------------------------------------------- helpers


@dataclass(frozen=True)
class Pucks:
    """Where one side's pucks are: the accounting invariant is hand + board + ditch + rail = dealt."""

    hand: int
    board: int
    ditch: int
    rail: int


class Table:
    """One match, driven by notation lines. `state` is the engine state after the accepted lines."""

    def __init__(
        self,
        rules: str,
        players: Sequence[str] = SINGLES,
        sides: Sequence[str] | None = None,
        match: str | None = None,
        breaker: str | None = None,
    ) -> None:
        self.game = Pichenotte.create(rules, list(players), list(sides) if sides else None, match, breaker)
        self.state: State = self.game.start()

    # -- input

    def apply(self, line: str) -> Table:
        parsed = self.game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct), line
        self.state = self.game.apply(self.state, parsed).state
        return self

    def play(self, *lines: str) -> Table:
        for line in lines:
            self.apply(line)
        return self

    def refused(self, line: str, *expect: str) -> str:
        """The line is refused (Illegal or NotationError), the message says each of `expect`, the state
        is unchanged, and the same state still accepts input afterwards."""
        before = self.state
        snapshot = self.game.summary(before)
        with pytest.raises((Illegal, NotationError)) as exc:
            self.apply(line)
        assert self.state is before
        assert self.game.summary(self.state) == snapshot
        msg = str(exc.value)
        for word in expect:
            assert word.lower() in msg.lower(), f"{word!r} not in {msg!r}"
        return msg

    # -- views

    @property
    def g(self) -> Game:
        """The game in progress (or, once the match is over, the last game)."""
        g = self.state.game
        if g is None:
            return self.state.games[-1]
        return g

    def side(self, name: str) -> int:
        return [s.lower() for s in self.state.setup.sides].index(name.lower())

    def pucks(self, name: str) -> Pucks:
        s, g = self.side(name), self.g
        return Pucks(self.state.hand(s), g.board[s], g.ditch[s], g.rail[s])

    def to_shoot(self) -> str | None:
        seat = self.state.to_shoot()
        return None if seat is None else self.state.setup.players[seat]

    def question_kinds(self) -> list[str]:
        return [q.kind for q in self.state.questions()]

    def last_result(self) -> str:
        return self.state.log[-1].result

    # -- shortcuts

    def plain_shot(self) -> str:
        """The line of a shot that changes nothing but adds the shooting puck to the board."""
        kind = self.state.next_kind()
        if kind == "contact":
            return "shot hit"
        if kind == "free":
            return "shot zone" if self.game.options.free_shot_zone is not None else "shot"
        raise AssertionError(f"no plain shot for a {kind} shot")

    def fill(self, n: int) -> Table:
        """n plain shots: `shot hit` when contact is required, `shot zone` on a required-zone free shot, else `shot`."""
        for _ in range(n):
            self.apply(self.plain_shot())
        return self

    def play_out(self) -> Table:
        """Plain shots until every puck of the game in progress has been shot."""
        number = self.g.number
        while self.state.to_shoot() is not None and self.state.shootout is None and self.g.number == number:
            self.fill(1)
        return self

    def zones(self, **values: int | Sequence[int]) -> Table:
        """Enter end-of-game zones: Side=10 (every puck on the board is a 10) or Side=[15, 10, ...]."""
        for name, v in values.items():
            n = self.g.board[self.side(name)]
            vals = [v] * n if isinstance(v, int) else list(v)
            if n:
                self.apply(f"zones {name} " + " ".join(map(str, vals)))
        return self

    def finish(self, **values: int | Sequence[int]) -> Game:
        """Play the game out with plain shots, enter zones, return the finished game."""
        number = self.g.number
        self.play_out()
        self.zones(**values)
        done = [*self.state.games, *([self.state.game] if self.state.game else [])]
        game = next(x for x in done if x.number == number)  # still current while a game shoot-out runs
        assert game.points is not None
        return game

    def shootout(self, made: dict[str, Sequence[bool]]) -> Table:
        """Shoot-out shots in turn order; `made[side]` lists that side's shots (True = in the hole)."""
        queues = {self.side(k): list(v) for k, v in made.items()}
        while any(queues.values()):
            assert self.state.shootout is not None, "no shoot-out is running"
            seat = self.state.to_shoot()
            assert seat is not None
            side = self.state.setup.side_of(seat)
            self.apply("shot in" if queues[side].pop(0) else "shot miss")
        return self


def play(rules: str, players: Sequence[str], lines: Iterable[str], **kw: str) -> State:
    """The state after `lines` (all must be accepted)."""
    return Table(rules, players, **kw).play(*lines).state


def contact_position(rules: str, **kw: str) -> Table:
    """North's free shot stays, South's contact shot stays: North to shoot, a contact shot, 1 puck each."""
    t = Table(rules, **kw)
    t.fill(2)
    assert t.to_shoot() == "North" and t.state.next_kind() == "contact"
    assert t.pucks("North") == Pucks(11, 1, 0, 0) and t.pucks("South") == Pucks(11, 1, 0, 0)
    return t


# ---------------------------------------------------------------- set-up, rotation, breaker and hammer


@pytest.mark.parametrize("rules", ALL)
def test_singles_twelve_pucks_each_000_rule_1_R_1_B(rules: str) -> None:
    """000 rule 1 / 002 rule 1 / 001 R-1-B: singles, 12 pucks in hand each, board and ditch clear."""
    t = Table(rules)
    assert t.pucks("North") == Pucks(12, 0, 0, 0)
    assert t.pucks("South") == Pucks(12, 0, 0, 0)
    assert t.state.game_shots == 24
    t.fill(23)
    assert t.to_shoot() == "South"  # the 24th shot, the Hammer, is the non-breaker's
    t.fill(1)
    assert t.to_shoot() is None
    assert t.pucks("North").hand == 0 and t.pucks("South").hand == 0
    t.refused("shot hit", "first answer", "enter the zones of North")


@pytest.mark.parametrize("rules", ALL)
def test_doubles_six_each_partners_share_a_colour_000_rule_1_R_1_B(rules: str) -> None:
    """000 rule 1 / 001 R-1-B: doubles, 6 pucks each, teammates have the same colour (one side each)."""
    t = Table(rules, DOUBLES, DOUBLES_SIDES)
    assert t.state.per_player == 6
    assert t.pucks("Red") == Pucks(12, 0, 0, 0) and t.pucks("Blue") == Pucks(12, 0, 0, 0)
    summary = t.game.summary(t.state)
    assert summary["sides"] == [{"name": "Red", "players": ["Ann", "Cat"]}, {"name": "Blue", "players": ["Bob", "Dan"]}]
    # A fact may name a side by one of its players: Cat's puck is a Red puck.
    t.play(t.plain_shot(), "shot Bob hit Cat:in")
    assert t.pucks("Red") == Pucks(11, 0, 0, 1)
    t.play_out()
    assert t.pucks("Red").hand == 0 and t.pucks("Blue").hand == 0
    assert len(t.state.log) == 24


def test_doubles_default_side_names_pair_opposite_seats_R_2() -> None:
    """R-2 / 000 rule 1: with four players in clockwise order A B C D, A&C play B&D."""
    t = Table("tournament-2019", ("A1", "B1", "A2", "B2"))
    assert t.state.setup.sides == ("A1+A2", "B1+B2")


@pytest.mark.parametrize("rules", ALL)
def test_singles_rotation_alternates_R_2_000_rule_3(rules: str) -> None:
    """000 rule 3 / 002 rule 2 / R-2 singles: players alternate, one puck at a time."""
    t = Table(rules)
    order = []
    for _ in range(6):
        order.append(t.to_shoot())
        t.fill(1)
    assert order == ["North", "South"] * 3
    t.refused("shot South hit", "it is North's shot", "R-2")
    t.play("shot North hit")
    assert t.to_shoot() == "South"


@pytest.mark.parametrize("rules", ALL)
def test_doubles_rotation_is_clockwise_R_2(rules: str) -> None:
    """R-2 doubles: play is clockwise, one shot each: Ann, Bob, Cat, Dan, Ann, ..."""
    t = Table(rules, DOUBLES, DOUBLES_SIDES)
    order = []
    for _ in range(8):
        order.append(t.to_shoot())
        t.fill(1)
    assert order == ["Ann", "Bob", "Cat", "Dan"] * 2
    t.refused("shot Cat hit", "it is Ann's shot")
    t.refused("shot Bob hit", "it is Ann's shot")
    t.play("shot Ann hit")
    assert t.to_shoot() == "Bob"


@pytest.mark.parametrize("rules", ALL)
def test_breaker_chosen_by_the_toss_winner_R_1_A(rules: str) -> None:
    """R-1 (2018) / R-1-A (2019) / 000 rule 2: the winner of the toss chooses; the first shooter is the Breaker."""
    t = Table(rules, breaker="South")
    assert t.to_shoot() == "South"
    assert t.state.next_kind() == "free"
    with pytest.raises(ValueError, match="not one of the players"):
        Table(rules, breaker="East")


@pytest.mark.parametrize("rules", ALL)
def test_singles_hammer_breaks_next_game_regardless_of_score_R_2(rules: str) -> None:
    """R-2 singles: the player with the Hammer breaks the next game (001 R-1-B: the first shot
    alternates back and forth regardless of score)."""
    t = Table(rules, match="wins:9")
    breakers = []
    for north, south in ((10, 5), (10, 5), (5, 10), (10, 5)):  # North wins games 1, 2, 4
        breakers.append(t.state.setup.players[t.g.breaker])
        # the Hammer (shot 24) belongs to the non-breaker ...
        t.fill(23)
        hammer = t.to_shoot()
        t.fill(1)
        game = t.finish(North=north, South=south)
        assert game.number == len(breakers)
        # ... who breaks the next game, whoever won
        assert t.state.setup.players[t.g.breaker] == hammer
    assert breakers == ["North", "South", "North", "South"]
    assert t.state.wins() == (3.0, 1.0)


def test_doubles_next_breaker_is_clockwise_of_previous_breaker_R_2() -> None:
    """R-2 doubles: the next Breaker is the person sitting clockwise to the previous Breaker."""
    t = Table("tournament-2019", DOUBLES, DOUBLES_SIDES, match="games:5")
    breakers = []
    for _ in range(5):
        breakers.append(t.to_shoot())
        t.finish(Red=10, Blue=5)
    assert breakers == ["Ann", "Bob", "Cat", "Dan", "Ann"]
    assert t.state.over and t.state.winner == 0


# ---------------------------------------------------------------- what kind of shot, 000 rules 4-5


@pytest.mark.parametrize("rules", ALL)
def test_shot_kind_comes_from_the_board_000_rules_4_5_R_8_R_9(rules: str) -> None:
    """000 rule 4 / R-8: an opponent puck on the board -> contact or declared twenty; none -> free shot (rule 5 / R-9).
    Opponent pucks on the rail or in the ditch do not count."""
    t = Table(rules)
    assert t.state.next_kind() == "free"
    t.fill(1)
    assert t.state.next_kind() == "contact"
    # South knocks North's only puck into the hole: North's twenty is on the rail, not on the board.
    t.play("shot hit North:in")
    assert t.pucks("North") == Pucks(11, 0, 0, 1)
    assert t.state.next_kind() == "contact"  # South's puck is on the board
    # North sends South's puck and its own to the ditch: no North puck on the board -> South's shot is free.
    t.play("shot hit South:ditch ditch")
    assert t.pucks("North") == Pucks(10, 0, 1, 1)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)
    assert t.to_shoot() == "South" and t.state.next_kind() == "free"


@pytest.mark.parametrize("rules", ALL)
def test_declaring_a_twenty_on_a_free_shot_is_refused_R_9_000_rule_5(rules: str) -> None:
    """R-9 / 000 rule 5: with no opponent puck on the board the shot is free; there is nothing to declare."""
    t = Table(rules)
    t.refused("shot call in", "free shot", "no twenty to declare")
    t.refused("shot call", "free shot")


@pytest.mark.parametrize("rules", ALL)
def test_hit_or_miss_only_on_a_contact_shot_R_8_choice_A(rules: str) -> None:
    """R-8 choice A: contact is the objective of a contact shot only; hit/miss on a free shot or a call is refused."""
    t = Table(rules)
    t.refused("shot hit", "contact only matters on a contact shot", "free shot")
    t.refused("shot miss", "free shot")
    t.fill(1)
    t.refused("shot call hit", "declared twenty")
    t.refused("shot call miss in", "declared twenty")
    # zone/short belong to free shots only
    t.refused("shot zone", "free shot")
    t.play("shot hit")
    assert t.pucks("South").board == 1


# ---------------------------------------------------------------- contact shots: 000 rule 4 (A), R-8 choice A


@pytest.mark.parametrize("rules", ALL)
def test_contact_made_puck_stays_R_8_choice_A(rules: str) -> None:
    """R-8 choice A / 000 rule 4 A: one of your pucks touches an opponent puck: the shot stands."""
    t = contact_position(rules)
    t.play("shot hit")
    assert t.pucks("North") == Pucks(10, 2, 0, 0)
    assert t.last_result() == "stands"


@pytest.mark.parametrize("rules", ALL)
def test_contact_failed_shooting_puck_to_ditch_000_rule_4_R_8_choice_A(rules: str) -> None:
    """000 rule 4 / R-8 choice A: no contact -> the shooting puck is removed to the ditch at once."""
    t = contact_position(rules)
    t.play("shot miss")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.last_result() == "no contact: shooting puck to the ditch"
    assert t.to_shoot() == "South"


@pytest.mark.parametrize("rules", ALL)
def test_contact_failed_puck_already_in_ditch_is_ditched_once_R_8_choice_A(rules: str) -> None:
    """R-8 choice A: a missed contact shot whose puck went to the ditch anyway counts one ditched puck."""
    t = contact_position(rules)
    t.play("shot miss ditch")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    # a puck in the ditch needs no contact answer
    t.play("shot ditch")
    assert t.pucks("South") == Pucks(10, 1, 1, 0)
    assert t.question_kinds() == []


@pytest.mark.parametrize("rules", ALL)
def test_contact_question_blocks_until_answered_R_8_choice_A(rules: str) -> None:
    """R-8 choice A: a contact shot entered without hit/miss asks; the next shot waits for the answer."""
    t = contact_position(rules)
    t.play("shot")
    assert t.question_kinds() == ["contact"]
    assert t.state.questions()[0].answers == ("hit", "miss")
    t.refused("shot South hit", "first answer", "hit / miss")
    t.play("miss")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.to_shoot() == "South"


@pytest.mark.parametrize("rules", ALL)
def test_no_contact_but_dropped_in_scores_nothing_RULES_NOTES_1_1(rules: str) -> None:
    """RULES-NOTES 1.1 (decision 1): contact shot, no declaration, no contact, but the puck dropped in the
    hole -> objective A failed: the shooting puck goes to the ditch and scores nothing."""
    t = contact_position(rules)
    t.play("shot miss in")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.state.log[-1].twenties == (0, 0)
    # the same when the contact answer comes after the twenty
    t.play("shot in")
    assert t.pucks("South") == Pucks(10, 1, 0, 1)  # provisionally on the rail ...
    assert t.question_kinds() == ["contact"]
    t.play("miss")
    assert t.pucks("South") == Pucks(10, 1, 1, 0)  # ... and off it again: no contact, no twenty


@pytest.mark.parametrize("rules", ALL)
def test_contact_and_dropped_in_without_declaration_counts_RULES_NOTES_1_2(rules: str) -> None:
    """RULES-NOTES 1.2 (decision 2): contact made and the puck dropped in without a declaration: the twenty counts."""
    t = contact_position(rules)
    t.play("shot hit in")
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    assert t.state.log[-1].twenties == (1, 0)
    t.play("shot in", "hit")
    assert t.pucks("South") == Pucks(10, 1, 0, 1)


@pytest.mark.parametrize("rules", ALL)
def test_shot_entered_as_it_happens_begin_facts_end_R_8_RULES_NOTES_1_2(rules: str) -> None:
    """R-8 choice A + RULES-NOTES 1.2, entered fact by fact (`begin`, facts, `end`): the shot is judged at `end`."""
    t = contact_position(rules).play("begin North", "South:ditch", "in")
    assert t.g.shot is not None  # still open: nothing judged yet
    t.refused("shot South hit", "still open")
    t.play("hit", "end")
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)
    assert t.to_shoot() == "South" and t.state.next_kind() == "contact"


# ---------------------------------------------------------------- declared twenties: 000 rule 4 (B), R-8 choice B


@pytest.mark.parametrize("rules", ALL)
def test_declared_twenty_made_goes_on_the_rail_000_rule_4_R_8_choice_B(rules: str) -> None:
    """000 rule 4 B / 000 rule 7 / R-8 choice B: a called twenty that drops in goes on the rail at once."""
    t = contact_position(rules)
    t.play("shot call in")
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    assert t.last_result() == "declared twenty made"
    assert t.question_kinds() == []


@pytest.mark.parametrize("rules", BEGINNER)
def test_beginner_failed_call_to_ditch_at_once_000_rule_4(rules: str) -> None:
    """000 rule 4 / 002 rule 4: a declared twenty that is not made -> the shooting puck is IMMEDIATELY ditched."""
    t = contact_position(rules)
    t.play("shot call")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.question_kinds() == []
    assert t.last_result() == "declared twenty missed: shooting puck to the ditch"
    t.refused("choose leave", "no choice to make")
    t.play("shot hit")  # South shoots straight away
    assert t.pucks("South") == Pucks(10, 2, 0, 0)


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_failed_call_opponents_choice_blocks_next_shot_R_8_choice_B_decision_3(rules: str) -> None:
    """R-8 choice B (2018 and 2019) / RULES-NOTES decision 3: a failed twenty with the shooting puck still on the
    board -> the OPPONENT chooses; until `choose` is entered no shot can start."""
    t = contact_position(rules)
    t.play("shot call")
    assert t.question_kinds() == ["choice"]
    q = t.state.questions()[0]
    assert t.state.setup.sides[q.side] == "South"
    assert q.answers == ("choose leave", "choose ditch")
    assert t.pucks("North") == Pucks(10, 2, 0, 0)  # not removed automatically
    t.refused("shot South hit", "first answer", "choose leave / choose ditch")
    t.refused("shot hit", "choose")
    t.refused("zones North 10 10", "every puck has been shot")


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_failed_call_opponent_leaves_the_puck_R_8_choice_B(rules: str) -> None:
    """R-8 choice B: the opponent may leave the shooting puck on the board."""
    t = contact_position(rules).play("shot call", "choose leave")
    assert t.pucks("North") == Pucks(10, 2, 0, 0)
    assert t.last_result() == "declared twenty missed: opponent left the shooting puck on the board"
    assert t.to_shoot() == "South"
    t.refused("choose ditch", "no choice to make")


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_failed_call_opponent_ditches_the_puck_R_8_choice_B(rules: str) -> None:
    """R-8 choice B: ... or remove it to the ditch."""
    t = contact_position(rules).play("shot call", "choose ditch")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.last_result() == "declared twenty missed: opponent removed the shooting puck"
    t.play("shot hit")
    assert t.pucks("South") == Pucks(10, 2, 0, 0)


@pytest.mark.parametrize("rules", TOURNAMENT)
@pytest.mark.parametrize("fact", ["ditch", "base", "off", "rebound"])
def test_failed_call_puck_already_off_the_board_no_choice_R_8_choice_B(rules: str, fact: str) -> None:
    """R-8 choice B: the choice exists only 'if your shooting puck remains on the board'."""
    t = contact_position(rules).play(f"shot call {fact}")
    assert t.question_kinds() == []
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.last_result() == "declared twenty missed; shooting puck already in the ditch"


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_call_made_with_another_own_puck_R_8_choice_B(rules: str) -> None:
    """R-8 choice B (2018/2019): 'any one of your pucks must land flat in the Center Hole'."""
    t = contact_position(rules).play("shot call North:in")
    assert t.last_result() == "declared twenty made"
    assert t.question_kinds() == []
    assert t.pucks("North") == Pucks(10, 1, 0, 1)  # the shooting puck stays, the other is a twenty


@pytest.mark.parametrize("rules", BEGINNER)
def test_beginner_call_needs_the_shooting_puck_000_rule_4(rules: str) -> None:
    """000 rule 4 B 'Call a Twenty (and try to sink it)': only the shooting puck makes the call. Another own
    puck that drops in is still a twenty (rule 7), but the shooting puck goes to the ditch."""
    t = contact_position(rules).play("shot call North:in")
    assert t.last_result() == "declared twenty missed: shooting puck to the ditch"
    assert t.pucks("North") == Pucks(10, 0, 1, 1)


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_call_failed_though_opponent_puck_dropped_R_8_choice_B(rules: str) -> None:
    """R-8 choice B: an opponent puck knocked in is the opponent's twenty and does not make the call."""
    t = contact_position(rules).play("shot call South:in")
    assert t.pucks("South") == Pucks(11, 0, 0, 1)
    assert t.question_kinds() == ["choice"]
    t.play("choose ditch")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.last_result() == "declared twenty missed: opponent removed the shooting puck"


@pytest.mark.parametrize("rules", ALL)
def test_call_edge_is_not_a_twenty_A_4(rules: str) -> None:
    """A-4: a puck standing on edge in the hole is not a twenty, so a call landing on edge fails."""
    t = contact_position(rules).play("shot call edge")
    if rules in TOURNAMENT:
        assert t.question_kinds() == ["choice"]
        t.play("choose leave")
        assert t.pucks("North") == Pucks(10, 2, 0, 0)
    else:
        assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("North").rail == 0


# ---------------------------------------------------------------- free shots: 000 rule 5, R-9


def test_beginner_free_shot_stays_anywhere_000_rule_5() -> None:
    """000 rule 5 / 002 rule 5: on a free shot the puck remains on the board, wherever it rests."""
    t = Table("beginner")
    t.refused("shot short", "free-shot zone only matters", "R-9")
    t.refused("shot zone", "R-9")
    t.play("shot")
    assert t.pucks("North") == Pucks(11, 1, 0, 0)
    assert t.question_kinds() == []


@pytest.mark.parametrize("rules", ALL)
def test_free_shot_into_the_hole_is_a_twenty_000_rule_5_R_9(rules: str) -> None:
    """000 rule 5 / R-9: a free shot that lands flat in the hole goes on the rail (no zone question)."""
    t = Table(rules).play("shot in")
    assert t.pucks("North") == Pucks(11, 0, 0, 1)
    assert t.question_kinds() == []
    assert t.state.next_kind() == "free"  # South: still no North puck on the board


def test_beginner_advanced_free_shot_must_rest_in_15_000_rule_5_advanced() -> None:
    """000 rule 5 advanced option: the free shot must come to rest inside the 15 area, or go to the ditch."""
    t = Table("beginner-advanced").play("shot zone")
    assert t.pucks("North") == Pucks(11, 1, 0, 0)
    t = Table("beginner-advanced").play("shot short")
    assert t.pucks("North") == Pucks(11, 0, 1, 0)
    assert t.last_result() == "free shot short of the 15 zone: to the ditch"
    # not given: asked, and the next shot waits
    t = Table("beginner-advanced").play("shot")
    assert t.question_kinds() == ["zone"]
    assert "15 zone" in t.state.questions()[0].text
    t.refused("shot South", "first answer", "zone / short")
    t.play("short")
    assert t.pucks("North") == Pucks(11, 0, 1, 0)


def test_beginner_advanced_another_own_puck_does_not_satisfy_000_rule_5_advanced() -> None:
    """000 rule 5 advanced: 'the puck you shoot must come to rest inside the 15' - another own puck (even a twenty)
    does not satisfy it."""
    # North's free shot stays; South's contact shot goes to the ditch; North's next shot is free again and
    # knocks the first North puck into the hole: a twenty, but the shooting puck still has to be in the 15.
    t = Table("beginner-advanced").play("shot zone", "shot hit ditch", "shot North:in")
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    assert t.question_kinds() == ["zone"]
    t.play("short")
    assert t.pucks("North") == Pucks(10, 0, 1, 1)


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_free_shot_must_reach_the_10_zone_R_9(rules: str) -> None:
    """R-9 (2018/2019): the free shot must come to rest within the 10-point zone or beyond, else to the ditch."""
    t = Table(rules).play("shot zone")
    assert t.pucks("North") == Pucks(11, 1, 0, 0)
    t = Table(rules).play("shot short")
    assert t.pucks("North") == Pucks(11, 0, 1, 0)
    assert t.last_result() == "free shot short of the 10 zone: to the ditch"
    t = Table(rules).play("shot")
    assert t.question_kinds() == ["zone"]
    assert "10 zone" in t.state.questions()[0].text
    t.refused("shot South zone", "first answer")
    t.play("zone")
    assert t.pucks("North") == Pucks(11, 1, 0, 0)


@pytest.mark.parametrize("rules", ("beginner-advanced", *TOURNAMENT))
def test_free_shot_standing_on_edge_meets_the_zone_A_4_R_9(rules: str) -> None:
    """A-4: a puck on edge in the hole is "treated as in the 15", so a free shot that ends that way meets the
    15-zone (000 rule 5 advanced) and 10-zone (R-9) requirement without being asked; `short` contradicts it."""
    t = Table(rules).play("shot edge")
    assert t.question_kinds() == [] and t.pucks("North") == Pucks(11, 1, 0, 0)
    assert t.last_result() == "stands"
    t = Table(rules)
    t.refused("shot short edge", "counts as in the 15 zone (A-4)")


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_free_shot_satisfied_by_another_own_puck_R_9(rules: str) -> None:
    """R-9: '... or cause another of your pucks to do so': an own puck knocked into the hole satisfies it
    (the zone answer `zone` also covers another own puck moved into the 10 zone)."""
    t = Table(rules).play("shot zone", "shot hit ditch", "shot North:in")
    assert t.question_kinds() == []
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    assert t.last_result() == "stands"


def test_beginner_rule_sets_differ_only_in_the_free_shot_000_rule_5() -> None:
    """000 rule 5: the advanced option is the one difference between `beginner` and `beginner-advanced`."""
    a = Pichenotte.create("beginner", list(SINGLES)).options
    b = Pichenotte.create("beginner-advanced", list(SINGLES)).options
    diff = {k for k in a.__dataclass_fields__ if getattr(a, k) != getattr(b, k)}
    assert diff == {"name", "summary", "seed", "free_shot_zone"}
    assert (a.free_shot_zone, b.free_shot_zone) == (None, 15)


# ---------------------------------------------------------------- baseline, ditch, off the board


@pytest.mark.parametrize("rules", ALL)
def test_baseline_is_out_of_bounds_000_rule_8_R_5A(rules: str) -> None:
    """000 rule 8 / 002 rule 8 / R-5 (2018) / R-5A (2019): a puck touching the baseline goes to the ditch,
    the shooting puck or any other."""
    t = contact_position(rules).play("shot hit base South:baseline")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)


@pytest.mark.parametrize("rules", ALL)
def test_ditch_is_zero_and_never_played_again_000_rule_4_A_3(rules: str) -> None:
    """000 rule 4 / A-3: pucks in the ditch are zero points and may not come back until the round is over."""
    t = contact_position(rules).play("shot hit South:ditch")
    assert t.pucks("South") == Pucks(11, 0, 1, 0)
    t.refused("shot South:in", "no other south puck is on the board", "1 in the ditch")
    t.refused("shot South:edge", "no other south puck")


@pytest.mark.parametrize("rules", ALL)
def test_off_the_board_to_the_ditch_R_10_C_2018_R_10_A_2019(rules: str) -> None:
    """R-10-C (2018) / R-10-A (2019): a puck that flies off the board is placed in the ditch."""
    t = contact_position(rules).play("shot hit off South:off")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)


# ---------------------------------------------------------------- rebounds R-10, hand R-10-B


@pytest.mark.parametrize("rules", ALL)
def test_rebounding_puck_goes_to_the_ditch_R_10(rules: str) -> None:
    """R-10 (2018 and 2019): a puck shot off the board that bounces back is removed to the ditch; its damage stands."""
    t = contact_position(rules).play("shot hit rebound South:rebound")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)


def test_rebound_2018_in_the_hole_counts_only_for_the_opponent_R_10_A_B_2018() -> None:
    """R-10 (2018) R-10-A/B: a rebounding puck landing in the twenty counts 20 if it is the opponent's puck,
    not if it is your own (own: to the ditch)."""
    t = contact_position("santa-fe-2018").play("shot hit in-rebound")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    t = contact_position("santa-fe-2018").play("shot hit South:in-rebound")
    assert t.pucks("South") == Pucks(11, 0, 0, 1)
    assert t.state.log[-1].twenties == (0, 1)


def test_rebound_2018_knocked_in_counts_only_for_the_opponent_R_10_A_B_2018() -> None:
    """R-10 (2018): 'hits another puck into the twenty': counts for the opponent's puck; damage stands
    'except a twenty for the shooter' -> the shooter's own puck knocked in goes to the ditch (product decision)."""
    t = contact_position("santa-fe-2018").play("shot hit North:in-by-rebound")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("North").rail == 0
    t = contact_position("santa-fe-2018").play("shot hit South:in-by-rebound")
    assert t.pucks("South") == Pucks(11, 0, 0, 1)


@pytest.mark.parametrize("rules", ["tournament-2019", *BEGINNER])
def test_rebound_2019_lands_in_hole_still_ditched_R_10_2019(rules: str) -> None:
    """R-10 (2019): rebounding pucks are OFF and go to the ditch even if they land in the hole, whoever owns them.
    The beginner sheets have no rebound rule; they use the 2019 handling (product default)."""
    t = contact_position(rules).play("shot hit in-rebound South:in-rebound")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    assert t.pucks("South") == Pucks(11, 0, 1, 0)
    assert t.pucks("North").rail == t.pucks("South").rail == 0


@pytest.mark.parametrize("rules", ["tournament-2019", *BEGINNER])
def test_rebound_2019_knocks_a_puck_in_twenty_for_whoever_owns_it_R_10_2019(rules: str) -> None:
    """R-10 (2019): a puck the rebounding puck knocks into the hole counts twenty, the shooter's or the opponent's."""
    t = contact_position(rules).play("shot hit North:in-by-rebound")
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    t = contact_position(rules).play("shot hit South:in-by-rebound")
    assert t.pucks("South") == Pucks(11, 0, 0, 1)


def test_hand_rule_own_puck_ditched_opponent_stays_R_10_B_2019() -> None:
    """R-10-B (2019): a puck touching your hand: your own -> the ditch, the opponent's -> stays on the board."""
    t = contact_position("tournament-2019").play("shot hit hand")
    assert t.pucks("North") == Pucks(10, 1, 1, 0)
    t = contact_position("tournament-2019").play("shot hit South:hand")
    assert t.pucks("South") == Pucks(11, 1, 0, 0)
    assert t.pucks("North") == Pucks(10, 2, 0, 0)


@pytest.mark.parametrize("rules", ["santa-fe-2018", *BEGINNER])
def test_hand_rule_refused_without_R_10_B(rules: str) -> None:
    """R-10-B is only in the 2019 sheet: the 2018 and beginner rule sets refuse the `hand` fact."""
    t = contact_position(rules)
    t.refused("shot hit hand", "no hand rule", "R-10-B")
    t.refused("shot hit South:hand", "no hand rule")


# -------------------------------------------------- twenties, edge, zones, scoring: rules 6-8, R-5, R-11, A-4


@pytest.mark.parametrize("rules", ALL)
def test_twenties_on_the_rail_cannot_be_lost_000_rule_4_rule_7(rules: str) -> None:
    """000 rule 4 / rule 7: a twenty goes on the rail at once and 'cannot be lost': no later shot reduces the rail."""
    t = contact_position(rules).play("shot hit in")  # North's twenty; North has 1 puck left on the board
    assert t.pucks("North") == Pucks(10, 1, 0, 1)
    t.play("shot hit North:ditch")  # South ditches North's last board puck
    assert t.pucks("North") == Pucks(10, 0, 1, 1)
    t.refused("shot hit North:ditch", "no other north puck is on the board", "1 on the rail")
    rails = []
    while t.state.to_shoot() is not None:
        t.fill(1)
        rails.append(t.pucks("North").rail)
    assert set(rails) == {1}
    t.zones(North=5, South=5)
    game = t.state.games[0]
    assert game.rail == (1, 0)
    assert game.points is not None and game.points[0] == 20 + 5 * 10


@pytest.mark.parametrize("rules", ALL)
def test_edge_in_the_hole_is_not_a_twenty_scores_15_A_4(rules: str) -> None:
    """A-4: a puck standing on edge or tilted in the hole is no twenty; it stays and counts as in the 15 zone."""
    t = contact_position(rules).play("shot hit edge")
    assert t.pucks("North") == Pucks(10, 2, 0, 0)
    assert t.state.log[-1].twenties == (0, 0)
    t.play_out()
    north = t.g.board[0]
    t.play("zones North " + " ".join(["edge"] + ["5"] * (north - 1)))
    t.zones(South=5)
    game = t.state.games[0]
    assert game.zones[0] == (15,) + (5,) * (north - 1)
    assert game.points is not None and game.points[0] == 15 + 5 * (north - 1)


@pytest.mark.parametrize("rules", ALL)
def test_game_score_rail_plus_zones_000_rule_6_R_11(rules: str) -> None:
    """000 rule 6 / R-11: 20 per twenty, 15 inside the posts, 10 middle, 5 outer circle, 0 in the ditch."""
    t = contact_position(rules).play("shot hit in", "shot miss")  # North 1 twenty; South 1 in the ditch
    t.play_out()
    assert t.pucks("North") == Pucks(0, 11, 0, 1)
    assert t.pucks("South") == Pucks(0, 11, 1, 0)
    t.play("zones North 15 15 15 10 10 10 5 5 5 5 5")
    t.play("South 15 10 5 5 5 5 5 5 5 5 5")  # the quick form without the verb
    game = t.state.games[0]
    assert game.points == (20 + 45 + 30 + 25, 15 + 10 + 45)
    assert game.winner == 0


@pytest.mark.parametrize("rules", ALL)
def test_line_value_entered_is_final_R_5_000_rule_8(rules: str) -> None:
    """R-5 / 000 rule 8: a puck touching a line takes the lower value; the players agree (R-6) and the value
    entered is final - the engine takes it as is."""
    t = Table(rules)
    t.play_out()
    t.play("zones North " + " ".join(["10"] * 12))  # all North pucks touch the 10/15 line: 10 each
    t.play("zones South " + " ".join(["5"] * 11 + ["0"]))
    game = t.state.games[0]
    assert game.points == (120, 55)


@pytest.mark.parametrize("rules", ALL)
def test_zone_count_must_match_pucks_on_the_board_R_11(rules: str) -> None:
    """R-11 / accounting: one zone value per puck on the board, no more, no less; only when every puck is shot."""
    t = Table(rules)
    t.fill(10)
    t.refused("zones North 10 10 10 10 10", "zones are entered when every puck has been shot", "14 shot(s)")
    t.play_out()
    assert t.question_kinds() == ["zones", "zones"]
    t.refused("zones North " + "10 " * 11, "North has 12 puck(s) on the board", "enter 12 zone value(s), not 11")
    t.refused("zones North " + "10 " * 13, "not 13")
    t.refused("zones North " + "10 " * 11 + "7", "7 is not a zone value")
    t.refused("zones North " + "10 " * 11 + "x", "not a zone value")
    t.play("zones North " + "10 " * 12)
    assert t.question_kinds() == ["zones"]
    t.refused("zones North " + "10 " * 12, "already entered")
    t.zones(South=5)
    assert t.state.games[0].points == (120, 60)


def test_zone_count_with_an_empty_side_R_11() -> None:
    """R-11: a side with no puck on the board has no zones to enter; the game is scored from the rest."""
    t = Table("beginner").play("shot in")
    t.play("shot in")  # both breakers' first shots are free and drop in
    while not t.state.games:
        t.apply("shot in")  # every shot is free and drops in: 12 twenties each
    game = t.state.games[0]
    assert game.points == (240, 240) and game.winner is None


@pytest.mark.parametrize("rules", BEGINNER)
def test_post_values_25_50_refused_in_beginner_R_11(rules: str) -> None:
    """R-11 'rare but possible' 25/50 are tournament values; the beginner sheets (000 rule 6) have 5/10/15/20."""
    t = Table(rules).play_out()
    t.refused("zones North 25 " + "5 " * 11, "25 is not a zone value", "tournament values")
    t.refused("zones North 50 " + "5 " * 11, "50 is not a zone value")


@pytest.mark.parametrize("rules", TOURNAMENT)
def test_post_values_25_and_50_R_11(rules: str) -> None:
    """R-11: a puck leaning on a post touching the board = 25; resting on top of a post = 50."""
    t = Table(rules).play_out()
    t.play("zones North 50 25 " + "5 " * 10).zones(South=5)
    assert t.state.games[0].points == (125, 60)


# ---------------------------------------------------------------- accounting invariant


@pytest.mark.parametrize("rules", ALL)
def test_fact_about_a_puck_not_on_the_board_is_refused_accounting(rules: str) -> None:
    """Accounting (RULES-NOTES 1, hand+board+ditch+rail = dealt): a fact about a puck that is not on the board is
    refused with the counts, and nothing changes."""
    t = Table(rules)
    msg = t.refused("shot South:in", "no south puck is on the board", "12 in hand, 0 on the board")
    assert "0 in the ditch, 0 on the rail" in msg
    t.refused("shot North:ditch", "no other north puck")  # the shooting puck is North's only puck on the board
    t = contact_position(rules)
    t.refused("shot hit South:in South:ditch", "no south puck")  # only one South puck to move
    t.refused("shot hit in ditch", "already in the hole")
    t.refused("shot hit ditch base", "already in the ditch")
    t.refused("shot hit East:in", "neither a side nor a player")
    t.refused("shot hit South:fly", "not a shot fact")
    t.refused("shot hit hit", "once")


def test_accounting_invariant_holds_through_a_whole_game() -> None:
    """Accounting: at every input, per side, in hand + on board + in ditch + on the rail = 12."""
    t = contact_position("tournament-2019")
    script = [
        "shot hit in",
        "shot hit North:ditch",
        "shot call",
        "choose leave",
        "shot hit South:base",
        "shot miss in",
        "shot hit in-by-rebound",
        "shot hit South:in-rebound",
    ]
    for line in script:
        t.play(line)
        for side in ("North", "South"):
            p = t.pucks(side)
            assert p.hand + p.board + p.ditch + p.rail == 12
    assert t.pucks("North") == Pucks(7, 2, 2, 1)
    assert t.pucks("South") == Pucks(8, 1, 2, 1)


@pytest.mark.parametrize(
    "change",
    [
        {"board": (2, 1)},  # a puck from nowhere
        {"ditch": (0, 1)},
        {"rail": (1, 0)},
        {"board": (0, 2)},  # one side's puck counted on the other side
        {"board": (-1, 3), "ditch": (2, -1)},  # the sums are right, two counts are not
        {"shots": 3},  # one shot more than the pucks out of hand
    ],
)
def test_the_accounting_check_catches_a_broken_count(change: dict[str, Any]) -> None:
    """The engine checks the accounting after every input; a state that breaks it is a bug and must not pass."""
    t = contact_position("tournament-2019")
    check_accounting(t.state)
    assert t.state.game is not None
    broken = dataclasses.replace(t.state, game=dataclasses.replace(t.state.game, **change))
    with pytest.raises(AssertionError, match="puck accounting broken"):
        check_accounting(broken)


LINES = [
    "shot",
    "shot hit",
    "shot miss",
    "shot call",
    "shot call in",
    "shot call North:in",
    "shot call South:in",
    "shot zone",
    "shot short",
    "shot in",
    "shot hit in",
    "shot miss in",
    "shot edge",
    "shot hit South:ditch",
    "shot hit North:ditch",
    "shot hit North:base South:off",
    "shot hit in-rebound",
    "shot hit South:in-rebound",
    "shot hit North:in-by-rebound",
    "shot hit South:in-by-rebound",
    "shot hit hand",
    "shot hit North:hand",
    "shot hit rebound",
    "choose leave",
    "choose ditch",
    "hit",
    "miss",
    "zone",
    "short",
    "penalty North",
    "zones North 10 10 10",
    "zones South 5",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL), st.lists(st.sampled_from(LINES), max_size=60))
def test_any_input_keeps_the_accounting_and_the_rail_property(rules: str, lines: list[str]) -> None:
    """Accounting + 000 rule 4 'twenties cannot be lost' for arbitrary input: every line is accepted or refused
    with the state untouched; the invariant holds after each; between shots the rail never goes down."""
    t = Table(rules)
    rail = (0, 0)
    for line in lines:
        before = t.state
        try:
            t.apply(line)
        except (Illegal, NotationError):
            assert t.state is before
            continue
        check_accounting(t.state)
        g = t.state.game
        if g is not None and g.shot is None and g.number == 1:
            assert g.rail[0] >= rail[0] and g.rail[1] >= rail[1]
            rail = g.rail


# -------------------------------------------------- penalties and forfeits: A-2, NO-a, NO-c, R-7, R-10-A/C


@pytest.mark.parametrize("rules", ALL)
def test_penalty_costs_20_and_can_go_negative_A_2(rules: str) -> None:
    """A-2: touching a puck before it stops costs 20 points; a game score can go below zero."""
    t = Table(rules).play("penalty South", "penalty North", "penalty South")
    t.play_out()
    t.zones(North=5, South=0)
    game = t.state.games[0]
    assert game.penalties == (1, 2)
    assert game.points == (60 - 20, 0 - 40)
    assert t.game.summary(t.state)["games"][0]["penalties"] == [20, 40]


@pytest.mark.parametrize("reason", sorted(FORFEIT_REASONS))
def test_forfeit_ends_the_game_NO_a_NO_c_R_7_R_10_A(reason: str) -> None:
    """NO-a (phone), NO-c (board), R-7 (contested puck), R-10-C 2018 / R-10-A 2019 (retrieval), other: forfeit the
    game. Product decision: the forfeiting side scores 0, the other keeps its twenties (only) and wins."""
    t = contact_position("tournament-2019", match="games:2")
    t.play("shot call in", "shot call in", "shot hit in")  # North 2 twenties, South 1
    assert t.pucks("North").rail == 2 and t.pucks("South").rail == 1
    t.play(f"forfeit North {reason} a note")
    game = t.state.games[0]
    assert game.forfeit == (0, reason)
    assert game.points == (0, 20)
    assert game.winner == 1
    # the match goes on: game 2, South (the Hammer of game 1) breaks
    assert t.state.game is not None and t.state.game.number == 2
    assert t.to_shoot() == "South"
    assert t.pucks("North") == Pucks(12, 0, 0, 0)


def test_forfeit_with_an_open_question_and_unknown_reason() -> None:
    """R-7 / NO-a: a forfeit may come at any point of the game, even with the opponent's choice pending;
    an unknown reason is refused with the list of reasons."""
    t = contact_position("santa-fe-2018", match="games:1").play("shot call in", "shot call")
    assert t.question_kinds() == ["choice"]
    t.refused("forfeit South sneezing", "reason one of", "phone, board, contested, retrieval, other")
    t.refused("forfeit South", "forfeit SIDE REASON")
    t.play("forfeit South board")
    assert t.state.over and t.state.winner == 0
    assert t.state.games[0].points == (20, 0)
    t.refused("shot hit", "the match is over")


# -------------------------------------------------- tied games and match formats: 000/002 rule 9, R-1-B, S-3


def test_tied_game_half_each_first_to_four_000_rule_9() -> None:
    """000 rule 9: a match is played until a side has won four rounds; a tie gives each 1/2 point."""
    t = Table("beginner")
    assert t.state.match.spec() == "wins:4"
    t.finish(North=5, South=5)  # 60-60
    assert t.state.games[0].winner is None
    assert t.state.wins() == (0.5, 0.5)
    for _ in range(3):
        t.finish(North=10, South=5)
    assert t.state.wins() == (3.5, 0.5) and not t.state.over
    t.finish(North=10, South=5)
    assert t.state.over and t.state.winner == 0
    assert t.state.wins() == (4.5, 0.5)
    assert len(t.state.games) == 5


def test_wins_format_tied_game_decided_by_shootout_000_rule_9() -> None:
    """000 rule 9 '... or a shoot-out of best of 12 pucks for the center hole' (`wins:4:shootout`)."""
    t = Table("beginner", match="wins:4:shootout")
    t.finish(North=5, South=5)
    assert t.state.shootout is not None and t.state.shootout.purpose == "game"
    assert t.to_shoot() == "North"  # the game's breaker shoots first
    t.refused("shot hit", "only the shooting puck counts")
    t.refused("shot call in", "only the shooting puck counts")
    t.refused("shot North:in", "only the shooting puck counts")
    t.refused("penalty North", "shoot-out is in progress")
    # North's 12th miss leaves it 4-5 with no North puck left: South's 12th is never needed ("best of 12").
    t.shootout({"North": [True] * 4 + [False] * 8, "South": [True] * 5 + [False] * 6})
    assert t.state.shootout is None
    game = t.state.games[0]
    assert game.points == (60, 60) and game.winner == 1 and game.shootout_winner
    assert t.state.wins() == (0.0, 1.0)
    assert t.game.summary(t.state)["games"][0]["decided_by_shootout"] is True
    assert t.to_shoot() == "South"  # game 2: the Hammer of game 1 breaks


def test_first_to_four_of_seven_002_rule_9() -> None:
    """002 rule 9: first to win four out of seven rounds; a tied round gives both a half point."""
    t = Table("beginner", match="wins:4/7")
    for north, south in ((10, 5), (10, 5), (10, 5), (5, 5), (10, 5)):
        t.finish(North=north, South=south)
    assert t.state.over and t.state.winner == 0 and t.state.wins() == (4.5, 0.5)
    assert len(t.state.games) == 5


def test_santa_fe_match_ends_after_seven_games_002_rule_9() -> None:
    """002 rule 9 (the santa-fe-2018 default `wins:4/7`): after seven games 3.5-3.5 the match is tied and goes to
    a twenties shoot-out (RULES-NOTES decision 4)."""
    t = Table("santa-fe-2018")
    assert t.state.match.spec() == "wins:4/7"
    for north, south in ((5, 5), (10, 5), (5, 10), (10, 5), (5, 10), (10, 5), (5, 10)):
        assert not t.state.over
        t.finish(North=north, South=south)
    assert len(t.state.games) == 7 and t.state.wins() == (3.5, 3.5)
    assert t.state.shootout is not None and t.state.shootout.purpose == "match"


def test_wins_format_both_reach_the_target_on_halves_goes_to_shootout_decision_4() -> None:
    """000 rule 9 halves + RULES-NOTES decision 4: if tied games bring both sides to the target together, the
    match is tied and a twenties shoot-out decides it."""
    t = Table("beginner", match="wins:1")
    t.finish(North=5, South=5)
    assert t.state.wins() == (0.5, 0.5) and t.state.shootout is None
    t.finish(North=5, South=5)
    assert t.state.wins() == (1.0, 1.0)
    assert t.state.shootout is not None and t.state.shootout.purpose == "match"
    t.shootout({"South": [True] * 12, "North": [True] * 11 + [False]})
    assert t.state.over and t.state.winner == 1


def test_eight_games_most_total_points_R_1_B() -> None:
    """001 R-1-B singles: 8 games, the match goes to the most points, not the most games won."""
    t = Table("tournament-2019")
    assert t.state.match.spec() == "games:8"
    for i in range(8):
        if i < 5:
            t.finish(North=[10] + [5] * 11, South=5)  # North wins 65-60
        else:
            t.finish(North=5, South=15)  # South wins 180-60
    assert t.state.wins() == (5.0, 3.0)
    assert t.state.totals() == (5 * 65 + 3 * 60, 5 * 60 + 3 * 180)
    assert t.state.over and t.state.winner == 1


def test_doubles_default_four_games_R_1_B() -> None:
    """001 R-1-B doubles: 4 games, 6 pucks each, most points."""
    t = Table("tournament-2019", DOUBLES, DOUBLES_SIDES)
    assert t.state.match.spec() == "games:4"
    for _ in range(3):
        t.finish(Red=5, Blue=10)
    assert not t.state.over
    t.finish(Red=15, Blue=5)
    assert t.state.over and t.state.winner == 1 and t.state.totals() == (3 * 60 + 180, 3 * 120 + 60)


def test_points_match_first_to_500_S_3() -> None:
    """001 S-3: a singles match 'played to 500 points': the match ends after the game that reaches it."""
    t = Table("tournament-2019", match="points:500")
    for _ in range(4):
        t.finish(North=10, South=5)
    assert t.state.totals() == (480, 240) and not t.state.over
    t.finish(North=10, South=5)
    assert t.state.over and t.state.winner == 0 and len(t.state.games) == 5


def test_match_tie_twelve_puck_shootout_then_one_each_R_1_B_decision_4() -> None:
    """001 R-1-B / RULES-NOTES decision 4: a tied match is broken by a twenties shoot-out of 12 pucks each,
    then one each until the tie breaks; the scorer runs it."""
    t = Table("tournament-2019", match="games:1")
    t.finish(North=5, South=5)
    so = t.state.shootout
    assert so is not None and so.purpose == "match" and not t.state.over
    assert t.to_shoot() == "South"  # the would-be next breaker shoots first
    t.shootout({"South": [True, False] * 6, "North": [False, True] * 6})
    assert t.state.shootout is not None and t.state.shootout.twenties == (6, 6) and not t.state.over
    t.shootout({"South": [True], "North": [True]})  # 13th each: still tied
    assert not t.state.over
    t.shootout({"South": [False], "North": [True]})  # 14th each: North breaks it
    assert t.state.over and t.state.winner == 0
    assert t.state.shootout_result == (8, 7)
    summary = t.game.summary(t.state)
    assert summary["winner"] == "North" and summary["match_shootout"] == [8, 7]


def test_shootout_ends_when_the_other_side_cannot_catch_up_R_1_B() -> None:
    """R-1-B "shootout of 12 pucks each" (000 rule 9 "best of 12"): it stops once the trailing side could not
    draw level even making every puck it has left; until then it goes on."""
    t = Table("tournament-2019", match="games:1")
    t.finish(North=5, South=5)
    assert t.to_shoot() == "South"
    for _ in range(6):  # South makes, North misses: 6-0 with North still holding 6 pucks
        t.play("shot in", "shot miss")
    assert not t.state.over and t.state.shootout is not None and t.state.shootout.twenties == (0, 6)
    t.play("shot in")  # 7-0, and North has only 6 left
    assert t.state.over and t.state.winner == 1 and t.state.shootout_result == (0, 7)


def test_shootout_level_after_twelve_goes_one_each_R_1_B() -> None:
    """R-1-B: level after 12 each, one puck each until a pair differs; the first to shoot's make alone decides
    nothing."""
    t = Table("tournament-2019", match="games:1")
    t.finish(North=5, South=5)
    for _ in range(12):
        t.play("shot miss", "shot miss")
    t.play("shot in")
    assert not t.state.over
    t.play("shot in")
    assert not t.state.over
    t.play("shot in", "shot miss")  # South 2, North 1 after 14 each
    assert t.state.over and t.state.winner == 1 and t.state.shootout_result == (1, 2)


def test_shootout_refuses_contradictory_lines_R_1_B() -> None:
    """R-1-B shoot-out: only the shooting puck, in or not; `hit` is not a shoot-out result, `miss in` contradicts."""
    t = Table("tournament-2019", match="games:1")
    t.finish(North=5, South=5)
    t.refused("shot hit", "shot in", "shot miss")
    t.refused("shot miss in", "shot in", "shot miss")
    t.refused("shot in in", "shot in")
    t.refused("shot North in", "it is South's shoot-out shot")
    t.play("in")  # a bare fact is a whole shoot-out shot
    assert t.state.shootout is not None and t.state.shootout.twenties == (0, 1)


def test_doubles_shootout_alternates_sides_clockwise_R_1_B() -> None:
    """R-1-B with R-2 doubles: the shoot-out goes round the table, so the sides alternate."""
    t = Table("tournament-2019", DOUBLES, DOUBLES_SIDES, match="games:1")
    t.finish(Red=5, Blue=5)
    order = []
    for _ in range(4):
        order.append(t.to_shoot())
        t.play("shot miss")
    assert order == ["Bob", "Cat", "Dan", "Ann"]


# ------------------------------------------- a match that is only the shoot-out: R-1-B (001), rule 9 (000)


def test_shootout_match_format_starts_in_the_shootout_twelve_each_R_1_B_000_rule_9() -> None:
    """001 R-1-B "ties broken by 20's shootout of 12 pucks each" (000 rule 9 "best of 12 pucks for the center
    hole"), played on its own (a tournament's tie-break): `shootout` starts in the match shoot-out at once, no game,
    the breaker first; 12 each; the match ends with its winner and the shoot-out's twenties."""
    t = Table("tournament-2019", match="shootout")
    so = t.state.shootout
    assert so is not None and so.purpose == "match" and t.state.game is None and not t.state.games
    assert t.to_shoot() == "North" and t.state.next_kind() == "shootout"
    assert t.game.match.spec() == "shootout" and "shoot-out only" in t.game.match.describe()
    t.shootout({"North": [True, False] * 6, "South": [False, True] * 5 + [False, False]})
    assert t.state.over and t.state.winner == 0 and t.state.shootout_result == (6, 5)
    assert (t.state.shootout.shots if t.state.shootout else None) is None
    doc = t.game.summary(t.state)
    assert doc["match"] == "shootout" and doc["games"] == [] and doc["current"] is None
    assert doc["winner"] == "North" and doc["match_shootout"] == [6, 5] and doc["over"]


def test_shootout_match_decided_early_when_one_side_cannot_be_caught_R_1_B_000_rule_9() -> None:
    """000 rule 9 "best of 12": South, shooting second, trails 0-7 with 6 pucks left after North's 7th: over."""
    t = Table("tournament-2019", match="shootout", breaker="North")
    for _ in range(6):
        t.play("shot in", "shot miss")
    assert not t.state.over and t.state.shootout is not None and t.state.shootout.twenties == (6, 0)
    t.play("shot in")
    assert t.state.over and t.state.winner == 0 and t.state.shootout_result == (7, 0)
    t.refused("shot in", "the match is over")


def test_shootout_match_sudden_death_after_twelve_all_R_1_B_000_rule_9() -> None:
    """R-1-B: 12-12 after 12 each, then one puck each until a pair differs (the first shooter's make alone decides
    nothing); here South breaks it on the 15th pair."""
    t = Table("beginner", match="shootout", breaker="South")
    assert t.to_shoot() == "South"
    for _ in range(12):
        t.play("shot in", "shot in")
    assert not t.state.over and t.state.shootout is not None and t.state.shootout.twenties == (12, 12)
    t.play("shot in", "shot in", "shot miss", "shot miss")  # 13th and 14th pairs: still level
    assert not t.state.over
    t.play("shot in")  # South's 15th: North may still answer
    assert not t.state.over
    t.play("shot miss")
    assert t.state.over and t.state.winner == 1 and t.state.shootout_result == (13, 14)
    assert t.game.summary(t.state)["match_shootout"] == [13, 14]


def test_shootout_match_takes_only_shot_in_or_shot_miss_R_1_B_000_rule_9() -> None:
    """R-1-B: only the shooting puck counts, in the hole or not. A hit, a call, a zone, a choice, zones, a penalty,
    a forfeit or the end of a shot are refused with the two lines it takes; the state does not change."""
    t = Table("tournament-2019", match="shootout")
    for line in ("shot hit", "shot call in", "shot zone", "shot miss in", "shot in in", "shot South:in"):
        t.refused(line, "shot in", "shot miss")
    for line in ("choose ditch", "North 15 10", "penalty North", "forfeit North conduct", "end"):
        with pytest.raises((Illegal, NotationError)):
            t.apply(line)
    t.refused("shot South in", "it is North's shoot-out shot")
    t.play("shot miss", "in")
    assert t.state.shootout is not None and t.state.shootout.twenties == (0, 1)


def test_shootout_match_format_parses_and_names_itself_in_the_usage_R_1_B() -> None:
    """The match format's text form: `shootout` alone; a wrong form's message names it among the others."""
    from flickboard.rules.pichenotte.options import MatchFormat, parse_match

    assert parse_match("shootout") == MatchFormat("shootout", 1) and parse_match(" Shootout ").spec() == "shootout"
    for bad in ("shootout:12", "shoot-out", "games"):
        with pytest.raises(ValueError, match=r"wins:N:shootout, games:N, points:N \(e.g. games:8\) or shootout"):
            parse_match(bad)
    game = Pichenotte.from_header({"Rules": ["tournament-2019"], "Players": ["Ana", "Ben"], "Match": ["shootout"]})
    assert game.header()["Match"] == ["shootout"] and game.start().shootout is not None


# ---------------------------------------------------------------- transcripts


def test_club_night_sample_transcript_R_8_R_9_R_10_A_2_A_4() -> None:
    """The bundled sample (2019 rules) exercises R-8 A/B, R-9, R-5A, R-10, R-10-A/B, A-2, A-4: every line is
    accepted and the game ends 115-65 to Ana."""
    path = Path(__file__).resolve().parents[2] / "host" / "samples" / "club-night.pich"
    transcript = parse_transcript(path.read_text(encoding="utf-8"), path.name)
    game = Pichenotte.from_header(transcript.header)
    t = Table("tournament-2019")
    t.game, t.state = game, game.start()
    t.play(*(text for _, text in transcript.lines))
    assert t.state.over and t.state.winner == 0
    g = t.state.games[0]
    assert g.rail == (3, 2)  # Ana: call in, knocked in by Ben, hit in; Ben: two calls
    assert g.penalties == (0, 1)
    assert g.points == (60 + 55, 40 + 45 - 20)
    assert len(t.state.log) == 24


def test_play_helper_returns_the_state() -> None:
    """The `play` helper used by rule tests: lines in, state out (000 rule 3: one puck at a time)."""
    state = play("beginner", SINGLES, ["shot", "shot hit"])
    assert state.game is not None and state.game.board == (1, 1) and state.to_shoot() == 0


@pytest.mark.parametrize("line", ["North ²", "confirm ٣", "correct " + "9" * 5000 + " shot", "North " + "5" * 5000])
def test_numbers_are_ascii_and_small_or_the_line_is_refused(line: str) -> None:
    """Bad input gets a clear one-line reason: digits that int() cannot take are refused by the notation itself,
    and the reason quotes the word clipped, not 5,000 characters of it."""
    t = Table("beginner")
    reason = t.refused(line)
    assert len(reason) < 200 and "\n" not in reason


@pytest.mark.parametrize("match", ["games:1", "points:500", "wins:1"])
def test_a_forfeited_game_is_lost_in_every_match_format_NO_a_R_7(match: str) -> None:
    """Decision 8 (docs/rules-coverage.md): a forfeited game is won by the other side, never tied, in every match
    format; the forfeiting side scores 0 and the other its twenties. A match won on points that ends level goes to
    the side that forfeited fewer games, not to a shoot-out (before: a games:1 match whose only game was forfeited
    at 0-0 went to a shoot-out, and its game was reported both won and tied)."""
    t = Table("tournament-2019", match=match)
    t.play("forfeit North phone")
    game = t.game.summary(t.state)["games"][0]
    assert game["winner"] == "South" and game["tied"] is False and game["points"] == [0, 0]
    if match == "points:500":  # the match goes on to 500 points
        assert not t.state.over and t.state.shootout is None
    else:
        assert t.state.over and t.state.winner == 1 and t.state.shootout is None
