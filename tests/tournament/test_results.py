"""Results mean what they say (host/tournament/results.py): each pair of numbers in the match's order of sides, and
a result whose numbers contradict its winner or its match format refused in one line with nothing written.

Rules cited: R-1-B of the 2019 tournament sheet (a match of 8 games is won on total points; "ties broken by 20's
shootout of 12 pucks each"), A-2 (a penalty is -20), the match formats `wins:N/M` and `points:N` (001 S-3, 002),
règle 16 of the Québec sheet (a partie is won at 31 points or more)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from flickboard.tournament import ActError, Director, dumps, read
from flickboard.tournament.results import shootout_ends, shootout_problem

Make = Callable[..., Director]


def knockout(director: Make, match: str | None = None, game: str | None = None) -> tuple[Director, str]:
    d = director("Cat Dubois", "Dan O'Neil")
    d.start_stage("ko", "single-elimination", match=match, game=game)
    return d, "ko/W1-1"


def refused(d: Director, says: str, match: str, winner: str, **numbers: object) -> None:
    size = os.path.getsize(d.path)
    with pytest.raises(ActError, match=says):
        d.result(match, winner, **numbers)  # type: ignore[arg-type]
    assert os.path.getsize(d.path) == size and d.event.matches[match].outcome is None


def test_numbers_that_say_the_other_side_won_are_refused(director: Make) -> None:
    d, m = knockout(director)  # games:8, won on total points (R-1-B)
    assert d.event.matches[m].sides == ["Cat Dubois", "Dan O'Neil"]
    refused(d, "the points say Dan O'Neil won: Cat Dubois 200 – 300 Dan O'Neil", m, "Cat Dubois", points=[200, 300])
    refused(d, "level points .*broken by a twenties shoot-out", m, "Cat Dubois", points=[250, 250])
    refused(d, "shoot-out only breaks a tie", m, "Cat Dubois", points=[300, 200], shootout=[7, 5])
    refused(d, "the shoot-out's winner is the side with more twenties", m, "Cat Dubois", points=[250, 250],
            shootout=[12, 13])  # fmt: skip
    d.result(m, "Cat Dubois", points=[250, 250], shootout=[13, 12])  # level after 12 each, Cat one ahead after
    assert d.event.matches[m].winner == "Cat Dubois"


def test_a_shootout_score_no_shootout_can_end_on_is_refused() -> None:
    """R-1-B: 12 pucks each, then one each until it breaks; it stops as soon as one side cannot be caught."""
    assert shootout_problem((20, 3), 0, 12) is not None  # past 12 only in the sudden death, one ahead
    assert shootout_problem((9, 2), 0, 12) is not None  # it stopped at 8-2: the other could not catch up
    assert shootout_problem((8, 2), 0, 12) is None and shootout_problem((15, 14), 0, 12) is None
    assert shootout_problem((5, 5), 0, 12) is not None  # level is no end
    ends = shootout_ends(12)
    assert (12, 11) in ends and (1, 0) in ends and (12, 0) not in ends
    # the same by playing: every end a brute-force shoot-out reaches, in either order of shooting, and no other
    assert all(max(a, b) <= 12 and a != b for a, b in ends)


def test_more_games_than_the_format_has_and_negative_points_are_refused(director: Make) -> None:
    d, m = knockout(director)
    refused(d, "9 games won between them in a match of 8 games", m, "Cat Dubois", games=[9, 0], points=[300, 0])
    refused(d, "points below zero", m, "Dan O'Neil", points=[-20, 10])
    # a board's scoreboard may say it: a side with nothing but an A-2 penalty ends at -20
    evidence = {"journal": "journals/t1/x.jsonl", "board": "t1"}
    d.result(m, "Dan O'Neil", points=[-20, 10], source="board", evidence=evidence)


def test_a_match_won_by_games_and_one_to_a_target(director: Make, tmp_path: Path) -> None:
    d, m = knockout(director, match="wins:4/7")
    refused(d, "the games say Dan O'Neil won", m, "Cat Dubois", games=[2, 4])
    refused(d, "a match won at 4 games", m, "Cat Dubois", games=[5, 2])
    refused(d, "a match of at most 7 games: 8 won between them", m, "Cat Dubois", games=[4, 4])
    d.result(m, "Cat Dubois", games=[4, 2], points=[200, 310])  # won on games, whatever the points
    e = director("Ana Costa", "Ben Dubé", path="p.jsonl")
    e.start_stage("ko", "single-elimination", match="points:500")
    refused(e, "a match to 500 points: Ana Costa has 480", "ko/W1-1", "Ana Costa", points=[480, 300])
    e.result("ko/W1-1", "Ana Costa", points=[505, 300])


def test_a_game_to_a_target_is_won_by_more_points(director: Make) -> None:
    d, m = knockout(director, game="quebec")  # règle 16: to 31 points
    refused(d, "the points say Cat Dubois did not win", m, "Cat Dubois", points=[25, 31])
    d.result(m, "Dan O'Neil", points=[25, 31])


def test_a_journal_folds_as_it_was_written(director: Make, tmp_path: Path) -> None:
    """The checks are for results being entered: a journal written before them (here, a result the wrong way
    round) folds to the same event, so its standings do not change under an upgrade."""
    d, m = knockout(director)
    path = d.path
    d.close()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    act = {"act": "result", "match": m, "sides": ["Cat Dubois", "Dan O'Neil"], "winner": "Cat Dubois",
           "points": [200, 300], "source": "organiser"}  # fmt: skip
    with Director.open(path) as again:
        n = again._journal.append(act)  # as an older version wrote it, past today's checks
        assert n == last["n"] + 1
    ev = read(path)
    assert ev.matches[m].winner == "Cat Dubois" and not ev.rejected
    assert dumps(read(path)) == dumps(ev)


def test_names_are_peoples_names_and_too_alike_is_refused(director: Make) -> None:
    d = director("Marie-Claire O'Neil", "Zoé Lévesque", "Ana Costa")
    with pytest.raises(ActError, match="already an entrant named Zoé Lévesque"):
        d.add_entrant("zoe levesque")
    with pytest.raises(ActError, match="no ':' in a name"):
        d.add_entrant("Ana: the second")
    with pytest.raises(ActError, match="one space between the words"):
        d.add_entrant("Ben  Dubé")
    with pytest.raises(ActError, match="two different players"):
        d.add_entrant("Costa & Costa", players=["Ana Costa", "ana costa"])
    d.add_entrant("Ana Costa & Zoé Lévesque", players=["Ana Costa", "Zoé Lévesque"])
