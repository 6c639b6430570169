"""Pichenotte (Santa Fe, New Mexico): seeds 000, 002 and 001 as option sets over one engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.base import NotationError, SetupError, Source, header_value

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
class Pichenotte:
    """One configured match: rule set, match format and seating. The session talks only to this."""

    options: Options
    setup: Setup
    match: MatchFormat
    name = "pichenotte"

    @classmethod
    def create(
        cls,
        rules: str,
        players: list[str],
        sides: list[str] | None = None,
        match: str | None = None,
        breaker: str | None = None,
    ) -> Pichenotte:
        try:
            options = rule_set(rules)
            if len(players) not in (2, 4):
                raise SetupError("give 2 players (singles) or 4 (doubles, in clockwise seat order)")
            if sides is None:
                sides = players if len(players) == 2 else [f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}"]
            if len(sides) != 2:
                raise SetupError("give exactly two side names")
            seat = 0
            if breaker is not None:
                low = [p.lower() for p in players]
                if breaker.lower() not in low:
                    raise SetupError(f"the breaker '{breaker}' is not one of the players")
                seat = low.index(breaker.lower())
            setup = Setup(tuple(players), (sides[0], sides[1]), seat)
            notation.check_names(setup)
            fmt = parse_match(match) if match else default_match(options, len(players))
        except (ValueError, NotationError) as e:
            raise SetupError(str(e)) from None
        return cls(options, setup, fmt)

    @classmethod
    def from_header(cls, header: dict[str, list[str]]) -> Pichenotte:
        rules = header_value(header, "Rules")
        if rules is None:
            raise SetupError(f"the header needs a Rules tag: one of {', '.join(RULE_SETS)}")
        players = header.get("Players")
        if not players:
            raise SetupError("the header needs a Players tag with 2 or 4 names")
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
