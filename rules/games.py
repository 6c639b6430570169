"""The games Flickboard scores: a registry of game classes, looked up by a `Game` tag, a `--game` option or a
rule-set name.

Each game is a package (`rules/pichenotte`, `rules/quebec`, `rules/flicochet`) whose class carries its own
identity - name and aliases, title, seed documents, rule sets and the default one, the player counts each rule
set takes, the set-up options it takes, its notation and help, the sensors the host reads it from, its export
log - and offers `start`, `parse`, `format`, `apply`, `summary` and `header` for one configured game (`AnyGame`).
The session, the transcript reader, the CLI and the displays talk to that face only, so adding a game is adding
a package and one `register` line at the end of this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

from .base import Source
from .flicochet import Flicochet
from .pichenotte import Pichenotte
from .quebec import Quebec
from .text import Message, message_of


class AnyGame(Protocol):
    """One configured game (a rule set, the players and their seats) as the host sees it, and, on its class, the
    game's identity. Everything game-specific behind it (options, setup, inputs, states) is the game's own."""

    name: ClassVar[str]  # canonical: the `Game` tag, `--game`, the journal's `game`, the documents' `game`
    title: ClassVar[str]  # as people read it
    aliases: ClassVar[tuple[str, ...]]  # other words for `--game`
    seeds: ClassVar[str]  # the rule sheets it is built from, by name ("the beginner sheet, ...")
    default_rules: ClassVar[str]
    players: ClassVar[tuple[int, ...]]  # every number of players one of its rule sets takes
    setup_options: ClassVar[tuple[str, ...]]  # which of SETUP_OPTIONS it takes
    players_usage: ClassVar[str]  # how to name the players on the command line
    keywords: ClassVar[frozenset[str]]  # the words of its notation
    notation_help: ClassVar[str]  # its notation for `help`, names as {own} {other} {player} (`help_for`)
    sensors: ClassVar[str]  # which sensor events the host reads for it (host/core/session.py SENSORS)
    log_name: ClassVar[str]  # what its export log's rows are ("shots", "rounds")

    @property
    def options(self) -> Any: ...  # the rule set in effect (`.name`, `.summary`)
    @property
    def setup(self) -> Any: ...  # the seating (`.players`)
    @property
    def side_names(self) -> tuple[str, str]: ...

    @classmethod
    def set_up(cls, rules: str, players: list[str], first: str | None, options: dict[str, Any]) -> AnyGame: ...
    @classmethod
    def from_header(cls, header: dict[str, list[str]]) -> AnyGame: ...
    @classmethod
    def rule_sets(cls) -> list[tuple[str, str]]: ...
    @classmethod
    def describe(cls, rules: str) -> tuple[str, str, list[tuple[str, str]]]: ...
    @classmethod
    def player_counts(cls, rules: str) -> tuple[int, ...]: ...
    @classmethod
    def players_said(cls, rules: str) -> str: ...

    def header(self) -> dict[str, list[str]]: ...
    def start(self) -> Any: ...
    def parse(self, text: str, source: Source = "manual") -> Any: ...
    def format(self, line: Any) -> str: ...
    def apply(self, state: Any, inp: Any) -> Any: ...
    def summary(self, state: Any, rejected: int = 0) -> dict[str, Any]: ...
    def words(self) -> set[str]: ...
    def log(self, state: Any) -> tuple[tuple[str, ...], list[dict[str, Any]]]: ...


# The set-up options a game may take besides its rule set, its players and who goes first, in the order a
# misplaced one is reported.
SETUP_OPTIONS = ("match", "target", "teams", "sides")
DEFAULT = "pichenotte"  # the game of a header without a Game tag, and of `--game` left out

GAMES: dict[str, type[AnyGame]] = {}  # name -> game class, in the order they are listed
ALIASES: dict[str, str] = {}  # alias -> name


class GameError(ValueError):
    """A game name or a set-up that cannot be used; str() says why in one line."""


def register(game: type[AnyGame]) -> None:
    """Add a game class to the registry."""
    GAMES[game.name] = game
    ALIASES.update(dict.fromkeys(game.aliases, game.name))


def game_name(word: str | None) -> str:
    """The canonical name of a game ('quebec' -> 'pichenottes-quebec'); None is the default game."""
    if word is None:
        return DEFAULT
    w = word.strip().lower()
    w = ALIASES.get(w, w)
    if w not in GAMES:
        raise GameError(Message("unknown game '{game}': choose one of {games}", game=word[:32], games=", ".join(GAMES)))
    return w


def get(name: str | None) -> type[AnyGame]:
    """The class of a game, by its name or an alias (None: the default game)."""
    return GAMES[game_name(name)]


def title(name: str) -> str:
    return get(name).title


def default_rules(name: str) -> str:
    return get(name).default_rules


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
    game = get(name)
    given: dict[str, Any] = {"match": match, "target": target, "teams": teams, "sides": sides}
    extra = [opt for opt in SETUP_OPTIONS if given[opt] is not None and opt not in game.setup_options]
    if extra:
        raise GameError(Message("--{option} is not an option of {game}", option=extra[0], game=game.title))
    for opt in ("sides", "teams"):
        given[opt] = list(given[opt]) if given[opt] else None
    try:
        return game.set_up(rules or game.default_rules, list(players), first, {k: given[k] for k in game.setup_options})
    except ValueError as e:
        raise GameError(message_of(e)) from None


def from_header(header: dict[str, list[str]]) -> AnyGame:
    """The configured game a transcript header (or a journal's stored header) describes."""
    tag = header.get("Game")
    if tag is not None and len(tag) != 1:
        raise GameError(Message("the Game tag takes one value"))
    game = get(tag[0] if tag else None)
    try:
        return game.from_header(header)
    except ValueError as e:
        raise GameError(message_of(e)) from None


def side_names(game: AnyGame) -> tuple[str, str]:
    """The two sides' names as displays show them (Flicochet's teams are its colours)."""
    return game.side_names


def rule_sets(name: str) -> list[tuple[str, str]]:
    """(rule set, one-line summary) of a game, for `flickboard rules list`."""
    return get(name).rule_sets()


def describe(name: str, rules: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, summary, option rows) of one rule set of a game; ValueError names the choices."""
    return get(name).describe(rules)


def find_rules(rules: str) -> str:
    """The game a rule-set name belongs to (rule-set names never clash across games)."""
    for name, game in GAMES.items():
        try:
            game.describe(rules)
        except ValueError:
            continue
        return name
    raise GameError(Message("unknown rule set '{rules}' (see: flickboard rules list)", rules=rules[:32]))


def player_counts(rules: str | None = None) -> tuple[int, ...]:
    """How many players a rule set takes (its game is the one `find_rules` names; GameError for an unknown rule
    set). None: any rule set of any game."""
    if rules is None:
        return tuple(sorted({n for game in GAMES.values() for n in game.players}))
    return GAMES[find_rules(rules)].player_counts(rules)


def players_said(rules: str) -> str:
    """`player_counts(rules)` in words, as a message says it ('2 players (singles) or 4 (doubles)')."""
    return GAMES[find_rules(rules)].players_said(rules)


register(Pichenotte)
register(Quebec)
register(Flicochet)


def help_for(game: AnyGame) -> str:
    """The game's notation help with the match's own names in its examples (`shot hit Ben:in Ana:ditch`)."""
    own, other = game.side_names
    player = game.setup.players[0]
    return game.notation_help.format(own=own, other=other, player=player, pad=" " * max(1, 19 - len(player)))
