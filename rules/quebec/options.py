"""Québec Pichenottes rule sets: named option layers over the one engine in `engine.py`.

Seed 003 ("Règlements officiels du jeu de Pichenottes") is one document, but it leaves a few things open or
says them twice in different words. Each such place is an option here; a rule set is a bundle of values.
The reasons for each default are in docs/rules-coverage.md (Québec part).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from flickboard.rules.text import N_, Message

BuriedWithOther = Literal["good", "returned"]


@dataclass(frozen=True)
class Options:
    name: str
    summary: str
    seed: str
    # Règle 6: a "partie" is won at this many points or more.
    target: int = 31
    # Règle 13: a side with this many dames or more left on the board loses its compteuse points.
    lose_compteuses_at: int = 5
    # Règle 11 (last sentence) vs règle 17.2: the burying shot also pockets an opponent dame.
    # "good": the compteuse counts and the turn ends (règle 11); "returned": it goes back to the centre (17.2 read
    # literally).
    buried_with_other: BuriedWithOther = "good"
    # Règle 11 "aussitôt la compteuse entrée": an own dame pocketed in the SAME shot as the compteuse buries it.
    bury_same_shot: bool = True
    dames_per_colour: int = 12

    def with_target(self, target: int) -> Options:
        if target < 1:
            raise ValueError(f"the target must be a positive number of points, not {target}")
        return replace(self, target=target)

    def describe(self) -> list[tuple[str, str]]:
        """(option, meaning) rows for a `rules show` command, each a Message (said in the command's language)."""
        other = {
            "good": Message("the compteuse counts and the turn ends (règle 11)"),
            "returned": Message("the compteuse goes back to the centre and the turn ends (règle 17.2 read literally)"),
        }[self.buried_with_other]
        return [
            (N_("partie"), Message("won at {n} points or more; a tie plays another manche (règle 6)", n=self.target)),
            (N_("compteuse lost"), Message("with {n} or more dames left (règle 13)", n=self.lose_compteuses_at)),
            (N_("burying shot also pockets an opponent dame"), other),
            (
                N_("own dame in the compteuse's own shot"),
                Message("buries it") if self.bury_same_shot else Message("does not bury it: the next shot must"),
            ),
        ]


_OFFICIEL = Options(
    name="officiel",
    summary=N_("Règlements officiels: 31 points, compteuses need a fond and burying, lost with 5 dames or more left."),
    seed="Règlements officiels du jeu de Pichenottes, règles 1-17",
)

RULE_SETS: dict[str, Options] = {
    o.name: o
    for o in (
        _OFFICIEL,
        replace(
            _OFFICIEL,
            name="officiel-17-2",
            summary=N_(
                "As officiel, but a compteuse buried together with an opponent dame goes back to the centre "
                "(règle 17.2 read literally instead of règle 11)."
            ),
            buried_with_other="returned",
        ),
    )
}


def rule_set(name: str) -> Options:
    try:
        return RULE_SETS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown rule set '{name}': choose one of {', '.join(RULE_SETS)}") from None
