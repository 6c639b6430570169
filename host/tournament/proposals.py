"""What the director proposes before an act is appended: a stage's seeding and a Swiss round's pairs. Pure
functions of the event; the act then carries what they gave, so the fold never computes them again.

- `seeding(event, stage, intake)`: the entrants of a new stage in seeding order. From the entrants: the seeded ones
  by their seed, then the others in a draw whose random generator is seeded by the event's name, the stage's name
  and the entrants' names: the same journal always draws the same order. From an earlier stage: its qualifiers in
  the order `Event.intake` ranks them.
- `next_round(event, stage)`: the pairs and the bye of a Swiss stage's next round (host/tournament/swiss.py), from
  its standings: every active entrant ranked by wins and the stage's tie-break chain.
- `shootout_rounds(event, stage)`: the shoot-out matches (as `shootout-round` acts) that break the ties a stage's
  chain left at its `shootout` key.
- `next_match(event)`: the match the next free board should take, longest-waiting entrants first (for the board
  queue; the director then appends an `assign`).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from flickboard.rules.text import Message
from flickboard.tournament import brackets, swiss
from flickboard.tournament.event import BRACKETS, ActError, Event


def seeding(event: Event, stage: str, intake: dict[str, Any] | None = None, format: str | None = None) -> list[str]:
    """The entrants of a new stage, in seeding order (`format`: the new stage's)."""
    names = event.intake(intake)
    if intake is not None:
        src = event.stages[intake["from"]]
        if src.format == "pools" and format in BRACKETS:
            pool_of = {e: i for i, pool in enumerate(src.pools) for e in pool}
            return cross_over(names, len(src.pools), pool_of)
        return names
    seeded = sorted((event.entrants[e] for e in names if event.entrants[e].seed is not None), key=lambda e: e.seed or 0)
    rest = sorted(e for e in names if event.entrants[e].seed is None)
    random.Random("\x1f".join([event.name, stage, *sorted(names)])).shuffle(rest)
    return [e.name for e in seeded] + rest


def cross_over(ranked: list[str], pools: int, pool_of: dict[str, int]) -> list[str]:
    """A bracket's seeding from pools, so that entrants of one pool meet again as late as the bracket allows: the
    pool winners keep their order (ranked across pools by record), and each later place (the runners-up, then the
    thirds, ...) is placed against them across pools. With two pools of two qualifiers each: A's winner meets B's
    runner-up and B's winner A's runner-up, in opposite halves, so the two of a pool can meet again only in the
    final. In general, among the orders of each place's qualifiers, the one where the earliest meeting of two of one
    pool comes latest (then: the most such meetings late), the ranked order itself on a tie."""
    groups = [ranked[i : i + pools] for i in range(0, len(ranked), pools)]
    size = brackets.size_for(len(ranked))
    position = {seed: pos for pos, seed in enumerate(brackets.seed_order(size))}

    def score(order: list[str]) -> tuple[int, int]:
        rounds = [
            (position[i] ^ position[j]).bit_length()  # the round in which seeds i and j can first meet
            for i, j in itertools.combinations(range(len(order)), 2)
            if pool_of.get(order[i]) == pool_of.get(order[j])
        ]
        return (min(rounds, default=99), sum(rounds))

    chosen = list(groups[0]) if groups else []
    for group in groups[1:]:
        if len(group) <= 7:
            options = (list(p) for p in itertools.permutations(group))
        else:  # too many to try: the ranked order and its rotations
            options = (group[k:] + group[:k] for k in range(len(group)))
        best = max(options, key=lambda g: score([*chosen, *g]))  # max keeps the first of equals: ranked order first
        chosen += best
    return chosen


def next_round(event: Event, stage: str) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs and the bye of the next round of a Swiss stage; ActError or swiss.PairingError says why not."""
    st = event.stages.get(stage)
    if st is None or st.format != "swiss":
        raise ActError(Message("there is no Swiss stage named {stage}", stage=stage[:60]))
    rows = [r for r in event.table(st).rows if event.entrants[r.entrant].active]
    return swiss.pair(
        [r.entrant for r in rows],
        {r.entrant: r.wins for r in rows},
        event.met(st),
        {e for _, e in st.byes},
    )


def shootout_rounds(event: Event, stage: str) -> list[dict[str, Any]]:
    """The `shootout-round` acts a stage's standings need (001 R-1-B): one per group of entrants still level at the
    end of the chain, numbered on from the stage's earlier shoot-out rounds, each pairing every two of the group once
    in standings order (two tied: one match; three: a shoot-out round robin of three matches). A group left level
    by its round (equal shoot-out wins and twenties) gets a further round here once that round is over. ActError
    when the stage cannot have one now (its chain has no `shootout`, its matches are not all played, ...)."""
    st = event.stages.get(stage)
    if st is None:
        raise ActError(Message("there is no stage named {stage}", stage=stage[:60]))
    groups = event.shootout_groups(st)
    acts: list[dict[str, Any]] = []
    for k, group in enumerate(groups):
        act = {
            "act": "shootout-round",
            "stage": stage,
            "round": len(st.shootout_rounds) + 1 + k,
            "entrants": group,
            "pairs": [list(p) for p in itertools.combinations(group, 2)],
        }
        if k == 0:
            event.check(act)  # says why not (the chain, unplayed matches, ...) before anything is appended
        acts.append(act)
    return acts


def next_match(event: Event) -> str | None:
    """The match the next free board should take: of the matches ready to play, on no board yet, and whose
    entrants are not playing on a board already, the one whose entrants have waited longest (since the later of
    their last results, or since their stage started), then the earlier round, then the order of the draw.
    None when no match can start."""
    busy = {s for m in event.matches.values() if m.board is not None and m.state == "ready" for s in m.sides}
    free_since: dict[str, int] = {}
    for m in event.matches.values():
        if m.outcome is not None:
            for s in m.sides:
                free_since[s] = max(free_since.get(s, 0), m.outcome.entry)
    best: tuple[int, int, int] | None = None
    pick: str | None = None
    for i, m in enumerate(event.matches.values()):
        st = event.stages[m.stage]
        if m.state != "ready" or m.board is not None or st.closed_by or busy & set(m.sides):
            continue
        key = (max(free_since.get(s, st.entry) for s in m.sides), m.round, i)
        if best is None or key < best:
            best, pick = key, m.id
    return pick
