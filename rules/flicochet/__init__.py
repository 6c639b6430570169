"""Flicochet (seed 004): closest-to-the-jack table game; the base game and its variants as option layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from flickboard.rules.base import NotationError, SetupError, Source, check_game_tag, header_value
from flickboard.rules.names import clean, fold
from flickboard.rules.text import Message, message_of

from . import engine, notation, report
from .engine import SIDES, Input, Result, Setup, State
from .notation import Line
from .options import RULE_SETS, Options, list_rules, rule_set

__all__ = [
    "RULE_SETS",
    "SIDES",
    "Flicochet",
    "Input",
    "Line",
    "Options",
    "Result",
    "Setup",
    "State",
    "engine",
    "list_rules",
    "notation",
    "report",
    "rule_set",
]

_TEAM_WORDS = {"red": 0, "r": 0, "white": 1, "w": 1}


@dataclass(frozen=True)
class Flicochet:
    """One configured game: rule set (with its layers), teams and the start player. The session talks only to this."""

    options: Options
    setup: Setup

    # Who the game is (rules/games.py registers it): its names, documents, rule sets, seating and help, the
    # sensors the host reads it from (host/core/session.py), and the name of its export log.
    name: ClassVar[str] = "flicochet"
    title: ClassVar[str] = "Flicochet"
    aliases: ClassVar[tuple[str, ...]] = ()
    seeds: ClassVar[str] = "the Flicochet rules of play"
    default_rules: ClassVar[str] = "flicochet"
    players: ClassVar[tuple[int, ...]] = (2, 3, 4, 5, 6)
    setup_options: ClassVar[tuple[str, ...]] = ("teams", "target")  # besides the rules, the players and the start
    players_usage: ClassVar[str] = "--players A B (2 to 6; red, white, red, ... unless --teams)"
    keywords: ClassVar[frozenset[str]] = frozenset(notation.KEYWORDS)
    notation_help: ClassVar[str] = notation.HELP
    sensors: ClassVar[str] = "none"  # scored by hand: seed 004 has no board to instrument
    log_name: ClassVar[str] = "rounds"

    @classmethod
    def create(
        cls,
        rules: str | None,
        players: list[str],
        teams: list[str] | None = None,
        start: str | None = None,
        target: int | str | None = None,
    ) -> Flicochet:
        """`players` in the order they take turns within their team; `teams` gives each player's colour (red or
        white; default red, white, red, ...). `start` is the player drawn to start (SETTING UP 3; default the
        first). `target` overrides the points to play to. More than 2 players adds the `teams` layer (Team rules)."""
        players = [clean(p) for p in players]
        try:
            options = rule_set(rules or cls.default_rules)
            if not 2 <= len(players) <= 6:
                raise SetupError(Message("Flicochet is for 2 to 6 players"))
            if len(players) > 2 and not options.teams:
                options = rule_set(options.name + "+teams")
            if target is not None:
                if isinstance(target, str) and not (target.strip().isascii() and target.strip().isdigit()):
                    raise SetupError(Message("the target '{target}' is not a number of points", target=target[:24]))
                options = options.with_target(int(target))
            if teams is None:
                sides = tuple(i % 2 for i in range(len(players)))
            else:
                if len(teams) != len(players):
                    raise SetupError(Message("give one team (red or white) per player"))
                bad = [t for t in teams if t.lower() not in _TEAM_WORDS]
                if bad:
                    raise SetupError(Message("'{team}' is not a team: red or white", team=bad[0][:24]))
                sides = tuple(_TEAM_WORDS[t.lower()] for t in teams)
            first = 0
            if start is not None:
                low = [fold(p) for p in players]
                if fold(clean(start)) not in low:
                    raise SetupError(
                        Message("the start player '{player}' is not one of the players", player=start[:24])
                    )
                first = low.index(fold(clean(start)))
            setup = Setup(tuple(players), sides, first)
            notation.check_names(setup)
            engine.new_game(options, setup)  # the last checks (team play needs 3 or more players)
        except (ValueError, NotationError) as e:
            raise SetupError(message_of(e)) from None
        return cls(options, setup)

    @classmethod
    def from_header(cls, header: dict[str, list[str]]) -> Flicochet:
        check_game_tag(header, cls.name)
        players = header.get("Players")
        if not players:
            raise SetupError(Message("the header needs a Players tag with 2 to 6 names"))
        return cls.create(
            header_value(header, "Rules"),
            players,
            header.get("Teams"),
            header_value(header, "Start"),
            header_value(header, "Target"),
        )

    def header(self) -> dict[str, list[str]]:
        return {
            "Game": [self.name],
            "Rules": [self.options.name],
            "Target": [str(self.options.target)],
            "Players": list(self.setup.players),
            "Teams": [SIDES[t] for t in self.setup.teams],
            "Start": [self.setup.players[self.setup.start]],
        }

    def start(self) -> State:
        return engine.new_game(self.options, self.setup)

    def parse(self, text: str, source: Source = "manual") -> Line | None:
        return notation.parse(self.setup, text, source)

    def format(self, line: Line) -> str:
        return notation.format_line(self.setup, line)

    def apply(self, state: State, inp: Input) -> Result:
        return engine.apply(self.options, state, inp)

    def summary(self, state: State, rejected: int = 0) -> dict[str, Any]:
        return report.summary(self.options, state, rejected)

    # -- the registry's face (rules/games.py)

    @classmethod
    def set_up(cls, rules: str, players: list[str], first: str | None, options: dict[str, Any]) -> Flicochet:
        """A game set up through the registry: `options` holds only the ones this game takes (`setup_options`)."""
        return cls.create(rules, players, options.get("teams"), first, options.get("target"))

    @classmethod
    def rule_sets(cls) -> list[tuple[str, str]]:
        """(rule set, one-line summary) of each rule set, for `flickboard rules list`."""
        return list_rules()

    @classmethod
    def describe(cls, rules: str) -> tuple[str, str, list[tuple[str, str]]]:
        """(name, summary, option rows) of one rule set; ValueError names the choices."""
        o = rule_set(rules)
        return o.name, o.summary, list(o.describe())

    @classmethod
    def player_counts(cls, rules: str) -> tuple[int, ...]:
        """How many players the rule set takes."""
        return (3, 4, 5, 6) if rule_set(rules).teams else cls.players  # more than 2 players adds +teams

    @classmethod
    def players_said(cls, rules: str) -> str:
        """The same in words, for a message."""
        return "3 to 6 players" if rule_set(rules).teams else "2 to 6 players"

    @property
    def side_names(self) -> tuple[str, str]:
        """The two sides' names as displays show them."""
        return SIDES[0], SIDES[1]

    def words(self) -> set[str]:
        """The words a line of this game is made of: the notation's keywords and the names (the word each goes by in
        a line: rules/names.py)."""
        names = notation.names_of(self.setup)
        return {*self.keywords, *(names.handle(p) for p in self.setup.players), *self.side_names}

    def log(self, state: State) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
        """The game's log for export (`log_name` names it): its fields, and one row per round."""
        return report.LOG_FIELDS, report.round_rows(state)
