"""Québec Pichenottes (seed 003, "Règlements officiels du jeu de Pichenottes"): a pocket game, one engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from flickboard.rules.base import FixedRuleSets, NotationError, SetupError, Source, check_game_tag, header_value
from flickboard.rules.names import clean, fold

from . import engine, notation, report
from .engine import Input, Result, Setup, State
from .notation import Line
from .options import RULE_SETS, Options, rule_set

__all__ = [
    "RULE_SETS",
    "Input",
    "Line",
    "Options",
    "Quebec",
    "Result",
    "Setup",
    "State",
    "engine",
    "notation",
    "report",
    "rule_set",
]


@dataclass(frozen=True)
class Quebec(FixedRuleSets):
    """One configured partie: rule set, target and seating. The session talks only to this."""

    options: Options
    setup: Setup

    # Who the game is (rules/games.py registers it): its names, documents, rule sets, seating and help, the
    # sensors the host reads it from (host/core/session.py), and the name of its export log.
    name: ClassVar[str] = "pichenottes-quebec"
    title: ClassVar[str] = "Québec Pichenottes"
    aliases: ClassVar[tuple[str, ...]] = ("quebec", "québec", "pichenottes", "pichenottes-québec")
    seeds: ClassVar[str] = "the Règlements officiels"
    default_rules: ClassVar[str] = "officiel"
    players: ClassVar[tuple[int, ...]] = (2, 4)
    players_in_words: ClassVar[str] = "2 players, or 4 in turn order (partners facing)"
    rule_table: ClassVar[Mapping[str, Any]] = RULE_SETS
    find_rule_set = staticmethod(rule_set)
    setup_options: ClassVar[tuple[str, ...]] = ("sides", "target")  # besides the rules, the players and the breaker
    players_usage: ClassVar[str] = "--players A B (singles) or --players A B C D (doubles, clockwise)"
    keywords: ClassVar[frozenset[str]] = frozenset(notation.KEYWORDS)
    notation_help: ClassVar[str] = notation.HELP
    sensors: ClassVar[str] = "pockets"  # a beam in each of the four pockets
    log_name: ClassVar[str] = "shots"

    @classmethod
    def create(
        cls,
        rules: str | None,
        players: list[str],
        sides: list[str] | None = None,
        target: int | str | None = None,
        breaker: str | None = None,
    ) -> Quebec:
        """`players` in turn order (4: partners facing, seats 1+3 against 2+4); `breaker` drawn by lot (règle 7)."""
        players = [clean(p) for p in players]
        try:
            options = rule_set(rules or cls.default_rules)
            if target is not None:
                if isinstance(target, str) and not target.strip().isdigit():
                    raise SetupError(f"the target '{target}' is not a number of points")
                options = options.with_target(int(target))
            if len(players) not in (2, 4):
                raise SetupError("give 2 players, or 4 in turn order (partners facing: 1 and 3, 2 and 4), règle 2")
            if sides is None:
                sides = players if len(players) == 2 else [f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}"]
            if len(sides) != 2:
                raise SetupError("give exactly two side names")
            sides = [clean(s) for s in sides]
            seat = 0
            if breaker is not None:
                low = [fold(p) for p in players]
                if fold(clean(breaker)) not in low:
                    raise SetupError(f"the breaker '{breaker}' is not one of the players")
                seat = low.index(fold(clean(breaker)))
            setup = Setup(tuple(players), (sides[0], sides[1]), seat)
            notation.check_names(setup)
        except (ValueError, NotationError) as e:
            raise SetupError(str(e)) from None
        return cls(options, setup)

    @classmethod
    def from_header(cls, header: dict[str, list[str]]) -> Quebec:
        check_game_tag(header, cls.name)
        players = header.get("Players")
        if not players:
            raise SetupError("the header needs a Players tag with 2 or 4 names")
        return cls.create(
            header_value(header, "Rules"),
            players,
            header.get("Sides"),
            header_value(header, "Target"),
            header_value(header, "Breaker"),
        )

    def header(self) -> dict[str, list[str]]:
        return {
            "Game": [self.name],
            "Rules": [self.options.name],
            "Target": [str(self.options.target)],
            "Players": list(self.setup.players),
            "Sides": list(self.setup.sides),
            "Breaker": [self.setup.players[self.setup.breaker]],
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
    def set_up(cls, rules: str, players: list[str], first: str | None, options: dict[str, Any]) -> Quebec:
        """A game set up through the registry: `options` holds only the ones this game takes (`setup_options`)."""
        return cls.create(rules, players, options.get("sides"), options.get("target"), first)

    @property
    def side_names(self) -> tuple[str, str]:
        """The two sides' names as displays show them."""
        return self.setup.sides

    def words(self) -> set[str]:
        """The words a line of this game is made of: the notation's keywords and the names (the word each goes by in
        a line: rules/names.py)."""
        names = notation.names_of(self.setup)
        return {*self.keywords, *(names.handle(n) for n in (*self.setup.players, *self.setup.sides))}

    def log(self, state: State) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
        """The game's log for export (`log_name` names it): its fields, and one row per shot."""
        return report.LOG_FIELDS, report.shot_rows(state)
