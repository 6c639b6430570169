"""A whole simulated event, pure and seeded: 128 entrants, 7 Swiss rounds, then the top 8 in a single-elimination
playoff, with random results (a fixed seed). It reaches one champion with no result lost or doubled, and the
journal folds again to the same bytes."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from flickboard.tournament import ActError, Director, dumps, read

ENTRANTS = 128
ROUNDS = 7


def report(d: Director, rng: random.Random, match: str) -> None:
    m = d.event.matches[match]
    winner = rng.choice(m.sides)
    if rng.random() < 0.02:
        d.walkover(match, winner, "no show")
        return
    hi, lo = rng.randint(150, 400), rng.randint(0, 149)
    w = m.sides.index(winner)
    points = [hi, lo] if w == 0 else [lo, hi]
    twenties = [rng.randint(0, 8), rng.randint(0, 8)]
    board = rng.random() < 0.7
    d.result(
        match,
        winner,
        points=points,
        twenties=twenties,
        twenties_confirmed=board,
        source="board" if board else "phone",
        evidence={"journal": f"journals/{match.replace('/', '-')}.jsonl"} if board else None,
    )
    if rng.random() < 0.03:  # the organiser fixes a score card: same winner, other points
        d.result(match, winner, points=[p + 1 for p in points], correct=True, reason="score card")


def test_128_entrants_7_swiss_rounds_into_a_top_8_playoff(tmp_path: Path) -> None:
    rng = random.Random(21)
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Simulated open") as d:
        for i in range(ENTRANTS):
            d.add_entrant(f"P{i:03d}", seed=i + 1 if i < 16 else None, club=f"club-{i % 9}")
        d.start_stage("swiss", "swiss", options={"rounds": ROUNDS}, tiebreaks=["buchholz", "twenties", "points"])
        swiss = d.event.stages["swiss"]
        for r in range(1, ROUNDS + 1):
            d.pair_round("swiss")
            for k, mid in enumerate(swiss.rounds[r - 1]):
                d.assign(mid, f"table-{k % 32 + 1}")
                report(d, rng, mid)
        assert swiss.complete
        while True:
            try:
                d.start_stage("playoff", "single-elimination", intake={"from": "swiss", "top": 8})
                break
            except ActError as e:  # a tie across the cut: a twenties shoot-out among the tied (R-1-B)
                assert "shoot-out" in str(e)
                tied = next(g for g in d.event.table(swiss).unresolved if len(g) > 1)
                d.shootout("swiss", tied, rng.sample(range(13), len(tied)))
        playoff = d.event.stages["playoff"]
        top8 = [row.entrant for row in d.event.table(swiss).rows[:8]]
        assert playoff.entrants == top8
        while not playoff.complete:
            for m in list(playoff.matches.values()):
                if m.state == "ready":
                    report(d, rng, m.id)
        champion = d.event.champion(playoff)
        ev = d.event

    assert champion in top8
    # No rematch, and everyone played every Swiss round (128 is even: no bye).
    pairs = [frozenset(m.sides) for m in swiss.matches.values()]
    assert len(pairs) == len(set(pairs)) == ROUNDS * ENTRANTS // 2
    assert set(Counter(e for p in pairs for e in p).values()) == {ROUNDS}
    # Every match decided once: one result or walkover act per match, corrections only on top of one.
    decided = Counter(r["match"] for _, r in ev.applied if r["act"] in ("result", "walkover"))
    played = [m for st in (swiss, playoff) for m in st.matches.values()]
    assert len(played) == ROUNDS * ENTRANTS // 2 + 7
    assert set(decided) == {m.id for m in played} and set(decided.values()) == {1}
    assert all(m.state == "done" for m in played)
    corrected = [r["match"] for _, r in ev.applied if r["act"] == "correct"]
    assert corrected and all(ev.matches[c].outcome.replaced for c in corrected)  # type: ignore[union-attr]
    assert ev.placings(playoff)[0] == (1, champion)
    assert not ev.rejected
    # The journal folds again to the same event, byte for byte.
    assert dumps(read(path)) == dumps(ev)
