"""The standings and the tie-break chain (host/tournament/standings.py), on hand-worked tables: each key of the
chain decides a tie when the keys before it leave the entrants level, and the last one is the twenties shoot-out
of 001 R-1-B ("Ties broken by 20's shootout of 12 pucks each")."""

from __future__ import annotations

from flickboard.tournament.standings import DEFAULT_CHAIN, SWISS_CHAIN, Played, Shootout, table


def win(a: str, b: str, pts: tuple[int, int] | None = None, tw: tuple[int, int] | None = None) -> Played:
    """`a` beats `b`, with points and confirmed twenties in the order a, b."""
    return Played(a, b, a, pts, tw, tw)


def order(t: object) -> list[str]:
    return [r.entrant for r in t.rows]  # type: ignore[attr-defined]


def test_wins_first_then_head_to_head_between_two() -> None:
    # A and B both won twice; B has more points, but A beat B: the mini-league among the tied comes first.
    played = [win("A", "B", (100, 300)), win("B", "C", (300, 0)), win("A", "C", (100, 90)), win("B", "D", (300, 0))]
    t = table(["A", "B", "C", "D"], played, DEFAULT_CHAIN)
    assert order(t)[:2] == ["A", "B"]
    assert t.rows[0].decided_by == "h2h" and t.rows[0].wins == t.rows[1].wins == 2
    assert t.rows[1].decided_by == "wins" and not t.unresolved


def test_a_circle_of_three_goes_on_to_confirmed_twenties_only() -> None:
    # A>B, B>C, C>A: the mini-league leaves all three level. Twenties decide, but only confirmed ones count:
    # C reported 9 twenties the board did not confirm.
    played = [
        win("A", "B", (200, 150), (5, 2)),
        win("B", "C", (200, 150), (4, 1)),
        Played("C", "A", "C", (200, 150), None, (9, 3)),  # twenties reported, not confirmed
    ]
    t = table(["A", "B", "C"], played, DEFAULT_CHAIN)
    by = {r.entrant: r for r in t.rows}
    assert (by["A"].twenties, by["B"].twenties, by["C"].twenties) == (5, 6, 1)
    assert (by["A"].twenties_reported, by["C"].twenties_reported) == (8, 10)
    # B has the most confirmed twenties: B first, then A, then C (whose 10 reported would have put it first).
    assert order(t) == ["B", "A", "C"]
    assert t.rows[0].decided_by == "twenties" and t.rows[1].decided_by == "twenties"


def test_points_then_difference() -> None:
    # Level on wins and twenties, the mini-league incomplete (A and B never met): points decide; then, for two
    # with the same points, the difference.
    played = [
        win("A", "C", (300, 100)),
        win("B", "D", (250, 100)),
        win("E", "F", (250, 50)),
    ]
    t = table(["A", "B", "C", "D", "E", "F"], played, DEFAULT_CHAIN)
    assert order(t)[:3] == ["A", "E", "B"]
    assert t.rows[0].decided_by == "points" and t.rows[1].decided_by == "diff"


def test_buchholz_and_median_buchholz() -> None:
    # Swiss: A and B both 2 wins of 3. A's opponents won 2+1+0 (Buchholz 3), B's 2+1+1... built so that Buchholz
    # is level and median-Buchholz (without the best and the worst opponent) decides.
    played = [
        # A: beat O1, beat O2, lost to O5
        win("A", "O1"),
        win("A", "O2"),
        win("O5", "A"),
        # B: beat O3, beat O4, lost to O6
        win("B", "O3"),
        win("B", "O4"),
        win("O6", "B"),
        # the opponents' own wins: O5 3 (A + two more), O1 1, O2 0; O6 2, O3 1, O4 1
        win("O5", "X1"),
        win("O5", "X2"),
        win("O1", "X3"),
        win("O6", "X4"),
        win("O3", "X5"),
        win("O4", "X6"),
    ]
    names = ["A", "B", "O1", "O2", "O3", "O4", "O5", "O6", "X1", "X2", "X3", "X4", "X5", "X6"]
    t = table(names, played, SWISS_CHAIN)
    by = {r.entrant: r for r in t.rows}
    assert (by["A"].buchholz, by["B"].buchholz) == (4, 4)  # 1+0+3 and 1+1+2
    assert (by["A"].median_buchholz, by["B"].median_buchholz) == (1, 1)  # middle ones: O1=1; O3 or O4 = 1
    # Level on both: head-to-head impossible (never met), then twenties/points level: unresolved.
    assert ["A", "B"] in t.unresolved
    played2 = [*played, win("O2", "X7")]  # A's weakest opponent now has 1 win: Buchholz 5 against 4
    t2 = table([*names, "X7"], played2, SWISS_CHAIN)
    by2 = {r.entrant: r for r in t2.rows}
    assert by2["A"].rank < by2["B"].rank and by2["A"].decided_by == "buchholz"


def test_median_buchholz_decides_when_buchholz_is_level() -> None:
    played = [
        win("A", "P"),
        win("A", "Q"),
        win("R", "A"),  # A met P (0 wins), Q (2), R (2): Buchholz 4, median 2
        win("B", "S"),
        win("B", "T"),
        win("U", "B"),  # B met S (1), T (1), U (2): Buchholz 4, median 1
        win("Q", "Y1"),
        win("Q", "Y2"),
        win("R", "Y3"),
        win("S", "Y4"),
        win("T", "Y5"),
        win("U", "Y6"),
    ]
    names = ["B", "A", "P", "Q", "R", "S", "T", "U", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]
    t = table(names, played, SWISS_CHAIN)
    by = {r.entrant: r for r in t.rows}
    assert (by["A"].buchholz, by["B"].buchholz) == (4, 4)
    assert (by["A"].median_buchholz, by["B"].median_buchholz) == (2, 1)
    assert by["A"].rank < by["B"].rank and by["A"].decided_by == "median-buchholz"


def test_the_shootout_is_the_last_word_and_a_tied_shootout_leaves_the_tie() -> None:
    # R-1-B: entrants level on everything are ranked by a twenties shoot-out entered like a match.
    played = [win("A", "C", (200, 100)), win("B", "D", (200, 100))]
    names = ["A", "B", "C", "D"]
    t = table(names, played, DEFAULT_CHAIN)
    assert t.unresolved == [["A", "B"], ["C", "D"]]
    assert t.rows[0].rank == t.rows[1].rank == 1 and t.rows[0].tied
    t = table(names, played, DEFAULT_CHAIN, [Shootout(("A", "B"), (3, 3))])
    assert ["A", "B"] in t.unresolved  # the shoot-out itself was level: another one is needed
    t = table(names, played, DEFAULT_CHAIN, [Shootout(("A", "B"), (3, 3)), Shootout(("B", "A"), (5, 4))])
    assert order(t)[:2] == ["B", "A"] and t.rows[0].decided_by == "shootout"
    assert t.unresolved == [["C", "D"]]


def test_a_key_that_splits_a_group_starts_again_for_the_smaller_group() -> None:
    # A, B, C, D all won twice. Among the four: A beat C and D, B beat A and C, C beat D, D beat B: the mini-league
    # gives A 2, B 2, C 1, D 1. A and B, still level, start again at the mini-league as a group of two, and B beat
    # A: B is first, although A has far more points (the next key). C beat D the same way.
    played = [
        win("A", "C", (300, 0)),
        win("A", "D", (300, 0)),
        win("B", "A", (100, 90)),
        win("B", "C", (100, 0)),
        win("D", "B", (100, 0)),
        win("C", "D", (100, 0)),
        win("C", "X", (100, 0)),
        win("D", "Y", (100, 0)),
    ]
    t = table(["A", "B", "C", "D", "X", "Y"], played, ("h2h", "points"))
    assert order(t)[:4] == ["B", "A", "C", "D"]
    assert [r.decided_by for r in t.rows[:4]] == ["h2h", "h2h", "h2h", "wins"]
    assert not t.unresolved or t.unresolved == [["X", "Y"]]


def test_a_bye_counts_as_a_win_only_when_the_stage_says_so() -> None:
    t = table(["A", "B"], [Played("A", None, "A", bye_wins=True), Played("B", None, "B")], DEFAULT_CHAIN)
    by = {r.entrant: r for r in t.rows}
    assert (by["A"].wins, by["A"].byes, by["B"].wins, by["B"].byes) == (1, 1, 0, 1)
