"""The names people give a bracket's rounds (`brackets.round_name`), as the hall screen and the organiser's page show
them: a single elimination counts back from its final, a double elimination names each bracket's rounds and finals."""

from __future__ import annotations

from flickboard.tournament import brackets


def names(fmt: str, slots: list[brackets.Slotted]) -> dict[str, str]:
    labels = [s.id for s in slots]
    return {label: brackets.round_name(fmt, label, labels) for label in labels}


def test_a_single_elimination_counts_back_from_its_final() -> None:
    for count, first in (
        (2, "Final"),
        (3, "Semi-finals"),
        (6, "Quarter-finals"),
        (16, "Round of 16"),
        (40, "Round of 64"),
    ):
        got = names("single-elimination", brackets.single(count))
        assert got["W1-1"] == first, count
        last = max(int(label[1:].split("-")[0]) for label in got)
        assert got[f"W{last}-1"] == "Final"
    got = names("single-elimination", brackets.single(32))
    assert [got[f"W{r}-1"] for r in range(1, 6)] == [
        "Round of 32",
        "Round of 16",
        "Quarter-finals",
        "Semi-finals",
        "Final",
    ]


def test_a_double_elimination_names_both_brackets_and_the_grand_final() -> None:
    got = names("double-elimination", brackets.double(8, True))
    assert got["W1-1"] == "Winners' round 1" and got["W2-2"] == "Winners' round 2" and got["W3-1"] == "Winners' final"
    assert got["L1-1"] == "Losers' round 1" and got["L2-1"] == "Losers' round 2" and got["L4-1"] == "Losers' final"
    assert got["GF1"] == "Grand final" and got["GF2"] == "Grand final reset"
