"""Québec Pichenottes (seed 003, "Règlements officiels du jeu de Pichenottes"), tested through the notation a
scorer types. Every test names the rule it checks as the seed numbers it ("règle 11", "règle 17.3");
docs/rules-coverage.md (Québec part) maps every rule to these tests and records the decisions where the seed is silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.rules.base import Correct, Illegal, NotationError, SetupError, Undo
from flickboard.rules.quebec import RULE_SETS, Quebec, State
from flickboard.rules.quebec.engine import COLOURS, Compteuse, Foul, Pocketed, PocketEvidence, Shot, check_accounting
from flickboard.rules.quebec.notation import parse
from flickboard.rules.transcript import parse_transcript

SINGLES = ("Ann", "Bob")  # Ann breaks unless told otherwise
DOUBLES = ("Ann", "Bob", "Cat", "Dan")  # turn order; Ann+Cat against Bob+Dan, partners facing
ALL_RED = "shot " + " ".join(["red"] * 11)  # eleven red dames in one shot


class Table:
    """One partie, driven by notation lines. `state` is the engine state after the accepted lines."""

    def __init__(
        self,
        players: Sequence[str] = SINGLES,
        rules: str | None = None,
        sides: Sequence[str] | None = None,
        target: int | None = None,
        breaker: str | None = None,
    ) -> None:
        self.game = Quebec.create(rules, list(players), list(sides) if sides else None, target, breaker)
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

    def to_play(self) -> str | None:
        seat = self.state.to_play()
        return None if seat is None else self.state.setup.players[seat]

    def colour(self, side: str) -> str | None:
        return self.state.colour_of(self.side(side))

    def side(self, name: str) -> int:
        return [s.lower() for s in self.state.setup.sides].index(name.lower())

    def left(self, side: str) -> int | None:
        return self.state.dames_left(self.side(side))

    def comp(self, value: int) -> tuple[str, str | None]:
        m = self.state.manche
        assert m is not None
        c = next(c for c in m.compteuses if c.value == value)
        return c.where, (self.state.setup.sides[c.side] if c.side is not None else None)

    def stops(self) -> list[str]:
        return list(self.state.log[-1].stops)

    def points(self, manche: int = -1) -> tuple[int, int]:
        pts = self.state.manches[manche].points
        assert pts is not None
        return pts


def ann_red_with_fond() -> Table:
    """Ann broke and pocketed one red: she plays red, has a fond, and shoots again."""
    t = Table().play("shot red")
    assert t.colour("Ann") == "red" and t.to_play() == "Ann"
    return t


# ---------------------------------------------------------------- préliminaires: règles 1-5


def test_two_players_or_four_in_facing_teams_regle_2() -> None:
    """Règle 2: two players, or four in two teams of two with partners facing (seats 1+3 against 2+4)."""
    t = Table(DOUBLES)
    assert t.state.setup.sides == ("Ann+Cat", "Bob+Dan")
    assert [t.state.setup.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    for players in (["Ann"], ["Ann", "Bob", "Cat"], ["A", "B", "C", "D", "E"]):
        with pytest.raises(SetupError, match="règle 2"):
            Quebec.create(None, players)
    # a turn that ends passes to the next seat: the sides alternate
    order = []
    for _ in range(5):
        order.append(t.to_play())
        t.play("shot none")
        if t.state.manche and t.state.manche.chooser is not None:
            t.play("color green")
    assert order == ["Ann", "Bob", "Cat", "Dan", "Ann"]


def test_pieces_twelve_dames_per_colour_two_compteuses_regles_3_4_5() -> None:
    """Règles 3 and 5: 12 green and 12 red dames and the 5 and 10 compteuses, all on the board (the compteuses
    in the centre) when a manche starts; no colour is given yet."""
    t = Table()
    assert t.state.dames == 12
    assert {c: t.state.on_board(c) for c in COLOURS} == {"green": 12, "red": 12}
    assert t.comp(5) == ("board", None) and t.comp(10) == ("board", None)
    doc = t.game.summary(t.state)
    assert doc["current"]["dames_on_board"] == {"green": 12, "red": 12}
    assert doc["current"]["colours"] == [None, None]
    assert [c["where"] for c in doc["current"]["compteuses"]] == ["board", "board"]


def test_values_dame_one_compteuses_five_and_ten_regle_4() -> None:
    """Règle 4: a dame is worth 1 point, the compteuses 5 and 10. Ann wins both compteuses and finishes with
    Bob's 12 dames on the board: 12 + 5 + 10 = 27."""
    t = ann_red_with_fond().play("shot red c5", "shot red c10")
    assert t.comp(5) == ("won", "Ann") and t.comp(10) == ("won", "Ann")
    t.play("shot " + " ".join(["red"] * 9))
    assert t.points(0) == (27, 0)


# ---------------------------------------------------------------- règles de jeu: 6, 7


def play_manche(t: Table, lines: Sequence[str]) -> None:
    """Play `lines`, then end the finisher's turn with `shot none` if it is still looking for compteuses
    (règle 14): the manche must be scored at the end."""
    number = t.state.manche.number if t.state.manche else 0
    t.play(*lines)
    if not t.state.over and t.state.manche is not None and t.state.manche.number == number:
        t.apply("shot none")
    assert t.state.over or (t.state.manche is not None and t.state.manche.number == number + 1)


def test_partie_won_at_31_points_or_more_regle_6() -> None:
    """Règle 6: the partie is won by accumulating at least 31 points; then it is over and refuses input."""
    t = Table()
    assert t.state.target == 31
    # manche 1: Ann breaks red and pockets all her dames with both compteuses: 12 + 15 = 27
    play_manche(t, ["shot red", "shot red c5", "shot red c10", "shot " + " ".join(["red"] * 9)])
    assert t.state.totals() == (27, 0) and not t.state.over
    # manche 2: Bob breaks (règle 7) and finishes at once: Ann has 12 left -> Bob 12; Ann still 27
    assert t.to_play() == "Bob"
    play_manche(t, ["shot green", "shot " + " ".join(["green"] * 11)])
    assert t.state.totals() == (27, 12) and not t.state.over
    # manche 3: Ann breaks again and scores 12: 39 >= 31
    play_manche(t, ["shot red", ALL_RED])
    assert t.state.over and t.state.winner == 0 and t.state.totals() == (39, 12)
    assert t.game.summary(t.state)["winner"] == "Ann"
    assert any(e["type"] == "game-over" for e in t.effects)
    t.refused("shot none", "partie is over", "Ann won")


def test_thirty_points_is_not_enough_regle_6() -> None:
    """Règle 6: "au moins 31 points": 30 does not end the partie."""
    t = Table()
    play_manche(t, ["shot red", "shot red c5", "shot red c10", "shot " + " ".join(["red"] * 9)])  # 27
    t.play("shot green", "shot " + " ".join(["green"] * 8), "shot none")  # Bob: 3 green left
    play_manche(t, ["shot " + " ".join(["red"] * 12)])  # Ann finishes: 3 more
    assert t.state.totals() == (30, 0) and not t.state.over
    assert t.state.manche is not None and t.state.manche.number == 3


def test_exact_tie_at_the_target_plays_another_manche_regle_6() -> None:
    """Règle 6: "En cas d'égalité, les participants jouent un tour supplémentaire": both sides level at or over
    the target is no win; one more manche is played, and its result decides."""
    t = Table(target=14)
    # manche 1: Bob wins the 10 and keeps it (4 left, règle 13); Ann finishes: 4 for Ann, 10 for Bob
    t.play("shot red", "shot none", "shot green", "shot green c10", "shot " + " ".join(["green"] * 6), "shot none")
    play_manche(t, ["shot " + " ".join(["red"] * 11)])
    assert t.state.totals() == (4, 10)
    # manche 2: Bob breaks nothing, Ann chooses red, wins the 10 and leaves 4; Bob finishes: 10 for Ann, 4 for Bob
    t.play("shot none", "color red", "shot red", "shot red c10", "shot " + " ".join(["red"] * 6), "shot none")
    play_manche(t, ["shot " + " ".join(["green"] * 12)])
    assert t.state.totals() == (14, 14)
    assert not t.state.over and t.state.manche is not None and t.state.manche.number == 3
    assert any(e["type"] == "tie" and e["rule"] == "6" for e in t.effects)
    play_manche(t, ["shot red", ALL_RED])
    assert t.state.over and t.state.winner == 0 and t.state.totals() == (26, 14)


def test_breaker_drawn_at_sector_1_and_the_break_rotates_regle_7() -> None:
    """Règle 7: the breaker is drawn by lot (given as a player) and plays first from sector 1; the break moves
    one seat round the table each manche (so the next breaker is known)."""
    t = Table(DOUBLES, breaker="Cat", target=200)
    breakers = []
    for _ in range(5):
        assert t.state.manche is not None
        breakers.append(t.state.setup.players[t.state.manche.breaker])
        assert t.to_play() == breakers[-1]
        play_manche(t, ["shot red", ALL_RED])
    assert breakers == ["Cat", "Dan", "Ann", "Bob", "Cat"]
    assert [m.breaker for m in t.state.manches] == [2, 3, 0, 1, 2]
    with pytest.raises(SetupError, match="not one of the players"):
        Quebec.create(None, list(SINGLES), breaker="Zed")


def test_bank_shots_and_combinations_need_no_input_regles_8_9() -> None:
    """Règles 8 and 9: the rail and combinations (own colour or mixed with the opponent's) may be used: the
    scorer records only what was pocketed, and an own dame pocketed by any means lets the player go on."""
    t = ann_red_with_fond().play("shot red")
    assert t.to_play() == "Ann" and t.stops() == []


# ---------------------------------------------------------------- règle 10: the colour


def test_first_dame_gives_the_colour_regle_10() -> None:
    """Règle 10: the first dame pocketed gives its colour to that player (or team) for the manche."""
    t = Table().play("shot green green")
    assert t.colour("Ann") == "green" and t.colour("Bob") == "red"
    assert t.to_play() == "Ann"
    t = Table(DOUBLES, breaker="Bob").play("shot red")  # in doubles the colour is the team's
    assert t.colour("Bob+Dan") == "red" and t.colour("Ann+Cat") == "green"
    t.play("shot none", "shot green")  # Cat plays for Ann+Cat: green is her own colour, she goes on
    assert t.to_play() == "Cat" and t.stops() == []


def test_break_with_two_colours_next_player_chooses_regle_10_17_6() -> None:
    """Règle 10 (and 17.6): the break pockets two colours at once: the turn ends and the other player (no. 3 in
    singles) chooses a colour before shooting; the dames pocketed stay pocketed."""
    t = Table().play("shot red green")
    assert t.colour("Ann") is None and t.to_play() == "Bob"
    assert [q.kind for q in t.state.questions()] == ["colour"]
    assert t.state.questions()[0].answers == ("color green", "color red")
    assert t.stops() == ["17.6"]
    t.refused("shot red", "first bob chooses a colour", "règle 10")
    t.play("color red")
    assert t.colour("Bob") == "red" and t.colour("Ann") == "green"
    assert t.state.on_board("red") == 11 and t.state.on_board("green") == 11
    t.play("shot red")  # Bob has a fond from the break's red dame
    assert t.to_play() == "Bob"


def test_break_pockets_nothing_next_player_chooses_regle_10() -> None:
    """Règle 10: no dame on the break: the next player (no. 2 in doubles) chooses a colour before playing."""
    t = Table(DOUBLES).play("shot none")
    assert t.to_play() == "Bob" and [q.kind for q in t.state.questions()] == ["colour"]
    t.play("couleur verte")
    assert t.colour("Bob+Dan") == "green" and t.colour("Ann+Cat") == "red"
    assert t.state.questions() == ()


def test_colour_choice_only_when_due_regle_10() -> None:
    """Règle 10: a colour is chosen only after a break that gave none; otherwise 'color' is refused."""
    t = Table()
    t.refused("color red", "no colour to choose now", "règle 10")
    t.play("shot red")
    t.refused("color green", "already set", "Ann red")
    t.refused("color blue", "color green")


def test_off_board_or_chien_on_the_break_still_gives_the_colour_regle_10_17_3_17_4() -> None:
    """Règle 10 with 17.3 / 17.4: the break's single colour is the breaker's even when the turn stops."""
    t = Table().play("shot red chien")
    assert t.colour("Ann") == "red" and t.to_play() == "Bob" and t.stops() == ["17.4"]
    assert t.state.questions() == ()


# ---------------------------------------------------------------- règle 11: fond and burial


def test_compteuse_without_a_fond_goes_back_regle_11_17_5() -> None:
    """Règles 11 and 17.5: a compteuse pocketed before any own dame (no fond) goes back to the centre and the
    player stops; on the break the colour's first dame in the same shot is not yet a fond."""
    t = Table().play("shot c5")
    assert t.comp(5) == ("board", None) and t.to_play() == "Bob" and t.stops() == ["10", "17.5"]
    t = Table().play("shot red c10")
    assert t.colour("Ann") == "red" and t.comp(10) == ("board", None)
    assert t.to_play() == "Bob" and t.stops() == ["17.5"]
    assert t.state.manche is not None and t.state.manche.returned == 1


def test_compteuse_with_a_fond_must_be_buried_at_once_regle_11() -> None:
    """Règle 11: with a fond, the compteuse waits to be buried; the very next shot pockets an own dame: good."""
    t = ann_red_with_fond().play("shot c5")
    assert t.comp(5) == ("pending", "Ann") and t.to_play() == "Ann"
    t.play("shot red@4")
    assert t.comp(5) == ("won", "Ann") and t.to_play() == "Ann"


def test_compteuse_not_buried_goes_back_to_the_centre_regle_11() -> None:
    """Règle 11 "Sinon, le joueur la replacera au centre du jeu": the next shot pockets no own dame."""
    t = ann_red_with_fond().play("shot c10", "shot none")
    assert t.comp(10) == ("board", None) and t.to_play() == "Bob"
    assert any(e["type"] == "compteuse" and e["outcome"] == "returned" for e in t.effects)
    # burying with a second compteuse does not count either: both go back
    t = ann_red_with_fond().play("shot c10", "shot c5")
    assert t.comp(10) == ("board", None) and t.comp(5) == ("pending", "Ann")


def test_own_dame_in_the_same_shot_buries_the_compteuse_regle_11_decision() -> None:
    """Règle 11 "aussitôt la compteuse entrée" (decision: an own dame in the same shot buries it)."""
    t = ann_red_with_fond().play("shot c5 red")
    assert t.comp(5) == ("won", "Ann") and t.to_play() == "Ann"


def test_bury_same_shot_option_regle_11() -> None:
    """Règle 11, option bury_same_shot=False: only the NEXT shot's own dame buries the compteuse."""
    base = Quebec.create(None, list(SINGLES))
    t = Table()
    t.game = Quebec(replace(base.options, bury_same_shot=False), base.setup)
    t.state = t.game.start()
    t.play("shot red", "shot c5 red")
    assert t.comp(5) == ("pending", "Ann")
    t.play("shot red")
    assert t.comp(5) == ("won", "Ann")


def test_buried_while_pocketing_two_colours_is_good_but_stops_regle_11() -> None:
    """Règle 11: burying a compteuse while pocketing both colours: the compteuse is good, the player stops."""
    t = ann_red_with_fond().play("shot c5", "shot red green")
    assert t.comp(5) == ("won", "Ann") and t.to_play() == "Bob"
    assert t.stops() == ["17.1", "17.6"]


def test_officiel_17_2_rule_set_returns_it_instead_regle_17_2() -> None:
    """Règle 17.2 read literally ("si la compteuse est enterrée avec une autre couleur (et l'on sort la
    compteuse)"): rule set officiel-17-2 puts it back in the centre; both stop the player."""
    t = Table(rules="officiel-17-2").play("shot red", "shot c5", "shot red green")
    assert t.comp(5) == ("board", None) and t.to_play() == "Bob"
    assert "17.2" in t.stops()
    assert set(RULE_SETS) == {"officiel", "officiel-17-2"}


def test_pending_compteuse_is_lost_when_the_turn_stops_regle_11_17_3_17_4() -> None:
    """Règle 11: a compteuse that cannot be buried right after (the chien in a pocket, a piece off the board, a
    foul) goes back to the centre."""
    for line in ("shot chien", "shot off green", "foul"):
        t = ann_red_with_fond().play("shot c10", line)
        assert t.comp(10) == ("board", None), line
        assert t.to_play() == "Bob"
    t = ann_red_with_fond().play("shot c10 chien")  # pocketed with the chien: the turn ends, it is never buried
    assert t.comp(10) == ("board", None)


# ---------------------------------------------------------------- règles 12-14: end of a manche


def test_finisher_scores_one_per_opponent_dame_left_regle_12() -> None:
    """Règle 12: the side that has entered all its dames scores a point per opponent dame still on the board."""
    t = ann_red_with_fond().play("shot red red", "shot none")  # Ann 3 in, Bob to play
    t.play("shot green green green green", "shot none")  # Bob 4 in (8 left)
    t.play("shot " + " ".join(["red"] * 9), "shot none")  # Ann finishes, misses the compteuses: 8 green left
    assert t.points(0) == (8, 0)
    assert t.state.manches[0].finished == (0,)
    assert t.game.summary(t.state)["rounds"][0]["points"] == [8, 0]


def test_five_dames_or_more_left_lose_the_compteuses_regle_13() -> None:
    """Règle 13: with 5 dames or more left, a side loses the points of its compteuses (not given to the other)."""
    t = ann_red_with_fond().play("shot none")
    t.play("shot green", "shot green c10", "shot green", "shot none")  # Bob: 3 green in, c10 won; 9 left
    t.play("shot " + " ".join(["red"] * 11), "shot none")  # Ann finishes, misses the 5
    assert t.points(0) == (9, 0)
    assert t.state.manches[0].lost == (0, 10)
    assert t.game.summary(t.state)["rounds"][0]["compteuse_points_lost"] == [0, 10]


def test_four_dames_left_keep_the_compteuses_regle_13() -> None:
    """Règle 13 a contrario: with 4 dames left the side keeps its compteuse points; règle 12 still gives the
    finisher one per dame left."""
    t = ann_red_with_fond().play("shot none")
    t.play("shot green", "shot green c10", "shot " + " ".join(["green"] * 6), "shot none")  # Bob 8 in, 4 left
    t.play("shot " + " ".join(["red"] * 11), "shot none")
    assert t.points(0) == (4, 10)


def test_last_compteuse_after_all_dames_needs_no_burial_regle_14() -> None:
    """Règle 14: a side that has entered all its dames may pocket the compteuse(s) last, without burying them;
    the manche is scored when its turn ends."""
    t = ann_red_with_fond().play(ALL_RED)
    assert t.left("Ann") == 0 and t.state.manche is not None and t.to_play() == "Ann"
    t.play("shot c5")
    assert t.comp(5) == ("won", "Ann") and t.to_play() == "Ann"
    t.play("shot c10")  # nothing left for Ann to pocket: the manche is scored at once
    assert t.points(0) == (27, 0)


def test_finisher_missing_the_compteuse_ends_the_manche_regle_14_12() -> None:
    """Règles 12 and 14: after its last dame, a miss ends the turn and the manche is scored."""
    t = ann_red_with_fond().play(ALL_RED, "shot none")
    assert t.points(0) == (12, 0) and t.to_play() == "Bob"  # manche 2, broken by Bob


def test_compteuse_with_an_opponent_dame_goes_back_and_the_turn_passes_regle_14() -> None:
    """Règle 14: a compteuse must not be pocketed with an opponent dame: back to the centre, opponent's turn."""
    t = ann_red_with_fond().play("shot c5 green")
    assert t.comp(5) == ("board", None) and t.to_play() == "Bob"
    assert t.state.on_board("green") == 11  # the green dame stays pocketed
    t = ann_red_with_fond().play("shot c5 red green")
    assert t.comp(5) == ("board", None) and t.to_play() == "Bob"


# ---------------------------------------------------------------- règle 15: the chien's hole


def test_moving_a_piece_before_shooting_ends_the_turn_regle_15() -> None:
    """Règle 15: a player who moves a piece before shooting stops playing (`foul`)."""
    t = ann_red_with_fond().play("foul Ann")
    assert t.to_play() == "Bob" and t.stops() == ["15"]
    t.refused("foul Ann", "it is Bob's turn")
    t = Table().play("foul")  # on the break: no colour yet, so the next player chooses (règle 10)
    assert [q.kind for q in t.state.questions()] == ["colour"]


# ---------------------------------------------------------------- règle 17: what stops the player


def test_opponent_dame_stops_the_player_regle_17_1() -> None:
    """Règle 17.1: pocketing a dame of the other colour ends the turn (it stays pocketed: règle 12 counts it)."""
    t = ann_red_with_fond().play("shot green")
    assert t.to_play() == "Bob" and t.stops() == ["17.1"]
    assert t.left("Bob") == 11


def test_compteuse_buried_with_the_other_colour_stops_regle_17_2() -> None:
    """Règle 17.2: a compteuse pocketed ("enterrée") together with the other colour goes back and the player
    stops (the same case as règle 14's second paragraph)."""
    t = ann_red_with_fond().play("shot c10 green")
    assert t.comp(10) == ("board", None) and "17.2" in t.stops() and "17.1" in t.stops()


def test_piece_off_the_board_stops_the_player_regle_17_3() -> None:
    """Règle 17.3: a dame, compteuse or chien falling off the board ends the turn; the piece goes back to the
    centre (decision), so nothing changes in the counts; what was pocketed in the same shot counts."""
    for off in ("red", "green", "c5", "c10", "chien"):
        t = ann_red_with_fond().play(f"shot red off {off}")
        assert t.to_play() == "Bob" and t.stops() == ["17.3"], off
        assert t.left("Ann") == 10
    t = ann_red_with_fond().play("shot red c5")
    t.refused("shot off c5", "not on the board", "won by Ann")  # a won compteuse cannot fall off
    assert t.comp(5) == ("won", "Ann")


def test_chien_in_a_pocket_stops_but_takes_no_dame_out_regle_17_4() -> None:
    """Règle 17.4: the chien in a pocket ends the turn; no dame is taken out as a penalty."""
    t = ann_red_with_fond().play("shot red chien@2")
    assert t.to_play() == "Bob" and t.stops() == ["17.4"]
    assert t.left("Ann") == 10


def test_compteuse_without_fond_stops_regle_17_5() -> None:
    """Règle 17.5: a compteuse entered without a fond is put back in play and the player stops."""
    t = Table().play("shot none", "color red", "shot c10")
    assert t.comp(10) == ("board", None) and t.to_play() == "Ann" and t.stops() == ["17.5"]


def test_two_colours_at_once_stop_regle_17_6() -> None:
    """Règle 17.6: two dames of different colours at the same time end the turn (both stay pocketed)."""
    t = ann_red_with_fond().play("shot red green")
    assert t.to_play() == "Bob" and t.stops() == ["17.1", "17.6"]
    assert t.left("Ann") == 10 and t.left("Bob") == 11


def test_a_shot_that_pockets_nothing_ends_the_turn_regle_17() -> None:
    """Règle 17 (preamble) / decision: a turn goes on only while the player pockets legally; nothing pocketed
    passes the turn."""
    t = ann_red_with_fond().play("shot none")
    assert t.to_play() == "Bob" and t.stops() == ["nothing"]


# ---------------------------------------------------------------- accounting, sensors, notation


def test_pieces_not_on_the_board_are_refused_accounting() -> None:
    """Accounting: every dame and compteuse is on the board, pocketed or back in the centre; a shot that moves
    more than is there is refused, and nothing changes."""
    t = ann_red_with_fond()
    t.refused("shot " + " ".join(["red"] * 12), "only 11 red dame(s)")
    t.refused("shot red off red red red red red red red red red red red", "only 11 red")
    t.refused("shot c5 c5", "only be named once")
    t.refused("shot chien off chien", "one chien")
    t.play("shot c5 red")
    t.refused("shot c5", "not on the board", "won by Ann")


def test_sensor_pocket_evidence_must_be_named_on_the_shot_line() -> None:
    """Sensors give evidence, the journal gives truth: a pocket beam says a piece entered pocket N; the shot that
    follows must name a piece in that pocket, and the question says how."""
    t = ann_red_with_fond()
    parsed = t.game.parse("pocket 3 @sensor")
    assert parsed == PocketEvidence(3, "sensor")
    t.state = t.game.apply(t.state, parsed).state
    assert [q.kind for q in t.state.questions()] == ["identify"]
    assert "shot red@3" in t.state.questions()[0].answers
    t.refused("shot red", "pocket 3", "shot red@3")
    t.refused("shot red@2", "pocket 3")
    t.play("shot red@3")
    assert t.state.questions() == () and t.left("Ann") == 10
    t.refused("pocket 5", "pockets are 1 to 4")


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        ("shot blue", "not a piece"),
        ("shot red@5", "pockets are 1 to 4"),
        ("shot off", "needs the pieces"),
        ("shot off red@2", "no pocket"),
        ("shot red off green off c5", "'off' once"),
        ("shot red none", "stands alone"),
        ("shot Zed red", "not a piece"),
        ("color", "color green"),
        ("foul Ann Bob", "foul PLAYER"),
        ("pocket", "pocket N"),
        ("undo now", "nothing after"),
        ("correct x shot", "correct N LINE"),
        ("jump", "not a word of the notation"),
        ("shot " + "x" * 300, "…"),
    ],
)
def test_bad_lines_are_refused_with_one_clear_line(line: str, expect: str) -> None:
    """Bad input: one line that says what is wrong and what is expected; the state does not change."""
    t = Table()
    msg = t.refused(line, expect)
    assert len(msg) < 200


def test_wrong_player_is_refused() -> None:
    """The turn passes only as règle 17 says: a line naming another player is refused."""
    t = ann_red_with_fond()
    t.refused("shot Bob green", "it is Ann's turn")
    t.play("shot Ann red")


def test_undo_and_correct_are_the_shared_journal_words() -> None:
    """`undo` and `correct N LINE|-` parse into the session's own Undo / Correct entries."""
    g = Quebec.create(None, list(SINGLES))
    assert g.parse("undo") == Undo()
    assert g.parse("correct 4 shot red c5@2") == Correct(4, "shot red c5@2")
    assert g.parse("correct 4 -") == Correct(4, None)
    assert g.format(Correct(4, None)) == "correct 4 -"
    assert g.parse("  # a comment") is None


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("shot", "shot none"),
        ("shot none", "shot none"),
        ("SHOT Ann Rouge c5@2", "shot Ann red c5@2"),
        ("shot verte off chien", "shot green off chien"),
        ("shot red@1 red@4 c10 chien@3 off green c5", "shot red@1 red@4 c10 chien@3 off green c5"),
        ("shot off red", "shot off red"),
        ("colour green", "color green"),
        ("couleur rouge", "color red"),
        ("foul", "foul"),
        ("foul bob", "foul Bob"),
        ("pocket 2 @sensor", "pocket 2"),
    ],
)
def test_notation_round_trips(text: str, canonical: str) -> None:
    """format(parse(x)) is the canonical line, and parsing it again gives the same input."""
    g = Quebec.create(None, list(SINGLES))
    line = g.parse(text)
    assert line is not None
    assert g.format(line) == canonical
    again = g.parse(canonical)
    if isinstance(line, Shot | PocketEvidence):
        assert again is not None
        assert g.format(again) == canonical
    else:
        assert again == line


def test_header_round_trip_and_transcript() -> None:
    """The header names the game "pichenottes-quebec"; from_header(header()) gives the same partie."""
    g = Quebec.create("officiel-17-2", list(DOUBLES), ["Nord", "Sud"], 41, "Bob")
    h = g.header()
    assert h["Game"] == ["pichenottes-quebec"] and h["Breaker"] == ["Bob"] and h["Target"] == ["41"]
    assert Quebec.from_header(h) == g
    text = '[Game "pichenottes-quebec"]\n[Players "Ann" "Bob"]\n\nshot red\nshot red c5\nshot none\n'
    tr = parse_transcript(text)
    game = Quebec.from_header(tr.header)
    assert game.options.name == "officiel" and game.options.target == 31
    state = game.start()
    for _, line in tr.lines:
        parsed = game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct)
        state = game.apply(state, parsed).state
    assert game.summary(state)["current"]["to_play"] == "Bob"
    with pytest.raises(SetupError, match="not pichenottes-quebec"):
        Quebec.from_header({"Game": ["pichenotte"], "Players": ["A", "B"]})
    with pytest.raises(SetupError, match="Players"):
        Quebec.from_header({})
    with pytest.raises(SetupError, match="unknown rule set"):
        Quebec.create("beginner", ["A", "B"])
    with pytest.raises(SetupError, match="word of the notation"):
        Quebec.create(None, ["red", "B"])
    with pytest.raises(SetupError, match="not a number"):
        Quebec.from_header({"Players": ["A", "B"], "Target": ["lots"]})


def test_summary_document_fields() -> None:
    """The summary is a flickboard-summary v1 document for "pichenottes-quebec"."""
    t = ann_red_with_fond().play("shot c5", "shot red", "shot none")
    doc = t.game.summary(t.state, rejected=2)
    assert doc["format"] == "flickboard-summary" and doc["version"] == 1 and doc["game"] == "pichenottes-quebec"
    assert doc["sides"] == [{"name": "Ann", "players": ["Ann"]}, {"name": "Bob", "players": ["Bob"]}]
    cur = doc["current"]
    assert cur["to_play"] == "Bob" and cur["colours"] == ["red", "green"] and cur["dames_left"] == [10, 12]
    assert cur["compteuses"][0] == {"value": 5, "where": "won", "side": "Ann"}
    assert doc["rounds"] == [] and doc["totals"] == [0, 0] and doc["questions"] == []
    assert doc["over"] is False and doc["winner"] is None and doc["rejected_inputs"] == 2


# ---------------------------------------------------------------- properties


LINES = [
    "shot none",
    "shot red",
    "shot green",
    "shot red red red",
    "shot green green green green",
    "shot red green",
    "shot c5",
    "shot c10",
    "shot red c5",
    "shot green c10",
    "shot c5 c10 red",
    "shot chien",
    "shot red chien",
    "shot off red",
    "shot green off c5",
    "shot red@2 off chien",
    "color red",
    "color green",
    "foul",
    "pocket 1",
    "shot red@1",
    "shot green@1",
    "shot Bob red",
]


def _counts_hold(state: State) -> None:
    check_accounting(state)
    m = state.manche
    if m is None:
        return
    for colour in COLOURS:
        assert 0 <= state.on_board(colour) <= 12
    assert sorted(c.value for c in m.compteuses) == [5, 10]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(RULE_SETS)), st.lists(st.sampled_from(LINES), max_size=80))
def test_any_input_keeps_the_accounting(rules: str, lines: list[str]) -> None:
    """Accounting invariant for arbitrary input: each line is accepted or refused with the state untouched, and
    after each, every dame and compteuse is on the board, pocketed, won, pending burial or back in the centre;
    totals never go down."""
    t = Table(rules=rules, target=40)
    totals = (0, 0)
    for line in lines:
        before = t.state
        try:
            t.apply(line)
        except (Illegal, NotationError):
            assert t.state is before
            continue
        _counts_hold(t.state)
        new = t.state.totals()
        assert new[0] >= totals[0] and new[1] >= totals[1]
        totals = new


@st.composite
def legal_partie(draw: st.DrawFn) -> tuple[Quebec, list[str]]:
    """A random partie of legal lines, built by looking at the state: only pieces that are on the board."""
    players = draw(st.sampled_from([list(SINGLES), list(DOUBLES)]))
    game = Quebec.create(draw(st.sampled_from(sorted(RULE_SETS))), players, target=draw(st.integers(10, 40)))
    state = game.start()
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 120))):
        if state.over:
            break
        m = state.manche
        assert m is not None
        if m.chooser is not None:
            line = "color " + draw(st.sampled_from(COLOURS))
        elif draw(st.integers(0, 30)) == 0:
            line = "foul"
        else:
            words = []
            for colour in COLOURS:
                n = draw(st.integers(0, min(3, state.on_board(colour))))
                words += [colour + draw(st.sampled_from(["", "@1", "@2", "@3", "@4"])) for _ in range(n)]
            for c in m.compteuses:
                if c.where == "board" and draw(st.integers(0, 4)) == 0:
                    words.append(f"c{c.value}")
            if draw(st.integers(0, 10)) == 0:
                words.append("chien")
            spare = {
                "red": state.on_board("red") > sum(w.startswith("red") for w in words),
                "chien": "chien" not in words,
            }
            off = [p for p in ("red", "chien") if draw(st.integers(0, 15)) == 0 and spare[p]]
            words = draw(st.permutations(words))
            line = " ".join(["shot", *words, *(["off", *off] if off else []), *([] if words or off else ["none"])])
        parsed = game.parse(line)
        assert parsed is not None and not isinstance(parsed, Undo | Correct)
        state = game.apply(state, parsed).state  # every generated line is legal
        _counts_hold(state)
        lines.append(line)
    return game, lines


@settings(max_examples=120, deadline=None)
@given(legal_partie())
def test_replay_is_deterministic_and_canonical_lines_replay_the_same(case: tuple[Quebec, list[str]]) -> None:
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
    # every pocketed dame is accounted for: manches scored have consistent points
    for m in one.manches:
        assert m.points is not None and m.finished
        for side in (0, 1):
            assert m.points[side] >= 0


def test_engine_inputs_are_immutable_values() -> None:
    """Pure and immutable: inputs and states are frozen dataclasses; applying never mutates the old state."""
    t = Table()
    before = t.state
    t.play("shot red")
    assert before.manche is not None and before.manche.colours == (None, None)
    with pytest.raises(AttributeError):
        before.manche.seat = 1  # type: ignore[misc]
    assert Foul() == Foul() and Compteuse(5) == Compteuse(5)
    assert parse(t.state.setup, "shot red c5@2") == Shot(None, (Pocketed("red"), Pocketed("c5", 2)), ())


def test_names_are_peoples_names_and_lines_use_their_short_form() -> None:
    """Règle 2's players by their names as they are: two words, accents, an apostrophe, a hyphen, partners' sides
    named after both; a line names each by its whole name or its short form (rules/names.py), in any case."""
    g = Quebec.create(None, ["Marie-Claire O'Neil", "Zoé Lévesque", "Ana Costa", "Ana Silva"])
    assert g.setup.players == ("Marie-Claire O'Neil", "Zoé Lévesque", "Ana Costa", "Ana Silva")
    for typed, seat in (("shot zoe red", 1), ("shot Marie-Claire O'Neil none", 0), ("foul ANA SILVA", 3)):
        line = g.parse(typed)
        assert isinstance(line, Shot | Foul) and line.seat == seat, typed
        again = g.parse(g.format(line))
        assert isinstance(again, Shot | Foul) and again.seat == seat
    assert g.format(g.parse("foul Ana Costa")) == "foul AnaCosta"
    with pytest.raises(SetupError, match="differ only in case or accents"):
        Quebec.create(None, ["Zoé Lévesque", "zoe levesque"])
