"""The Swiss pairing's own maximum-weight matching (flickboard.tournament.matching), against networkx's, an
independent implementation of the same optimum: on random graphs of every density and weight range, on the odd
cycles that make nested blossoms, and on the graphs a Swiss round of a real evening builds."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from flickboard.tournament import swiss
from flickboard.tournament.matching import max_weight_matching

Edges = list[tuple[int, int, int]]


def weight(mate: list[int], edges: Edges) -> int:
    best: dict[frozenset[int], int] = {}
    for i, j, w in edges:
        key = frozenset((i, j))
        best[key] = max(best.get(key, w), w)
    return sum(best[frozenset((v, m))] for v, m in enumerate(mate) if m > v)


def reference(n: int, edges: Edges, max_cardinality: bool) -> list[int]:
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, j, w in edges:
        graph.add_edge(i, j, weight=w)
    mate = [-1] * n
    for a, b in nx.max_weight_matching(graph, maxcardinality=max_cardinality):
        mate[a], mate[b] = b, a
    return mate


def check(n: int, edges: Edges) -> None:
    for max_cardinality in (False, True):
        mate = max_weight_matching(n, edges, max_cardinality)
        assert all(m == -1 or mate[m] == v for v, m in enumerate(mate)), mate  # a matching
        linked = {frozenset((i, j)) for i, j, _ in edges}
        assert all(frozenset((v, m)) in linked for v, m in enumerate(mate) if m != -1), mate  # along edges
        ref = reference(n, edges, max_cardinality)
        assert weight(mate, edges) == weight(ref, edges), (n, edges, max_cardinality, mate, ref)
        if max_cardinality:
            assert mate.count(-1) == ref.count(-1), (n, edges, mate, ref)


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_agree_with_networkx(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(250):
        n = rng.randint(1, 16)
        density = rng.random()
        edges = [
            (i, j, rng.choice((rng.randint(-5, 20), rng.randint(0, 3), rng.randint(1, 10**6))))
            for i in range(n)
            for j in range(i + 1, n)
            if rng.random() < density
        ]
        check(n, edges)


def test_large_graphs_agree_with_networkx() -> None:
    rng = random.Random(7)
    for n in (33, 48, 64):
        for density in (0.15, 0.5, 0.95):
            edges = [
                (i, j, rng.randint(1, 10**12)) for i in range(n) for j in range(i + 1, n) if rng.random() < density
            ]
            check(n, edges)


def test_odd_cycles_nested_blossoms_and_equal_weights() -> None:
    # a triangle hanging off a path: the triangle shrinks to a blossom, then opens again
    check(5, [(0, 1, 8), (1, 2, 9), (2, 0, 10), (2, 3, 7), (3, 4, 6)])
    # two pentagons joined by one edge: an augmenting path through two blossoms
    pent = [(i, (i + 1) % 5, 5) for i in range(5)]
    check(10, [*pent, *((i + 5, j + 5, w) for i, j, w in pent), (0, 5, 4)])
    # a blossom inside a blossom (a triangle whose corner is a triangle), with a T blossom that must be opened
    check(8, [(0, 1, 10), (1, 2, 10), (2, 0, 10), (2, 3, 9), (3, 4, 9), (4, 2, 9), (4, 5, 12), (5, 6, 3), (6, 7, 11)])
    # every weight equal (many optima: any of them), and negative weights (never worth taking without cardinality)
    check(7, [(i, j, 4) for i in range(7) for j in range(i + 1, 7)])
    check(4, [(0, 1, -3), (1, 2, -1), (2, 3, -2)])
    assert max_weight_matching(3, []) == [-1, -1, -1]
    assert max_weight_matching(0, []) == []


def test_an_edge_must_join_two_vertices_of_the_graph() -> None:
    for bad in [(0, 0, 1), (0, 3, 1), (-1, 1, 1)]:
        with pytest.raises(ValueError, match="must join two different vertices"):
            max_weight_matching(3, [bad])


def test_swiss_rounds_pair_as_networkx_would_weigh_them() -> None:
    """Swiss rounds of 7 to 40 entrants, played at random: each round's pairs weigh what networkx's optimum weighs
    (the weights are swiss.py's own), nobody meets twice, and the bye goes to someone who had none."""
    rng = random.Random(11)
    for count in (7, 8, 13, 16, 25, 40):
        names = [f"P{i}" for i in range(count)]
        wins = dict.fromkeys(names, 0)
        met: set[frozenset[str]] = set()
        had_bye: set[str] = set()
        for _round in range(min(5, count - 1)):
            ranked = sorted(names, key=lambda e: (-wins[e], names.index(e)))
            pairs, bye = swiss.pair(ranked, wins, met, had_bye)
            assert len(pairs) == count // 2 and (bye is None) == (count % 2 == 0)
            playing = [e for e in ranked if e != bye]
            index = {e: i for i, e in enumerate(playing)}
            edges = _swiss_edges(playing, wins, met)
            ours = [-1] * len(playing)
            for a, b in swiss._matching(playing, wins, met):
                ours[index[a]], ours[index[b]] = index[b], index[a]
            numbered = [(index[a], index[b], w) for a, b, w in edges]
            assert weight(ours, numbered) == weight(reference(len(playing), numbered, True), numbered)
            for a, b in pairs:
                assert frozenset((a, b)) not in met
                met.add(frozenset((a, b)))
                wins[rng.choice((a, b))] += 1
            if bye is not None:
                assert bye not in had_bye
                had_bye.add(bye)
                wins[bye] += 1


def _swiss_edges(ranked: list[str], wins: dict[str, int], met: set[frozenset[str]]) -> list[tuple[str, str, int]]:
    """swiss._matching's weighted edges, caught on their way to the matching."""
    seen: list[tuple[str, str, int]] = []
    real = swiss._matched

    def spy(entrants: list[str], edges: list[tuple[str, str, int]]) -> set[tuple[str, str]]:
        seen.extend(edges)
        return real(entrants, edges)

    swiss._matched = spy  # type: ignore[assignment]
    try:
        swiss._matching(ranked, wins, met)
    finally:
        swiss._matched = real  # type: ignore[assignment]
    return seen
