"""The games Flickboard scores, by name: one place that maps a `Game` tag or a `--game` option to its engine.

Each game is a package (`rules/pichenotte`, `rules/quebec`, `rules/flicochet`) with the same small face: a frozen
class that knows its options and seating and offers `start`, `parse`, `format`, `apply`, `summary` and `header`.
The session, the transcript reader, the CLI and the displays talk to that face only, so adding a game is adding a
package and a line here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .flicochet import SIDES as FLICOCHET_SIDES
from .flicochet import Flicochet
from .flicochet import options as flicochet_options
from .pichenotte import Pichenotte
from .pichenotte import options as pichenotte_options
from .quebec import Quebec
from .quebec import options as quebec_options

AnyGame = Pichenotte | Quebec | Flicochet

# name -> (title, seed documents, default rule set)
GAMES: dict[str, tuple[str, str, str]] = {
    "pichenotte": ("Pichenotte", "seeds 000, 002, 001", "tournament-2019"),
    "pichenottes-quebec": ("Québec Pichenottes", "seed 003", "officiel"),
    "flicochet": ("Flicochet", "seed 004", "flicochet"),
}
ALIASES = {
    "quebec": "pichenottes-quebec",
    "québec": "pichenottes-quebec",
    "pichenottes": "pichenottes-quebec",
    "pichenottes-québec": "pichenottes-quebec",
    "santa-fe": "pichenotte",
}


class GameError(ValueError):
    """A game name or a set-up that cannot be used; str() says why in one line."""


def game_name(word: str | None) -> str:
    """The canonical name of a game ('quebec' -> 'pichenottes-quebec'); None is Pichenotte."""
    if word is None:
        return "pichenotte"
    w = word.strip().lower()
    w = ALIASES.get(w, w)
    if w not in GAMES:
        raise GameError(f"unknown game '{word[:32]}': choose one of {', '.join(GAMES)}")
    return w


def title(name: str) -> str:
    return GAMES[game_name(name)][0]


def default_rules(name: str) -> str:
    return GAMES[game_name(name)][2]


def create(
    name: str | None,
    players: Sequence[str],
    *,
    rules: str | None = None,
    sides: Sequence[str] | None = None,
    match: str | None = None,
    target: str | int | None = None,
    first: str | None = None,
    teams: Sequence[str] | None = None,
) -> AnyGame:
    """Set up a game. `first` is Pichenotte's and Québec's breaker, Flicochet's start player; `match` is
    Pichenotte's match format, `target` the points Québec and Flicochet play to; `teams` is Flicochet's colours."""
    kind = game_name(name)
    rules = rules or default_rules(kind)
    given: dict[str, object] = {"--match": match} if kind != "pichenotte" else {"--target": target}
    if kind != "flicochet":
        given["--teams"] = teams
    else:
        given["--sides"] = sides
    extra = [opt for opt, v in given.items() if v is not None]
    if extra:
        raise GameError(f"{extra[0]} is not an option of {title(kind)}")
    try:
        if kind == "pichenotte":
            return Pichenotte.create(rules, list(players), list(sides) if sides else None, match, first)
        if kind == "pichenottes-quebec":
            return Quebec.create(rules, list(players), list(sides) if sides else None, target, first)
        return Flicochet.create(rules, list(players), list(teams) if teams else None, first, target)
    except ValueError as e:
        raise GameError(str(e)) from None


def from_header(header: dict[str, list[str]]) -> AnyGame:
    """The configured game a transcript header (or a journal's stored header) describes."""
    tag = header.get("Game")
    if tag is not None and len(tag) != 1:
        raise GameError("the Game tag takes one value")
    kind = game_name(tag[0] if tag else None)
    try:
        if kind == "pichenotte":
            return Pichenotte.from_header(header)
        if kind == "pichenottes-quebec":
            return Quebec.from_header(header)
        return Flicochet.from_header(header)
    except ValueError as e:
        raise GameError(str(e)) from None


def side_names(game: AnyGame) -> tuple[str, str]:
    """The two sides' names as displays show them (Flicochet's teams are its colours)."""
    if isinstance(game, Flicochet):
        return FLICOCHET_SIDES[0], FLICOCHET_SIDES[1]
    return game.setup.sides


def rule_sets(name: str) -> list[tuple[str, str]]:
    """(rule set, one-line summary) of a game, for `flickboard rules list`."""
    kind = game_name(name)
    if kind == "pichenotte":
        return [(o.name, o.summary) for o in pichenotte_options.RULE_SETS.values()]
    if kind == "pichenottes-quebec":
        return [(o.name, o.summary) for o in quebec_options.RULE_SETS.values()]
    return flicochet_options.list_rules()


def describe(name: str, rules: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, summary, option rows) of one rule set of a game; ValueError names the choices."""
    kind = game_name(name)
    o: Any
    if kind == "pichenotte":
        o = pichenotte_options.rule_set(rules)
        return o.name, f"{o.summary}\nseed: {o.seed}", list(o.describe())
    if kind == "pichenottes-quebec":
        o = quebec_options.rule_set(rules)
        return o.name, f"{o.summary}\nseed: {o.seed}", list(o.describe())
    o = flicochet_options.rule_set(rules)
    return o.name, o.summary, list(o.describe())


def find_rules(rules: str) -> str:
    """The game a rule-set name belongs to (rule-set names never clash across games)."""
    for kind in GAMES:
        try:
            describe(kind, rules)
        except ValueError:
            continue
        return kind
    raise GameError(f"unknown rule set '{rules[:32]}' (see: flickboard rules list)")
