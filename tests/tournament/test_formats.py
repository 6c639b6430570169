"""The event formats as chainable stages, against hand-worked draws. 001 R-1-A: "The tournament may be
single-elimination, double-elimination or round-robin"; Swiss rounds and pools feeding playoffs are what clubs of
similar games run (issue 21)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from flickboard.tournament import ActError, Director
from flickboard.tournament.brackets import seed_order
from flickboard.tournament.roundrobin import circle, pools

Make = Callable[..., Director]


def play(d: Director, match: str, winner: str, pts: tuple[int, int] = (100, 50)) -> None:
    m = d.event.matches[match]
    points = pts if m.sides[0] == winner else (pts[1], pts[0])
    d.result(match, winner, points=list(points))


def sides(d: Director, match: str) -> list[str]:
    return list(d.event.matches[match].sides)


def test_circle_method_by_hand() -> None:
    # 4 entrants: A stays, B C D turn: 3 rounds, each pair once, A's first place alternates.
    assert circle(["A", "B", "C", "D"]) == [
        [("A", "D"), ("B", "C")],
        [("C", "A"), ("D", "B")],
        [("A", "B"), ("C", "D")],
    ]


def test_circle_method_odd_count_gives_each_entrant_one_bye() -> None:
    rounds = circle(["A", "B", "C", "D", "E"])
    assert len(rounds) == 5
    byes = [next(a or b for a, b in r if a is None or b is None) for r in rounds]
    assert sorted(byes) == ["A", "B", "C", "D", "E"]
    met = [frozenset(p) for r in rounds for p in r if None not in p]
    assert len(met) == len(set(met)) == 10


def test_pools_are_filled_serpentine() -> None:
    assert pools(list("ABCDEFGH"), 2) == [["A", "D", "E", "H"], ["B", "C", "F", "G"]]
    assert pools(list("ABCDEFG"), 3) == [["A", "F", "G"], ["B", "E"], ["C", "D"]]


def test_seed_order_keeps_the_top_seeds_apart() -> None:
    # 1 v 8, 4 v 5, 2 v 7, 3 v 6: seeds 1 and 2 can meet only in the final.
    assert seed_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]


def test_round_robin_odd_count(director: Make) -> None:
    d = director("A", "B", "C", "D", "E")
    d.start_stage("rr", "round-robin")
    st = d.event.stages["rr"]
    assert len(st.rounds) == 5 and len(st.matches) == 10
    assert sorted(e for _, e in st.byes) == ["A", "B", "C", "D", "E"]
    for m in list(st.matches.values()):
        winner = min(m.sides)  # the earlier letter always wins
        play(d, m.id, winner)
    assert st.complete
    rows = d.event.table(st).rows
    # A round-robin bye scores nothing: A won its 4 matches, not 5.
    assert [(r.entrant, r.wins, r.byes) for r in rows] == [
        ("A", 4, 1),
        ("B", 3, 1),
        ("C", 2, 1),
        ("D", 1, 1),
        ("E", 0, 1),
    ]


def test_single_elimination_byes_to_the_top_seeds(director: Make) -> None:
    d = director("A", "B", "C", "D", "E", "F")
    d.start_stage("ko", "single-elimination")
    ev = d.event
    # 6 in a bracket of 8: seeds 1 and 2 (A, B) have the byes.
    assert ev.matches["ko/W1-1"].state == "bye" and ev.matches["ko/W1-1"].winner == "A"
    assert ev.matches["ko/W1-3"].state == "bye" and ev.matches["ko/W1-3"].winner == "B"
    assert sides(d, "ko/W1-2") == ["D", "E"] and sides(d, "ko/W1-4") == ["C", "F"]
    with pytest.raises(ActError, match="not ready"):
        d.assign("ko/W2-1", "table-1")  # A waits for D or E
    play(d, "ko/W1-2", "E")
    play(d, "ko/W1-4", "C")
    assert sides(d, "ko/W2-1") == ["A", "E"] and sides(d, "ko/W2-2") == ["B", "C"]
    # While it is played, those knocked out rank behind everyone still in: D and F share 5th of 6.
    assert ev.placings(ev.stages["ko"])[-2:] == [(5, "D"), (5, "F")]
    play(d, "ko/W2-1", "A")
    play(d, "ko/W2-2", "C")
    assert ev.champion(ev.stages["ko"]) is None
    assert ev.placings(ev.stages["ko"]) == [(None, "A"), (None, "C"), (3, "B"), (3, "E"), (5, "D"), (5, "F")]
    play(d, "ko/W3-1", "A")
    st = ev.stages["ko"]
    assert st.complete and ev.champion(st) == "A"
    assert ev.placings(st) == [(1, "A"), (2, "C"), (3, "B"), (3, "E"), (5, "D"), (5, "F")]


def test_double_elimination_grand_final_reset(director: Make) -> None:
    d = director("A", "B", "C", "D")
    d.start_stage("de", "double-elimination", options={"reset": True})
    ev = d.event
    assert sides(d, "de/W1-1") == ["A", "D"] and sides(d, "de/W1-2") == ["B", "C"]
    play(d, "de/W1-1", "A")
    play(d, "de/W1-2", "B")
    assert sides(d, "de/L1-1") == ["D", "C"]
    play(d, "de/L1-1", "C")  # D has lost twice: out
    play(d, "de/W2-1", "A")
    assert sides(d, "de/L2-1") == ["C", "B"]  # the winners bracket's loser drops in
    play(d, "de/L2-1", "B")
    assert sides(d, "de/GF1") == ["A", "B"] and ev.matches["de/GF2"].state == "waiting"
    play(d, "de/GF1", "B")  # the losers bracket's champion wins: both have lost once, the final is reset
    assert ev.matches["de/GF2"].state == "ready" and sides(d, "de/GF2") == ["B", "A"]
    assert ev.champion(ev.stages["de"]) is None
    play(d, "de/GF2", "B")
    st = ev.stages["de"]
    assert st.complete and ev.champion(st) == "B"
    assert ev.placings(st) == [(1, "B"), (2, "A"), (3, "C"), (4, "D")]


def test_double_elimination_no_reset_when_the_winners_champion_wins(director: Make) -> None:
    d = director("A", "B", "C", "D")
    d.start_stage("de", "double-elimination")
    for m, w in (("W1-1", "A"), ("W1-2", "B"), ("L1-1", "C"), ("W2-1", "A"), ("L2-1", "B"), ("GF1", "A")):
        play(d, f"de/{m}", w)
    st = d.event.stages["de"]
    assert d.event.matches["de/GF2"].state == "void"
    assert st.complete and d.event.champion(st) == "A"


def test_double_elimination_without_the_reset_option(director: Make) -> None:
    d = director("A", "B", "C", "D")
    d.start_stage("de", "double-elimination", options={"reset": False})
    for m, w in (("W1-1", "A"), ("W1-2", "B"), ("L1-1", "C"), ("W2-1", "A"), ("L2-1", "B"), ("GF1", "B")):
        play(d, f"de/{m}", w)
    st = d.event.stages["de"]
    assert "de/GF2" not in d.event.matches and st.complete and d.event.champion(st) == "B"
    assert d.event.placings(st)[:2] == [(1, "B"), (2, "A")]


def test_double_elimination_odd_count_byes_in_both_brackets(director: Make) -> None:
    d = director("A", "B", "C")
    d.start_stage("de", "double-elimination")
    ev = d.event
    assert ev.matches["de/W1-1"].state == "bye"  # A, seed 1
    play(d, "de/W1-2", "B")
    assert ev.matches["de/L1-1"].state == "bye" and ev.matches["de/L1-1"].winner == "C"
    play(d, "de/W2-1", "A")
    assert sides(d, "de/L2-1") == ["C", "B"]
    play(d, "de/L2-1", "C")
    play(d, "de/GF1", "A")
    st = ev.stages["de"]
    assert st.complete and ev.champion(st) == "A"
    assert ev.placings(st) == [(1, "A"), (2, "C"), (3, "B")]


def test_a_bracket_result_is_not_corrected_under_a_later_match(director: Make) -> None:
    d = director("A", "B", "C", "D")
    d.start_stage("ko", "single-elimination")
    play(d, "ko/W1-1", "A")
    play(d, "ko/W1-2", "B")
    play(d, "ko/W2-1", "A")
    with pytest.raises(ActError, match="correct or undo it first"):
        d.result("ko/W1-1", "D", points=[50, 100], correct=True, reason="score card")
    # The same winner with other points is fine.
    d.result("ko/W1-1", "A", points=[120, 100], correct=True, reason="score card")
    assert d.event.matches["ko/W1-1"].outcome.points == (120, 100)  # type: ignore[union-attr]


def test_pools_into_playoffs(director: Make) -> None:
    d = director(*"ABCDEFGH")
    d.start_stage("pools", "pools", options={"pools": 2})
    st = d.event.stages["pools"]
    assert st.pools == [["A", "D", "E", "H"], ["B", "C", "F", "G"]]
    with pytest.raises(ActError, match="not finished"):
        d.start_stage("final", "single-elimination", intake={"from": "pools", "top": 2})
    for m in list(st.matches.values()):
        play(d, m.id, min(m.sides))
    d.start_stage("final", "single-elimination", intake={"from": "pools", "top": 2})
    fin = d.event.stages["final"]
    # The pool winners first (A, B), then the runners-up (D, C): the winners meet the other pool's runner-up.
    assert fin.entrants == ["A", "B", "D", "C"]
    assert sides(d, "final/W1-1") == ["A", "C"] and sides(d, "final/W1-2") == ["B", "D"]
    with pytest.raises(ActError, match="is over"):
        play(d, "pools/P1/R1-1", "A")


def test_pools_into_a_playoff_cross_over_whatever_the_records(director: Make) -> None:
    """The cross-over organisers expect: pool 1's winner meets pool 2's runner-up and pool 2's winner pool 1's
    runner-up, so two of one pool meet again only in the final, even when the runners-up's records would rank the
    other way (here pool 2's runner-up won its matches by more)."""
    d = director(*"ABCDEFGH")
    d.start_stage("pools", "pools", options={"pools": 2})
    for m in list(d.event.stages["pools"].matches.values()):
        w = min(m.sides)
        play(d, m.id, w, (200, 0) if w == "C" else (100, 50))
    ranked = d.event.intake({"from": "pools", "top": 2})
    assert ranked == ["A", "B", "C", "D"]  # C's margin ranks it above D: by seed order alone, A would meet D again
    d.start_stage("final", "single-elimination", intake={"from": "pools", "top": 2})
    assert sides(d, "final/W1-1") == ["A", "C"] and sides(d, "final/W1-2") == ["B", "D"]


@pytest.mark.parametrize("seed", range(6))
def test_four_pools_into_eight_meet_again_only_in_the_final(director: Make, seed: int) -> None:
    """4 pools, 2 qualifiers each, random results: every quarter-final is across pools, and the two of each pool
    are in opposite halves of the bracket (they can meet again only in the final)."""
    rng = random.Random(seed)
    d = director(*[f"E{i:02d}" for i in range(16)])
    d.start_stage("pools", "pools", options={"pools": 4})
    pool_of = {e: i for i, pool in enumerate(d.event.stages["pools"].pools) for e in pool}
    for m in list(d.event.stages["pools"].matches.values()):
        play(d, m.id, rng.choice(m.sides), (rng.randrange(100, 300), rng.randrange(0, 100)))
    d.start_stage("ko", "single-elimination", intake={"from": "pools", "top": 2})
    ko = d.event.stages["ko"]
    for k in range(1, 5):
        a, b = sides(d, f"ko/W1-{k}")
        assert pool_of[a] != pool_of[b], (a, b)
    halves = [{pool_of[e] for m in (1, 2) for e in sides(d, f"ko/W1-{m}")},
              {pool_of[e] for m in (3, 4) for e in sides(d, f"ko/W1-{m}")}]  # fmt: skip
    assert halves == [{0, 1, 2, 3}, {0, 1, 2, 3}] and len(ko.entrants) == 8


def test_a_stage_plays_a_game_flickboard_scores(director: Make) -> None:
    d = director("A", "B")
    with pytest.raises(ActError, match="cannot be played"):
        d.start_stage("x", "round-robin", rules="no-such-rules")
    with pytest.raises(ActError, match="cannot be played"):
        d.start_stage("x", "round-robin", match="games:0")
    d.start_stage("q", "round-robin", game="quebec", match="31")
    st = d.event.stages["q"]
    assert (st.game, st.rules, st.match) == ("pichenottes-quebec", "officiel", "31")


def test_doubles_teams_play_the_doubles_format(director: Make) -> None:
    d = director()
    d.add_entrant("Red", players=["Ana", "Ben"])
    d.add_entrant("Blue", players=["Cat", "Dan"])
    d.start_stage("rr", "round-robin", rules="tournament-2019", match="games:4")  # R-1-B: doubles = 4 games
    d.add_entrant("Solo")
    with pytest.raises(ActError, match="all singles or all doubles"):
        d.start_stage("rr2", "round-robin")


def test_a_tie_across_the_cut_waits_for_a_twenties_shootout(director: Make) -> None:
    # A beat B, B beat C, C beat A, all 200-100: level on wins, the mini-league, twenties, points and difference.
    # Two go on: the stage refuses to guess until a shoot-out (001 R-1-B) is entered like a match.
    d = director("A", "B", "C")
    d.start_stage("rr", "round-robin")
    st = d.event.stages["rr"]
    for m in list(st.matches.values()):
        w = {frozenset("AB"): "A", frozenset("BC"): "B", frozenset("AC"): "C"}[frozenset(m.sides)]
        play(d, m.id, w, (200, 100))
    assert d.event.table(st).unresolved == [["A", "B", "C"]]
    with pytest.raises(ActError, match="shoot-out"):
        d.start_stage("final", "single-elimination", intake={"from": "rr", "top": 2})
    d.shootout("rr", ["A", "B", "C"], [4, 6, 2])
    rows = d.event.table(st).rows
    assert [(r.entrant, r.rank, r.decided_by) for r in rows] == [
        ("B", 1, "shootout"),
        ("A", 2, "shootout"),
        ("C", 3, None),
    ]
    d.start_stage("final", "single-elimination", intake={"from": "rr", "top": 2})
    assert d.event.stages["final"].entrants == ["B", "A"]


@pytest.mark.parametrize("fmt", ["single-elimination", "double-elimination"])
def test_every_bracket_size_from_2_to_17_plays_out(director: Make, fmt: str) -> None:
    """Random results (seeded) through brackets of every size, byes included: one champion; in single elimination
    everyone else lost once; in double elimination (with the reset) everyone else lost exactly twice and the
    champion at most once; no match is left undecided and nobody plays twice in a round."""
    rng = random.Random(fmt)
    for n in range(2, 18):
        d = director(*[f"E{i:02d}" for i in range(n)], path=f"{fmt}-{n}.jsonl")
        d.start_stage("b", fmt)
        st = d.event.stages["b"]
        while not st.complete:
            ready = [m for m in st.matches.values() if m.state == "ready"]
            assert ready, f"{n} entrants: the bracket is stuck"
            for m in ready:
                play(d, m.id, rng.choice(m.sides))
        champion = d.event.champion(st)
        losses: dict[str, int] = dict.fromkeys(st.entrants, 0)
        for m in st.matches.values():
            if m.state == "done":
                losses[m.loser] += 1
        assert champion is not None
        want = 1 if fmt == "single-elimination" else 2
        assert all(v == want for e, v in losses.items() if e != champion), (n, losses)
        assert losses[champion] == (0 if fmt == "single-elimination" else losses[champion]) <= 1
        rounds: dict[int, list[str]] = {}
        for m in st.matches.values():
            if m.state == "done":
                rounds.setdefault(m.round, []).extend(m.sides)
        assert all(len(v) == len(set(v)) for v in rounds.values())
        assert sorted(p for p, _ in d.event.placings(st))[0] == 1


def test_final_standings_follow_the_stages_back(director: Make) -> None:
    # Pools of A D E H and B C F G (higher seed always wins), the top 2 of each into a bracket: A beats C, D beats B
    # (an upset), A beats D. Then the others by their pool place: E and F (3rd), H and G (4th).
    d = director(*"ABCDEFGH")
    d.start_stage("pools", "pools", options={"pools": 2})
    for m in list(d.event.stages["pools"].matches.values()):
        play(d, m.id, min(m.sides))
    d.start_stage("final", "single-elimination", intake={"from": "pools", "top": 2})
    play(d, "final/W1-1", "A")
    play(d, "final/W1-2", "D")
    assert d.event.final_standings()[:2] == [(None, "A", "final"), (None, "D", "final")]
    play(d, "final/W2-1", "A")
    assert d.event.final_standings() == [
        (1, "A", "final"),
        (2, "D", "final"),
        (3, "B", "final"),
        (3, "C", "final"),
        (5, "E", "pools"),
        (6, "F", "pools"),
        (7, "H", "pools"),
        (8, "G", "pools"),
    ]


def test_progress_counts_only_the_matches_that_are_played(director: Make) -> None:
    """A knockout of 6 in a bracket of 8: the two byes are no matches; 5 are played (2 first-round matches, the 2
    semi-finals, the final)."""
    d = director(*"ABCDEF")
    d.start_stage("ko", "single-elimination")
    st = d.event.stages["ko"]
    assert len(st.matches) == 7 and d.event.progress(st) == (0, 5)
    first = [m for m in st.matches.values() if m.state == "ready" and m.round == 1]
    play(d, first[0].id, first[0].sides[0])
    assert d.event.progress(d.event.stages["ko"]) == (1, 5)
