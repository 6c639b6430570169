"""The matches in play as text: the event at a glance (`show`), a round's table with its boards (`pair`), and the
command to type next."""

from __future__ import annotations

import re
from typing import Any

from flickboard.cli.tournament.text import grid, outcome_text, side_text, stage_line
from flickboard.tournament import Event, proposals
from flickboard.tournament.event import BRACKETS, Stage

SHOW_READY = 12  # `show` lists this many of the matches waiting for a board (a round robin schedules them all)


def round_lines(ev: Event, st: Stage, r: int) -> list[str]:
    """Round `r` of a stage: each match with its board and its state, then who has the bye."""
    ids = st.rounds[r - 1]
    rows = []
    for k, mid in enumerate(ids, 1):
        m = ev.matches[mid]
        rows.append(
            (k, m.board or "-", mid, side_text(ev, st, m, 0), "vs", side_text(ev, st, m, 1), outcome_text(ev, m))
        )
    lines = grid(["Table", "Board", "Match", "Entrant", "", "Entrant", "State"], rows, {0})
    for rr, e in st.byes:
        if rr == r:
            lines.append(f"  bye: {e}" + (" (a win)" if st.format == "swiss" else " (sits out)"))
    return lines


def show_lines(ev: Event, path: str) -> list[str]:
    """`show`: the stages, the matches on the boards, the matches waiting for one, and the next step."""
    active = sum(1 for e in ev.entrants.values() if e.active)
    out = [e for e in ev.entrants.values() if not e.active]
    head = f"{ev.name} · {active} entrants" + (f" ({len(out)} withdrawn or disqualified)" if out else "")
    lines = [head + f" · {ev.count} entries in {path}"]
    if not ev.stages:
        lines.append("No stage has started.")
    for st in ev.stages.values():
        lines.append("Stage " + stage_line(ev, st))
    playing = sorted((m for m in ev.matches.values() if m.board and not m.decided), key=lambda m: _natural(m.board))
    ready = [m for m in ev.matches.values() if m.state == "ready" and not m.board and not ev.stages[m.stage].closed_by]
    if playing:
        lines += ["", "On the boards:"]
        rows = [(m.board, m.id, m.sides[0], "vs", m.sides[1]) for m in playing]
        lines += grid(["Board", "Match", "Entrant", "", "Entrant"], rows)
    if ready:
        lines += ["", "Waiting for a board:"]
        nxt = proposals.next_match(ev)
        rows = [(m.id, m.sides[0], "vs", m.sides[1], "next" if m.id == nxt else "") for m in ready]
        lines += grid(["Match", "Entrant", "", "Entrant", ""], rows[:SHOW_READY])
        if len(rows) > SHOW_READY:
            lines.append(f"  ... and {len(rows) - SHOW_READY} more")
    later = [m for m in ev.matches.values() if m.state == "waiting" and not ev.stages[m.stage].closed_by]
    if later:
        lines.append(f"{len(later)} more matches wait for earlier results.")
    lines += ["", "Next: " + next_step(ev, path)]
    return lines


def _natural(text: str | None) -> list[Any]:
    """A sort key that puts table-2 before table-10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text or "")]


def next_step(ev: Event, path: str) -> str:
    """The command the organiser types next, from where the event is."""
    if len(ev.entrants) < 2:
        return f"flickboard tournament add {path} NAME (or --from entrants.csv)"
    if not ev.stages:
        return f"flickboard tournament start {path} STAGE --format swiss --rounds N"
    st = list(ev.stages.values())[-1]
    ready = [m for m in ev.matches.values() if m.state == "ready" and not ev.stages[m.stage].closed_by]
    if any(not m.board for m in ready):
        return f"flickboard tournament assign {path} --auto BOARD ... (the free boards)"
    if ready:
        return f"flickboard tournament result {path} MATCH WINNER --points a-b ... as the boards finish"
    if st.format == "swiss" and len(st.rounds) < st.options["rounds"]:
        return f"flickboard tournament pair {path} {st.name} (round {len(st.rounds) + 1})"
    if st.complete and st.format in BRACKETS:
        return f"the event is over: flickboard tournament standings {path}; export {path} --archive event.zip"
    if st.complete:
        unresolved = ev.table(st).unresolved if st.format != "pools" else []
        if unresolved:
            return (
                f"a tie is unbroken ({', '.join(unresolved[0])}): flickboard tournament shootout {path} {st.name}, "
                "or start the next stage"
            )
        return f"flickboard tournament start {path} NEXT --format single-elimination --top N --from {st.name}"
    return "wait for the matches in play"
