"""Finding what the organiser named: an entrant, a match or a stage from the word typed (or one line saying why none
fits, with "did you mean"), and the match being played on a board."""

from __future__ import annotations

from collections.abc import Sequence

from flickboard.errors import UserError
from flickboard.rules.base import did_you_mean
from flickboard.tournament import Event
from flickboard.tournament.event import Match, Stage


def find_entrant(ev: Event, word: str, among: Sequence[str] | None = None) -> str:
    """The entrant `word` names: its name in any case, one of a doubles team's players, or one word of a name (a first
    name, a surname) when only one entrant has it."""
    names = list(among) if among is not None else list(ev.entrants)
    if word in names:
        return word
    low = " ".join(word.lower().split())
    hits: list[str] = []
    for same in (
        lambda n: n.lower() == low,
        lambda n: any(p.lower() == low for p in ev.entrants[n].players),
        lambda n: low in n.lower().replace("&", " ").split(),
    ):
        hits = [n for n in names if same(n)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise UserError(f"{word} could be {', '.join(hits)}: type the whole name")
    players = [p for n in names for p in ev.entrants[n].players]
    if among is not None:
        raise UserError(f"{word} is not in this match: it is {' or '.join(among)}{did_you_mean(word, names + players)}")
    raise UserError(f"there is no entrant named {word}{did_you_mean(word, names + players)}")


def find_match(ev: Event, word: str) -> Match:
    """The match `word` names: its id, or its label when one open stage has a match so labelled."""
    m = ev.matches.get(word)
    if m is not None:
        return m
    open_ = [x for x in ev.matches.values() if x.label == word and not ev.stages[x.stage].closed_by]
    if len(open_) == 1:
        return open_[0]
    hint = did_you_mean(word, list(ev.matches))
    if not hint and len(open_) > 1:
        hint = f"; say which: {', '.join(x.id for x in open_)}"
    raise UserError(f"there is no match {word}{hint}")


def find_stage(ev: Event, word: str) -> Stage:
    """The stage named `word`."""
    st = ev.stages.get(word)
    if st is None:
        known = f" (the stages are {', '.join(ev.stages)})" if ev.stages else " (no stage has started)"
        hint = did_you_mean(word, list(ev.stages))
        raise UserError(f"there is no stage named {word}{hint or known}")
    return st


def match_on_board(ev: Event, board: str) -> Match | None:
    """The match being played on `board` (on it, not decided yet)."""
    return next((m for m in ev.matches.values() if m.board == board and not m.decided), None)
