"""What a match's result may say: its numbers checked against the winner and the match format, and said back in
one order.

Every pair of numbers is in the match's order of sides ("Ana Costa vs Ben Dubé": Ana Costa's first), typed so and
said back so (`score_text`). A result is refused, in one line and with nothing written, when:
- the numbers contradict the winner: fewer points than the loser, or level points with no shoot-out to break the
  tie (R-1-B: "ties broken by 20's shootout"; a board's own result may say it, when its engine gave a level match
  to the side that forfeited fewer games), or a shoot-out won by the other side; or a shoot-out given while the
  points are not level (it only ever breaks a tie);
- a shoot-out score no twenties shoot-out can end on (R-1-B: 12 pucks each, then one each until it breaks: more
  than 12 only in that sudden death, one ahead; and it stops as soon as one side cannot be caught);
- more games than the match format has (`games:8`: at most 8 games between them; `wins:4/7`: the winner has at
  most 4, the two at most 7), or a winner with fewer games than the loser in a match won by games;
- a match to a target (`points:500`) whose winner has not reached it;
- points below zero typed by a person (a total under zero only comes from A-2 penalties, and a board's scoreboard
  carries it: a result from a board may say it).
Québec Pichenottes and Flicochet matches are one game to a target: the winner has more points.

These checks are for results being entered (`Event.check`); a journal folds as it was written.
"""

from __future__ import annotations

import functools
from typing import Any

from flickboard.rules import games
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.options import MatchFormat
from flickboard.rules.text import N_, Message


@functools.lru_cache(maxsize=8)
def shootout_ends(pucks: int) -> frozenset[tuple[int, int]]:
    """Every score (twenties in, per side) a twenties shoot-out of `pucks` each can stop on before its sudden death:
    the sides shoot in turn (either first); it stops as soon as one side cannot be caught, or after `pucks` each
    when the sides differ. A level score then goes on one each: see `shootout_problem`."""
    ends: set[tuple[int, int]] = set()
    for first in (0, 1):
        todo = [(0, 0, 0, 0)]  # shots[0], shots[1], twenties[0], twenties[1]
        seen: set[tuple[int, int, int, int]] = set()
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            s0, s1, t0, t1 = state
            left0, left1 = pucks - s0, pucks - s1
            if t0 > t1 + left1 or t1 > t0 + left0 or (left0 == 0 and left1 == 0 and t0 != t1):
                ends.add((t0, t1))
                continue
            if left0 == 0 and left1 == 0:  # level after every puck: the sudden death
                continue
            side = (first + s0 + s1) % 2
            for made in (0, 1):
                todo.append((s0 + 1, s1, t0 + made, t1) if side == 0 else (s0, s1 + 1, t0, t1 + made))
    return frozenset(ends)


def shootout_problem(score: tuple[int, int], winner: int, pucks: int) -> Message | None:
    """Why `score` (the twenties of the shoot-out, per side) cannot end a shoot-out won by side `winner`."""
    a, b = score
    if score[winner] <= score[1 - winner]:
        return Message("the shoot-out's winner is the side with more twenties")
    if abs(a - b) == 1 or (a, b) in shootout_ends(pucks):
        return None
    if max(a, b) > pucks:
        return Message(
            "a shoot-out of {n} pucks each goes past {n} only in its sudden death, one puck each, which ends one "
            "twenty apart",
            n=pucks,
        )
    said = N_("a shoot-out of {n} pucks each stops as soon as one side cannot be caught: it cannot end {a}-{b}")
    return Message(said, n=pucks, a=a, b=b)


def match_format(game: str, rules: str, match: str | None, players: int) -> tuple[MatchFormat, int] | None:
    """A Pichenotte stage's match format and shoot-out pucks; None for a game played to a target."""
    if game != "pichenotte":
        return None
    g = games.create(game, [f"P{i + 1}" for i in range(players)], rules=rules, match=match)
    assert isinstance(g, Pichenotte)
    return g.match, g.options.shootout_pucks


def result_problem(
    act: dict[str, Any], sides: tuple[str, str], fmt: tuple[MatchFormat, int] | None, from_board: bool
) -> Message | None:
    """Why a result act's numbers cannot be right for a match between `sides` (in its order); None when they can."""
    w = sides.index(act["winner"])
    winner, loser = sides[w], sides[1 - w]
    points, games_won, shootout = (_pair(act.get(k)) for k in ("points", "games", "shootout"))
    order = Message("(in the match's order: {a}, then {b})", a=sides[0], b=sides[1])
    if points is not None and not from_board and min(points) < 0:
        return Message("points below zero: type each side's total {order}", order=order)
    if fmt is None:  # a game to a target: the winner has more points
        if points is not None and points[w] <= points[1 - w]:
            said = N_("the points say {winner} did not win: {score} {order}")
            return Message(said, winner=winner, score=score_text(sides, points), order=order)
        return None
    f, pucks = fmt
    if shootout is not None:
        problem = shootout_problem(shootout, w, pucks)
        if problem:
            return Message(
                "shoot-out {score}: {problem} {order}", score=score_text(sides, shootout), problem=problem, order=order
            )
    if f.kind == "shootout":
        return None
    if points is not None and f.kind in ("games", "points"):  # a match won on points
        if points[w] < points[1 - w]:
            return Message(
                "the points say {loser} won: {score} {order}", loser=loser, score=score_text(sides, points), order=order
            )
        if points[w] == points[1 - w] and shootout is None and not from_board:  # a board's engine may say why
            said = N_("level points ({score}): a tie is broken by a twenties shoot-out (R-1-B)")
            return Message(said, score=score_text(sides, points))
        if points[w] != points[1 - w] and shootout is not None:
            return Message("a shoot-out only breaks a tie on points, and these points are not level")
        if f.kind == "points" and points[w] < f.target:
            return Message("a match to {n} points: {winner} has {points}", n=f.target, winner=winner, points=points[w])
    if games_won is not None:
        total = games_won[0] + games_won[1]
        if f.kind == "games" and total > f.target:
            said = N_("{total} games won between them in a match of {n} games {order}")
            return Message(said, total=total, n=f.target, order=order)
        if f.kind == "wins":
            if games_won[w] < games_won[1 - w]:
                said = N_("the games say {loser} won: {score} {order}")
                return Message(said, loser=loser, score=score_text(sides, games_won), order=order)
            if max(games_won) > f.target:
                said = N_("a match won at {n} games: {score} {order}")
                return Message(said, n=f.target, score=score_text(sides, games_won), order=order)
            if f.max_games is not None and total > f.max_games:
                said = N_("a match of at most {n} games: {total} won between them {order}")
                return Message(said, n=f.max_games, total=total, order=order)
    return None


def score_text(sides: tuple[str, str] | list[str], pair: tuple[int, int] | list[int]) -> str:
    """A pair of numbers said with the names, in the match's order: "Ana Costa 250 – 310 Ben Dubé"."""
    return f"{sides[0]} {pair[0]} – {pair[1]} {sides[1]}"


def _pair(v: Any) -> tuple[int, int] | None:
    return None if v is None else (int(v[0]), int(v[1]))
