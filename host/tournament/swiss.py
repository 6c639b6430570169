"""A Swiss round's pairings: no rematch, the bye to the lowest-ranked entrant without one, and pairs within score
groups, found as one maximum-weight matching (networkx). Pure and deterministic: the same standings and history
give the same pairs.

Every allowed pair (two entrants who have not met) is an edge; with an odd count a "bye" node joins, with an edge to
each entrant who has not had a bye. A maximum-cardinality matching of the largest weight is then chosen. The
weights are built so that, in this order:
1. everyone is paired (maximum cardinality; when even that is impossible without a rematch, `PairingError`);
2. the bye goes to the lowest-ranked entrant who has not had one;
3. the sum over the pairs of (difference in wins)² is as small as it can be: pairs stay within their score group,
   and a group with an odd count sends one entrant down to the nearest group;
4. within a score group the top half meets the bottom half (1st against the first of the lower half, and so on),
   and an entrant sent down is the lowest of its group, meeting the highest of the group below.
Each level weighs more than everything the levels below it can add up to, so it is a strict priority.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

nx: Any = importlib.import_module("networkx")  # networkx ships no type information

_BYE = "\x00bye"


class PairingError(ValueError):
    """No legal pairing exists; str() says why."""


def pair(
    ranked: Sequence[str],
    wins: Mapping[str, int],
    met: set[frozenset[str]],
    had_bye: set[str],
) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs (better-ranked first, in rank order of that entrant) and the bye of the next round for the entrants
    `ranked` (in standings order), given their wins, the pairs that have already met and who has had a bye."""
    n = len(ranked)
    if n < 2:
        raise PairingError(f"a Swiss round needs at least 2 entrants still playing, there are {n}")
    pos = {e: i for i, e in enumerate(ranked)}
    group_size: dict[int, int] = {}
    group_start: dict[int, int] = {}
    for i, e in enumerate(ranked):
        group_size[wins[e]] = group_size.get(wins[e], 0) + 1
        group_start.setdefault(wins[e], i)
    top = max(wins[e] for e in ranked) - min(wins[e] for e in ranked) + 1
    c_small = 1
    c_score = n * n + 1  # more than all the within-group terms together (at most 2n a pair)
    c_bye = c_score * n * top * top + 1  # more than all the score terms together
    base = c_bye * (n + 1) + 1  # every weight stays positive
    graph = nx.Graph()
    graph.add_nodes_from(ranked)
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if frozenset((a, b)) in met:
                continue
            d = wins[a] - wins[b]
            ia, ib = pos[a] - group_start[wins[a]], pos[b] - group_start[wins[b]]
            # same group: top half against bottom half; a floater: the lowest of its group against the highest below
            same = abs(abs(ib - ia) - group_size[wins[a]] // 2)
            small = same if d == 0 else (group_size[wins[a]] - 1 - ia) + ib
            graph.add_edge(a, b, weight=base - c_score * d * d - c_small * small)
    bye: str | None = None
    if n % 2:
        eligible = [e for e in ranked if e not in had_bye]
        if not eligible:
            raise PairingError("the count is odd and every entrant still playing has already had a bye")
        graph.add_node(_BYE)
        for below, e in enumerate(reversed(eligible)):
            graph.add_edge(e, _BYE, weight=base - c_bye * below)
    matching = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    if 2 * len(matching) != graph.number_of_nodes():
        raise PairingError(
            "no pairing avoids a rematch for every entrant"
            + (" while the bye goes to an entrant who has not had one" if n % 2 else "")
        )
    pairs: list[tuple[str, str]] = []
    for u, v in matching:
        if _BYE in (u, v):
            bye = v if u == _BYE else u
            continue
        a, b = (u, v) if pos[u] < pos[v] else (v, u)
        pairs.append((a, b))
    pairs.sort(key=lambda p: pos[p[0]])
    return pairs, bye
