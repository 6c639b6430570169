"""A Swiss round's pairings: no rematch, the bye to the lowest-ranked entrant without one, and pairs within score
groups, found as one maximum-weight matching (matching.py). Pure and deterministic: the same standings and history
give the same pairs.

The rules, in strict order of priority (a rule gives way only to the ones before it):
1. no rematch, and everyone paired (when that is impossible, `PairingError`);
2. with an odd count, the bye goes to the lowest-ranked entrant who has not had one (and whose bye leaves the others
   a pairing without a rematch); the entrant with the bye then belongs to no score group;
3. pairs stay within their score group (the entrants with the same number of wins): the sum over the pairs of the
   difference in wins, squared, is as small as it can be, so a group with an odd count sends one entrant down to
   the nearest group, and no more move than must;
4. the one sent down (a floater) is the lowest-ranked of its group, and meets the highest-ranked of the group below;
5. within a score group, those who stay in it (the group without its floaters, in and out) pair top half against
   bottom half, in order (the 1st against the first of the lower half, the 2nd against the second, and so on).
Rule 2 is settled first (the bye is tried from the bottom up). Rules 3 and 4 are the weights of one matching of the
rest, each level weighing more than everything the levels below it can add up to; then each group's stayers are
paired again by rule 5 among themselves (a second matching per group, with no rematch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flickboard.rules.text import Message
from flickboard.tournament.matching import max_weight_matching


def _matched(entrants: Sequence[str], edges: list[tuple[str, str, int]]) -> set[tuple[str, str]]:
    """The pairs of a maximum-cardinality, maximum-weight matching of `entrants` over the weighted `edges`."""
    index = {e: i for i, e in enumerate(entrants)}
    mate = max_weight_matching(len(entrants), [(index[a], index[b], w) for a, b, w in edges], max_cardinality=True)
    return {(entrants[i], entrants[j]) for i, j in enumerate(mate) if j > i}


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
        raise PairingError(Message("a Swiss round needs at least 2 entrants still playing, there are {n}", n=n))
    bye: str | None = None
    playing = list(ranked)
    if n % 2:
        eligible = [e for e in ranked if e not in had_bye]
        if not eligible:
            raise PairingError(Message("the count is odd and every entrant still playing has already had a bye"))
        for e in reversed(eligible):  # rule 2: the lowest-ranked first
            rest = [x for x in ranked if x != e]
            if _pairable(rest, met):
                bye, playing = e, rest
                break
        else:
            raise PairingError(
                Message(
                    "no pairing avoids a rematch for every entrant while the bye goes to an entrant who has not had one"
                )
            )
    matching = _matching(playing, wins, met)
    if 2 * len(matching) != len(playing):
        raise PairingError(Message("no pairing avoids a rematch for every entrant"))
    matching = _halves(playing, wins, met, matching)
    pos = {e: i for i, e in enumerate(ranked)}
    pairs = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in matching]
    pairs.sort(key=lambda p: pos[p[0]])
    return pairs, bye


def _halves(
    ranked: Sequence[str], wins: Mapping[str, int], met: set[frozenset[str]], matching: set[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Rule 5: each score group's pairs made again among those who stay in it, top half against bottom half of them
    (a maximum-weight matching, so a rematch is still avoided; one exists: `matching` has them paired already)."""
    out = {(u, v) for u, v in matching if wins[u] != wins[v]}
    for w in sorted({wins[e] for e in ranked}, reverse=True):
        stay = [e for e in ranked if wins[e] == w and any(wins[u] == wins[v] == w and e in (u, v) for u, v in matching)]
        half = len(stay) // 2
        edges = [
            (a, stay[j], len(stay) + 1 - abs(j - i - half))
            for i, a in enumerate(stay)
            for j in range(i + 1, len(stay))
            if frozenset((a, stay[j])) not in met
        ]
        out |= _matched(stay, edges)
    return out


def _pairable(entrants: Sequence[str], met: set[frozenset[str]]) -> bool:
    """Whether every one of `entrants` can be paired with someone they have not met."""
    edges = [(a, b, 1) for i, a in enumerate(entrants) for b in entrants[i + 1 :] if frozenset((a, b)) not in met]
    return 2 * len(_matched(entrants, edges)) == len(entrants)


def _matching(ranked: Sequence[str], wins: Mapping[str, int], met: set[frozenset[str]]) -> set[tuple[str, str]]:
    """The maximum-cardinality matching of rules 3 to 5 (see the module's text) over `ranked`, an even count."""
    n = len(ranked)
    pos = {e: i for i, e in enumerate(ranked)}
    group_size: dict[int, int] = {}
    group_start: dict[int, int] = {}
    for i, e in enumerate(ranked):
        group_size[wins[e]] = group_size.get(wins[e], 0) + 1
        group_start.setdefault(wins[e], i)
    spread = max(wins[e] for e in ranked) - min(wins[e] for e in ranked) + 1
    # Each level outweighs the most the levels below can add up to over the n/2 pairs.
    c_half = 1  # rule 5: a pair's distance from "top half against bottom half" (at most n)
    c_float = n * n + 1  # rule 4: how far a floater is from the lowest of its group, and its opponent from the top
    c_score = c_float * (2 * n * n + 1)  # rule 3: the difference in wins, squared
    base = c_score * n * spread * spread + 1  # every weight stays positive
    edges: list[tuple[str, str, int]] = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if frozenset((a, b)) in met:
                continue
            d = wins[a] - wins[b]  # a is ranked higher: d >= 0
            ia, ib = pos[a] - group_start[wins[a]], pos[b] - group_start[wins[b]]
            if d == 0:
                weight = base - c_half * abs(abs(ib - ia) - group_size[wins[a]] // 2)
            else:
                away = (group_size[wins[a]] - 1 - ia) + ib  # a from the bottom of its group, b from the top of its
                weight = base - c_score * d * d - c_float * away
            edges.append((a, b, weight))
    return _matched(ranked, edges)
