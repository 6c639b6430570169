"""Swiss rounds: no rematch, the bye to the lowest-ranked entrant without one, pairs within score groups, the same
pairs from the same journal (host/tournament/swiss.py, proposals.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from flickboard.tournament import ActError, Director, PairingError, read
from flickboard.tournament.proposals import next_match, next_round, seeding
from flickboard.tournament.swiss import pair

Make = Callable[..., Director]


def round_of(d: Director, stage: str, r: int) -> list[list[str]]:
    return [list(d.event.matches[m].sides) for m in d.event.stages[stage].rounds[r - 1]]


def win(d: Director, match: str, winner: str) -> None:
    m = d.event.matches[match]
    d.result(match, winner, points=[100, 50] if m.sides[0] == winner else [50, 100])


def test_round_one_pairs_the_top_half_with_the_bottom_half(director: Make) -> None:
    d = director(*"ABCDEFGH")
    d.start_stage("s", "swiss", options={"rounds": 3})
    d.pair_round("s")
    assert round_of(d, "s", 1) == [["A", "E"], ["B", "F"], ["C", "G"], ["D", "H"]]


def test_the_only_legal_pairing_avoids_a_rematch(director: Make) -> None:
    # Round 1: A-C, B-D (A and B win). Round 2 in score groups: A-B, C-D (A and C win). Now A 2 wins, B and C 1,
    # D 0. The best pairing by score would put A against B or C, but A has met both: the only pairing without a
    # rematch is A-D, B-C.
    d = director("A", "B", "C", "D")
    d.start_stage("s", "swiss", options={"rounds": 3})
    d.pair_round("s")
    assert round_of(d, "s", 1) == [["A", "C"], ["B", "D"]]
    win(d, "s/R1-1", "A")
    win(d, "s/R1-2", "B")
    d.pair_round("s")
    assert round_of(d, "s", 2) == [["A", "B"], ["C", "D"]]
    win(d, "s/R2-1", "A")
    win(d, "s/R2-2", "C")
    with pytest.raises(ActError, match="already met"):
        d.act({"act": "pair", "stage": "s", "round": 3, "pairs": [["A", "C"], ["B", "D"]], "bye": None})
    d.pair_round("s")
    assert sorted(map(sorted, round_of(d, "s", 3))) == [["A", "D"], ["B", "C"]]


def test_no_legal_pairing_is_said(director: Make) -> None:
    d = director("A", "B")
    d.start_stage("s", "swiss", options={"rounds": 2})
    d.pair_round("s")
    win(d, "s/R1-1", "A")
    with pytest.raises(PairingError, match="rematch"):
        d.pair_round("s")


def test_the_bye_goes_to_the_lowest_ranked_entrant_without_one(director: Make) -> None:
    d = director(*"ABCDE")
    d.start_stage("s", "swiss", options={"rounds": 4})
    st = d.event.stages["s"]
    byes = []
    for r in range(1, 5):
        without = [row.entrant for row in d.event.table(st).rows if row.byes == 0]
        d.pair_round("s")
        byes.append(st.byes[-1][1])
        assert byes[-1] == without[-1], f"round {r}"
        for m in st.rounds[r - 1]:
            win(d, m, min(d.event.matches[m].sides))  # the earlier letter wins
    assert byes[0] == "E"  # before any result: the lowest seed
    assert len(set(byes)) == 4
    # A Swiss bye scores a win.
    rows = {row.entrant: row for row in d.event.table(st).rows}
    assert rows["E"].byes == 1 and rows["E"].wins == 1


def test_the_bye_by_hand() -> None:
    # Ranked A B C D E; E has had a bye already: the bye goes to D, the lowest-ranked without one.
    pairs, bye = pair(list("ABCDE"), dict(zip("ABCDE", [2, 2, 1, 1, 1], strict=True)), set(), {"E"})
    assert bye == "D"
    assert pairs == [("A", "B"), ("C", "E")]


def test_score_groups_and_one_floater() -> None:
    # Ranked by wins 2 2 2 1 1 1: each group of three sends one down; C (lowest of the top group) meets D (top
    # of the next), the rest stay in their groups, top half against bottom half.
    wins = dict(zip("ABCDEF", [2, 2, 2, 1, 1, 1], strict=True))
    pairs, bye = pair(list("ABCDEF"), wins, set(), set())
    assert bye is None
    assert sum((wins[a] - wins[b]) ** 2 for a, b in pairs) == 1
    assert pairs == [("A", "B"), ("C", "D"), ("E", "F")]


def test_the_same_journal_gives_the_same_pairs(director: Make) -> None:
    d = director(*"ABCDEFGHIJ", seeded=False)
    d.start_stage("s", "swiss", options={"rounds": 3})
    # Unseeded entrants are drawn by a generator seeded from the journal: the same draw every time.
    again = read(d.path)
    assert again.stages["s"].entrants == d.event.stages["s"].entrants
    d.pair_round("s")
    for m in d.event.stages["s"].rounds[0]:
        win(d, m, d.event.matches[m].sides[1])
    assert next_round(read(d.path), "s") == next_round(d.event, "s")


def test_a_withdrawn_entrant_is_not_paired_and_loses_its_match_by_walkover(director: Make) -> None:
    d = director(*"ABCD")
    d.start_stage("s", "swiss", options={"rounds": 3})
    d.pair_round("s")
    d.withdraw("C", "went home")
    m = d.event.matches["s/R1-1"]
    assert m.sides == ["A", "C"] and m.state == "walkover" and m.winner == "A"
    win(d, "s/R1-2", "B")
    d.pair_round("s")
    paired = [x for p in round_of(d, "s", 2) for x in p] + [d.event.stages["s"].byes[-1][1]]
    assert "C" not in paired and sorted(paired) == ["A", "B", "D"]


PROPOSE = """
import json, sys
from flickboard.tournament import read
from flickboard.tournament.proposals import next_match, next_round, seeding
ev = read(sys.argv[1])
print(json.dumps([next_round(ev, "s"), seeding(ev, "next")]))
"""


def test_the_proposals_do_not_depend_on_the_process(director: Make) -> None:
    """Python randomises string hashing per process: the draw and the pairs must not depend on it."""
    d = director(*[f"N{i}" for i in range(14)], seeded=False)
    d.start_stage("s", "swiss", options={"rounds": 4})
    d.pair_round("s")
    for m in d.event.stages["s"].rounds[0]:
        win(d, m, d.event.matches[m].sides[hash(m) % 2])  # any winners: this process's hash picks them
    root = Path(__file__).resolve().parents[2]
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        done = subprocess.run(
            [sys.executable, "-c", PROPOSE, d.path], env=env, cwd=root, capture_output=True, check=True
        )
        outs.add(done.stdout)
    assert len(outs) == 1
    here = json.loads(outs.pop())
    assert here == json.loads(json.dumps([next_round(d.event, "s"), seeding(d.event, "next")]))


def test_the_next_free_board_takes_the_longest_waiting_entrants(director: Make) -> None:
    d = director(*"ABCDEFGH")
    d.start_stage("s", "swiss", options={"rounds": 2})
    d.pair_round("s")
    assert next_match(d.event) == "s/R1-1"  # everyone has waited since the start: the first of the draw
    d.assign("s/R1-1", "table-1")
    assert next_match(d.event) == "s/R1-2"
    for m in ("s/R1-2", "s/R1-3", "s/R1-4", "s/R1-1"):  # R1-1 (A-E) finishes last
        win(d, m, d.event.matches[m].sides[0])
    d.pair_round("s")
    order = []
    while (m := next_match(d.event)) is not None:
        order.append(d.event.matches[m].sides)
        d.assign(m, f"table-{len(order)}")
    # A and E finished last, so their matches go to a board after the others'.
    assert len(order) == 4 and not {"A", "E"} & set(order[0] + order[1])


def _matchings(people: list[str], met: set[frozenset[str]]) -> list[list[tuple[str, str]]]:
    """Every way to pair `people` (an even count) with no rematch."""
    if not people:
        return [[]]
    first, rest = people[0], people[1:]
    out = []
    for k, other in enumerate(rest):
        if frozenset((first, other)) not in met:
            out += [[(first, other), *m] for m in _matchings(rest[:k] + rest[k + 1 :], met)]
    return out


def _costs(pairs: list[tuple[str, str]], ranked: list[str], wins: dict[str, int]) -> tuple[int, int, int]:
    """The rules of docs/tournament.md (and swiss.py), as numbers to make small in this order: the score groups kept
    (rule 3), a floater the lowest of its group meeting the highest of the group below (4), top half against bottom
    half (5)."""
    groups: dict[int, list[str]] = {}
    for e in ranked:
        groups.setdefault(wins[e], []).append(e)
    stayers = {w: [e for e in g if any(e in p and wins[p[0]] == wins[p[1]] for p in pairs)] for w, g in groups.items()}
    score = floating = halves = 0
    for x, y in pairs:
        a, b = (x, y) if ranked.index(x) < ranked.index(y) else (y, x)
        ga, gb = groups[wins[a]], groups[wins[b]]
        if wins[a] == wins[b]:
            stay = stayers[wins[a]]
            halves += abs(stay.index(b) - stay.index(a) - len(stay) // 2)
        else:
            score += (wins[a] - wins[b]) ** 2
            floating += (len(ga) - 1 - ga.index(a)) + gb.index(b)
    return score, floating, halves


@pytest.mark.parametrize("seed", range(40))
def test_the_pairs_follow_the_stated_priorities_against_every_possible_pairing(seed: int) -> None:
    """On random standings and histories of 6 to 9 entrants, the pairs are the best of all pairings without a rematch
    by the stated order of rules (checked by trying every pairing): the bye to the lowest-ranked who has not had one
    and is not needed to avoid a rematch, that entrant out of its score group, then score groups, then the floater
    the lowest of its group against the highest below, then top half against bottom half."""
    import random

    rng = random.Random(seed)
    n = rng.randrange(6, 10)
    ranked = [f"E{i}" for i in range(n)]
    wins = dict(zip(ranked, sorted((rng.randrange(0, 4) for _ in ranked), reverse=True), strict=True))
    met = {frozenset(p) for p in (rng.sample(ranked, 2) for _ in range(rng.randrange(0, n)))}
    had_bye = set(rng.sample(ranked, rng.randrange(0, n // 2)))
    try:
        pairs, bye = pair(ranked, wins, met, had_bye)
    except PairingError:
        pairs, bye = None, None
    want_bye = None
    playing = ranked
    if n % 2:
        for e in reversed([e for e in ranked if e not in had_bye]):
            if _matchings([x for x in ranked if x != e], met):
                want_bye, playing = e, [x for x in ranked if x != e]
                break
    options = _matchings(playing, met) if n % 2 == 0 or want_bye else []
    if not options:
        assert pairs is None, "a pairing was made where none is legal"
        return
    assert pairs is not None and bye == want_bye
    best = min(_costs(m, playing, wins) for m in options)
    assert _costs(pairs, playing, wins) == best, (pairs, best)


def test_the_one_sent_down_is_the_lowest_of_its_group_meeting_the_highest_below() -> None:
    """Three entrants on 1 win, five on none: the third on 1 win goes down and meets the first on none; the top two
    on 1 win meet; the four left on none pair top half against bottom half."""
    ranked = ["A", "B", "C", "D", "E", "F", "G", "H"]
    wins = {"A": 1, "B": 1, "C": 1, "D": 0, "E": 0, "F": 0, "G": 0, "H": 0}
    pairs, bye = pair(ranked, wins, set(), set())
    assert pairs == [("A", "B"), ("C", "D"), ("E", "G"), ("F", "H")] and bye is None


def _dutch(ranked: list[str], wins: dict[str, int], met: set[frozenset[str]], rnd: int) -> set[frozenset[str]]:
    """The same round paired by swissdutch (PyPI), an independent implementation of the FIDE Dutch system: pairing
    numbers in our standings order, no colours (Pichenotte has none to balance)."""
    from swissdutch.constants import Colour
    from swissdutch.dutch import DutchPairingEngine
    from swissdutch.player import Player

    number = {e: i + 1 for i, e in enumerate(ranked)}
    players = [
        Player(
            e,
            3000 - number[e],
            pairing_no=number[e],
            score=wins[e],
            opponents=tuple(number[o] for m in met if e in m for o in m if o != e),
            colour_hist=tuple([Colour.none] * (rnd - 1)),
        )
        for e in ranked
    ]
    out = DutchPairingEngine(top_seed_colour_selection_fn=lambda: Colour.white).pair_round(rnd, players)
    name = {p.pairing_no: p.name for p in out}
    return {frozenset((p.name, name[p.opponents[-1]])) for p in out if p.opponents[-1]}


@pytest.mark.parametrize("seed", range(12))
def test_the_rounds_agree_with_an_independent_dutch_system(seed: int) -> None:
    """Against swissdutch on the same standings: the same pairs when no rematch stands in the way (round 2 of fresh
    standings); with two rounds of history, the same score groups and floaters, both without a rematch. Where a
    rematch must be avoided the two may pair differently inside a group (docs/tournament.md says why)."""
    import random

    rng = random.Random(seed)
    n = rng.choice([8, 10, 12, 16])
    ranked = [f"E{i:02d}" for i in range(n)]
    fresh = dict(zip(ranked, sorted((rng.randrange(0, 3) for _ in ranked), reverse=True), strict=True))
    ours = {frozenset(p) for p in pair(ranked, fresh, set(), set())[0]}
    assert ours == _dutch(ranked, fresh, set(), 2)
    wins = dict.fromkeys(ranked, 0)
    met: set[frozenset[str]] = set()
    order = list(ranked)
    for _ in (1, 2):
        order.sort(key=lambda e: (-wins[e], ranked.index(e)))
        for a, b in pair(order, wins, met, set())[0]:
            met.add(frozenset((a, b)))
            wins[a if rng.random() < 0.6 else b] += 1
    order.sort(key=lambda e: (-wins[e], ranked.index(e)))
    ours = {frozenset(p) for p in pair(order, wins, met, set())[0]}
    theirs = _dutch(order, wins, met, 3)

    def spread(pairs: set[frozenset[str]]) -> list[int]:
        return sorted(abs(wins[a] - wins[b]) for a, b in map(tuple, pairs))

    assert not (ours & met) and not (theirs & met) and spread(ours) == spread(theirs)
