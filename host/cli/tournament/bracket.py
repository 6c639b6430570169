"""The bracket as text: the winners bracket drawn as a tree, then every match of the elimination stage by round."""

from __future__ import annotations

from flickboard.cli.tournament.text import FORMAT_NAMES, grid, outcome_text, side_text, stage_line
from flickboard.errors import UserError
from flickboard.tournament import Event
from flickboard.tournament.brackets import round_name
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Match, Stage


def _round_title(st: Stage, m: Match) -> str:
    """The round's name as every screen says it (`brackets.round_name`)."""
    title = round_name(st.format, m.label, [x.label for x in st.matches.values()])
    if m.label == "GF2":
        title += " (played if the losers bracket's champion wins the grand final)"
    return title


def _tree_name(ev: Event, st: Stage, m: Match, i: int) -> str:
    """A slot of the drawn bracket: the entrant with their seed, "bye", or nothing while it is not known."""
    return "" if m.sides[i] == PENDING else side_text(ev, st, m, i)


def tree_lines(ev: Event, st: Stage) -> list[str]:
    """The winners bracket drawn left to right: each match's two entrants joined to the one who went on, up to the
    champion of the bracket (a slot not known yet is blank)."""
    rounds: list[list[Match]] = []
    for m in st.matches.values():
        if m.label.startswith("W"):
            r = int(m.label[1:].split("-")[0])
            while len(rounds) < r:
                rounds.append([])
            rounds[r - 1].append(m)
    if not rounds:
        return []
    for ms in rounds:
        ms.sort(key=lambda m: int(m.label.split("-")[1]))
    titles = [_round_title(st, ms[0]) for ms in rounds]
    titles.append("Champion" if st.format == "single-elimination" else "To the grand final")
    slots = [2 * j for j in range(2 * len(rounds[0]))]  # the rows of a round's slots, two rows apart in round 1
    cells: list[dict[int, str]] = []  # per column: row -> its text (a name, and the line joining it on)
    for ms, title in zip(rounds, titles, strict=False):
        names = {slots[2 * k + i]: _tree_name(ev, st, m, i) for k, m in enumerate(ms) for i in (0, 1)}
        width = max(len(title) - 1, *(len(n) for n in names.values()))
        col: dict[int, str] = {}
        joins = []
        for k in range(len(ms)):
            top, bottom = slots[2 * k], slots[2 * k + 1]
            join = (top + bottom) // 2
            joins.append(join)
            for row in range(top, bottom + 1):
                edge = " ─┐" if row == top else " ─┘" if row == bottom else "  ├" if row == join else "  │"
                col[row] = names.get(row, "").ljust(width) + edge
        cells.append(col)
        slots = joins
    last = rounds[-1][-1]
    won = last.winner
    cells.append({slots[0]: "" if won in (PENDING, EMPTY) else f"({st.entrants.index(won) + 1}) {won}"})
    widths = [max(len(t) for t in col.values()) for col in cells]
    lines = []
    head = ""
    for c, title in enumerate(titles):
        head = head.ljust(sum(widths[:c]) + 2 * c) + title
    lines.append(head)
    for row in range(max(max(col) for col in cells) + 1):
        text = ""
        for c, col in enumerate(cells):
            lead = "" if c == 0 else "─ " if cells[c - 1].get(row, "").endswith("├") else "  "
            text += lead + col.get(row, "").ljust(widths[c])
        lines.append(text.rstrip())
    return lines


def bracket_lines(ev: Event, st: Stage, columns: int | None = None) -> list[str]:
    """The stage line, the drawn bracket (unless it is wider than `columns`, a terminal's width: a wrapped drawing
    is unreadable), then every match by round."""
    lines = [stage_line(ev, st)]
    if st.format not in BRACKETS:
        raise UserError(
            f"stage {st.name} is a {FORMAT_NAMES[st.format]}, not a bracket: see flickboard tournament standings"
        )
    tree = ["  " + line if line else "" for line in tree_lines(ev, st)]
    wide = max((len(line) for line in tree), default=0)
    if columns is not None and wide > columns:
        tree = [f"  (the drawing needs a terminal {wide} characters wide; this one has {columns}: the rounds follow)"]
    lines += ["", *tree]
    groups: dict[str, list[Match]] = {}
    order = sorted(st.matches.values(), key=lambda m: ({"W": 0, "L": 1, "G": 2}[m.label[0]], m.round, m.label))
    for m in order:
        groups.setdefault(_round_title(st, m), []).append(m)
    section = ""
    for title, ms in groups.items():
        head = {"W": "Winners bracket", "L": "Losers bracket", "G": ""}[ms[0].label[0]]
        if st.format == "double-elimination" and head and head != section:
            lines += ["", head]
            section = head
        lines += ["", f"  {title}"]
        rows = [(m.id, side_text(ev, st, m, 0), "vs", side_text(ev, st, m, 1), outcome_text(ev, m)) for m in ms]
        lines += ["  " + x for x in grid(["", "", "", "", ""], rows)[1:]]
    champ = ev.champion(st)
    lines += ["", f"  Champion: {champ}" if champ else "  Champion: not decided yet"]
    return lines
