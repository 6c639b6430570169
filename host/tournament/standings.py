"""Standings of a round robin, a pool or a Swiss stage, with the tie-break chain the organiser picks. Pure.

Entrants are ranked by matches won (a Swiss bye counts as a win; a round-robin bye counts nothing). Entrants level
on wins are separated by the stage's chain of tie-breaks, in the order the organiser gave them:

- `h2h`: the mini-league among the tied: matches won against each other. It applies only when every pair of the
  tied entrants has met (otherwise it would reward whoever happened to meet a weaker tied entrant).
- `twenties`: confirmed twenties, summed over the stage. A result's twenties count here only when the result says
  they are confirmed (a board's result carries what its game journal confirmed); `twenties_reported` shows them all.
- `points`: points scored. `diff`: points scored minus points conceded. Walkovers and byes carry no points.
- `buchholz`: the sum of the opponents' wins (the strength of the field met; a bye has no opponent and adds
  nothing). `median-buchholz`: the same without the best and the worst opponent (when there are three or more).
- `shootout`: a twenties shoot-out (001 R-1-B: "ties broken by 20's shootout of 12 pucks each"): the latest
  finished shoot-out whose entrants include all the tied ones ranks them. Played on boards as shoot-out matches
  (every pair of the tied once, scored by the engine), it ranks by shoot-out wins, then shoot-out twenties; entered
  as counts (a shoot-out played on paper), by its twenties.

When a key splits a tied group, each smaller group still tied starts again at the same key (so a head-to-head
among three that leaves two level is decided by their own meeting), then goes on down the chain. Entrants still
level after the whole chain share a rank (`tied`), listed in seeding order; `unresolved` lists those groups so the
organiser can run a shoot-out. `decided_by` names the key that put a row above the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

TIEBREAKS = ("h2h", "twenties", "points", "diff", "buchholz", "median-buchholz", "shootout")
DEFAULT_CHAIN = ("h2h", "twenties", "points", "diff", "shootout")
SWISS_CHAIN = ("buchholz", "median-buchholz", "h2h", "twenties", "points", "diff", "shootout")


@dataclass(frozen=True)
class Played:
    """One decided match of the group (`b` None: a bye for `a`, a win only when `bye_wins`)."""

    a: str
    b: str | None
    winner: str | None
    points: tuple[int, int] | None = None
    twenties: tuple[int, int] | None = None  # confirmed twenties only
    reported: tuple[int, int] | None = None  # every reported twenty
    bye_wins: bool = False


@dataclass(frozen=True)
class Shootout:
    """A finished twenties shoot-out among tied entrants: its twenties per entrant, and `wins` when it was played as
    shoot-out matches (every pair once: it ranks by wins, then twenties); `entry` orders it among the others."""

    entrants: tuple[str, ...]
    twenties: tuple[int, ...]
    wins: tuple[int, ...] | None = None
    entry: int = 0


@dataclass
class Row:
    entrant: str
    status: str = "active"
    rank: int = 0
    played: int = 0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    points_for: int = 0
    points_against: int = 0
    twenties: int = 0
    twenties_reported: int = 0
    buchholz: int = 0
    median_buchholz: int = 0
    tied: bool = False
    decided_by: str | None = None
    opponents: list[str] = field(default_factory=list)

    @property
    def diff(self) -> int:
        return self.points_for - self.points_against

    def doc(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "status": self.status,
            "played": self.played,
            "wins": self.wins,
            "losses": self.losses,
            "byes": self.byes,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "diff": self.diff,
            "twenties": self.twenties,
            "twenties_reported": self.twenties_reported,
            "buchholz": self.buchholz,
            "median_buchholz": self.median_buchholz,
            "tied": self.tied,
            "decided_by": self.decided_by,
        }


@dataclass(frozen=True)
class Table:
    rows: list[Row]  # in rank order
    unresolved: list[list[str]]  # groups still level after the whole chain, in rank order


def table(
    entrants: Sequence[str],
    played: Sequence[Played],
    chain: Sequence[str],
    shootouts: Sequence[Shootout] = (),
    status: Mapping[str, str] | None = None,
) -> Table:
    """The standings of `entrants` (given in seeding order, which orders what the chain leaves level)."""
    rows = {e: Row(e, (status or {}).get(e, "active")) for e in entrants}
    meetings: dict[frozenset[str], list[str | None]] = {}
    for p in played:
        ra = rows[p.a]
        if p.b is None:
            ra.byes += 1
            if p.bye_wins:
                ra.wins += 1
            continue
        rb = rows[p.b]
        meetings.setdefault(frozenset((p.a, p.b)), []).append(p.winner)
        for me, other, i in ((ra, rb, 0), (rb, ra, 1)):
            me.played += 1
            me.opponents.append(other.entrant)
            if p.winner == me.entrant:
                me.wins += 1
            elif p.winner == other.entrant:
                me.losses += 1
            if p.points is not None:
                me.points_for += p.points[i]
                me.points_against += p.points[1 - i]
            if p.twenties is not None:
                me.twenties += p.twenties[i]
            if p.reported is not None:
                me.twenties_reported += p.reported[i]
    for r in rows.values():
        scores = sorted(rows[o].wins for o in r.opponents)
        r.buchholz = sum(scores)
        r.median_buchholz = sum(scores[1:-1]) if len(scores) >= 3 else r.buchholz

    def h2h(group: list[str]) -> dict[str, tuple[int, ...]] | None:
        wins = dict.fromkeys(group, 0)
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                met = meetings.get(frozenset((a, b)))
                if not met:
                    return None  # not a complete mini-league
                for w in met:
                    if w in wins:
                        wins[w] += 1
        return {e: (v,) for e, v in wins.items()}

    in_order = sorted(shootouts, key=lambda s: s.entry)  # stable: entries of the same act keep their order

    def shootout(group: list[str]) -> dict[str, tuple[int, ...]] | None:
        for s in reversed(in_order):
            if set(group) <= set(s.entrants):
                got = dict(zip(s.entrants, s.twenties, strict=True))
                won = dict(zip(s.entrants, s.wins or (0,) * len(s.entrants), strict=True))
                return {e: (won[e], got[e]) for e in group}
        return None

    def each(value: Callable[[Row], int]) -> Callable[[list[str]], dict[str, tuple[int, ...]]]:
        return lambda g: {e: (value(rows[e]),) for e in g}

    keys: dict[str, Callable[[list[str]], dict[str, tuple[int, ...]] | None]] = {
        "h2h": h2h,
        "twenties": each(lambda r: r.twenties),
        "points": each(lambda r: r.points_for),
        "diff": each(lambda r: r.diff),
        "buchholz": each(lambda r: r.buchholz),
        "median-buchholz": each(lambda r: r.median_buchholz),
        "shootout": shootout,
    }
    chain = tuple(chain)

    def split(group: list[str], value: Mapping[str, tuple[int, ...]]) -> list[list[str]]:
        levels = sorted({value[e] for e in group}, reverse=True)
        return [[e for e in group if value[e] == v] for v in levels]

    def rank(group: list[str], at: int) -> list[tuple[list[str], str | None]]:
        """The group in order as blocks (a block of more than one is still level), each with the key that put it
        above the next block."""
        while len(group) > 1 and at < len(chain):
            value = keys[chain[at]](group)
            blocks = split(group, value) if value is not None else [group]
            if len(blocks) > 1:
                out: list[tuple[list[str], str | None]] = []
                for block in blocks:
                    sub = rank(block, at)
                    sub[-1] = (sub[-1][0], chain[at])
                    out += sub
                out[-1] = (out[-1][0], None)
                return out
            at += 1
        return [(group, None)]

    order: list[tuple[list[str], str | None]] = []
    for block in split(list(entrants), {e: (rows[e].wins,) for e in entrants}):
        order += rank(block, 0)
        order[-1] = (order[-1][0], "wins")
    if order:
        order[-1] = (order[-1][0], None)
    out, unresolved, place = [], [], 1
    for block, by in order:
        for i, e in enumerate(block):
            r = rows[e]
            r.rank, r.tied = place, len(block) > 1
            r.decided_by = by if i == len(block) - 1 else None
            out.append(r)
        if len(block) > 1:
            unresolved.append(list(block))
        place += len(block)
    return Table(out, unresolved)
