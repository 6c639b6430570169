"""Pichenotte (Santa Fe, New Mexico): seeds 000, 002 and 001 as option sets over one engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from flickboard.rules.base import FixedRuleSets, NotationError, SetupError, Source, header_value
from flickboard.rules.names import clean, fold
from flickboard.rules.text import Message, message_of

from . import engine, notation, report
from .engine import Input, Result, Setup, State
from .notation import Line
from .options import RULE_SETS, MatchFormat, Options, default_match, parse_match, rule_set

__all__ = [
    "RULE_SETS",
    "Input",
    "Line",
    "MatchFormat",
    "Options",
    "Pichenotte",
    "Result",
    "Setup",
    "State",
    "engine",
    "notation",
    "report",
    "rule_set",
]


@dataclass(frozen=True)
class Pichenotte(FixedRuleSets):
    """One configured match: rule set, match format and seating. The session talks only to this."""

    options: Options
    setup: Setup
    match: MatchFormat

    # Who the game is (rules/games.py registers it): its names, documents, rule sets, seating and help, the
    # sensors the host reads it from (host/core/session.py), and the name of its export log.
    name: ClassVar[str] = "pichenotte"
    title: ClassVar[str] = "Pichenotte"
    aliases: ClassVar[tuple[str, ...]] = ("santa-fe",)
    seeds: ClassVar[str] = "the beginner sheet, the 2018 rules, the 2019 tournament rules"
    default_rules: ClassVar[str] = "tournament-2019"
    players: ClassVar[tuple[int, ...]] = (2, 4)
    players_in_words: ClassVar[str] = "2 players (singles) or 4 (doubles)"
    rule_table: ClassVar[Mapping[str, Any]] = RULE_SETS
    find_rule_set = staticmethod(rule_set)
    setup_options: ClassVar[tuple[str, ...]] = ("sides", "match")  # besides the rules, the players and the breaker
    players_usage: ClassVar[str] = "--players A B (singles) or --players A B C D (doubles, clockwise)"
    keywords: ClassVar[frozenset[str]] = frozenset(notation.KEYWORDS)
    notation_help: ClassVar[str] = notation.HELP
    sensors: ClassVar[str] = "hole-ditch-baseline"  # the twenty hole, the ditch and the baseline strip
    log_name: ClassVar[str] = "shots"

    @classmethod
    def create(
        cls,
        rules: str,
        players: list[str],
        sides: list[str] | None = None,
        match: str | None = None,
        breaker: str | None = None,
    ) -> Pichenotte:
        players = [clean(p) for p in players]
        try:
            options = rule_set(rules)
            if len(players) not in (2, 4):
                raise SetupError(Message("give 2 players (singles) or 4 (doubles, in clockwise seat order)"))
            if sides is None:
                sides = players if len(players) == 2 else [f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}"]
            if len(sides) != 2:
                raise SetupError(Message("give exactly two side names"))
            sides = [clean(s) for s in sides]
            seat = 0
            if breaker is not None:
                low = [fold(p) for p in players]
                if fold(clean(breaker)) not in low:
                    raise SetupError(Message("the breaker '{breaker}' is not one of the players", breaker=breaker))
                seat = low.index(fold(clean(breaker)))
            setup = Setup(tuple(players), (sides[0], sides[1]), seat)
            notation.check_names(setup)
            fmt = parse_match(match) if match else default_match(options, len(players))
        except (ValueError, NotationError) as e:
            raise SetupError(message_of(e)) from None
        return cls(options, setup, fmt)

    @classmethod
    def from_header(cls, header: dict[str, list[str]]) -> Pichenotte:
        rules = header_value(header, "Rules")
        if rules is None:
            raise SetupError(Message("the header needs a Rules tag: one of {rules}", rules=", ".join(RULE_SETS)))
        players = header.get("Players")
        if not players:
            raise SetupError(Message("the header needs a Players tag with 2 or 4 names"))
        return cls.create(
            rules, players, header.get("Sides"), header_value(header, "Match"), header_value(header, "Breaker")
        )

    def header(self) -> dict[str, list[str]]:
        return {
            "Game": [self.name],
            "Rules": [self.options.name],
            "Match": [self.match.spec()],
            "Players": list(self.setup.players),
            "Sides": list(self.setup.sides),
            "Breaker": [self.setup.players[self.setup.breaker]],
        }

    def start(self) -> State:
        return engine.new_match(self.options, self.setup, self.match)

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
    def set_up(cls, rules: str, players: list[str], first: str | None, options: dict[str, Any]) -> Pichenotte:
        """A game set up through the registry: `options` holds only the ones this game takes (`setup_options`)."""
        return cls.create(rules, players, options.get("sides"), options.get("match"), first)

    @property
    def side_names(self) -> tuple[str, str]:
        """The two sides' names as displays show them."""
        return self.setup.sides

    def words(self) -> set[str]:
        """The words a line of this game is made of: the notation's keywords, the names (the word each goes by in a
        line: rules/names.py), and SIDE:fact."""
        names = notation.names_of(self.setup)
        players = [names.handle(p) for p in self.setup.players]
        sides = [names.handle(s) for s in self.setup.sides]
        facts = {f"{s}:{f}" for s in sides for f in engine.FACT_HELP}
        return {*self.keywords, *players, *sides, *facts}

    def log(self, state: State) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
        """The game's log for export (`log_name` names it): its fields, and one row per shot."""
        return report.LOG_FIELDS, report.shot_rows(state)
