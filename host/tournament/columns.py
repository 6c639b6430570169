"""The standings as every screen shows them: the same column names and the same cells at the terminal (`flickboard
tournament standings`), on the hall screen and on the organiser's page. Pure functions of the fold.

    columns.headers(st, table)          # ["#", "Entrant", "P", "W", "L", ("Bye",) "Buch", ..., ("20s reported")]
    columns.cells(event, st, table)     # one list of texts per row, in the order of the headers

`#` is the rank (`3=` when shared), `Entrant` the name (`[withdrawn]` when out), P played, W won, L lost, `Bye` the
byes (only when some entrant had one), then one column per key of the stage's tie-break chain that has a number
(COLUMNS, in the chain's order), and `20s reported` when some twenties were reported but not confirmed.
"""

from __future__ import annotations

from flickboard.rules.text import N_
from flickboard.tournament.event import Event, Stage
from flickboard.tournament.standings import Row, Table

# The tie-break keys in words, for the notes that say how a tie was broken.
KEY_NAMES = {
    "h2h": "head-to-head",
    "twenties": "twenties",
    "points": "points",
    "diff": "point difference",
    "buchholz": "Buchholz",
    "median-buchholz": "median-Buchholz",
    "shootout": "the shoot-out",
}
# The column of each key that has a number (head-to-head has none).
# (Marked for the catalogues: the pages say them in their language; the terminal keeps them as they are.)
COLUMNS = {
    "buchholz": N_("Buch"),
    "median-buchholz": N_("MBuch"),
    "twenties": N_("20s"),
    "points": N_("Pts"),
    "diff": "+/-",
    "shootout": N_("SO"),
}
FIRST = ("#", N_("Entrant"), N_("P"), N_("W"), N_("L"))


def shootouts_of(ev: Event, st: Stage, *who: str) -> list[list[tuple[int | None, int]]]:
    """The finished shoot-outs of the stage that include all of `who`, in journal order: for each, each one's (shoot-out
    wins, or None when entered as counts; twenties)."""
    out = []
    for s in sorted(ev.shootouts(st), key=lambda s: s.entry):
        if set(who) <= set(s.entrants):
            at = [s.entrants.index(e) for e in who]
            out.append([(s.wins[i] if s.wins is not None else None, s.twenties[i]) for i in at])
    return out


def value(key: str, st: Stage, r: Row, ev: Event) -> str:
    """The cell of tie-break `key` for row `r`: a number; for the shoot-out, every shoot-out the entrant took part in
    ("7": entered as counts; "1w 21": 1 shoot-out match won, 21 twenties)."""
    if key == "shootout":
        return " / ".join(
            str(twenties) if wins is None else f"{wins}w {twenties}"
            for ((wins, twenties),) in shootouts_of(ev, st, r.entrant)
        )
    attr = {"twenties": "twenties", "points": "points_for", "diff": "diff", "buchholz": "buchholz"}.get(
        key, "median_buchholz"
    )
    return str(getattr(r, attr))


def chain(st: Stage) -> list[str]:
    """The keys of the stage's chain that have a column, in its order."""
    return [k for k in st.tiebreaks if k in COLUMNS]


def _byes(t: Table) -> bool:
    return any(r.byes for r in t.rows)


def _reported(t: Table) -> bool:
    return any(r.twenties_reported != r.twenties for r in t.rows)


def headers(st: Stage, t: Table) -> list[str]:
    """The table's column names."""
    out = [*FIRST] + ([N_("Bye")] if _byes(t) else []) + [COLUMNS[k] for k in chain(st)]
    return out + ([N_("20s reported")] if _reported(t) else [])


def cells(ev: Event, st: Stage, t: Table) -> list[list[str]]:
    """Each row's cells as texts, in the order of `headers`."""
    byes, reported = _byes(t), _reported(t)
    out = []
    for r in t.rows:
        row = [
            f"{r.rank}=" if r.tied else str(r.rank),
            r.entrant if r.status == "active" else f"{r.entrant} [{r.status}]",
            str(r.played),
            str(r.wins),
            str(r.losses),
        ]
        row += [str(r.byes)] if byes else []
        row += [value(k, st, r, ev) for k in chain(st)]
        row += [str(r.twenties_reported)] if reported else []
        out.append(row)
    return out
