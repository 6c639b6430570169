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
