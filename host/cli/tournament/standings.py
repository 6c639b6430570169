"""The standings as text: a stage's table with its tie-break columns and a note of how each tie was broken, what a tie
the whole chain left waits for, a bracket's places, and the event's final standings."""

from __future__ import annotations

from collections.abc import Callable

from flickboard.cli.tournament.text import chain_text, grid, stage_line
from flickboard.tournament import Event
from flickboard.tournament.columns import KEY_NAMES, cells, headers, shootouts_of, value
from flickboard.tournament.event import BRACKETS, Stage
from flickboard.tournament.standings import Table


def standings_lines(ev: Event, st: Stage, t: Table, shootout_hint: Callable[[list[str]], str]) -> list[str]:
    """A table with the stage's tie-break columns (the columns every screen shows: tournament/columns.py), and the
    one-line note of how each tie was broken."""
    head = headers(st, t)
    right = {0, *range(2, len(head))}
    lines = grid(head, cells(ev, st, t), right)
    notes = []
    for i, r in enumerate(t.rows[:-1]):
        nxt = t.rows[i + 1]
        key = r.decided_by
        if key in (None, "wins"):
            continue
        assert key is not None
        if key == "h2h":
            notes.append(f"{r.entrant} over {nxt.entrant} on head-to-head")
        elif key == "shootout" and (both := shootouts_of(ev, st, r.entrant, nxt.entrant)):
            (w1, t1), (w2, t2) = both[-1]  # the latest shoot-out of the two: the one that put one above the other
            won = "" if w1 is None else f"wins {w1}-{w2}, twenties "
            notes.append(f"{r.entrant} over {nxt.entrant} on the shoot-out ({won}{t1}-{t2})")
        else:
            notes.append(
                f"{r.entrant} over {nxt.entrant} on {KEY_NAMES[key]} "
                f"({value(key, st, r, ev)}-{value(key, st, nxt, ev)})"
            )
    for group in t.unresolved:
        notes.append(f"{', '.join(group)} still level after the whole chain ({shootout_hint(group)})")
    if not any(r.played or r.byes for r in t.rows):
        notes = ["no match decided yet"]
    lines.append("  Ties: " + ("; ".join(notes) if notes else "none to break") + ".")
    return lines


def shootout_hint(ev: Event, st: Stage, path: str) -> Callable[[list[str]], str]:
    """What a tie the whole chain left waits for: its shoot-out matches being played, the command that makes them,
    or (a stage whose shoot-out cannot be played on the engine) the counts of one played on paper."""
    paper = f"a shoot-out decides: flickboard tournament shootout {path} {st.name} NAME=TWENTIES ..."

    def hint(group: list[str]) -> str:
        for rnd in ev.shootouts_playing(st):
            if set(group) & set(rnd.entrants):
                left = [i for i in rnd.matches if not ev.matches[i].decided]
                return f"awaits its shoot-out, round {rnd.number}: {', '.join(left)} to play"
        if st.game != "pichenotte" or "shootout" not in st.tiebreaks:
            return paper
        make = f"flickboard tournament shootout {path} {st.name} makes its matches"
        if not ev.played_out(st):
            return f"a shoot-out decides once the stage is played: {make}"
        return f"a shoot-out decides, and none is made yet: {make}"

    return hint


def stage_standings(ev: Event, st: Stage, path: str) -> list[str]:
    """A stage's standings: its line, then its table (each pool's) after its tie-break chain, or a bracket's places."""
    hint = shootout_hint(ev, st, path)
    if st.format in BRACKETS:
        lines = [stage_line(ev, st)]
        rows = [(p if p is not None else "in", e) for p, e in ev.placings(st)]
        lines += grid(["Place", "Entrant"], rows, {0})
        return lines
    lines = [stage_line(ev, st), f"  {chain_text(st)}"]
    if st.format == "pools":
        for p in range(len(st.pools)):
            lines += ["", f"  Pool {p + 1}"]
            lines += standings_lines(ev, st, ev.table(st, p), hint)
        return lines
    return lines + standings_lines(ev, st, ev.table(st), hint)


def final_lines(ev: Event) -> list[str]:
    """The event's final standings: each entrant's place, club and the stage that ranked it."""
    rows = []
    for place, name, stage in ev.final_standings():
        e = ev.entrants[name]
        rows.append((place if place is not None else "-", name, e.club or "", stage))
    return [f"{ev.name}: final standings", *grid(["Place", "Entrant", "Club", "Ranked in"], rows, {0})]
