"""The other values the organiser types, read and checked: a pair of numbers a-b, a tie-break chain, the boards given to
matches, a game journal kept as evidence."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from flickboard.cli.tournament.lookup import match_on_board
from flickboard.errors import UserError
from flickboard.rules.base import did_you_mean
from flickboard.tournament import TIEBREAKS, Event

ALIASES = {
    "head-to-head": "h2h",
    "mini-league": "h2h",
    "20s": "twenties",
    "median": "median-buchholz",
    "point-difference": "diff",
    "shoot-out": "shootout",
}


def two_numbers(text: str | None, what: str) -> list[int] | None:
    """A pair of numbers typed a-b (or a:b) for the option `what`; None when it was not given."""
    if text is None:
        return None
    found = re.fullmatch(r"\s*(-?\d{1,7})\s*[-:]\s*(-?\d{1,7})\s*", text)
    if not found:
        raise UserError(f"{what} is two numbers a-b, in the order of the match's sides (e.g. 310-250), not {text!r}")
    return [int(found.group(1)), int(found.group(2))]


def tiebreak_chain(text: str | None) -> list[str] | None:
    """The tie-break chain typed a,b,c (or "none"), each by its name or an alias; None when it was not given."""
    if text is None:
        return None
    if text.strip().lower() == "none":
        return []
    chain = []
    for word in (w.strip().lower() for w in text.split(",") if w.strip()):
        key = ALIASES.get(word, word)
        if key not in TIEBREAKS:
            raise UserError(f"unknown tie-break {word!r}{did_you_mean(word, TIEBREAKS)}: one of {', '.join(TIEBREAKS)}")
        if key in chain:
            raise UserError(f"the tie-break {key} is in the chain twice")
        chain.append(key)
    return chain


def check_boards(ev: Event, boards: Sequence[str]) -> None:
    """The boards typed to take matches: each named once, free (not playing a match), and a valid board name."""
    if len(set(boards)) != len(boards):
        raise UserError("a board is named twice")
    for b in boards:
        busy = match_on_board(ev, b)
        if busy is not None:
            raise UserError(
                f"board {b} is playing {busy.id} ({busy.sides[0]} vs {busy.sides[1]}): enter its result first"
            )
        if not b.strip() or "/" in b or b != b.strip() or len(b) > 60:
            raise UserError(f"a board is a name of 1 to 60 characters without '/' or outer spaces, not {b!r}")


def evidence_of(path: str | None, file: str) -> dict[str, Any] | None:
    """A game journal given as a result's evidence (it must exist), named relative to the folder of the tournament's
    `file` unless given as an absolute path; None when none was given."""
    if path is None:
        return None
    if not os.path.isfile(path):
        raise UserError(f"no such game journal: {path}")
    if os.path.isabs(path):
        return {"journal": path}
    here = os.path.dirname(os.path.abspath(file))
    return {"journal": os.path.relpath(os.path.abspath(path), here)}
