"""Seeded elimination brackets as data: which match feeds which slot. Pure; no entrant names, only seed numbers.

A bracket is a list of `Slotted` matches in playing order. Each slot says where its entrant comes from: a seed
(`("seed", i)`, 0-based index into the stage's seeding; an index past the last entrant is a bye), or the winner or
the loser of an earlier match (`("winner", id)`, `("loser", id)`). The folding code (host/tournament/event.py)
resolves the slots against the results; a slot that can never be filled (a bye, the loser of a bye) is empty, and
a match with one empty slot sends its entrant on without being played.

- Single elimination: the bracket is the next power of two; seeds are placed so that 1 and 2 can meet only in the
  final, 1-4 only in the semi-finals, and so on (`seed_order`); the byes fall to the top seeds.
- Double elimination: the same winners bracket ("W<round>-<k>"), a losers bracket ("L<round>-<k>") where each
  odd round pairs the survivors and each even round brings in the losers of the next winners round (in reverse
  order every other time, so that two entrants do not meet again at once), and the grand final "GF1" between the
  two brackets' champions. "GF2" (the reset) is played only when the stage allows it and the losers bracket's
  champion wins GF1: then both have lost once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from flickboard.rules.text import Message

Source = tuple[str, int | str]  # ("seed", index) | ("winner", match id) | ("loser", match id)


@dataclass(frozen=True)
class Slotted:
    id: str  # "W1-1", "L2-1", "GF1", "GF2"
    round: int  # the order rounds are played in, from 1
    sources: tuple[Source, Source]


def size_for(count: int) -> int:
    """The bracket size: the smallest power of two that holds `count` entrants (at least 2)."""
    size = 2
    while size < count:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """The 0-based seeds in bracket order: [0, 3, 1, 2] for 4, [0, 7, 3, 4, 1, 6, 2, 5] for 8. Neighbours meet in
    the first round, so seed 0 meets the last seed (a bye when there are fewer entrants than places)."""
    order = [0]
    while len(order) < size:
        span = 2 * len(order) - 1
        order = [x for s in order for x in (s, span - s)]
    return order


def _winners(size: int) -> tuple[list[Slotted], int]:
    order = seed_order(size)
    matches = []
    for k in range(size // 2):
        matches.append(Slotted(f"W1-{k + 1}", 1, (("seed", order[2 * k]), ("seed", order[2 * k + 1]))))
    rounds, count, r = 1, size // 2, 1
    while count > 1:
        r += 1
        count //= 2
        for k in range(count):
            matches.append(
                Slotted(f"W{r}-{k + 1}", r, (("winner", f"W{r - 1}-{2 * k + 1}"), ("winner", f"W{r - 1}-{2 * k + 2}")))
            )
        rounds = r
    return matches, rounds


def single(count: int) -> list[Slotted]:
    """The matches of a single-elimination bracket for `count` entrants; the last one is the final."""
    return _winners(size_for(count))[0]


def double(count: int, reset: bool) -> list[Slotted]:
    """The matches of a double-elimination bracket for `count` entrants, in an order they can be played in:
    winners round r before losers round 2(r-1), then GF1 and (with `reset`) GF2."""
    size = size_for(count)
    winners, k = _winners(size)
    by_round: dict[int, list[Slotted]] = {}
    for m in winners:
        by_round.setdefault(m.round, []).append(m)
    losers: dict[int, list[Slotted]] = {}
    if k >= 2:
        losers[1] = [
            Slotted(f"L1-{m + 1}", 0, (("loser", f"W1-{2 * m + 1}"), ("loser", f"W1-{2 * m + 2}")))
            for m in range(size // 4)
        ]
        for j in range(1, k):
            count_even = size // 2 ** (j + 1)
            drop = [f"W{j + 1}-{i + 1}" for i in range(count_even)]
            if j % 2 == 1:
                drop.reverse()
            losers[2 * j] = [
                Slotted(f"L{2 * j}-{m + 1}", 0, (("winner", f"L{2 * j - 1}-{m + 1}"), ("loser", drop[m])))
                for m in range(count_even)
            ]
            if j <= k - 2:
                losers[2 * j + 1] = [
                    Slotted(
                        f"L{2 * j + 1}-{m + 1}",
                        0,
                        (("winner", f"L{2 * j}-{2 * m + 1}"), ("winner", f"L{2 * j}-{2 * m + 2}")),
                    )
                    for m in range(count_even // 2)
                ]
    # Playing order: W1, L1, W2, L2, L3, W3, L4, L5, ... each losers round as soon as what feeds it is known.
    out: list[Slotted] = []
    played = 0

    def add(ms: list[Slotted]) -> None:
        nonlocal played
        played += 1
        out.extend(Slotted(m.id, played, m.sources) for m in ms)

    add(by_round[1])
    if 1 in losers:
        add(losers[1])
    for r in range(2, k + 1):
        add(by_round[r])
        for lr in (2 * (r - 1), 2 * (r - 1) + 1):
            if lr in losers:
                add(losers[lr])
    wb_final = f"W{k}-1"
    lb_final: Source = ("winner", f"L{2 * (k - 1)}-1") if k >= 2 else ("loser", wb_final)
    add([Slotted("GF1", 0, (("winner", wb_final), lb_final))])
    if reset:
        add([Slotted("GF2", 0, (("winner", "GF1"), ("loser", "GF1")))])
    return out


def round_name(fmt: str, label: str, labels: Iterable[str]) -> str:
    """The name people give a bracket's round, from one of its match labels and every label of the bracket: a single
    elimination's "Final", "Semi-finals", "Quarter-finals", "Round of 16", ...; a double elimination's "Winners' round
    1", ..., "Winners' final", "Losers' round 1", ..., "Losers' final", "Grand final" and "Grand final reset"."""
    if label == "GF1":
        return Message("Grand final")
    if label == "GF2":
        return Message("Grand final reset")
    kind, r = label[:1], _label_round(label)
    last = max((_label_round(x) for x in labels if x[:1] == kind and not x.startswith("GF")), default=r)
    if fmt == "single-elimination":
        left = last - r
        named = {0: Message("Final"), 1: Message("Semi-finals"), 2: Message("Quarter-finals")}
        return named.get(left, Message("Round of {n}", n=2 ** (left + 1)))
    if kind == "W":
        return Message("Winners' final") if r == last else Message("Winners' round {round}", round=r)
    return Message("Losers' final") if r == last else Message("Losers' round {round}", round=r)


def _label_round(label: str) -> int:
    """The round in a bracket label: 2 for "W2-1" or "L2-3"."""
    return int(label[1:].split("-", 1)[0])
