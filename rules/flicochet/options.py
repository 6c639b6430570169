"""Flicochet rule sets: small option layers over the one engine in `engine.py`, combined freely.

Seed 004 ("Flicochet - rules of play", Phil Harding 2010) has a base game and three variants that "can be
combined in any way you like" (MIX AND MATCH VARIANTS), plus team rules. So a rule set is not picked from a
fixed list: it is the base game plus any set of layers, named like python-chess variants are composed:

    flicochet                          the base game: one jack, first to 8
    flicochet+double-jack              two jacks, each scored, play to 12
    flicochet+target                   one flicking edge; the start player flicks the jack into place
    flicochet+school                   +1 to a side for each of its discs an opponent knocks off the table
    flicochet+teams                    3 to 6 players in two teams (added by itself for more than 2 players)
    flicochet+double-jack+target+school+teams   all of them

Layers may be written in any order; the canonical name lists them in the order of `LAYERS`.
The reasons for each default are in docs/rules-coverage.md (Flicochet part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

from flickboard.rules.text import N_, Message

BASE = "flicochet"


@dataclass(frozen=True)
class Options:
    name: str
    summary: str
    # DOUBLE-JACK 1: jacks on the table at the start of a round.
    jacks: int = 1
    # GAME OVERVIEW / PLAYING 4: "the first player to get 8 points wins"; DOUBLE-JACK 3: 12.
    target: int = 8
    # TARGET 1-2: one flicking edge; the start player flicks the jack(s) into place.
    target_variant: bool = False
    # SCHOOL RULES 1: +1 per own disc knocked off the table by an opponent's flick.
    school: bool = False
    # Team rules: more than 2 players, in two teams.
    teams: bool = False
    # Penalty rule: the jack off the table ends the round, +3 to the opponent.
    jack_off_points: int = 3
    # DOUBLE-JACK 4: the first of two jacks off: +2 to the opponent at the round's end, play continues.
    first_jack_off_points: int = 2
    school_points: int = 1
    # Contents: 6 red discs, 6 white discs.
    discs_per_colour: int = 6
    # Proximity rule: a disc is placed at least 8 cm from the jack; kept in tenths of a cm (decimal-safe).
    proximity_tenths: int = 80

    @property
    def layers(self) -> tuple[str, ...]:
        return tuple(self.name.split("+")[1:])

    def with_target(self, target: int) -> Options:
        if not 1 <= target <= 999:
            raise ValueError(Message("play to a positive number of points (1 to 999), not {target}", target=target))
        # The summary says the points played to: a target that is not the rule set's own replaces it there too.
        played = replace(self, target=target)
        return replace(played, summary=_summary(played))

    def describe(self) -> list[tuple[str, str]]:
        """(option, meaning) rows for a `flickboard rules show` command, each a Message (said in its language)."""
        jacks = (
            Message("one jack, in the centre of the table")
            if self.jacks == 1
            else Message("two jacks a disc-width apart; each is scored, and both sides may score (DOUBLE-JACK 1-2)")
        )
        if self.jacks == 1:
            off = Message(
                "the jack off the table ends the round: +{n} to the opponent (penalty rule)", n=self.jack_off_points
            )
        else:
            off = Message(
                "the first jack off: +{first} to the opponent at the round's end, play goes on; the second: +{n} "
                "and the round ends (DOUBLE-JACK 4)",
                first=self.first_jack_off_points,
                n=self.jack_off_points,
            )
        place = (
            Message(
                "the start player flicks the jack(s) into place from the one flicking edge; a jack that leaves the "
                "table is placed by the other side (TARGET 2, MIX AND MATCH)"
            )
            if self.target_variant
            else Message("the start player puts the jack(s) in the centre (PLAYING 1)")
        )
        knocked = (
            Message("+{n} to the owner for each disc an opponent knocks off (SCHOOL RULES 1)", n=self.school_points)
            if self.school
            else Message("they do not count in the scoring, and nobody scores for them")
        )
        players = Message("2 to 6, in two teams, red and white") if self.teams else Message("2, one red and one white")
        return [
            (N_("jacks"), jacks),
            (
                N_("play to"),
                Message("{n} points; both there in one round: most points wins, a tie plays another", n=self.target),
            ),
            (N_("placing the jack"), place),
            (N_("jack off the table"), off),
            (N_("discs knocked off"), knocked),
            (N_("players"), players),
            (N_("discs"), Message("{n} per colour, shared out among the team", n=self.discs_per_colour)),
            (
                N_("proximity rule"),
                Message("a disc is placed at least {cm} cm from the jack", cm=f"{self.proximity_tenths / 10:g}"),
            ),
        ]


def _double_jack(o: Options) -> Options:
    return replace(o, jacks=2, target=12)


def _target(o: Options) -> Options:
    return replace(o, target_variant=True)


def _school(o: Options) -> Options:
    return replace(o, school=True)


def _teams(o: Options) -> Options:
    return replace(o, teams=True)


# name -> (what it changes, seed section, the layer)
LAYERS: dict[str, tuple[str, str, Callable[[Options], Options]]] = {
    BASE: (N_("the base game: one jack in the centre, first to 8 points"), "PLAYING THE GAME", lambda o: o),
    "double-jack": (
        N_("two jacks, each scored, both sides may score, play to 12; one jack off +2, the second +3"),
        "DOUBLE-JACK",
        _double_jack,
    ),
    "target": (
        N_("all flicks from one edge; the start player flicks the jack(s) into place"),
        "TARGET",
        _target,
    ),
    "school": (N_("+1 to a side for each of its discs an opponent knocks off the table"), "SCHOOL RULES", _school),
    "teams": (N_("3 to 6 players in two teams, red and white (automatic with more than 2)"), "Team rules", _teams),
}
ALIASES = {"doublejack": "double-jack", "double": "double-jack", "school-rules": "school", "team": "teams"}


def _build(layers: tuple[str, ...]) -> Options:
    name = "+".join((BASE, *layers))
    o = Options(name=name, summary="")
    for n in layers:
        o = LAYERS[n][2](o)
    return replace(o, summary=_summary(o))


def _summary(o: Options) -> Message:
    """One sentence of the game `o` plays, each of its parts a sentence a catalogue can say: the jacks and the target
    as the layers leave them, then each layer's own."""
    goal = Message("first to 1 point") if o.target == 1 else Message("first to {target} points", target=o.target)
    if not o.layers:
        return Message("the base game: one jack in the centre, {goal}", goal=goal)
    if o.jacks == 2:
        jacks = (
            Message("two jacks, each scored, both sides may score")
            if o.target_variant
            else Message("two jacks in the centre, each scored, both sides may score")
        )
    else:
        jacks = Message("one jack") if o.target_variant else Message("one jack in the centre")
    parts = [Message("{jacks}, {goal}", jacks=jacks, goal=goal)]
    parts += [Message(LAYERS[n][0]) for n in o.layers if n != "double-jack"]  # each marked with N_ in LAYERS
    if "double-jack" in o.layers:
        parts.append(
            Message(
                "one jack off +{first}, the second +{second}", first=o.first_jack_off_points, second=o.jack_off_points
            )
        )
    said = parts[-1]
    for part in reversed(parts[:-1]):  # "a; b; c", each part said in the screen's language
        said = Message("{first}; {rest}", first=part, rest=said)
    return said


def rule_set(name: str) -> Options:
    """`flicochet`, `flicochet+double-jack+school`, ... (layers in any order, each once)."""
    usage = Message(
        "a rule set is {base} plus any of {layers} (e.g. {base}+school)",
        base=BASE,
        layers=", ".join("+" + n for n in LAYERS if n != BASE),
    )
    parts = [p.strip().lower() for p in name.strip().split("+")]
    if parts[0] != BASE:
        raise ValueError(Message("unknown rule set '{name}': {usage}", name=name[:40], usage=usage))
    seen: list[str] = []
    for p in parts[1:]:
        p = ALIASES.get(p, p)
        if p not in LAYERS or p == BASE:
            raise ValueError(
                Message("unknown variant '{variant}' in '{name}': {usage}", variant=p[:24], name=name[:40], usage=usage)
            )
        if p in seen:
            raise ValueError(Message("the variant '{variant}' is named twice in '{name}'", variant=p, name=name[:40]))
        seen.append(p)
    return _build(tuple(n for n in LAYERS if n in seen))


def _all() -> dict[str, Options]:
    extra = [n for n in LAYERS if n != BASE]
    out: dict[str, Options] = {}
    for k in range(len(extra) + 1):
        for combo in combinations(extra, k):
            o = _build(combo)
            out[o.name] = o
    return out


# Every combination, in canonical spelling, for `flickboard rules list` (16 of them).
RULE_SETS: dict[str, Options] = _all()


def list_rules() -> list[tuple[str, str]]:
    """The lines of `flickboard rules list`: the base game and each layer, then how to combine them."""
    rows = []
    for n, (text, sec, _) in LAYERS.items():
        rows.append((BASE if n == BASE else f"{BASE}+{n}", f"{text} (Flicochet rules, {sec})"))
    rows.append((f"{BASE}+A+B...", "layers combine freely, in any order (Flicochet rules, MIX AND MATCH VARIANTS)"))
    return rows
