"""Flicochet (seed 004, "Flicochet - rules of play"), tested through the notation a scorer types. Every test
names the rule it checks by the seed's own headings ("PLAYING 3", "Penalty rule", "DOUBLE-JACK 4", "TARGET 2",
"SCHOOL RULES 1", "Team rules") and quotes its words; docs/rules-coverage.md (Flicochet part) maps every rule to these
tests and records the decisions where the seed is silent.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.rules.base import Correct, Illegal, NotationError, SetupError, Undo
from flickboard.rules.flicochet import RULE_SETS, Flicochet, State, list_rules, rule_set
from flickboard.rules.flicochet.engine import Distances, Flick, JackOff, Off, Order, Place, check_accounting
from flickboard.rules.flicochet.notation import format_distance, parse, parse_distance
from flickboard.rules.transcript import parse_transcript

PAIR = ("Ana", "Ben")  # Ana is red, Ben white; Ana starts unless told otherwise


class Table:
    """One game, driven by notation lines. `state` is the engine state after the accepted lines."""

    def __init__(
        self,
        rules: str | None = None,
        players: Sequence[str] = PAIR,
        teams: Sequence[str] | None = None,
        start: str | None = None,
        target: int | None = None,
    ) -> None:
        self.game = Flicochet.create(rules, list(players), list(teams) if teams else None, start, target)
        self.state: State = self.game.start()
        self.effects: list[dict[str, object]] = []

    def apply(self, line: str) -> Table:
        parsed = self.game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct), line
        result = self.game.apply(self.state, parsed)
        self.state = result.state
        self.effects = list(result.effects)
        return self

    def play(self, *lines: str) -> Table:
        for line in lines:
            self.apply(line)
        return self

    def refused(self, line: str, *expect: str) -> str:
        """The line is refused with a one-line message saying each of `expect`, and nothing changes."""
        before = self.state
        snapshot = self.game.summary(before)
        with pytest.raises((Illegal, NotationError)) as exc:
            self.apply(line)
        assert self.state is before
        assert self.game.summary(self.state) == snapshot
        msg = str(exc.value)
        assert "\n" not in msg
        for word in expect:
            assert word.lower() in msg.lower(), f"{word!r} not in {msg!r}"
        return msg

    # -- views

    def to_flick(self) -> str | None:
        p = self.state.to_flick()
        return None if p is None else self.state.setup.players[p]

    def flickers(self, n: int) -> list[str]:
        """Flick n times, returning who flicked."""
        out = []
        for _ in range(n):
            who = self.to_flick()
            assert who is not None
            out.append(who)
            self.apply("flick")
        return out

    def flick_all(self) -> Table:
        while self.state.to_flick() is not None:
            self.apply("flick")
        return self

    def totals(self) -> tuple[int, int]:
        return self.state.totals()

    def round(self, *orders: str) -> Table:
        """Play the round in progress out with plain flicks and score it with `orders` (one per jack on the table)."""
        number = self.state.round.number if self.state.round else 0
        while self.state.round is not None and self.state.round.placer is not None:
            self.apply("place")
        self.flick_all()
        for o in orders:
            self.apply(o)
        assert self.state.over or (self.state.round is not None and self.state.round.number == number + 1)
        return self

    @property
    def last(self) -> tuple[int, int]:
        pts = self.state.rounds[-1].points
        assert pts is not None
        return pts


# ---------------------------------------------------------------- set-up, turns and the start player


def test_two_to_six_players_six_discs_each_colour_contents_setting_up_2() -> None:
    """'For 2-6 players'; 'Contents: 6 red discs, 6 white discs'; SETTING UP 2: 'takes the 6 corresponding discs'."""
    t = Table()
    assert [t.state.hand(0), t.state.hand(1)] == [6, 6]
    assert [t.state.player_hand(0), t.state.player_hand(1)] == [6, 6]
    doc = t.game.summary(t.state)
    assert doc["sides"] == [{"name": "red", "players": ["Ana"]}, {"name": "white", "players": ["Ben"]}]
    for players in (["Ana"], ["A1", "B1", "C1", "D1", "E1", "F1", "G1"]):
        with pytest.raises(SetupError, match="2 to 6 players"):
            Flicochet.create(None, players)
    Flicochet.create(None, ["A1", "B1", "C1", "D1", "E1", "F1"])


def test_start_player_is_drawn_and_flicks_first_setting_up_3_playing_2() -> None:
    """SETTING UP 3 'Randomly decide which player will start' (the draw is off the engine: the Start tag);
    PLAYING 2 'Beginning with the start player, the players take turns flicking one of their discs'."""
    t = Table(start="Ben")
    assert t.flickers(4) == ["Ben", "Ana", "Ben", "Ana"]
    assert t.game.header()["Start"] == ["Ben"]
    with pytest.raises(SetupError, match="not one of the players"):
        Flicochet.create(None, list(PAIR), start="Cy")


def test_players_take_turns_a_wrong_player_is_refused_playing_2() -> None:
    """PLAYING 2 'the players take turns flicking one of their discs': the wrong player is refused."""
    t = Table()
    t.apply("flick Ana")
    t.refused("flick Ana", "Ben's flick", "not Ana's")
    t.apply("flick ben")  # names are matched without regard to case
    assert t.to_flick() == "Ana"


def test_all_twelve_discs_are_flicked_before_scoring_game_overview_playing_3() -> None:
    """GAME OVERVIEW 'the players take turns flicking their 6 discs ... After all discs have been flicked, the
    table is scored'; PLAYING 3 'When all discs have been flicked, the table is scored'."""
    t = Table()
    t.flickers(11)
    t.refused("order R", "every disc has been flicked", "1 still in hand")
    t.apply("flick")
    assert t.to_flick() is None and [t.state.hand(0), t.state.hand(1)] == [0, 0]
    assert [q.kind for q in t.state.questions()] == ["order"]
    t.refused("flick", "every disc has been flicked", "order")


def test_the_start_player_places_the_jack_in_the_centre_needs_no_input_playing_1() -> None:
    """PLAYING 1 'The start player puts the jack in the centre of the table': nothing to record; play starts."""
    t = Table()
    assert t.state.round is not None and t.state.round.jacks == ("table",)
    assert t.state.questions() == () and t.to_flick() == "Ana"
    t.refused("place", "already in place", "Target")


# ---------------------------------------------------------------- scoring


def test_scoring_example_red_has_the_two_closest_playing_3() -> None:
    """PLAYING 3 example: 'the red player has the closest disc ... as well as the second closest. The closest white
    disc ... is third closest overall. Therefore, the red player scores 2 points'."""
    t = Table().round("order R R W R W")
    assert t.last == (2, 0) and t.totals() == (2, 0)


def test_only_the_closest_side_scores_one_per_disc_closer_playing_3() -> None:
    """PLAYING 3 'Only the player who owns the closest disc to the jack will get points ... 1 point for every disc
    he or she has closer to the jack than the opponent's closest disc'."""
    t = Table().round("order W R R R")
    assert t.last == (0, 1)
    t.round("order WWW R W")
    assert t.last == (0, 3) and t.totals() == (0, 4)


def test_the_order_needs_only_the_discs_up_to_the_other_sides_closest_playing_3() -> None:
    """PLAYING 3: the points are decided by the other side's closest disc, so the order may stop there; but while
    the other side has a disc on the table the order must reach it."""
    t = Table().flick_all()
    t.refused("order R R", "up to the closest white")
    t.apply("order R R W")
    assert t.last == (2, 0)


def test_only_discs_left_on_the_table_are_scored_playing_3() -> None:
    """PLAYING 3 'Only discs left on the table are considered in scoring.'"""
    t = Table()
    t.play("flick", "flick", "off W")  # Ben's first disc flew off the table
    t.flick_all()
    assert t.state.round is not None and t.state.round.table == (6, 5)
    t.refused("order W W W W W W R", "6 white disc(s) but only 5 are on the table")
    t.apply("order W W W W W R")
    assert t.last == (0, 5)


def test_a_side_with_no_disc_left_on_the_table_playing_3() -> None:
    """PLAYING 3: with no white disc on the table there is no 'opponent's closest disc', so every red disc on the
    table is closer: name them all. With no disc at all, nobody scores."""
    t = Table()
    for _ in range(6):
        t.play("flick", "flick", "off W")
    t.refused("order R R", "name all 6 red")
    t.apply("order R R R R R R")
    assert t.last == (6, 0)
    for _ in range(6):
        t.play("flick", "off R", "flick", "off W")
    t.refused("order R", "1 red disc(s) but only 0")
    t.apply("order none")
    assert t.last == (0, 0)


def test_measured_distances_score_the_same_decimal_safe_playing_3() -> None:
    """PLAYING 3 scored from measured distances: 'dist R 3.5 W 4 ...', every disc on the table, in cm with at most
    one decimal, kept as whole tenths (no float). The closest side scores its discs strictly closer."""
    t = Table().flick_all()
    t.refused("dist R 3.5 W 4", "every disc on the table", "6 red")
    t.apply("dist R 3.5 W 4 R 0.5 R 12 R 40.1 R 100 R 100 W 12 W 20 W 30 W 50 W 60")
    assert t.last == (2, 0)
    assert parse_distance("12.5") == 125 and parse_distance("0.1") == 1 and format_distance(120) == "12"
    for bad in ("12.55", "1e3", "1234", "-3", "12,5", "½", "٣"):
        with pytest.raises(NotationError, match="not a distance"):
            parse_distance(bad)


def test_a_disc_as_far_as_the_other_sides_closest_is_not_closer_playing_3() -> None:
    """PLAYING 3 'closer to the jack than the opponent's closest disc': a disc exactly as far does not score."""
    t = Table().flick_all()
    t.apply("dist R 5 R 9 W 9 W 30 W 31 W 32 W 33 W 34 R 50 R 51 R 52 R 53")
    assert t.last == (1, 0)


def test_a_tie_for_the_closest_disc_is_measured_again_playing_3_measuring_card() -> None:
    """PLAYING 3 'Use the measuring card to compare short distances': a red and a white disc entered at the same
    distance are refused; the scorer measures and gives the order instead."""
    t = Table().flick_all()
    msg = t.refused("dist R 7 W 7 R 8 R 9 R 10 R 11 R 12 W 20 W 21 W 22 W 23 W 24", "measuring card", "order")
    assert "7 cm" in msg
    t.apply("order W R")
    assert t.last == (0, 1)


def test_first_to_eight_points_wins_game_overview_playing_4() -> None:
    """GAME OVERVIEW 'The first player to get 8 points wins!'; PLAYING 4 'If a player has 8 points or more, he or
    she wins the game!'"""
    t = Table().round("order R R R R W").round("order R R R W")
    assert t.totals() == (7, 0) and not t.state.over
    t.round("order R R W")
    assert t.totals() == (9, 0) and t.state.over and t.state.winner == 0
    assert t.effects[-1] == {"type": "game-over", "winner": "red", "totals": [9, 0]}
    t.refused("flick", "the game is over", "red won")
    assert t.game.summary(t.state)["winner"] == "red"


def test_more_points_starts_next_round_a_tie_switches_playing_4() -> None:
    """PLAYING 4 'The player with more points is now the start player. If scores are tied, the players switch
    who starts.'"""
    t = Table()
    t.round("order W R")  # white leads 1-0
    assert t.to_flick() == "Ben"
    t.round("order W R")  # still white
    assert t.to_flick() == "Ben"
    t.round("order R R W")  # 2-2: tied, so the start switches from Ben to Ana
    assert t.totals() == (2, 2) and t.to_flick() == "Ana"
    t.round("order R W")  # red leads 3-2
    assert t.to_flick() == "Ana"


# ---------------------------------------------------------------- penalty and proximity


def test_jack_off_the_table_ends_the_round_three_to_the_opponent_penalty_rule() -> None:
    """Penalty rule: 'If a player's flick causes the jack to come off the table, the round ends and their opponent
    receives 3 points!'"""
    t = Table().play("flick", "flick", "flick", "jack off")  # Ana's second flick
    assert t.last == (0, 3) and t.state.rounds[-1].ended == "jack"
    assert {"type": "jack-off", "jack": 1, "by": "red", "penalty": 3, "to": "white"} in t.effects
    assert t.to_flick() == "Ben"  # white has more points and starts (PLAYING 4)
    assert [t.state.hand(0), t.state.hand(1)] == [6, 6]


def test_jack_off_needs_a_flick_that_caused_it_penalty_rule() -> None:
    """Penalty rule 'a player's flick causes the jack to come off': no flick yet, nothing to blame."""
    t = Table()
    t.refused("jack off", "no disc has been flicked")
    t.refused("jack off 2", "no disc has been flicked")
    t.apply("flick")
    t.refused("jack off 2", "no jack 2")


def test_proximity_rule_a_disc_is_placed_at_least_8_cm_from_the_jack() -> None:
    """Proximity rule: 'A player's disc must always be at least 8 cm from the jack when it is placed for flicking':
    a flick measured closer is refused (the disc is moved back), 8 cm exactly is fine."""
    t = Table()
    t.refused("flick at 7.9", "proximity rule", "at least 8 cm", "7.9 cm")
    t.play("flick Ana at 8", "flick at 35.5")
    assert t.flickers(1) == ["Ana"]


# ---------------------------------------------------------------- teams


def test_more_than_two_players_play_in_two_teams_team_rules() -> None:
    """Team rules: 'If more than 2 people are playing, divide the players into 2 teams: red and white. The teams
    may have an unequal number of players.' More than 2 players adds the teams layer; 2 players cannot take it."""
    g = Flicochet.create(None, ["Ana", "Ben", "Cy"])
    assert g.options.name == "flicochet+teams" and g.header()["Teams"] == ["red", "white", "red"]
    g = Flicochet.create("flicochet", ["Ana", "Ben", "Cy", "Dee"], ["red", "white", "white", "white"])
    assert g.setup.members(0) == (0,) and g.setup.members(1) == (1, 2, 3)
    with pytest.raises(SetupError, match="3 to 6 players"):
        Flicochet.create("flicochet+teams", list(PAIR))
    with pytest.raises(SetupError, match="each team"):
        Flicochet.create(None, ["Ana", "Ben", "Cy"], ["red", "red", "red"])
    with pytest.raises(SetupError, match="not a team"):
        Flicochet.create(None, ["Ana", "Ben", "Cy"], ["red", "blue", "red"])


def test_team_discs_shared_evenly_members_take_turns_team_rules() -> None:
    """Team rules: 'Divide the team's discs evenly among its players. Team-members take it in turn to flick when it
    is their team's turn'. 2 against 1: 3 discs each against 6."""
    t = Table(players=["Ana", "Ben", "Cy"])  # red Ana+Cy, white Ben
    hands = {p: t.state.player_hand(i) for i, p in enumerate(t.state.setup.players)}
    assert hands == {"Ana": 3, "Ben": 6, "Cy": 3}
    assert t.flickers(12) == ["Ana", "Ben", "Cy", "Ben"] * 3
    t.refused("flick", "every disc has been flicked")


def test_uneven_team_shares_as_evenly_as_possible_team_rules() -> None:
    """Team rules 'evenly': 6 discs among 4 members cannot be even, so turns give 2, 2, 1, 1 (decision 3)."""
    t = Table(players=["Ana", "Ben", "Cy", "Dee", "Eve"], teams=["red", "white", "white", "white", "white"])
    assert [t.state.player_hand(i) for i in range(5)] == [6, 2, 2, 1, 1]
    assert t.flickers(12)[1::2] == ["Ben", "Cy", "Dee", "Eve", "Ben", "Cy"]


def test_team_members_rotate_who_flicks_first_each_round_team_rules() -> None:
    """Team rules: team members 'rotate who flicks first for a round'."""
    t = Table(players=["Ana", "Ben", "Cy", "Dee"])  # red Ana+Cy, white Ben+Dee
    assert t.flickers(4) == ["Ana", "Ben", "Cy", "Dee"]
    t.flick_all().apply("order R W")  # red 1-0, red starts again
    assert t.flickers(4) == ["Cy", "Dee", "Ana", "Ben"]
    t.flick_all().apply("order R W")
    assert t.flickers(2) == ["Ana", "Ben"]
    summary = t.game.summary(t.state)
    assert summary["current"]["start_player"] == "Ana"
    assert summary["current"]["in_hand_by_player"] == {"Ana": 2, "Ben": 2, "Cy": 3, "Dee": 3}


# ---------------------------------------------------------------- Double-Jack


def test_two_jacks_each_scored_a_disc_may_count_twice_double_jack_1_2() -> None:
    """DOUBLE-JACK 1 'Start each round with 2 jacks'; 2 'points are awarded for both jacks. A disc may be considered
    in each scoring.' Example: 'Jack A awards red 1 point ... Jack B awards red a further 2 points.'"""
    t = Table("flicochet+double-jack").flick_all()
    assert t.state.round is not None and t.state.round.jacks == ("table", "table")
    assert [q.text for q in t.state.questions()] == [
        "enter the discs on the table by distance to jack 1, closest first (PLAYING 3)",
        "enter the discs on the table by distance to jack 2, closest first (PLAYING 3)",
    ]
    t.refused("order R W", "two jacks", "order 1")
    t.apply("order 1 R W")
    t.refused("order 1 R W", "already scored")
    t.apply("order 2 R R W")
    assert t.last == (3, 0) and t.state.rounds[-1].jack_points == ((1, 0), (2, 0))


def test_both_sides_may_score_in_a_round_double_jack_2() -> None:
    """DOUBLE-JACK 2 'Both players may score points in a round.'"""
    t = Table("flicochet+double-jack").round(
        "order 1 R R W", "dist 2 W 3 R 4 W 5 R 6 R 7 R 8 W 9 W 10 W 11 W 12 R 13 R 14"
    )
    assert t.last == (2, 1)


def test_play_to_twelve_double_jack_3() -> None:
    """DOUBLE-JACK 3 'Play to 12 points. If a player has 12 points or more after a round, he or she wins.'"""
    t = Table("flicochet+double-jack")
    assert t.game.header()["Target"] == ["12"]
    t.round("order 1 R R R R W", "order 2 R R R R W")
    assert t.totals() == (8, 0) and not t.state.over
    t.round("order 1 R R W", "order 2 R R W")
    assert t.totals() == (12, 0) and t.state.winner == 0


def test_both_reach_twelve_most_points_wins_a_tie_plays_another_round_double_jack_3() -> None:
    """DOUBLE-JACK 3 'If both players reach 12 points in the same round, the player with the most points wins. If
    they are tied, another round is played.'"""
    t = Table("flicochet+double-jack")
    t.round("order 1 RRRRR W", "order 2 W R")  # 5-1
    t.round("order 1 R W", "order 2 WWWWW R")  # 6-6
    t.round("order 1 RRRRR W", "order 2 WWWWW R")  # 11-11
    t.round("order 1 R W", "order 2 W R")  # 12-12: tied at the target
    assert t.totals() == (12, 12) and not t.state.over
    assert any(fx["type"] == "tied-at-target" for fx in t.effects)
    t.round("order 1 R R W", "order 2 W R")  # 14-13
    assert t.state.over and t.state.winner == 0


def test_one_jack_off_two_points_at_round_end_play_continues_double_jack_4() -> None:
    """DOUBLE-JACK 4 'If a player knocks 1 of the 2 jacks off the table, play continues, but the opposing player
    receives 2 extra points at the end of the round.' The jack off the table is not scored (decision 5)."""
    t = Table("flicochet+double-jack").play("flick", "jack off 1")
    assert not t.state.rounds and t.to_flick() == "Ben"
    t.refused("jack off 1", "already off")
    t.flick_all()
    assert [q.text for q in t.state.questions()] == [
        "enter the discs on the table by distance to jack 2, closest first (PLAYING 3)"
    ]
    t.refused("order 1 R W", "jack 1 is off the table")
    t.apply("order 2 R W")
    assert t.last == (1, 2)


def test_second_jack_off_normal_penalty_both_by_one_player_five_double_jack_4() -> None:
    """DOUBLE-JACK 4 'If the second jack is knocked off, the normal penalty rule applies. This means that if one
    player knocks both jacks off, 5 penalty points are awarded to the opponent!'"""
    t = Table("flicochet+double-jack").play("flick", "flick", "jack off 2", "jack off")
    assert t.last == (5, 0) and t.state.rounds[-1].ended == "jack"
    t = Table("flicochet+double-jack").play("flick", "jack off 1", "flick", "jack off")
    assert t.last == (3, 2)


# ---------------------------------------------------------------- Target


def test_start_player_flicks_the_jack_into_place_then_begins_target_2() -> None:
    """TARGET 2 'the start player will flick the jack ... Once the jack is positioned, the start player begins
    play.' (TARGET 1, the one flicking edge, is not a scoring matter.)"""
    t = Table("flicochet+target", start="Ben")
    assert [(q.kind, q.text) for q in t.state.questions()] == [("place", "Ben flicks the jack into place (TARGET 2)")]
    t.refused("flick", "first the jack", "place")
    t.refused("place Ana", "white places the jack")
    t.apply("place Ben")
    assert t.to_flick() == "Ben"
    t.refused("place", "already in place")


def test_jack_off_during_placement_the_other_player_positions_it_target_2() -> None:
    """TARGET 2 'If the jack comes off the table during placement, the other player will position it.' No penalty:
    it is not a flick of a disc (decision 6)."""
    t = Table("flicochet+target").apply("place off")
    assert t.state.questions()[0].text == "Ben positions the jack: a jack left the table while being placed (TARGET 2)"
    assert t.state.round is not None and t.state.round.penalties == (0, 0)
    t.refused("place off", "does not leave the table")
    t.refused("place Ana", "white places the jack")
    t.apply("place")
    assert t.to_flick() == "Ana"  # 'the start player begins play'


def test_target_with_two_jacks_start_player_places_both_mix_and_match() -> None:
    """MIX AND MATCH: 'If you play Flicochet Target with two jacks, then the start player gets to position both of
    the jacks ... If either jack comes off the table during positioning, the other player positions them.'"""
    t = Table("flicochet+target+double-jack").play("place", "place")
    assert t.to_flick() == "Ana"
    t = Table("flicochet+double-jack+target").play("place", "place off")
    assert t.state.round is not None and t.state.round.jacks == ("table", "unplaced")
    assert t.state.questions()[0].side == 1
    t.apply("place Ben")
    assert t.to_flick() == "Ana"
    t = Table("flicochet+double-jack+target").play("place off", "place", "place")
    assert t.state.round is not None and t.state.round.placer is None and t.to_flick() == "Ana"


def test_every_round_starts_with_placing_the_jack_target_2() -> None:
    """TARGET 2 'At the start of each round, the jack is positioned by the start player.'"""
    t = Table("flicochet+target").round("order W R")
    assert t.state.questions()[0].text == "Ben flicks the jack into place (TARGET 2)"


# ---------------------------------------------------------------- School Rules


def test_opponent_disc_knocked_off_gives_its_owner_a_point_school_rules_1() -> None:
    """SCHOOL RULES 1 'If a flick causes an opponent's disc to come off the table, the opponent receives 1 extra
    point at the end of the round. ... play still continues ... multiple points ... There is no penalty if a player
    knocks their own discs off the table'."""
    t = Table("flicochet+school").play("flick", "flick", "flick", "off W by R", "off R", "flick", "off R", "off W")
    assert t.state.round is not None and t.state.round.knocked == (1, 1) and t.state.round.off == (2, 2)
    t.flick_all().apply("order R W")
    assert t.last == (1 + 1, 1)


def test_without_school_rules_knocked_off_discs_give_nothing_playing_3() -> None:
    """Base game: a disc knocked off only stops counting (PLAYING 3 'Only discs left on the table')."""
    t = Table().play("flick", "flick", "off R").flick_all().apply("order W R")
    assert t.last == (0, 1)


def test_school_points_also_when_the_jack_ends_the_round_school_rules_1_penalty_rule() -> None:
    """SCHOOL RULES 1 'at the end of the round' + Penalty rule: the round ends at the jack, both are paid."""
    t = Table("flicochet+school").play("flick", "flick", "off R", "jack off")
    assert t.last == (1 + 3, 0)


def test_off_names_the_flicker_and_needs_a_disc_on_the_table_school_rules_1() -> None:
    """SCHOOL RULES 1 'If a flick causes ...': the latest flick did it; `by` is checked against it."""
    t = Table("flicochet+school")
    t.refused("off W", "no disc has been flicked")
    t.apply("flick")
    t.refused("off W", "no white disc is on the table")
    t.refused("off R by W", "latest flick was Ana's (red)")
    t.flick_all().apply("order R W")
    assert t.last == (1, 0)


# ---------------------------------------------------------------- rule-set names


def test_variants_combine_in_any_order_mix_and_match() -> None:
    """MIX AND MATCH VARIANTS 'The different Flicochet variants can be combined in any way you like! For example,
    you can play Double-Jack Flicochet with School Rules and in teams!'"""
    o = rule_set("flicochet+school+double-jack+teams")
    assert o.name == "flicochet+double-jack+school+teams" and o.layers == ("double-jack", "school", "teams")
    assert (o.jacks, o.target, o.school, o.teams, o.target_variant) == (2, 12, True, True, False)
    assert len(RULE_SETS) == 16 and all(rule_set(n).name == n for n in RULE_SETS)
    assert rule_set("Flicochet + Double + school-rules").name == "flicochet+double-jack+school"
    for bad, says in (
        ("pichenotte", "unknown rule set"),
        ("flicochet+triple-jack", "unknown variant 'triple-jack'"),
        ("flicochet+school+school", "named twice"),
    ):
        with pytest.raises(ValueError, match=says):
            rule_set(bad)
    names = [n for n, _ in list_rules()]
    assert names[:5] == [
        "flicochet",
        "flicochet+double-jack",
        "flicochet+target",
        "flicochet+school",
        "flicochet+teams",
    ]
    assert all(len(row) == 2 and row[1] for row in rule_set("flicochet+target").describe())


def test_play_to_can_be_set_for_a_short_game() -> None:
    """A product option beside the seed: the Target tag overrides 8/12 (decision 8)."""
    t = Table(target=2).round("order R R W")
    assert t.state.over
    with pytest.raises(SetupError, match="not a number"):
        Flicochet.create(None, list(PAIR), target="ten")


# ---------------------------------------------------------------- header, notation, summary


def test_header_round_trip_and_transcript() -> None:
    """The header carries everything create() needs; a transcript replays through it."""
    g = Flicochet.create("flicochet+school+target", ["Ana", "Ben", "Cy"], ["white", "red", "red"], "Cy", 9)
    h = g.header()
    assert h == {
        "Game": ["flicochet"],
        "Rules": ["flicochet+target+school+teams"],
        "Target": ["9"],
        "Players": ["Ana", "Ben", "Cy"],
        "Teams": ["white", "red", "red"],
        "Start": ["Cy"],
    }
    assert Flicochet.from_header(h) == g
    with pytest.raises(SetupError, match="not flicochet"):
        Flicochet.from_header({**h, "Game": ["pichenotte"]})
    with pytest.raises(SetupError, match="Players"):
        Flicochet.from_header({"Game": ["flicochet"]})
    text = '[Game "flicochet"]\n[Rules "flicochet"]\n[Players "Ana" "Ben"]\nflick Ana\nflick  # Ben\n'
    tr = parse_transcript(text)
    game = Flicochet.from_header(tr.header)
    state = game.start()
    for _, line in tr.lines:
        parsed = game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct)
        state = game.apply(state, parsed).state
    assert state.round is not None and state.round.flicks == (1, 1)


ROUND_TRIP = [
    ("flick", Flick()),
    ("flick Ana", Flick(0)),
    ("flick Ben at 12.5", Flick(1, 125)),
    ("flick at 8", Flick(None, 80)),
    ("off W", Off(1)),
    ("off R by W", Off(0, 1)),
    ("jack off", JackOff()),
    ("jack off 2", JackOff(2)),
    ("place", Place()),
    ("place Ben off", Place(1, True)),
    ("order R W R", Order(None, (0, 1, 0))),
    ("order 2 W R", Order(2, (1, 0))),
    ("order none", Order(None, ())),
    ("dist 1 R 12.5 W 20", Distances(1, ((0, 125), (1, 200)))),
    ("dist R 0.5", Distances(None, ((0, 5),))),
    ("undo", Undo()),
    ("correct 3 order R W", Correct(3, "order R W")),
    ("correct 3 -", Correct(3, None)),
]


@pytest.mark.parametrize(("text", "line"), ROUND_TRIP)
def test_notation_parses_and_formats_canonically(text: str, line: object) -> None:
    """The notation is one line per input; format(parse(x)) is canonical and parses back to the same input."""
    g = Flicochet.create(None, list(PAIR))
    assert g.parse(text) == line
    assert g.format(g.parse(text)) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("FLICK ana", "flick Ana"),
        ("order rrw", "order R R W"),
        ("order red white", "order R W"),
        ("order -", "order none"),
        ("dist 1 r 20.0 white 3", "dist 1 R 20 W 3"),
        ("distances R 5", "dist R 5"),
        ("off white by red  # a comment", "off W by R"),
    ],
)
def test_notation_accepts_short_and_long_forms(text: str, canonical: str) -> None:
    g = Flicochet.create(None, list(PAIR))
    parsed = g.parse(text)
    assert parsed is not None and g.format(parsed) == canonical
    assert g.parse("   # only a comment") is None


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("shoot", "not a word of the notation"),
        ("flick Zed", "not a player"),
        ("flick Ana at", "flick [PLAYER] [at CM]"),
        ("flick Ana at 12.55", "not a distance"),
        ("flick at 1e3", "not a distance"),
        ("off", "write 'off R'"),
        ("off B", "not a colour"),
        ("off R by", "write 'off R'"),
        ("jack", "write 'jack off'"),
        ("jack off 3", "write 'jack off'"),
        ("place Ana Ben", "write 'place"),
        ("order", "write 'order R W R"),
        ("order R X", "not a disc"),
        ("order " + "R" * 13, "only 12"),
        ("dist R", "write 'dist R 12.5"),
        ("dist R 12.5 W", "write 'dist R 12.5"),
        ("dist R twelve", "not a distance"),
        ("dist R 9999", "not a distance"),
        ("undo now", "takes nothing"),
        ("correct x flick", "correct N LINE"),
        ("correct 3", "correct N LINE"),
        ("flick " + "x" * 80, "not a player"),
    ],
)
def test_bad_lines_are_refused_with_one_clear_line(line: str, says: str) -> None:
    """Bad input is refused with a clear one-line message and never changes the state."""
    t = Table().play("flick")
    msg = t.refused(line, says)
    assert len(msg) < 200


@pytest.mark.parametrize(
    ("players", "says"),
    [
        (["Ana", "ana"], "differ only in case"),
        (["Zoé", "Zoe"], "differ only in case or accents"),
        (["Ana", "R"], "word of the notation"),
        (["Ana", "RW"], "word of the notation"),
        (["Ana", "order"], "word of the notation"),
        (["Ana", "12"], "cannot be a name"),
        (["Ana", "B:n"], "cannot be a name"),
        (["Ana", "+."], "no letters the notation can use"),
    ],
)
def test_names_read_one_way(players: list[str], says: str) -> None:
    with pytest.raises(SetupError, match=says):
        Flicochet.create(None, players)


def test_names_are_peoples_names_and_lines_use_their_short_form() -> None:
    """Two words, accents, apostrophes, hyphens, a '+' or a '.': kept whole, and named in a line by a word of
    their own (flickboard/rules/names.py); `+` and `.` mean something in this notation, so a short form leaves them
    out."""
    g = Flicochet.create(None, ["Marie-Claire O'Neil", "Zoé Lévesque", "Ana B. Silva", "Ana Costa"])
    assert g.setup.players == ("Marie-Claire O'Neil", "Zoé Lévesque", "Ana B. Silva", "Ana Costa")
    for typed, who in (("flick zoe", 1), ("flick Marie-Claire O'Neil", 0), ("flick AnaB", 2), ("flick ana costa", 3)):
        inp = g.parse(typed)
        assert isinstance(inp, Flick) and inp.player == who, typed
        again = g.parse(g.format(inp))  # the canonical line reads back the same
        assert isinstance(again, Flick) and again.player == who
    assert g.format(g.parse("flick Zoé Lévesque")) == "flick Zoé"


def test_summary_document_fields() -> None:
    """The summary is a flickboard-summary v1 document for "flicochet"."""
    t = Table("flicochet+school+double-jack", players=["Ana", "Ben", "Cy"])
    t.play("flick", "flick", "off R", "jack off 2")
    doc = t.game.summary(t.state, rejected=3)
    assert doc["format"] == "flickboard-summary" and doc["version"] == 1 and doc["game"] == "flicochet"
    assert doc["rules"] == "flicochet+double-jack+school+teams"
    assert doc["variants"] == ["double-jack", "school", "teams"] and doc["target"] == 12 and doc["jacks"] == 2
    assert doc["sides"] == [{"name": "red", "players": ["Ana", "Cy"]}, {"name": "white", "players": ["Ben"]}]
    cur = doc["current"]
    assert cur["round"] == 1 and cur["to_flick"] == "Cy" and cur["start_player"] == "Ana"
    assert cur["jacks"] == ["table", "off"] and cur["penalties"] == [2, 0]
    assert cur["in_hand"] == [5, 5] and cur["on_table"] == [0, 1] and cur["off_table"] == [1, 0]
    assert cur["in_hand_by_player"] == {"Ana": 2, "Ben": 5, "Cy": 3}
    assert cur["knocked_off_by_opponent"] == [1, 0]
    assert doc["rounds"] == [] and doc["totals"] == [0, 0] and doc["questions"] == []
    assert doc["over"] is False and doc["winner"] is None and doc["rejected_inputs"] == 3
    t.flick_all().apply("order 1 W R")
    doc = t.game.summary(t.state)
    assert doc["rounds"][0]["points"] == [2 + 1, 1] and doc["rounds"][0]["orders"] == ["WR", None]
    assert doc["totals"] == [3, 1] and doc["current"]["round"] == 2


# ---------------------------------------------------------------- properties


LINES = [
    "flick",
    "flick at 7",
    "flick at 8.5",
    "off R",
    "off W",
    "off R by W",
    "off W by R",
    "jack off",
    "jack off 1",
    "jack off 2",
    "place",
    "place off",
    "order R W",
    "order W R R",
    "order R R R R R R",
    "order none",
    "order 1 R W",
    "order 2 W R",
    "dist R 3 W 4",
    "flick Ana",
    "flick Ben",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(RULE_SETS)), st.lists(st.sampled_from(LINES), max_size=120))
def test_any_input_keeps_the_disc_accounting(rules: str, lines: list[str]) -> None:
    """Accounting invariant for arbitrary input: each line is accepted or refused with the state untouched, and
    after each, every disc of each colour is in hand, on the table or off the table (6 in all), the players' hands
    add up to their team's, and totals never go down."""
    players = ["Ana", "Ben", "Cy"] if "teams" in rules else list(PAIR)
    t = Table(rules, players)
    totals = (0, 0)
    for line in lines:
        before = t.state
        try:
            t.apply(line)
        except (Illegal, NotationError):
            assert t.state is before
            continue
        check_accounting(t.state)
        new = t.totals()
        assert new[0] >= totals[0] and new[1] >= totals[1]
        totals = new


@st.composite
def legal_game(draw: st.DrawFn) -> tuple[Flicochet, list[str]]:
    """A random game of legal lines, built by looking at the state."""
    rules = draw(st.sampled_from(sorted(RULE_SETS)))
    n = draw(st.integers(3, 6)) if "teams" in rules else 2
    players = [f"P{i}" for i in range(n)]
    game = Flicochet.create(rules, players, start=draw(st.sampled_from(players)))
    state = game.start()
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 150))):
        if state.over:
            break
        r = state.round
        assert r is not None
        qs = state.questions()
        scoring = any(o is not None for o in r.orders)
        if r.placer is not None:
            line = "place off" if r.placer == r.start and draw(st.integers(0, 4)) == 0 else "place"
        elif r.last is not None and not scoring and draw(st.integers(0, 5)) == 0:
            on = [j + 1 for j, s in enumerate(r.jacks) if s == "table"]
            choice = draw(st.integers(0, 3))
            if choice < 2 and r.table[choice]:
                line = "off " + "RW"[choice] + draw(st.sampled_from(["", " by " + "RW"[state.setup.side_of(r.last)]]))
            elif choice == 3 and draw(st.integers(0, 2)) == 0:
                line = f"jack off {on[0]}" if len(r.jacks) > 1 else "jack off"
            else:
                continue
        elif state.to_flick() is not None:
            line = draw(st.sampled_from(["flick", "flick at 8", "flick at 20.5"]))
        else:
            q = next(q for q in qs if q.kind == "order")
            j = q.answers[0].split()[1] if len(r.jacks) > 1 else ""
            discs = [0] * r.table[0] + [1] * r.table[1]
            discs = draw(st.permutations(discs))
            if draw(st.booleans()):
                dist = sorted(
                    draw(st.lists(st.integers(1, 2000), min_size=len(discs), max_size=len(discs), unique=True))
                )
                words = [f"{'RW'[s]} {format_distance(d)}" for s, d in zip(discs, dist, strict=True)]
                line = " ".join(["dist", *([j] if j else []), *words]) if words else "order none"
            else:
                words = ["RW"[s] for s in discs]
                line = " ".join(["order", *([j] if j else []), *words]) if words else "order none"
        parsed = game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct)
        state = game.apply(state, parsed).state  # every generated line is legal
        lines.append(line)
    return game, lines


@settings(max_examples=150, deadline=None)
@given(legal_game())
def test_replay_is_deterministic_and_canonical_lines_replay_the_same(case: tuple[Flicochet, list[str]]) -> None:
    """The state is a pure fold over the lines; replaying them, or their canonical form, gives
    the same state, the same effects and the same summary."""
    game, lines = case

    def fold(ls: list[str]) -> tuple[State, list[tuple[dict[str, object], ...]]]:
        state = game.start()
        fx = []
        for text in ls:
            parsed = game.parse(text)
            assert parsed is not None and not isinstance(parsed, Undo | Correct)
            r = game.apply(state, parsed)
            check_accounting(r.state)
            state = r.state
            fx.append(r.effects)
        return state, fx

    one, fx1 = fold(lines)
    two, fx2 = fold(lines)
    assert one == two and fx1 == fx2
    canonical = []
    for text in lines:
        parsed = game.parse(text)
        assert parsed is not None
        canonical.append(game.format(parsed))
    three, fx3 = fold(canonical)
    assert three == one and fx3 == fx1
    assert game.summary(three) == game.summary(one)
    for r in one.rounds:
        assert r.points is not None and min(r.points) >= 0


def test_engine_inputs_and_states_are_immutable_values() -> None:
    """Pure and immutable: inputs and states are frozen dataclasses; applying never mutates the old state."""
    t = Table()
    before = t.state
    t.play("flick")
    assert before.round is not None and before.round.flicks == (0, 0)
    with pytest.raises(AttributeError):
        before.round.flicks = (1, 0)  # type: ignore[misc]
    assert parse(t.state.setup, "order R W") == Order(None, (0, 1))


def test_double_jack_with_one_jack_left_is_scored_and_knocked_off_without_saying_which_double_jack_4() -> None:
    """DOUBLE-JACK 4: after one jack went off, play goes on with the other; 'order' and 'jack off' then mean the jack
    still on the table (before, both were refused with 'say which', as the prompt and the README suggest them)."""
    g = Flicochet.create("flicochet+double-jack", ["Ana", "Ben"])
    t = Table("flicochet+double-jack").play("flick", "jack off 1")
    while t.state.to_flick() is not None:
        t.play("flick")
    t.play("order R W")  # the jack still on the table: jack 2
    assert t.state.round is None or t.state.round.number >= 1
    assert "first to 12 points" in g.options.summary and "8 points" not in g.options.summary


def test_the_prompt_names_the_jacks_still_on_the_table_double_jack_4() -> None:
    """What the scorer reads at the prompt: with two jacks on the table, 'jack off 1 | jack off 2' (a bare 'jack off'
    would be refused); once one is off, 'jack off' again."""
    from flickboard.core.render_games import prompt_line

    t = Table("flicochet+double-jack").play("flick")
    assert "jack off 1 | jack off 2" in prompt_line(t.game.summary(t.state))
    t.play("jack off 1")
    assert prompt_line(t.game.summary(t.state)).endswith("| jack off")


def test_a_target_of_its_own_is_the_one_the_summary_says_playing_4_double_jack_3() -> None:
    """PLAYING 4 (8 points) and DOUBLE-JACK 3 (12): a game played to another target says that target, never both."""
    for rules, target, said in (
        ("flicochet", 12, "first to 12 points"),
        ("flicochet+double-jack", 8, "first to 8 points"),
        ("flicochet+school", 1, "first to 1 point;"),
    ):
        summary = Flicochet.create(rules, ["Cy", "Di"], None, None, target).options.summary
        assert said in summary, summary
        assert "play to" not in summary and summary.count("first to") == 1, summary
