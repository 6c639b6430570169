"""The fold never trusts a record: whatever a hand-edited journal holds (its checksums made right), an entry that
is not a valid act is listed in `rejected` with its reason and changes nothing, and the fold does not fail."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.tournament import dumps, fold
from flickboard.tournament.event import ACTS

NAMES = st.sampled_from(["A", "B", "C", "D", "s", "s/R1-1", "s/W1-1", "s/R2-1", "", " x", "a/b"])
VALUE: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | NAMES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)
FIELDS = st.sampled_from(
    [
        "name", "players", "seed", "club", "entrant", "reason", "format", "options", "game", "rules", "match",
        "tiebreaks", "intake", "entrants", "stage", "round", "pairs", "bye", "board", "sides", "winner", "games",
        "points", "twenties", "twenties_confirmed", "shootout", "source", "evidence", "ref", "walkover",
    ]
)  # fmt: skip
RANDOM = st.builds(lambda kind, rest: {"act": kind, **rest}, st.sampled_from([*ACTS, "nope"]),
                   st.dictionaries(FIELDS, VALUE, max_size=6))  # fmt: skip

VALID: list[dict[str, Any]] = [
    *({"act": "entrant", "name": n, "players": [n], "seed": None, "club": None} for n in "ABCD"),
    {"act": "stage", "name": "s", "format": "swiss", "options": {"rounds": 2}, "game": "pichenotte", "rules": None,
     "match": None, "tiebreaks": None, "intake": None, "entrants": ["A", "B", "C", "D"]},
    {"act": "pair", "stage": "s", "round": 1, "pairs": [["A", "C"], ["B", "D"]], "bye": None},
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(RANDOM, max_size=12), st.randoms(use_true_random=False))
def test_any_record_is_taken_or_rejected(noise: list[dict[str, Any]], rnd: Any) -> None:
    rnd.shuffle(noise)
    records = [*VALID[: rnd.randint(0, len(VALID))], *noise]
    numbered = [{**r, "n": i + 1} for i, r in enumerate(records)]
    ev = fold(numbered, "fuzz")
    # Every entry is in effect, rejected with a reason, or undone (with the undo that took it back): once each.
    ns = [n for n, _ in ev.applied] + [n for n, _ in ev.rejected] + ev.undone
    assert sorted(ns) == list(range(1, len(records) + 1))
    assert all(why for _, why in ev.rejected)
    assert dumps(fold(numbered, "fuzz")) == dumps(ev)
