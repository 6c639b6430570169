"""`flickboard tournament …`: the organiser's commands over a tournament journal (host/tournament; docs/tournament.md).

Every command that changes the event opens the journal (its lock: one writer at a time), checks the act against the
event, appends it (on disk before the command says it is done) and folds it, through `Director`. A refused act
writes nothing: the command prints one line saying why (an entrant, a match or a stage it does not know comes with
"did you mean"), through host/errors.py, and exits with status 2. The commands that only read (`standings`,
`bracket`, `show`, `export`) read the journal without its lock, so they work while another process (the hall) keeps
it open.

Names: an entrant is typed by its name, or by one of its players' names when that names one entrant only (a doubles
team "Ana & Ben" is "Ana" or "Ben"); a match by its id ("swiss/R2-3", "final/W1-2"), or by its label ("R2-3") when
one open stage has it. Pairs of numbers (--games, --points, --twenties) are a-b in the order the match lists its
sides ("Ana vs Ben": Ana's first).
"""

from __future__ import annotations

import argparse
import copy
import csv
import math
import os
import re
import shutil
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from flickboard.cli.tournament_hall import cmd_run, configure_run
from flickboard.errors import UserError
from flickboard.rules import games
from flickboard.rules.base import did_you_mean
from flickboard.rules.pichenotte import rule_set as pichenotte_rules
from flickboard.tournament import TIEBREAKS, ActError, Director, Event, PairingError, dumps, proposals, read
from flickboard.tournament import export as exports
from flickboard.tournament.event import BRACKETS, EMPTY, FORMATS, PENDING, Match, Stage
from flickboard.tournament.standings import Row, Table

SHOW_READY = 12  # `show` lists this many of the matches waiting for a board (a round robin schedules them all)
LOCK_WAIT = 3.0  # seconds a command waits for another process's append before it says the file is in use
ALIASES = {
    "head-to-head": "h2h",
    "mini-league": "h2h",
    "20s": "twenties",
    "median": "median-buchholz",
    "point-difference": "diff",
    "shoot-out": "shootout",
}
KEY_NAMES = {
    "h2h": "head-to-head",
    "twenties": "twenties",
    "points": "points",
    "diff": "point difference",
    "buchholz": "Buchholz",
    "median-buchholz": "median-Buchholz",
    "shootout": "the shoot-out",
}
FORMAT_NAMES = {
    "swiss": "Swiss",
    "round-robin": "round robin",
    "single-elimination": "single elimination",
    "double-elimination": "double elimination",
    "pools": "pools",
}


# ---------------------------------------------------------------- opening, and errors in one line


@contextmanager
def _director(path: str) -> Iterator[Director]:
    if not os.path.exists(path):
        raise UserError(f"there is no tournament {path} (start one: flickboard tournament new {path} --name NAME)")
    try:  # the hall appends a board's result: it holds the lock for a moment only
        d = Director.open(path, wait=LOCK_WAIT)
    except ActError as e:
        raise UserError(str(e)) from None
    if d.torn is not None:  # a crash (kill -9) in the middle of an append: that act was never acknowledged
        print(f"warning: {d.torn.message()}", file=sys.stderr)
    try:
        with _refusals():
            yield d
    finally:
        d.close()


@contextmanager
def _refusals() -> Iterator[None]:
    """The director's refusals (ActError, PairingError) as the one error a person sees."""
    try:
        yield
    except (ActError, PairingError) as e:
        raise UserError(str(e)) from None


def _read(path: str) -> Event:
    if not os.path.exists(path):
        raise UserError(f"there is no tournament {path} (start one: flickboard tournament new {path} --name NAME)")
    return read(path)


def _entrant(ev: Event, word: str, among: Sequence[str] | None = None) -> str:
    """The entrant `word` names: its name in any case, one of a doubles team's players, or one word of a name (a first
    name, a surname) when only one entrant has it."""
    names = list(among) if among is not None else list(ev.entrants)
    if word in names:
        return word
    low = " ".join(word.lower().split())
    hits: list[str] = []
    for same in (
        lambda n: n.lower() == low,
        lambda n: any(p.lower() == low for p in ev.entrants[n].players),
        lambda n: low in n.lower().replace("&", " ").split(),
    ):
        hits = [n for n in names if same(n)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise UserError(f"{word} could be {', '.join(hits)}: type the whole name")
    players = [p for n in names for p in ev.entrants[n].players]
    if among is not None:
        raise UserError(f"{word} is not in this match: it is {' or '.join(among)}{did_you_mean(word, names + players)}")
    raise UserError(f"there is no entrant named {word}{did_you_mean(word, names + players)}")


def _match(ev: Event, word: str) -> Match:
    m = ev.matches.get(word)
    if m is not None:
        return m
    open_ = [x for x in ev.matches.values() if x.label == word and not ev.stages[x.stage].closed_by]
    if len(open_) == 1:
        return open_[0]
    hint = did_you_mean(word, list(ev.matches))
    if not hint and len(open_) > 1:
        hint = f"; say which: {', '.join(x.id for x in open_)}"
    raise UserError(f"there is no match {word}{hint}")


def _stage(ev: Event, word: str) -> Stage:
    st = ev.stages.get(word)
    if st is None:
        known = f" (the stages are {', '.join(ev.stages)})" if ev.stages else " (no stage has started)"
        hint = did_you_mean(word, list(ev.stages))
        raise UserError(f"there is no stage named {word}{hint or known}")
    return st


def _two(text: str | None, what: str) -> list[int] | None:
    if text is None:
        return None
    found = re.fullmatch(r"\s*(-?\d{1,7})\s*[-:]\s*(-?\d{1,7})\s*", text)
    if not found:
        raise UserError(f"{what} is two numbers a-b, in the order of the match's sides (e.g. 310-250), not {text!r}")
    return [int(found.group(1)), int(found.group(2))]


def _board_of(ev: Event, board: str) -> Match | None:
    """The match being played on `board` (on it, not decided yet)."""
    return next((m for m in ev.matches.values() if m.board == board and not m.decided), None)


# ---------------------------------------------------------------- text


def _who(ev: Event, st: Stage, m: Match, i: int) -> str:
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
    """A result's numbers in the order of the sentence that says it: the winner's first."""
    o = m.outcome
    if o is None:
        return ""
    flip = o.winner == m.sides[1]

    def pair(v: tuple[int, int]) -> str:
        return f"{v[1]}-{v[0]}" if flip else f"{v[0]}-{v[1]}"

    if o.walkover:
        return "walkover" + (f" ({o.reason})" if o.reason else "")
    if m.shootout:  # a tie-break shoot-out match: its twenties are all it is
        return f"shoot-out {pair(o.shootout)}" + (", corrected" if o.replaced else "") if o.shootout else ""
    parts = []
    if o.games:
        parts.append(f"games {pair(o.games)}")
    if o.points:
        parts.append(f"points {pair(o.points)}")
    if o.twenties:
        parts.append(f"twenties {pair(o.twenties)}" + (" confirmed" if o.confirmed else ""))
    if o.shootout:
        parts.append(f"shoot-out {pair(o.shootout)}")
    if o.replaced:
        parts.append("corrected")
    return ", ".join(parts)


def _outcome(ev: Event, m: Match) -> str:
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
    return "waiting for " + " and ".join(_who(ev, st, m, i) for i in range(2) if m.sides[i] == PENDING)


def _grid(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()) -> list[str]:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        line = "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(r))
        out.append("  " + line.rstrip())
    return out


def _stage_line(ev: Event, st: Stage) -> str:
    what = FORMAT_NAMES[st.format]
    if st.format == "swiss":
        what += (
            f", round {len(st.rounds)} of {st.options['rounds']}" if st.rounds else f", {st.options['rounds']} rounds"
        )
    elif st.format == "pools":
        what += f", {len(st.pools)} pools"
    elif st.format == "double-elimination":
        what += ", grand final with a reset" if st.options.get("reset") else ", one grand final"
    decided = sum(1 for m in st.matches.values() if m.decided)
    state = "complete" if st.complete else f"{decided} of {len(st.matches)} matches decided"
    if not st.matches and not st.complete:
        state = "round 1 not paired yet"
    if st.closed_by:
        state = f"complete, its qualifiers went on to {st.closed_by}"
    champ = ev.champion(st)
    if champ:
        state += f"; champion {champ}"
    game = f"{games.title(st.game)} {st.rules}" + (f" {st.match}" if st.match else "")
    return f"{st.name}: {what}, {len(st.entrants)} entrants, {game} — {state}"


def _shootouts_of(ev: Event, st: Stage, *who: str) -> list[list[tuple[int | None, int]]]:
    """The finished shoot-outs of the stage that include all of `who`, in journal order: for each, each one's (shoot-out
    wins, or None when entered as counts; twenties)."""
    out = []
    for s in sorted(ev.shootouts(st), key=lambda s: s.entry):
        if set(who) <= set(s.entrants):
            at = [s.entrants.index(e) for e in who]
            out.append([(s.wins[i] if s.wins is not None else None, s.twenties[i]) for i in at])
    return out


def _value(key: str, st: Stage, r: Row, ev: Event) -> str:
    if key == "shootout":  # every shoot-out the entrant took part in: "7" (counts), "1w 21" (wins, twenties)
        return " / ".join(
            str(twenties) if wins is None else f"{wins}w {twenties}"
            for ((wins, twenties),) in _shootouts_of(ev, st, r.entrant)
        )
    attr = {"twenties": "twenties", "points": "points_for", "diff": "diff", "buchholz": "buchholz"}.get(
        key, "median_buchholz"
    )
    return str(getattr(r, attr))


COLUMNS = {
    "buchholz": "Buch",
    "median-buchholz": "MBuch",
    "twenties": "20s",
    "points": "Pts",
    "diff": "+/-",
    "shootout": "SO",
}


def standings_lines(ev: Event, st: Stage, t: Table, shootout_hint: Callable[[list[str]], str]) -> list[str]:
    """A table with the stage's tie-break columns, and the one-line note of how each tie was broken."""
    chain = [k for k in st.tiebreaks if k in COLUMNS]
    byes = any(r.byes for r in t.rows)
    reported = any(r.twenties_reported != r.twenties for r in t.rows)
    headers = ["#", "Entrant", "P", "W", "L"] + (["Bye"] if byes else []) + [COLUMNS[k] for k in chain]
    if reported:
        headers.append("20s reported")
    rows = []
    for r in t.rows:
        rank = f"{r.rank}=" if r.tied else str(r.rank)
        name = r.entrant if r.status == "active" else f"{r.entrant} [{r.status}]"
        row: list[object] = [rank, name, r.played, r.wins, r.losses] + ([r.byes] if byes else [])
        row += [_value(k, st, r, ev) for k in chain]
        if reported:
            row.append(r.twenties_reported)
        rows.append(row)
    right = {0, *range(2, len(headers))}
    lines = _grid(headers, rows, right)
    notes = []
    for i, r in enumerate(t.rows[:-1]):
        nxt = t.rows[i + 1]
        key = r.decided_by
        if key in (None, "wins"):
            continue
        assert key is not None
        if key == "h2h":
            notes.append(f"{r.entrant} over {nxt.entrant} on head-to-head")
        elif key == "shootout" and (both := _shootouts_of(ev, st, r.entrant, nxt.entrant)):
            (w1, t1), (w2, t2) = both[-1]  # the latest shoot-out of the two: the one that put one above the other
            won = "" if w1 is None else f"wins {w1}-{w2}, twenties "
            notes.append(f"{r.entrant} over {nxt.entrant} on the shoot-out ({won}{t1}-{t2})")
        else:
            notes.append(
                f"{r.entrant} over {nxt.entrant} on {KEY_NAMES[key]} "
                f"({_value(key, st, r, ev)}-{_value(key, st, nxt, ev)})"
            )
    for group in t.unresolved:
        notes.append(f"{', '.join(group)} still level after the whole chain ({shootout_hint(group)})")
    if not any(r.played or r.byes for r in t.rows):
        notes = ["no match decided yet"]
    lines.append("  Ties: " + ("; ".join(notes) if notes else "none to break") + ".")
    return lines


def _chain_text(st: Stage) -> str:
    return "tie-breaks: " + (", ".join(st.tiebreaks) if st.tiebreaks else "none")


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
    hint = shootout_hint(ev, st, path)
    if st.format in BRACKETS:
        lines = [_stage_line(ev, st)]
        rows = [(p if p is not None else "in", e) for p, e in ev.placings(st)]
        lines += _grid(["Place", "Entrant"], rows, {0})
        return lines
    lines = [_stage_line(ev, st), f"  {_chain_text(st)}"]
    if st.format == "pools":
        for p in range(len(st.pools)):
            lines += ["", f"  Pool {p + 1}"]
            lines += standings_lines(ev, st, ev.table(st, p), hint)
        return lines
    return lines + standings_lines(ev, st, ev.table(st), hint)


def final_lines(ev: Event) -> list[str]:
    rows = []
    for place, name, stage in ev.final_standings():
        e = ev.entrants[name]
        rows.append((place if place is not None else "-", name, e.club or "", stage))
    return [f"{ev.name}: final standings", *_grid(["Place", "Entrant", "Club", "Ranked in"], rows, {0})]


def _round_title(st: Stage, m: Match, last: int) -> str:
    if st.format == "single-elimination":
        left = last - m.round
        return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(
            left, f"Round {m.round} (last {2 ** (left + 1)})"
        )
    if m.label == "GF1":
        return "Grand final"
    if m.label == "GF2":
        return "Grand final reset (played if the losers bracket's champion wins the grand final)"
    kind = "Winners" if m.label.startswith("W") else "Losers"
    return f"{kind} round {m.label[1:].split('-')[0]}"


def _tree_name(ev: Event, st: Stage, m: Match, i: int) -> str:
    """A slot of the drawn bracket: the entrant with their seed, "bye", or nothing while it is not known."""
    return "" if m.sides[i] == PENDING else _who(ev, st, m, i)


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
    titles = [_round_title(st, ms[0], len(rounds)) if st.format == "single-elimination" else
              f"Winners round {r}" for r, ms in enumerate(rounds, 1)]  # fmt: skip
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
    lines = [_stage_line(ev, st)]
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
    last = max(m.round for m in st.matches.values())
    order = sorted(st.matches.values(), key=lambda m: ({"W": 0, "L": 1, "G": 2}[m.label[0]], m.round, m.label))
    for m in order:
        groups.setdefault(_round_title(st, m, last), []).append(m)
    section = ""
    for title, ms in groups.items():
        head = {"W": "Winners bracket", "L": "Losers bracket", "G": ""}[ms[0].label[0]]
        if st.format == "double-elimination" and head and head != section:
            lines += ["", head]
            section = head
        lines += ["", f"  {title}"]
        rows = [(m.id, _who(ev, st, m, 0), "vs", _who(ev, st, m, 1), _outcome(ev, m)) for m in ms]
        lines += ["  " + x for x in _grid(["", "", "", "", ""], rows)[1:]]
    champ = ev.champion(st)
    lines += ["", f"  Champion: {champ}" if champ else "  Champion: not decided yet"]
    return lines


def round_lines(ev: Event, st: Stage, r: int) -> list[str]:
    ids = st.rounds[r - 1]
    rows = []
    for k, mid in enumerate(ids, 1):
        m = ev.matches[mid]
        rows.append((k, m.board or "-", mid, _who(ev, st, m, 0), "vs", _who(ev, st, m, 1), _outcome(ev, m)))
    lines = _grid(["Table", "Board", "Match", "Entrant", "", "Entrant", "State"], rows, {0})
    for rr, e in st.byes:
        if rr == r:
            lines.append(f"  bye: {e}" + (" (a win)" if st.format == "swiss" else " (sits out)"))
    return lines


def show_lines(ev: Event, path: str) -> list[str]:
    active = sum(1 for e in ev.entrants.values() if e.active)
    out = [e for e in ev.entrants.values() if not e.active]
    head = f"{ev.name} · {active} entrants" + (f" ({len(out)} withdrawn or disqualified)" if out else "")
    lines = [head + f" · {ev.count} entries in {path}"]
    if not ev.stages:
        lines.append("No stage has started.")
    for st in ev.stages.values():
        lines.append("Stage " + _stage_line(ev, st))
    playing = sorted((m for m in ev.matches.values() if m.board and not m.decided), key=lambda m: _natural(m.board))
    ready = [m for m in ev.matches.values() if m.state == "ready" and not m.board and not ev.stages[m.stage].closed_by]
    if playing:
        lines += ["", "On the boards:"]
        rows = [(m.board, m.id, m.sides[0], "vs", m.sides[1]) for m in playing]
        lines += _grid(["Board", "Match", "Entrant", "", "Entrant"], rows)
    if ready:
        lines += ["", "Waiting for a board:"]
        nxt = proposals.next_match(ev)
        rows = [(m.id, m.sides[0], "vs", m.sides[1], "next" if m.id == nxt else "") for m in ready]
        lines += _grid(["Match", "Entrant", "", "Entrant", ""], rows[:SHOW_READY])
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


# ---------------------------------------------------------------- the commands


def cmd_new(args: argparse.Namespace, out: TextIO) -> int:
    if os.path.exists(args.file):
        raise UserError(f"{args.file} already exists: a tournament is kept in a file of its own (pick another name)")
    with _refusals():
        Director.create(args.file, args.name).close()
    out.write(f"{args.name}: a new tournament in {args.file}\n")
    out.write(f"next: flickboard tournament add {args.file} NAME (or --from entrants.csv)\n")
    return 0


def _entrant_act(name: str, partner: str | None, seed: int | None, club: str | None) -> dict[str, Any]:
    name, partner = name.strip(), (partner or "").strip() or None
    team = f"{name} & {partner}" if partner else name
    return {
        "act": "entrant",
        "name": team,
        "players": [name, partner] if partner else [name],
        "seed": seed,
        "club": (club or "").strip() or None,
    }


def _entrant_text(act: dict[str, Any]) -> str:
    extra = [f"seed {act['seed']}"] if act["seed"] is not None else []
    extra += [str(act["club"])] if act["club"] else []
    return str(act["name"]) + (f" ({', '.join(extra)})" if extra else "")


def _from_csv(path: str) -> list[tuple[int, dict[str, Any]]]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read {path} ({e})") from None
    first = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first.count)  # a spreadsheet in another locale writes ; (or tabs)
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    rows = list(reader)
    if not rows:
        raise UserError(f"{path} is empty: its first line names the columns (name, partner, seed, club)")
    head = [h.strip().lower() for h in rows[0]]
    if "name" not in head:
        raise UserError(f"{path}: the first line names the columns, one of them 'name' (and partner, seed, club)")
    acts = []
    for lineno, cells in enumerate(rows[1:], 2):
        if not any(c.strip() for c in cells):
            continue
        row = dict(zip(head, cells, strict=False))
        seed_text = (row.get("seed") or "").strip()
        if seed_text and not seed_text.isdigit():
            raise UserError(f"{path} line {lineno}: the seed is a whole number (1 = best) or empty, not {seed_text!r}")
        act = _entrant_act(
            row.get("name", ""), row.get("partner"), int(seed_text) if seed_text else None, row.get("club")
        )
        acts.append((lineno, act))
    if not acts:
        raise UserError(f"{path} has no entrants under its first line")
    return acts


def cmd_add(args: argparse.Namespace, out: TextIO) -> int:
    if bool(args.name) == bool(args.from_csv):
        raise UserError("give an entrant's NAME, or --from entrants.csv (columns name, partner, seed, club)")
    if args.from_csv:
        acts = _from_csv(args.from_csv)
    else:
        acts = [(0, _entrant_act(args.name, args.partner, args.seed, args.club))]
    with _director(args.file) as d:
        known = []
        if args.from_csv:  # a row already registered exactly so is skipped: the same file can be read again
            known = [act for _, act in acts if _registered(d.event, act)]
            acts = [(n, act) for n, act in acts if act not in known]
        trial = copy.deepcopy(d.event)  # every row is checked before any is written: all of the file, or nothing
        for lineno, act in acts:
            try:
                trial.check(act)
                trial.apply(act)
            except ActError as e:
                where = f"{args.from_csv} line {lineno}: " if lineno else ""
                raise UserError(f"{where}{e}") from None
        for _, act in acts:
            d.act(act)
            out.write(f"entrant {len(d.event.entrants)}: {_entrant_text(act)}\n")
        if known:
            out.write(f"already registered: {', '.join(str(act['name']) for act in known)}\n")
    return 0


def _registered(ev: Event, act: dict[str, Any]) -> bool:
    e = ev.entrants.get(act["name"])
    return e is not None and (list(e.players), e.seed, e.club) == (act["players"], act["seed"], act["club"])


def _out(args: argparse.Namespace, out: TextIO, status: str) -> int:
    with _director(args.file) as d:
        name = _entrant(d.event, args.entrant)
        d.act({"act": "withdraw" if status == "withdrawn" else "disqualify", "entrant": name, "reason": args.reason})
        lost = [m for m in d.event.matches.values() if m.state == "walkover" and m.loser == name and not m.outcome]
        out.write(f"{name} is {status}" + (f" ({args.reason})" if args.reason else "") + "\n")
        for m in lost:
            out.write(f"  {m.id}: {m.winner} wins by walkover\n")
    return 0


def cmd_withdraw(args: argparse.Namespace, out: TextIO) -> int:
    return _out(args, out, "withdrawn")


def cmd_disqualify(args: argparse.Namespace, out: TextIO) -> int:
    return _out(args, out, "disqualified")


def _tiebreaks(text: str | None) -> list[str] | None:
    if text is None:
        return None
    if text.strip().lower() == "none":
        return []
    chain = []
    for word in (w.strip().lower() for w in text.split(",") if w.strip()):
        key = ALIASES.get(word, word)
        if key not in TIEBREAKS:
            raise UserError(f"unknown tie-break {word!r}{did_you_mean(word, TIEBREAKS)}: one of {', '.join(TIEBREAKS)}")
        if key in chain:
            raise UserError(f"the tie-break {key} is in the chain twice")
        chain.append(key)
    return chain


def _not_finished(ev: Event, st: Stage) -> str:
    if st.format == "swiss" and len(st.rounds) < st.options["rounds"]:
        return f"stage {st.name} is not finished: round {len(st.rounds)} of {st.options['rounds']} has been paired"
    left = sum(1 for m in st.matches.values() if not m.decided)
    return f"stage {st.name} is not finished: {left} of its matches still to play"


def cmd_start(args: argparse.Namespace, out: TextIO) -> int:
    fmt = args.format
    options: dict[str, Any] = {}
    if args.rounds is not None and fmt != "swiss":
        raise UserError("--rounds is for a Swiss stage (a round robin's rounds follow from its entrants)")
    if args.pools is not None and fmt != "pools":
        raise UserError("--pools is for --format pools")
    if args.reset is not None and fmt != "double-elimination":
        raise UserError("--reset is for a double-elimination stage's grand final")
    if (args.top is None) != (args.from_stage is None):
        raise UserError("--top N and --from STAGE go together: the first N of a finished stage (of each pool)")
    chain = _tiebreaks(args.tiebreaks)
    with _director(args.file) as d:
        ev = d.event
        if fmt == "swiss":
            if args.rounds is None:
                n = len(ev.intake(None)) if args.from_stage is None else args.top
                suggest = max(1, math.ceil(math.log2(max(n, 2))))
                raise UserError(f"a Swiss stage needs --rounds N (for {n} entrants, {suggest} rounds find one winner)")
            options["rounds"] = args.rounds
        if fmt == "pools":
            if args.pools is None:
                raise UserError("a pools stage needs --pools N (how many pools)")
            options["pools"] = args.pools
        if fmt == "double-elimination" and args.reset is not None:
            options["reset"] = args.reset
        intake = None
        if args.from_stage is not None:
            src = _stage(ev, args.from_stage)
            if src.closed_by is None and not src.complete:
                raise UserError(f"stage {args.stage} cannot start yet: " + _not_finished(ev, src))
            intake = {"from": src.name, "top": args.top}
        try:
            game = games.game_name(args.game)
        except games.GameError as e:
            raise UserError(str(e)) from None
        if args.rules is not None:
            known = [r for r, _ in games.rule_sets(game)]
            if args.rules not in known:
                raise UserError(
                    f"{games.title(game)} has no rule set {args.rules!r}{did_you_mean(args.rules, known)}"
                    f" (flickboard rules list --game {game})"
                )
        try:
            d.start_stage(
                args.stage,
                fmt,
                options=options,
                game=game,
                rules=args.rules,
                match=args.match,
                tiebreaks=chain,
                intake=intake,
            )
        except ActError as e:
            raise UserError(f"stage {args.stage} cannot start: {e}") from None
        st = d.event.stages[args.stage]
        out.write("Stage " + _stage_line(d.event, st) + "\n")
        if fmt not in BRACKETS:
            out.write(f"  {_chain_text(st)}\n")
        out.write("  seeding: " + ", ".join(f"{i}. {e}" for i, e in enumerate(st.entrants, 1)) + "\n")
        if fmt in BRACKETS:
            out.write("\n".join(bracket_lines(d.event, st, _columns(out))[1:]) + "\n")
        elif fmt == "swiss":
            out.write(f"next: flickboard tournament pair {args.file} {st.name}\n")
        else:
            out.write(f"  {len(st.matches)} matches in {len(st.rounds)} rounds, all scheduled now\n")
            out.write(f"next: flickboard tournament assign {args.file} --auto BOARD ...\n")
    return 0


def _check_boards(ev: Event, boards: Sequence[str]) -> None:
    if len(set(boards)) != len(boards):
        raise UserError("a board is named twice")
    for b in boards:
        busy = _board_of(ev, b)
        if busy is not None:
            raise UserError(
                f"board {b} is playing {busy.id} ({busy.sides[0]} vs {busy.sides[1]}): enter its result first"
            )
        if not b.strip() or "/" in b or b != b.strip() or len(b) > 60:
            raise UserError(f"a board is a name of 1 to 60 characters without '/' or outer spaces, not {b!r}")


def cmd_pair(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        st = _stage(d.event, args.stage)
        if st.format != "swiss":
            raise UserError(
                f"stage {st.name} is a {FORMAT_NAMES[st.format]}: its matches follow from its start and its results "
                "(only a Swiss stage is paired round by round)"
            )
        if st.closed_by:
            raise UserError(f"stage {st.name} is over: its qualifiers went on to stage {st.closed_by}")
        if len(st.rounds) >= st.options["rounds"]:
            raise UserError(f"stage {st.name} has played its {st.options['rounds']} rounds")
        left = [m for m in st.matches.values() if not m.decided]
        if left:
            raise UserError(
                f"round {len(st.rounds)} of stage {st.name} still has {len(left)} matches to play: "
                + ", ".join(m.id for m in left[:5])
                + (" ..." if len(left) > 5 else "")
            )
        boards = list(args.boards or [])
        _check_boards(d.event, boards)
        d.pair_round(st.name)
        r = len(st.rounds)
        for mid, board in zip(st.rounds[r - 1], boards, strict=False):
            d.assign(mid, board)
        out.write(f"{st.name}, round {r} of {st.options['rounds']}\n")
        out.write("\n".join(round_lines(d.event, st, r)) + "\n")
    return 0


def cmd_assign(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        ev = d.event
        if args.auto:
            if args.targets:
                raise UserError("assign FILE MATCH BOARD, or assign FILE --auto BOARD ...: not both")
            boards = list(args.auto)
            _check_boards(ev, boards)
            done = 0
            for b in boards:
                mid = proposals.next_match(ev)
                if mid is None:
                    break
                d.assign(mid, b)
                m = ev.matches[mid]
                out.write(f"{b}: {mid}  {m.sides[0]} vs {m.sides[1]}\n")
                done += 1
            if done == 0:
                out.write("no match is ready to play: " + next_step(ev, args.file) + "\n")
            elif done < len(boards):
                out.write(f"{', '.join(boards[done:])}: no match ready for them now\n")
            return 0
        if len(args.targets) != 2:
            raise UserError("assign FILE MATCH BOARD (or: assign FILE --auto BOARD ...)")
        m = _match(ev, args.targets[0])
        board = args.targets[1]
        if m.decided:
            raise UserError(f"match {m.id} is already decided ({_outcome(ev, m)})")
        other = _board_of(ev, board)
        if other is not None and other.id != m.id:
            raise UserError(
                f"board {board} is playing {other.id} ({other.sides[0]} vs {other.sides[1]}): enter its result first"
            )
        d.assign(m.id, board)
        out.write(f"{board}: {m.id}  {m.sides[0]} vs {m.sides[1]}\n")
    return 0


def _evidence(path: str | None, file: str) -> dict[str, Any] | None:
    if path is None:
        return None
    if not os.path.isfile(path):
        raise UserError(f"no such game journal: {path}")
    if os.path.isabs(path):
        return {"journal": path}
    here = os.path.dirname(os.path.abspath(file))
    return {"journal": os.path.relpath(os.path.abspath(path), here)}


def _decided(ev: Event, m: Match) -> UserError:
    return UserError(
        f"match {m.id} is already decided ({_outcome(ev, m)}); to change it: flickboard tournament correct"
    )


def _result_act(d: Director, args: argparse.Namespace, m: Match, correct: bool) -> dict[str, Any]:
    ev = d.event
    if not m.known:
        raise UserError(f"match {m.id} does not have its two entrants yet ({_outcome(ev, m)})")
    winner = _entrant(ev, args.winner, m.sides)
    act: dict[str, Any] = {
        "act": "correct" if correct else "result",
        "match": m.id,
        "sides": list(m.sides),
        "winner": winner,
        "games": _two(args.games, "--games"),
        "points": _two(args.points, "--points"),
        "twenties": _two(args.twenties, "--twenties"),
        "twenties_confirmed": bool(args.confirmed),
        "shootout": _two(args.shootout, "--shootout"),
        "source": "organiser",
        "evidence": _evidence(args.journal, args.file),
    }
    games_won = act["games"]
    if games_won is not None and games_won[0] != games_won[1]:
        more = m.sides[0] if games_won[0] > games_won[1] else m.sides[1]
        if more != winner:
            raise UserError(
                f"the games say {more} won ({args.games} in the order {m.sides[0]}, {m.sides[1]}), not {winner}"
            )
    if args.confirmed and act["twenties"] is None:
        raise UserError("--confirmed says the twenties were checked: give them with --twenties a-b")
    if correct:
        act["reason"] = args.reason or ""
        if getattr(args, "walkover", False):
            act = {**act, "walkover": True}
    return act


def _after(ev: Event, m: Match, out: TextIO, path: str) -> None:
    out.write(f"{m.id}: {_outcome(ev, m)}\n")
    st = ev.stages[m.stage]
    if st.complete:
        champ = ev.champion(st)
        out.write(f"stage {st.name} is complete" + (f": {champ} is the champion" if champ else "") + "\n")
    elif st.format == "swiss" and all(x.decided for x in st.matches.values()):
        out.write(f"round {len(st.rounds)} is complete: flickboard tournament pair {path} {st.name}\n")
    else:
        nxt = [x for x in st.matches.values() if x.state == "ready" and not x.board]
        if st.format in BRACKETS and nxt:
            out.write("ready: " + ", ".join(f"{x.id} ({x.sides[0]} vs {x.sides[1]})" for x in nxt) + "\n")


def cmd_result(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        m = _match(d.event, args.match)
        if m.outcome is not None or m.decided:
            raise _decided(d.event, m)
        d.act(_result_act(d, args, m, False))
        _after(d.event, m, out, args.file)
    return 0


def cmd_walkover(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        m = _match(d.event, args.match)
        if m.outcome is not None or m.decided:
            raise _decided(d.event, m)
        if not m.known:
            raise UserError(f"match {m.id} does not have its two entrants yet ({_outcome(d.event, m)})")
        winner = _entrant(d.event, args.winner, m.sides)
        d.walkover(m.id, winner, args.reason or "")
        _after(d.event, m, out, args.file)
    return 0


def cmd_correct(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        m = _match(d.event, args.match)
        if m.outcome is None:
            raise UserError(f"match {m.id} has no result to correct ({_outcome(d.event, m)}): enter it with result")
        d.act(_result_act(d, args, m, True))
        _after(d.event, m, out, args.file)
    return 0


def _describe(ev: Event, act: dict[str, Any]) -> str:
    kind = act.get("act")
    if kind in ("result", "correct", "walkover", "assign"):
        what = {"assign": f"on {act.get('board')}", "walkover": "walkover"}.get(
            str(kind), f"won by {act.get('winner')}"
        )
        return f"{kind} {act.get('match')} ({what})"
    if kind == "entrant":
        return f"entrant {act.get('name')}"
    if kind in ("withdraw", "disqualify"):
        return f"{kind} {act.get('entrant')}"
    if kind == "stage":
        return f"stage {act.get('name')} ({act.get('format')})"
    if kind == "pair":
        return f"round {act.get('round')} of stage {act.get('stage')}"
    if kind == "shootout":
        return f"shoot-out in stage {act.get('stage')} among {', '.join(act.get('entrants') or [])}"
    if kind == "shootout-round":
        who = ", ".join(act.get("entrants") or [])
        return f"shoot-out round {act.get('round')} of stage {act.get('stage')} among {who}"
    return str(kind)


def cmd_undo(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        if not d.event.applied:
            raise UserError("there is nothing to undo")
        n, act = d.event.applied[-1]
        d.undo()
        out.write(f"undone: entry {n}, {_describe(d.event, act)}\n")
    return 0


def _shootout_matches(d: Director, st: Stage, path: str, out: TextIO) -> int:
    """`shootout FILE STAGE`: the shoot-out matches the stage's standings need, made and listed."""
    ids = d.shootout_matches(st.name)
    ev = d.event
    if not ids:
        playing = ev.shootouts_playing(st)
        if playing:
            left = [i for r in playing for i in r.matches if not ev.matches[i].decided]
            out.write(f"no new shoot-out in stage {st.name}: {', '.join(left)} still to play\n")
        else:
            out.write(f"no tie in stage {st.name} awaits a shoot-out\n")
        return 0
    pucks = pichenotte_rules(st.rules).shootout_pucks  # (only a Pichenotte stage has shoot-out matches)
    for rnd in st.shootout_rounds:
        if not set(rnd.matches) & set(ids):
            continue
        kind = "one match" if len(rnd.matches) == 1 else "every pair once"
        out.write(f"shoot-out round {rnd.number} of stage {st.name}, {', '.join(rnd.entrants)} ({kind}):\n")
        rows = [(i, ev.matches[i].sides[0], "vs", ev.matches[i].sides[1]) for i in rnd.matches]
        out.write("\n".join(_grid(["Match", "Entrant", "", "Entrant"], rows)) + "\n")
    out.write(
        f"Each is a twenties shoot-out on the engine (match format shootout, {st.rules}: {pucks} pucks each, then "
        "one each until it breaks).\n"
        f"Next: flickboard tournament assign {path} --auto BOARD ... (or a result typed: "
        f"flickboard tournament result {path} MATCH WINNER --shootout a-b)\n"
    )
    return 0


def cmd_shootout(args: argparse.Namespace, out: TextIO) -> int:
    with _director(args.file) as d:
        st = _stage(d.event, args.stage)
        if not args.scores:
            return _shootout_matches(d, st, args.file, out)
        who, counts = [], []
        for item in args.scores:
            name, sep, num = item.rpartition("=")
            if not sep or not num.strip().isdigit():
                raise UserError(f"each shoot-out score is NAME=TWENTIES (e.g. Ana=5), not {item!r}")
            who.append(_entrant(d.event, name.strip()))
            counts.append(int(num))
        d.shootout(st.name, who, counts)
        out.write(f"shoot-out in stage {st.name}: " + ", ".join(f"{w} {c}" for w, c in zip(who, counts, strict=True)))
        out.write("\n")
        if st.format in BRACKETS:
            return 0
        out.write("\n".join(stage_standings(d.event, st, args.file)) + "\n")
    return 0


def cmd_standings(args: argparse.Namespace, out: TextIO) -> int:
    ev = _read(args.file)
    if args.stage:
        lines = stage_standings(ev, _stage(ev, args.stage), args.file)
    elif not ev.stages:
        rows = [(e.seed or "", e.name, e.club or "", e.status) for e in ev.entrants.values()]
        lines = [
            f"{ev.name}: {len(rows)} entrants, no stage started yet",
            *_grid(["Seed", "Entrant", "Club", ""], rows),
        ]
    elif len(ev.stages) == 1:
        lines = stage_standings(ev, next(iter(ev.stages.values())), args.file)
    else:
        lines = final_lines(ev)
    out.write("\n".join(lines) + "\n")
    return 0


def cmd_bracket(args: argparse.Namespace, out: TextIO) -> int:
    ev = _read(args.file)
    if args.stage is None:
        found = [st for st in ev.stages.values() if st.format in BRACKETS]
        if not found:
            raise UserError("no bracket has started (a single- or double-elimination stage)")
        st = found[-1]
    else:
        st = _stage(ev, args.stage)
    out.write("\n".join(bracket_lines(ev, st, _columns(out))) + "\n")
    return 0


def _columns(out: TextIO) -> int | None:
    """The terminal's width when `out` is one; None for a file or a pipe (a printout takes the whole drawing)."""
    try:
        return shutil.get_terminal_size().columns if out.isatty() else None
    except (AttributeError, ValueError, OSError):
        return None


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    ev = _read(args.file)
    out.write("\n".join(show_lines(ev, args.file)) + "\n")
    return 0


def _write(target: str, data: bytes, out: TextIO) -> None:
    if target == "-":
        out.write(data.decode("utf-8"))
        return
    try:
        with open(target, "wb") as f:
            f.write(data)
    except OSError as e:
        raise UserError(f"cannot write {target}: {e.strerror or e}") from None
    print(f"wrote {target}", file=sys.stderr)


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    if not (args.csv or args.standings or args.json or args.archive):
        raise UserError("say what to write: --csv FILE, --standings FILE, --json FILE and/or --archive FILE.zip")
    ev = _read(args.file)
    if args.csv:
        _write(args.csv, exports.results_csv(ev).encode("utf-8"), out)
    if args.standings:
        _write(args.standings, exports.standings_csv(ev).encode("utf-8"), out)
    if args.json:
        _write(args.json, dumps(ev), out)
    if args.archive:
        try:
            with open(args.file, "rb") as f:
                data = f.read()
            manifest = exports.write_archive(args.archive, data, os.path.dirname(os.path.abspath(args.file)))
        except OSError as e:
            raise UserError(f"cannot write {args.archive}: {e.strerror or e}") from None
        files = manifest["files"]
        games_in = len(manifest["evidence"])
        journals = f"{games_in} game journal" + ("" if games_in == 1 else "s")
        print(f"wrote {args.archive}: {len(files) + 1} files, {journals}", file=sys.stderr)
        for missing in manifest["missing"]:
            print(f"warning: the game journal {missing} named as evidence was not found", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- the parser


def configure_parser(p: argparse.ArgumentParser) -> None:
    """`flickboard tournament ACTION FILE ...`"""
    sub = p.add_subparsers(dest="action", metavar="ACTION")

    def cmd(name: str, func: Callable[[argparse.Namespace, TextIO], int], help: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help, description=help)
        c.add_argument("file", metavar="FILE", help="the tournament's journal (e.g. spring-open.jsonl)")
        c.set_defaults(func=func)
        return c

    c = cmd("new", cmd_new, "start a new tournament in FILE")
    c.add_argument("--name", required=True, help='the event\'s name, e.g. "Spring Open"')

    c = cmd("add", cmd_add, "register an entrant, or every entrant of a CSV file")
    c.add_argument("name", nargs="?", metavar="NAME")
    c.add_argument("--partner", metavar="NAME", help="a doubles partner: the team is 'NAME & PARTNER'")
    c.add_argument("--seed", type=int, metavar="N", help="1 = the best; unseeded entrants are drawn")
    c.add_argument("--club", metavar="C")
    c.add_argument("--from", dest="from_csv", metavar="CSV", help="a CSV with columns name, partner, seed, club")

    for name, func, what in (
        ("withdraw", cmd_withdraw, "an entrant leaves: unplayed matches are lost by walkover"),
        ("disqualify", cmd_disqualify, "disqualify an entrant: unplayed matches are lost by walkover"),
    ):
        c = cmd(name, func, what)
        c.add_argument("entrant", metavar="NAME")
        c.add_argument("--reason", default="", help="why (kept in the journal)")

    c = cmd("start", cmd_start, "start a stage: its format, who enters, the game and the tie-breaks")
    c.add_argument("stage", metavar="STAGE", help="the stage's name, e.g. swiss, final")
    c.add_argument("--format", required=True, choices=FORMATS)
    c.add_argument("--rounds", type=int, metavar="N", help="Swiss: how many rounds")
    c.add_argument("--pools", type=int, metavar="N", help="pools: how many")
    c.add_argument(
        "--reset",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="double elimination: a second grand final if the losers bracket's champion wins the first (the default)",
    )
    c.add_argument("--top", type=int, metavar="N", help="with --from: the first N of that stage (of each pool)")
    c.add_argument("--from", dest="from_stage", metavar="STAGE", help="the finished stage the entrants come from")
    c.add_argument("--game", help="pichenotte (default), quebec or flicochet")
    c.add_argument("--rules", metavar="R", help="the rule set (default: the game's; flickboard rules list)")
    c.add_argument(
        "--match", metavar="M", help="the match format (Pichenotte: games:N, wins:N ...; others: the target)"
    )
    c.add_argument("--tiebreaks", metavar="a,b,c", help=f"the chain, in order, of: {', '.join(TIEBREAKS)} (or none)")

    c = cmd("pair", cmd_pair, "pair the next round of a Swiss stage and print it")
    c.add_argument("stage", metavar="STAGE")
    c.add_argument("--boards", nargs="+", metavar="BOARD", help="put the round's matches on these boards, in order")

    c = cmd("assign", cmd_assign, "put a match on a board; --auto: the free boards take the next matches")
    c.add_argument("targets", nargs="*", metavar="MATCH BOARD")
    c.add_argument(
        "--auto", nargs="+", metavar="BOARD", help="these free boards take the next matches, longest-waiting first"
    )

    for name, func, what in (
        ("result", cmd_result, "a match's result"),
        ("correct", cmd_correct, "replace a match's result (the old one stays in the journal)"),
    ):
        c = cmd(name, func, what)
        c.add_argument("match", metavar="MATCH")
        c.add_argument("winner", metavar="WINNER")
        c.add_argument("--games", metavar="a-b", help="games won, in the order of the match's sides")
        c.add_argument("--points", metavar="a-b", help="points scored, in the order of the match's sides")
        c.add_argument("--twenties", metavar="a-b", help="twenties, in the order of the match's sides")
        c.add_argument("--confirmed", action="store_true", help="the twenties were checked: they count in tie-breaks")
        c.add_argument("--shootout", metavar="a-b", help="the match's own twenties shoot-out (R-1-B)")
        c.add_argument("--journal", metavar="GAME_JOURNAL", help="the game's journal, kept as evidence")
        if name == "correct":
            c.add_argument("--reason", default="", help="why (kept in the journal)")
            c.add_argument("--walkover", action="store_true", help="the match was in fact won by walkover")

    c = cmd("walkover", cmd_walkover, "a match won without playing")
    c.add_argument("match", metavar="MATCH")
    c.add_argument("winner", metavar="WINNER")
    c.add_argument("--reason", default="")

    cmd("undo", cmd_undo, "take back the last act (a new entry; nothing is erased)")

    c = cmd(
        "shootout",
        cmd_shootout,
        "a twenties shoot-out among tied entrants (R-1-B): without scores, the shoot-out matches the standings need "
        "(played on the boards, scored by the engine); NAME=TWENTIES ...: one played on paper",
    )
    c.add_argument("stage", metavar="STAGE")
    c.add_argument("scores", nargs="*", metavar="NAME=TWENTIES")

    c = cmd("standings", cmd_standings, "a stage's table with its tie-breaks, or the event's final standings")
    c.add_argument("stage", nargs="?", metavar="STAGE")

    c = cmd("bracket", cmd_bracket, "an elimination stage's bracket")
    c.add_argument("stage", nargs="?", metavar="STAGE")

    cmd("show", cmd_show, "the event at a glance: stages, matches on the boards, matches waiting")

    c = cmd("export", cmd_export, "results and standings as CSV, the JSON document, the whole event as a zip")
    c.add_argument("--csv", metavar="FILE", help="every match's result ('-': stdout)")
    c.add_argument("--standings", metavar="FILE", help="the standings ('-': stdout)")
    c.add_argument("--json", metavar="FILE", help="the event's JSON document ('-': stdout)")
    c.add_argument("--archive", metavar="FILE", help="a zip: the journals, the documents, a manifest of sha256 sums")

    configure_run(cmd("run", cmd_run, "the hall: open each assigned match on its board, take the boards' results"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Without an action: say which there are."""
    raise UserError(
        "say what to do: flickboard tournament new | add | withdraw | disqualify | start | pair | assign | result | "
        "walkover | correct | undo | shootout | standings | bracket | show | export | run "
        "(see: flickboard tournament --help)"
    )
