"""What the tournament's pages show, as JSON: pure functions of the event (and of the boards' latest scoreboards
for the live scores). `hall_view` for the hall screen, `entrant_view` for a player's phone, `organiser_view` for the
organiser's page; `match_doc`, `table_doc` and `bracket_doc` are their parts."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from flickboard.rules.base import did_you_mean
from flickboard.tournament import proposals
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Event, Match, Stage
from flickboard.tournament.hall import players_of

# The standings' columns for the tie-break keys that have a number of their own (h2h and a shoot-out have none).
COLUMNS = {
    "twenties": ("20s", "twenties"),
    "points": ("Pts", "points_for"),
    "diff": ("+/-", "diff"),
    "buchholz": ("Bh", "buchholz"),
    "median-buchholz": ("MBh", "median_buchholz"),
}
KEYS_SAID = {
    "h2h": "head-to-head",
    "twenties": "twenties",
    "points": "points",
    "diff": "point difference",
    "buchholz": "Buchholz",
    "median-buchholz": "median Buchholz",
    "shootout": "twenties shoot-out",
}
SECTIONS = (("W", "Winners"), ("L", "Losers"), ("GF", "Grand final"))


def side_name(name: str) -> str | None:
    """A side as shown: None while it is still to be decided."""
    return None if name in (PENDING, EMPTY) else name


def pair_text(v: tuple[int, int] | None) -> str | None:
    """Two numbers as a score, `310–250`."""
    return None if v is None else f"{v[0]}–{v[1]}"


def match_doc(m: Match) -> dict[str, Any]:
    o = m.outcome
    return {
        "id": m.id,
        "stage": m.stage,
        "label": m.label,
        "round": m.round,
        "pool": None if m.pool is None else m.pool + 1,
        "sides": [side_name(s) for s in m.sides],
        "state": m.state,
        "board": m.board,
        "winner": side_name(m.winner) if m.decided else None,
        "walkover": bool(o and o.walkover),
        "points": list(o.points) if o and o.points else None,
        "games": list(o.games) if o and o.games else None,
        "twenties": list(o.twenties) if o and o.twenties else None,
        "source": o.source if o else None,
        "score": (pair_text(o.points) or pair_text(o.games)) if o else None,
    }


def current_stage(event: Event) -> Stage | None:
    """The stage being played: the last one started."""
    return list(event.stages.values())[-1] if event.stages else None


def round_of(st: Stage) -> tuple[int, int | None]:
    """(the round being played, the rounds of the stage when known)."""
    if st.format in BRACKETS:
        ready = [m.round for m in st.matches.values() if not m.decided]
        last = max((m.round for m in st.matches.values()), default=0)
        return (min(ready) if ready else last), last
    open_rounds = [r for r, ids in enumerate(st.rounds, 1) if any(not st.matches[i].decided for i in ids)]
    now = open_rounds[0] if open_rounds else len(st.rounds)
    total = st.options.get("rounds") if st.format == "swiss" else len(st.rounds)
    return now, total


def natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that puts t2 before t10."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text) if p)


def on_boards(event: Event) -> dict[str, list[Match]]:
    """Each board's undecided matches in the order they were assigned (the first is the one it plays now)."""
    assigned: dict[str, int] = {}
    for n, rec in event.applied:
        if rec.get("act") == "assign":
            assigned[str(rec["match"])] = n
    out: dict[str, list[Match]] = {}
    for mid, _ in sorted(assigned.items(), key=lambda kv: kv[1]):
        m = event.matches.get(mid)
        if m is None or m.board is None or m.decided or event.stages[m.stage].closed_by:
            continue
        out.setdefault(m.board, []).append(m)
    return out


def live_score(event: Event, m: Match, doc: dict[str, Any] | None) -> dict[str, Any] | None:
    """The board's scoreboard for match `m`, in the match's order of sides; None when the board shows another match."""
    if doc is None or not m.known:
        return None
    score = doc.get("score")
    if not isinstance(score, dict) or sorted(map(str, score.get("players") or ())) != sorted(players_of(event, m)):
        return None
    sides = score.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        return None
    sets = [frozenset(s.get("players") or ()) if isinstance(s, dict) else frozenset() for s in sides]
    order = []
    for e in m.sides:
        want = frozenset(event.entrants[e].players)
        if want not in sets:
            return None
        order.append(sets.index(want))
    totals = score.get("totals") if isinstance(score.get("totals"), list) else None
    games: list[Any] = score["games"] if isinstance(score.get("games"), list) else []
    names = [s.get("name") for s in sides]
    won = [sum(1 for g in games if isinstance(g, dict) and g.get("winner") == names[i]) for i in order]
    return {
        "totals": [totals[i] for i in order] if totals and len(totals) == 2 else None,
        "games": won,
        "over": score.get("over") is True,
        "now": doc.get("now") if isinstance(doc.get("now"), str) else None,
    }


def table_doc(event: Event, st: Stage, pool: int | None = None) -> dict[str, Any]:
    t = event.table(st, pool)
    cols = [COLUMNS[k] for k in st.tiebreaks if k in COLUMNS]
    rows = []
    for r in t.rows:
        d = r.doc()
        rows.append(
            {
                "rank": r.rank,
                "entrant": r.entrant,
                "status": r.status,
                "played": r.played,
                "wins": r.wins,
                "losses": r.losses,
                "tied": r.tied,
                "values": [d[field] for _, field in cols],
            }
        )
    return {"pool": None if pool is None else pool + 1, "columns": [c for c, _ in cols], "rows": rows}


def bracket_doc(st: Stage) -> list[dict[str, Any]]:
    out = []
    for prefix, title in SECTIONS:
        ms = [m for m in st.matches.values() if _section(m.label) == prefix]
        if not ms:
            continue
        rounds: dict[int, list[dict[str, Any]]] = {}
        for m in ms:
            if m.label == "GF2" and m.state == "void":
                continue
            rounds.setdefault(m.round, []).append(match_doc(m))
        out.append({"section": title, "rounds": [{"round": r, "matches": rounds[r]} for r in sorted(rounds)]})
    return out


def _section(label: str) -> str:
    return "GF" if label.startswith("GF") else label[:1]


def hall_view(event: Event, scoreboard: Callable[[str], dict[str, Any] | None]) -> dict[str, Any]:
    """Everything the hall screen shows; `scoreboard(board)` is the board's latest scoreboard document, if any."""
    st = current_stage(event)
    view: dict[str, Any] = {"name": event.name, "entries": event.count, "stage": None, "boards": [], "waiting": []}
    boards = on_boards(event)
    for board in sorted(boards, key=natural):
        ms = boards[board]
        view["boards"].append(
            {
                "board": board,
                "match": match_doc(ms[0]),
                "score": live_score(event, ms[0], scoreboard(board)),
                "queued": len(ms) - 1,
            }
        )
    for m in event.matches.values():
        if m.state == "ready" and m.board is None and not event.stages[m.stage].closed_by:
            view["waiting"].append(match_doc(m))
    if st is None:
        return view
    now, total = round_of(st)
    view["stage"] = {
        "name": st.name,
        "format": st.format,
        "round": now,
        "rounds": total,
        "rules": st.rules,
        "match": st.match,
        "tiebreaks": [KEYS_SAID.get(k, k) for k in st.tiebreaks],
        "complete": st.complete,
    }
    if st.format in ("round-robin", "swiss"):
        view["tables"] = [table_doc(event, st)]
    elif st.format == "pools":
        view["tables"] = [table_doc(event, st, p) for p in range(len(st.pools))]
    else:
        view["bracket"] = bracket_doc(st)
        view["champion"] = event.champion(st)
    return view


def near(word: str, choices: Iterable[str]) -> str:
    """ "; did you mean 'X'?" for a slip of the finger (rules/base.py), or a name typed in another case."""
    same = [c for c in choices if c.casefold() == word.casefold()]
    return f"; did you mean {same[0]!r}?" if len(same) == 1 and same[0] != word else did_you_mean(word, choices)


def entrant_problem(event: Event, name: str) -> str | None:
    if name in event.entrants:
        return None
    return f"no entrant named {name[:60]!r}{near(name, event.entrants)}"


def entrant_view(event: Event, name: str, scoreboard: Callable[[str], dict[str, Any] | None]) -> dict[str, Any]:
    """A player's page: their next match and where, their results, their place."""
    e = event.entrants[name]
    mine = [m for m in event.matches.values() if name in m.sides]
    nxt = next((m for m in mine if m.state == "ready" and not event.stages[m.stage].closed_by), None)
    results = []
    for m in mine:
        if m.state not in ("done", "walkover") or not m.known:
            continue
        i = m.sides.index(name)
        o = m.outcome
        pts = o.points if o and o.points else (o.games if o and o.games else None)
        results.append(
            {
                "match": m.id,
                "opponent": m.sides[1 - i],
                "won": m.winner == name,
                "walkover": m.state == "walkover" or bool(o and o.walkover),
                "score": None if pts is None else f"{pts[i]}–{pts[1 - i]}",
            }
        )
    byes = [(st.name, r) for st in event.stages.values() for r, b in st.byes if b == name]
    view: dict[str, Any] = {
        "name": name,
        "players": list(e.players),
        "club": e.club,
        "status": e.status,
        "reason": e.reason,
        "results": results,
        "byes": [f"{s} round {r}" for s, r in byes],
        "next": None,
        "place": None,
    }
    if nxt is not None:
        doc = match_doc(nxt)
        doc["opponent"] = nxt.sides[1 - nxt.sides.index(name)]
        doc["playing"] = nxt.board is not None and on_boards(event).get(nxt.board, [None])[0] is nxt
        doc["live"] = live_score(event, nxt, scoreboard(nxt.board)) if doc["playing"] and nxt.board else None
        if doc["live"] is not None and doc["live"]["totals"]:
            i = nxt.sides.index(name)
            doc["live"]["mine"] = [doc["live"]["totals"][i], doc["live"]["totals"][1 - i]]
        view["next"] = doc
    st = current_stage(event)
    if st is not None and name in st.entrants:
        for place, who in event.ranking(st):
            if who == name:
                view["place"] = {"stage": st.name, "place": place, "of": len(st.entrants)}
    return view


def organiser_view(event: Event, held: list[dict[str, Any]], hall: dict[str, Any], seen: list[str]) -> dict[str, Any]:
    st = current_stage(event)
    busy = on_boards(event)
    boards = sorted(set(seen) | set(busy) | {m.board for m in event.matches.values() if m.board}, key=natural)
    matches = [
        match_doc(m)
        for m in event.matches.values()
        if m.known and m.state in ("ready", "done", "walkover") and not event.stages[m.stage].closed_by
    ]
    cards = []
    for s in event.stages.values():
        for r in sorted({m.round for m in s.matches.values()}):
            cards.append({"stage": s.name, "round": r, "href": f"/cards/{s.name}/{r}"})
    return {
        "name": event.name,
        "entries": event.count,
        "hall": hall,
        "stage": None if st is None else {"name": st.name, "format": st.format, "round": round_of(st)[0]},
        "can_pair": st is not None and st.format == "swiss" and len(st.rounds) < st.options["rounds"],
        "matches": matches,
        "next": proposals.next_match(event),
        "boards": [{"board": b, "free": b not in busy, "match": busy[b][0].id if b in busy else None} for b in boards],
        "held": held,
        "entrants": [{"name": e.name, "status": e.status} for e in event.entrants.values()],
        "cards": cards,
    }
