"""Pichenotte rule sets: named option layers over the one engine in `engine.py`.

Each option is a place where the seed rule sheets disagree. A rule set is just a bundle of option
values with the seed it comes from; nothing else in the engine knows rule-set names.

Seeds: 000 = beginner sheet, 002 = 2018 sheet (beginner part + Santa Fe tournament part),
001 = tournament rules version 9, May 2019.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from flickboard.rules.text import N_, Message

FailedCall = Literal["ditch", "opponent-choice"]
CallSuccess = Literal["shooting-puck", "any-own-puck"]
Rebound = Literal["2018", "2019"]
Baseline = Literal["immediate", "at-rest"]
TiedGame = Literal["half", "shootout"]


@dataclass(frozen=True)
class MatchFormat:
    """How games add up to a match.

    kind "wins":   first side to `target` games won (a tied game gives each side half, or is decided by
                   a shoot-out); `max_games` caps the match (002: first to 4 of 7), None = no cap.
    kind "games":  a fixed number of games, most total points wins (001 R-1-B).
    kind "points": first to `target` total points at the end of a game (001 S-3: 500).
    kind "shootout": no games, only the twenties shoot-out (001 R-1-B: "ties broken by 20's shootout of 12 pucks
                   each"; 000 rule 9): the rule set's `shootout_pucks` each, then one each until it breaks. A
                   tournament plays it to break a tie in its standings; `target` is unused (1).
    A match still tied when it ends is decided by a twenties shoot-out (001 R-1-B, 000 rule 9).
    """

    kind: Literal["wins", "games", "points", "shootout"]
    target: int
    max_games: int | None = None
    tied_game: TiedGame = "half"

    def describe(self) -> str:
        """The match format in words (a Message: a screen says it in its language)."""
        if self.kind == "wins":
            tie = Message("half a game each") if self.tied_game == "half" else Message("a twenties shoot-out")
            if self.max_games:
                said = N_("first to {n} games won of {max}; a tied game: {tie}")
                return Message(said, n=self.target, max=self.max_games, tie=tie)
            return Message("first to {n} games won; a tied game: {tie}", n=self.target, tie=tie)
        if self.kind == "shootout":
            return Message(
                "a twenties shoot-out only: the rule set's shoot-out pucks each (12), then one each until it breaks"
            )
        if self.kind == "games":
            return Message("{n} games, most total points wins; a tie: twenties shoot-out", n=self.target)
        return Message("first to {n} total points; a tie: twenties shoot-out", n=self.target)

    def short(self) -> str:
        """The match format in a few words after "match", for a status line in another language than English
        (English keeps the notation, `games:8`): "in 8 games", "to 4 games won"."""
        if self.kind == "wins":
            if self.max_games:
                return Message("to {n} games won of {max}", n=self.target, max=self.max_games)
            return Message("to {n} games won", n=self.target)
        if self.kind == "shootout":
            return Message("by a twenties shoot-out")
        if self.kind == "games":
            return Message("in {n} games", n=self.target) if self.target != 1 else Message("in 1 game")
        return Message("to {n} points", n=self.target)

    def spec(self) -> str:
        """The text form accepted by `parse_match`."""
        if self.kind == "wins":
            text = f"wins:{self.target}" + (f"/{self.max_games}" if self.max_games else "")
            return text + (":shootout" if self.tied_game == "shootout" else "")
        if self.kind == "shootout":
            return "shootout"
        return f"{self.kind}:{self.target}"


def parse_match(text: str) -> MatchFormat:
    """Parse `wins:4`, `wins:4/7`, `wins:4:shootout`, `games:8`, `points:500`, `shootout`."""
    usage = Message(
        "a match format is wins:N, wins:N/M, wins:N:shootout, games:N, points:N (e.g. games:8) "
        "or shootout (a twenties shoot-out only)"
    )
    parts = text.strip().lower().split(":")
    try:
        kind = parts[0]
        if kind == "wins" and len(parts) in (2, 3):
            target, _, cap = parts[1].partition("/")
            tied: TiedGame = "half"
            if len(parts) == 3:
                if parts[2] != "shootout":
                    raise ValueError
                tied = "shootout"
            fmt = MatchFormat("wins", int(target), int(cap) if cap else None, tied)
        elif kind == "shootout" and len(parts) == 1:
            fmt = MatchFormat("shootout", 1)
        elif kind in ("games", "points") and len(parts) == 2:
            fmt = MatchFormat(kind, int(parts[1]))  # type: ignore[arg-type]
        else:
            raise ValueError
    except ValueError:
        raise ValueError(Message("'{text}' is not a match format: {usage}", text=text, usage=usage)) from None
    if fmt.target < 1 or (fmt.max_games is not None and fmt.max_games < fmt.target):
        raise ValueError(Message("'{text}' is not a match format: the numbers must be positive and N ≤ M", text=text))
    return fmt


@dataclass(frozen=True)
class Options:
    name: str
    summary: str
    seed: str
    # R-8 / 000 rule 4: what happens to the shooting puck after a failed declared twenty.
    failed_call: FailedCall
    # 000 rule 4 "try to sink it" (the shooting puck) vs 001/002 R-8 (B) "any one of your pucks".
    call_success: CallSuccess
    # Free shot (000 rule 5, R-9): None = the puck stays anywhere; otherwise the lowest zone value
    # the shooting puck must rest in (15 for 000's advanced option, 10 for R-9).
    free_shot_zone: int | None
    # "or cause another of your pucks to do so".
    free_shot_other_puck: bool
    # rebounding pucks, 2018 sheet (002) vs 2019 (001).
    rebound: Rebound
    # R-10-B (2019): a puck touching the shooter's hand.
    hand_rule: bool
    # R-11 "rare but possible": 25 leaning on a post, 50 on top of a post.
    post_values: bool
    # 000 rule 8 "immediately" vs R-5A "where it finally comes to rest"; read by sensor mapping.
    baseline: Baseline
    match: MatchFormat
    pucks_singles: int = 12
    pucks_doubles: int = 6
    shootout_pucks: int = 12

    def pucks_per_player(self, players: int) -> int:
        return self.pucks_singles if players == 2 else self.pucks_doubles

    def with_match(self, match: MatchFormat) -> Options:
        return replace(self, match=match)

    def describe(self) -> list[tuple[str, str]]:
        """(option, meaning) rows for `flickboard rules show`, each a Message (said in the command's language)."""
        call = {
            "ditch": Message("the shooting puck goes to the ditch at once"),
            "opponent-choice": Message(
                "if the shooting puck is still on the board, the opponent chooses: leave it or ditch it (asked "
                "before the next shot)"
            ),
        }[self.failed_call]
        success = {
            "shooting-puck": Message("the shooting puck itself drops flat in the hole"),
            "any-own-puck": Message("any one of the shooter's pucks drops flat in the hole"),
        }[self.call_success]
        if self.free_shot_zone is None:
            free = Message("the puck stays wherever it rests")
        elif self.free_shot_other_puck:
            free = Message(
                "the shooting puck must rest in the {zone} zone or inside it, or move another of the shooter's "
                "pucks there; otherwise it goes to the ditch",
                zone=self.free_shot_zone,
            )
        else:
            free = Message(
                "the shooting puck must rest in the {zone} zone or inside it; otherwise it goes to the ditch",
                zone=self.free_shot_zone,
            )
        rebound = {
            "2018": Message(
                "a rebounding puck goes to the ditch; a twenty it makes counts only for the opponent's puck"
            ),
            "2019": Message(
                "a rebounding puck goes to the ditch even in the hole; a puck it knocks in counts 20 for whoever "
                "owns it"
            ),
        }[self.rebound]
        hand = (
            Message("own puck to the ditch, opponent's stays")
            if self.hand_rule
            else Message("no rule (not in this sheet)")
        )
        posts = Message("yes") if self.post_values else Message("no (a puck on a post counts in the zone below)")
        baseline = (
            Message("immediately")
            if self.baseline == "immediate"
            else Message("where the puck finally rests after the shot")
        )
        return [
            (N_("failed declared twenty"), call),
            (N_("declared twenty succeeds when"), success),
            (N_("free shot"), free),
            (N_("rebounds"), rebound),
            (N_("puck touches the shooter's hand"), hand),
            (N_("post values 25/50"), posts),
            (N_("baseline out of bounds"), baseline),
            (N_("match"), self.match.describe()),
            (
                N_("pucks"),
                Message(
                    "{singles} each in singles, {doubles} each in doubles",
                    singles=self.pucks_singles,
                    doubles=self.pucks_doubles,
                ),
            ),
            (
                N_("shoot-out"),
                Message(
                    "{n} pucks per side for the centre hole, then one each until the tie breaks", n=self.shootout_pucks
                ),
            ),
        ]


_BEGINNER = Options(
    name="beginner",
    summary=N_("Beginner sheet: failed objectives go straight to the ditch; free shots stay anywhere."),
    seed=N_("the beginner sheet, rules 1-9"),
    failed_call="ditch",
    call_success="shooting-puck",
    free_shot_zone=None,
    free_shot_other_puck=False,
    rebound="2019",
    hand_rule=False,
    post_values=False,
    baseline="immediate",
    match=MatchFormat("wins", 4),
)

_SANTA_FE_2018 = Options(
    name="santa-fe-2018",
    summary=N_(
        "Santa Fe 2018 tournament rules: the opponent's choice after a failed twenty, 10-zone free shots, "
        "2018 rebounds."
    ),
    seed=N_("the 2018 rules, tournament part R-1..R-11, A-1..A-5"),
    failed_call="opponent-choice",
    call_success="any-own-puck",
    free_shot_zone=10,
    free_shot_other_puck=True,
    rebound="2018",
    hand_rule=False,
    post_values=True,
    baseline="at-rest",
    match=MatchFormat("wins", 4, 7),
)

RULE_SETS: dict[str, Options] = {
    o.name: o
    for o in (
        _BEGINNER,
        # 000 rule 5's "advanced option" changes only the free shot.
        replace(
            _BEGINNER,
            name="beginner-advanced",
            summary=N_("Beginner sheet with its advanced free-shot option: a free shot must rest in the 15 zone."),
            seed=N_("the beginner sheet, rule 5's advanced option"),
            free_shot_zone=15,
        ),
        _SANTA_FE_2018,
        # 2019 (001) keeps the Santa Fe shot rules and changes rebounds, adds the hand rule (R-10-B) and
        # plays a fixed number of games for total points (R-1-B).
        replace(
            _SANTA_FE_2018,
            name="tournament-2019",
            summary=N_("Tournament rules version 9 (May 2019): 8 games (doubles 4), most points, shoot-out on a tie."),
            seed=N_("the tournament rules, version 9, May 2019"),
            rebound="2019",
            hand_rule=True,
            match=MatchFormat("games", 8),
        ),
    )
}


def rule_set(name: str) -> Options:
    try:
        return RULE_SETS[name.strip().lower()]
    except KeyError:
        raise ValueError(
            Message("unknown rule set '{name}': choose one of {rules}", name=name, rules=", ".join(RULE_SETS))
        ) from None


def default_match(options: Options, players: int) -> MatchFormat:
    """The match format a rule set uses for this many players (001 R-1-B: doubles play 4 games)."""
    if options.match.kind == "games" and players == 4:
        return replace(options.match, target=4)
    return options.match
