"""Round-robin schedules by the circle method, and the split of a field into pools. Pure.

`circle(entrants)`: every entrant meets every other once. The first entrant stays in place while the others turn
around it one place per round; with an odd count an empty place joins the circle, and whoever faces it sits out
that round (a bye: in a round robin it scores nothing, and everyone has exactly one). n entrants play n-1 rounds
(n rounds when n is odd). The first of each pair alternates round by round for the entrant that stays in place, so
nobody is always "home".

`pools(entrants, count)`: the seeding split into `count` pools in serpentine order (1-2-3-4, 8-7-6-5, 9-...), so each
pool gets one of the top seeds and the pools are as even as the seeding allows.
"""

from __future__ import annotations

from collections.abc import Sequence

Pairing = tuple[str | None, str | None]  # None: the bye


def circle(entrants: Sequence[str]) -> list[list[Pairing]]:
    """The rounds of a single round robin: each a list of pairs, (name, None) or (None, name) for the bye."""
    ring: list[str | None] = list(entrants)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs: list[Pairing] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a
            pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def pools(entrants: Sequence[str], count: int) -> list[list[str]]:
    """`entrants` (in seeding order) split into `count` pools, serpentine."""
    out: list[list[str]] = [[] for _ in range(count)]
    for i, name in enumerate(entrants):
        row, col = divmod(i, count)
        out[col if row % 2 == 0 else count - 1 - col].append(name)
    return out
