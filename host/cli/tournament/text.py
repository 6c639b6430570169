"""The pieces of text every drawing shares: a side of a match, what happened to a match, a stage in one line, its
tie-break chain, and the grid every table is drawn in."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from flickboard.rules import games
from flickboard.tournament import Event
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Match, Stage
from flickboard.tournament.results import score_text

FORMAT_NAMES = {
    "swiss": "Swiss",
    "round-robin": "round robin",
    "single-elimination": "single elimination",
    "double-elimination": "double elimination",
    "pools": "pools",
}


def side_text(ev: Event, st: Stage, m: Match, i: int) -> str:
    """Side `i` of a match: the entrant (with its seed in a bracket, and its status when it is out), "bye", where it
    comes from ("winner of W1-1"), or "?" while it is not known."""
    name = m.sides[i]
    if name == EMPTY:
        return "bye"
    if name == PENDING and m.sources is not None:
        kind, ref = m.sources[i]
        return f"{kind} of {ref}" if kind != "seed" else "?"
    if name == PENDING:
        return "?"
    seed = st.entrants.index(name) + 1 if name in st.entrants else None
    out = f"({seed}) {name}" if seed is not None and st.format in BRACKETS else name
    if not ev.entrants[name].active:
        out += f" [{ev.entrants[name].status}]"
    return out


def _numbers(m: Match) -> str:
    """A result's numbers in the match's order of sides, the order they are typed in: the first pair framed by the
    names ("points Fay Nguyen 240 – 310 Eve Laurent"), the others in the same order ("twenties 1 – 6")."""
    o = m.outcome
    if o is None:
        return ""
    if o.walkover:
        return "walkover" + (f" ({o.reason})" if o.reason else "")
    pairs: list[tuple[str, tuple[int, int]]] = []
    if m.shootout:  # a tie-break shoot-out match: its twenties are all it is
        if o.shootout:
            pairs.append(("shoot-out", o.shootout))
    else:
        pairs += [(label, v) for label, v in (("points", o.points), ("games", o.games)) if v]
        if o.twenties:
            pairs.append(("twenties", o.twenties))
        if o.shootout:
            pairs.append(("shoot-out", o.shootout))
    parts = []
    for i, (label, v) in enumerate(pairs):
        said = score_text(m.sides, v) if i == 0 else f"{v[0]} – {v[1]}"
        if label == "twenties" and o.confirmed:
            said += " confirmed"
        parts.append(f"{label} {said}")
    if o.replaced and parts:
        parts.append("corrected")
    return ", ".join(parts)


def outcome_text(ev: Event, m: Match) -> str:
    """What happened to a match, or what it waits for."""
    st = ev.stages[m.stage]
    if m.state == "done":
        loser = m.loser
        text = f"{m.winner} beat {loser}"
        nums = _numbers(m)
        return text + (f" ({nums})" if nums else "")
    if m.state == "walkover":
        return f"{m.winner} wins by walkover ({m.loser} is {ev.entrants[m.loser].status})"
    if m.state == "bye":
        return f"{m.winner} goes through (bye)" if m.winner != EMPTY else "nobody goes through"
    if m.state == "void":
        return "not played" if m.label != "GF2" else "not needed (the winners bracket's champion won GF1)"
    if m.state == "ready":
        return f"on {m.board}" if m.board else "ready: waiting for a board"
    return "waiting for " + " and ".join(side_text(ev, st, m, i) for i in range(2) if m.sides[i] == PENDING)


def grid(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()) -> list[str]:
    """A table's lines, indented two spaces: the headers, then the rows, in columns as wide as their widest cell (the
    columns numbered in `right` aligned right)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        line = "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(r))
        out.append("  " + line.rstrip())
    return out


def stage_line(ev: Event, st: Stage) -> str:
    """A stage in one line: its format, its entrants, its game, how far it has gone and its champion."""
    what = FORMAT_NAMES[st.format]
    if st.format == "swiss":
        what += (
            f", round {len(st.rounds)} of {st.options['rounds']}" if st.rounds else f", {st.options['rounds']} rounds"
        )
    elif st.format == "pools":
        what += f", {len(st.pools)} pools"
    elif st.format == "double-elimination":
        what += ", grand final with a reset" if st.options.get("reset") else ", one grand final"
    played, total = ev.progress(st)
    state = "complete" if st.complete else f"{played} of {total} match{'es' if total != 1 else ''} played"
    if not st.matches and not st.complete:
        state = "round 1 not paired yet"
    if st.closed_by:
        state = f"complete, its qualifiers went on to {st.closed_by}"
    champ = ev.champion(st)
    if champ:
        state += f"; champion {champ}"
    game = f"{games.title(st.game)} {st.rules}" + (f" {st.match}" if st.match else "")
    return f"{st.name}: {what}, {len(st.entrants)} entrants, {game} — {state}"


def chain_text(st: Stage) -> str:
    """The stage's tie-break chain, in order."""
    return "tie-breaks: " + (", ".join(st.tiebreaks) if st.tiebreaks else "none")
