"""What the tournament's pages show, as JSON: pure functions of the event (and of the boards' latest scoreboards for
the live scores, and of what the hall says about the boards). `hall_view` for the hall screen, `entrant_view` for a
player's phone, `entrants_view` for the list of entrants, `organiser_view` for the organiser's page; `match_doc`,
`table_doc`, `bracket_doc` and `standings_doc` are their parts, `find_entrants` finds an entrant from what a player
typed (any case, any accents, part of the name).

The standings have the columns and names of `flickboard tournament standings` (flickboard.tournament.columns); a
bracket's rounds are named as people name them ("Semi-finals", "Losers' round 2"; brackets.round_name). A stage's
progress counts the matches to be played: a bye is no match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flickboard import i18n
from flickboard.rules.base import did_you_mean
from flickboard.rules.names import fold
from flickboard.rules.text import N_, Message
from flickboard.tournament import columns, proposals
from flickboard.tournament.brackets import round_name
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Event, Match, Stage
from flickboard.tournament.hall import players_of

# The words are Messages: English as they are, and said in the page's language (`with_said`, common.js `saidOf`).
KEYS_SAID = {
    "h2h": Message("head-to-head"),
    "twenties": Message("twenties"),
    "points": Message("points"),
    "diff": Message("difference"),
    "buchholz": Message("Buchholz"),
    "median-buchholz": Message("median Buchholz"),
    "shootout": Message("shoot-out"),
}
FORMAT_NAMES = {
    "round-robin": Message("round robin"),
    "swiss": Message("Swiss"),
    "single-elimination": Message("single elimination"),
    "double-elimination": Message("double elimination"),
    "pools": Message("pools"),
}
SECTIONS = (("W", Message("Winners' bracket")), ("L", Message("Losers' bracket")), ("GF", Message("Grand final")))
# The column names of the tables the pages add (flickboard.tournament.columns marks the standings' own).
PLACE, ENTRANT, CLUB, RANKED_IN = N_("Place"), N_("Entrant"), N_("Club"), N_("Ranked in")
# An entrant's status in words (the journal's own words stay as they are in the documents).
STATUS_SAID = {"active": Message("active"), "withdrawn": Message("withdrawn"), "disqualified": Message("disqualified")}
Scoreboard = Callable[[str], dict[str, Any] | None]


def with_said(doc: Any) -> Any:
    """A view as the pages get it: beside each sentence that is a `Message` (rules/text.py), `<key>_said` is the same
    as `{text, values}` (i18n.said), for the page to say in its language (common.js `saidOf`); a list with sentences in
    it gets `<key>_said` too, one for each (a plain text as it is). The English stays where it was."""
    if isinstance(doc, dict):
        out: dict[str, Any] = {}
        for k, v in doc.items():
            out[k] = with_said(v)
            said = i18n.said(v)
            if said is not None:
                out[f"{k}_said"] = said
            elif isinstance(v, list) and any(i18n.said(x) is not None for x in v):
                out[f"{k}_said"] = [i18n.said(x) or x for x in v]
        return out
    if isinstance(doc, list):
        return [with_said(x) for x in doc]
    return doc


def game_of(event: Event) -> str | None:
    """The tournament's game when every stage plays the same one (a page speaks its language: Québec Pichenottes,
    French), else None (no stage yet, or several games)."""
    found = {st.game for st in event.stages.values()}
    return found.pop() if len(found) == 1 else None


def side_name(name: str) -> str | None:
    """A side as shown: None while it is still to be decided."""
    return None if name in (PENDING, EMPTY) else name


def pair_text(v: tuple[int, int] | None) -> str | None:
    """Two numbers as a score, `310–250`."""
    return None if v is None else f"{v[0]}–{v[1]}"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st, ... (a Message: French says 1er, 2e, 21e)."""
    if n == 1:
        return Message("1st")
    if 10 <= n % 100 <= 20:
        return Message("{n}th", n=n)
    if n % 10 == 1:
        return Message("{n}st", n=n)
    if n % 10 == 2:
        return Message("{n}nd", n=n)
    if n % 10 == 3:
        return Message("{n}rd", n=n)
    return Message("{n}th", n=n)


def round_title(event: Event, m: Match) -> str | None:
    """A bracket match's round as people name it; None outside a bracket."""
    st = event.stages[m.stage]
    if st.format not in BRACKETS:
        return None
    return round_name(st.format, m.label, [x.label for x in st.matches.values()])


def match_doc(m: Match, event: Event | None = None) -> dict[str, Any]:
    o = m.outcome
    return {
        "id": m.id,
        "stage": m.stage,
        "label": m.label,
        "round": m.round,
        "round_name": round_title(event, m) if event is not None else None,
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
        "score": (pair_text(o.points) or pair_text(o.games) or pair_text(o.shootout)) if o else None,
        "shootout": m.shootout,
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


def to_play(ms: Iterable[Match]) -> tuple[int, int]:
    """(matches played, matches to play) among `ms`: a bye and a match nobody needs (a void grand final reset) are not
    matches; a walkover counts as decided."""
    real = [m for m in ms if m.state not in ("bye", "void")]
    return sum(1 for m in real if m.state in ("done", "walkover")), len(real)


def progress(event: Event, st: Stage) -> str:
    """How far a stage has gone, in words: "round 2 of 5: 7 of 20 matches played", "3 of 5 matches played"."""
    if st.closed_by:
        return Message("complete; its qualifiers went on to {stage}", stage=st.closed_by)
    if st.complete:
        return Message("complete")
    if st.format == "swiss":
        if not st.rounds:
            return Message("round 1 of {rounds} not paired yet", rounds=st.options["rounds"])
        now, total = round_of(st)
        played, n = to_play(st.matches[i] for i in st.rounds[now - 1])
        return Message(
            "round {now} of {total}: {played} of {n} matches played", now=now, total=total, played=played, n=n
        )
    played, n = to_play(m for m in st.matches.values() if not m.shootout)
    if st.format not in BRACKETS:
        now, total = round_of(st)
        return Message(
            "round {now} of {total}: {played} of {n} matches played", now=now, total=total, played=played, n=n
        )
    return Message("{played} of {n} matches played", played=played, n=n)


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
        # the same in the page's language (the scoreboard's `now_sentence`, docs/mqtt.md): the hall screen's now line
        "now_said": doc.get("now_sentence") if isinstance(doc.get("now_sentence"), dict) else None,
    }


def table_doc(event: Event, st: Stage, pool: int | None = None) -> dict[str, Any]:
    """A stage's (or a pool's) standings with the columns of `flickboard tournament standings`."""
    t = event.table(st, pool)
    rows = [
        {"entrant": r.entrant, "status": r.status, "rank": r.rank, "tied": r.tied, "wins": r.wins, "cells": cells}
        for r, cells in zip(t.rows, columns.cells(event, st, t), strict=True)
    ]
    return {"pool": None if pool is None else pool + 1, "columns": columns.headers(st, t), "rows": rows}


def bracket_doc(event: Event, st: Stage) -> list[dict[str, Any]]:
    """A bracket's sections (the winners' and losers' brackets, the grand final), each round named, in playing order."""
    out = []
    for prefix, title in SECTIONS:
        ms = [m for m in st.matches.values() if _section(m.label) == prefix]
        ms = [m for m in ms if not (m.label == "GF2" and m.state == "void")]  # a reset nobody needs
        if not ms:
            continue
        rounds: dict[str, list[dict[str, Any]]] = {}
        for m in ms:
            rounds.setdefault(round_title(event, m) or "", []).append(match_doc(m, event))
        out.append({"section": title, "rounds": [{"name": name, "matches": docs} for name, docs in rounds.items()]})
    return out


def _section(label: str) -> str:
    return "GF" if label.startswith("GF") else label[:1]


def tables_of(event: Event, st: Stage) -> list[dict[str, Any]]:
    if st.format == "pools":
        return [table_doc(event, st, p) for p in range(len(st.pools))]
    return [table_doc(event, st)]


def stage_doc(event: Event, st: Stage) -> dict[str, Any]:
    now, total = round_of(st)
    played, n = to_play(m for m in st.matches.values() if not m.shootout)
    return {
        "name": st.name,
        "format": st.format,
        "format_name": FORMAT_NAMES[st.format],
        "round": now,
        "rounds": total,
        "rules": st.rules,
        "match": st.match,
        "tiebreaks": [KEYS_SAID.get(k, k) for k in st.tiebreaks],
        "complete": st.complete,
        "played": played,
        "to_play": n,
        "progress": progress(event, st),
        "champion": event.champion(st),
    }


def champion_of(event: Event) -> str | None:
    """The event's champion: the winner of its last stage, when that is a bracket and it is decided."""
    st = current_stage(event)
    return event.champion(st) if st is not None else None


def _for_the_room(reason: str) -> str:
    """A bridge's reason as a room reads it: up to the first file path (the organiser's page keeps the whole reason,
    with the path and the system's error, under `refusals`)."""
    return re.split(r"\s(?:in\s)?/", reason, maxsplit=1)[0].rstrip(" :;,")


def notices(event: Event, busy: list[dict[str, Any]], refusals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the room must know about the boards, newest refusal first: each busy board (a game in progress keeps its
    match waiting) and each refusal whose match is still waiting for a board."""
    out = [{"kind": "busy", "board": b["board"], "match": b["match"], "text": b["reason"]} for b in busy]
    seen: set[str] = set()
    for r in reversed(refusals):
        m = event.matches.get(r["match"])
        if m is None or m.decided or m.board is not None or r["match"] in seen:
            continue
        seen.add(r["match"])
        who = " v ".join(s for s in m.sides if side_name(s))
        out.append(
            {
                "kind": "refused",
                "board": r["board"],
                "match": r["match"],
                "at": r["at"],
                "text": Message(
                    "board {board} refused {who}: {reason}",
                    board=r["board"],
                    who=who,
                    reason=_for_the_room(r["reason"]),
                ),
            }
        )
    return out


def hall_view(
    event: Event,
    scoreboard: Scoreboard,
    busy: list[dict[str, Any]] | None = None,
    refusals: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the hall screen shows; `scoreboard(board)` is the board's latest scoreboard document, if any; `busy`
    and `refusals` are the hall's (Hall.busy, Hall.refusals)."""
    st = current_stage(event)
    waiting_for = {b["board"]: b["reason"] for b in busy or []}
    view: dict[str, Any] = {
        "name": event.name,
        "game": game_of(event),
        "entries": event.count,
        "stage": None,
        "boards": [],
        "waiting": [],
        "champion": champion_of(event),
        "notices": notices(event, busy or [], refusals or []),
    }
    boards = on_boards(event)
    for board in sorted(boards, key=natural):
        ms = boards[board]
        view["boards"].append(
            {
                "board": board,
                "match": match_doc(ms[0], event),
                "score": live_score(event, ms[0], scoreboard(board)),
                "queued": len(ms) - 1,
                "busy": waiting_for.get(board),
            }
        )
    for m in event.matches.values():
        if m.state == "ready" and m.board is None and not event.stages[m.stage].closed_by:
            view["waiting"].append(match_doc(m, event))
    if st is None:
        return view
    view["stage"] = stage_doc(event, st)
    if st.format in BRACKETS:
        view["bracket"] = bracket_doc(event, st)
    else:
        view["tables"] = tables_of(event, st)
    return view


def near(word: str, choices: Iterable[str]) -> str:
    """ "; did you mean 'X'?" for a slip of the finger (rules/base.py), or a name typed in another case."""
    same = [c for c in choices if c.casefold() == word.casefold()]
    if len(same) == 1 and same[0] != word:
        return Message("; did you mean '{word}'?", word=same[0])
    return did_you_mean(word, choices)


def entrant_problem(event: Event, name: str) -> str | None:
    if name in event.entrants:
        return None
    return Message("no entrant named '{name}'{near}", name=name[:60], near=near(name, event.entrants))


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[\s\-'’.&,]+", fold(text)) if w]


def find_entrants(event: Event, typed: str) -> list[str]:
    """The entrants a player may mean by what they typed, whatever its case and accents: the one whose name it is; or
    every entrant whose name (or a doubles player's) has, for each word typed, a word that starts with it, or a run of
    its words written together that does ("zoe", "ZOÉ LÉV", "oneil" for Marie-Claire O'Neil), in registration order.
    Empty when none."""
    if typed in event.entrants:
        return [typed]
    key = fold(" ".join(typed.split()))
    same = [n for n in event.entrants if fold(n) == key]
    if same:
        return same
    want = _words(typed)
    if not want:
        return []
    found = []
    for e in event.entrants.values():
        names = [e.name, *e.players]
        runs = [w for n in names for ws in [_words(n)] for w in ("".join(ws[i:]) for i in range(len(ws)))]
        if all(any(w.startswith(x) for w in [*(w for n in names for w in _words(n)), *runs]) for x in want):
            found.append(e.name)
    return found


def search_key(event: Event, name: str) -> str:
    """What a search matches an entrant on (case and accents folded): their name, a doubles team's players, their
    club."""
    e = event.entrants[name]
    return " ".join(fold(x) for x in (e.name, *e.players, e.club or "") if x)


def entrants_view(event: Event) -> dict[str, Any]:
    """The list of entrants a player picks their own page from (`/entrants`), in name order."""
    rows = []
    for e in sorted(event.entrants.values(), key=lambda e: fold(e.name)):
        rows.append(
            {
                "name": e.name,
                "players": list(e.players) if len(e.players) > 1 else [],
                "club": e.club,
                "status": e.status,
                "key": search_key(event, e.name),
            }
        )
    return {"name": event.name, "game": game_of(event), "entries": event.count, "entrants": rows}


def _source_text(event: Event, m: Match, i: int) -> str:
    """Who the pending side `i` of a bracket match will be: "the winner of Ana Costa v Ben"."""
    if m.sources is None:
        return Message("an opponent still to be decided")
    kind, ref = m.sources[i]
    if kind == "seed":
        return Message("an opponent still to be decided")
    feeder = event.matches.get(f"{m.stage}/{ref}")
    if feeder is None:
        return (
            Message("the winner of {match}", match=ref)
            if kind == "winner"
            else Message("the loser of {match}", match=ref)
        )
    names = [side_name(s) for s in feeder.sides]
    if all(names):
        if kind == "winner":
            return Message("the winner of {a} v {b}", a=names[0], b=names[1])
        return Message("the loser of {a} v {b}", a=names[0], b=names[1])
    name = round_title(event, feeder) or ref
    if kind == "winner":
        return Message("the winner of {round} ({match})", round=name, match=ref)
    return Message("the loser of {round} ({match})", round=name, match=ref)


def _place_of(event: Event, name: str) -> tuple[int | None, str] | None:
    for place, who, stage in event.final_standings():
        if who == name:
            return place, stage
    return None


def headline(event: Event, name: str, busy: Mapping[str, str]) -> tuple[str, str]:
    """(kind, sentence): what the entrant's page says first, in plain words. Kinds: "out", "champion", "playing"
    (on a board now), "busy" (its board is finishing another game), "queued" (after the match on its board),
    "waiting" (for a board), "pending" (for its opponent), "between" (no match now: the next round or stage),
    "finished" (a stage complete that may have another after it), "over", "registered"."""
    e = event.entrants[name]
    st = current_stage(event)
    if not e.active:
        status = STATUS_SAID.get(e.status, e.status)
        if e.reason:
            return "out", Message("Your tournament is over: {status} ({reason})", status=status, reason=e.reason)
        return "out", Message("Your tournament is over: {status}", status=status)
    if champion_of(event) == name:
        return "champion", Message("You are the champion")
    mine = [m for m in event.matches.values() if name in m.sides and not event.stages[m.stage].closed_by]
    boards = on_boards(event)
    nxt = next((m for m in mine if m.state == "ready"), None)
    if nxt is not None:
        other, board = nxt.sides[1 - nxt.sides.index(name)], nxt.board
        if board is None:
            return "waiting", Message("Your next match: against {other}, waiting for a board", other=other)
        if boards.get(board, [None])[0] is not nxt:
            said = N_("Your next match: board {board} against {other}, after the match there now")
            return "queued", Message(said, board=board, other=other)
        if board in busy:
            said = N_("Your next match: board {board} against {other}, once the game there is over")
            return "busy", Message(said, board=board, other=other)
        return "playing", Message("Your next match: board {board} against {other}, now", board=board, other=other)
    pending = next((m for m in mine if m.state == "waiting"), None)
    if pending is not None:
        i = 1 - pending.sides.index(name)
        said = N_("Your next match: against {other}, once it is decided")
        return "pending", Message(said, other=_source_text(event, pending, i))
    if st is None:
        return "registered", Message("You are registered: your first match shows here once the first stage starts")
    place = _place_of(event, name)
    if name not in st.entrants:
        if place is not None and place[0] is not None:
            return "over", Message("Your tournament is over: {place}", place=ordinal(place[0]))
        return "over", Message("Your tournament is over")
    if st.format in BRACKETS:
        placed = dict((who, p) for p, who in event.placings(st))
        if placed.get(name) is not None:
            return "over", Message("Your tournament is over: {place}", place=ordinal(placed[name] or 0))
    if st.complete:
        rank = dict((who, p) for p, who in event.ranking(st)).get(name)
        if rank:
            said = N_("Stage {stage} is over: you finished {place} of {n}. A next stage shows here once it starts")
            return "finished", Message(said, stage=st.name, place=ordinal(rank), n=len(st.entrants))
        said = N_("Stage {stage} is over: it is complete. A next stage shows here once it starts")
        return "finished", Message(said, stage=st.name)
    return "between", Message("No match for you right now: your next one shows here as soon as it is paired")


def entrant_view(
    event: Event, name: str, scoreboard: Scoreboard, busy: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A player's page: what comes next for them in one sentence, their next match and where, their results, their
    place. `busy`: the boards a game in progress keeps (board -> why), from the hall."""
    busy = busy or {}
    e = event.entrants[name]
    mine = [m for m in event.matches.values() if name in m.sides]
    nxt = next((m for m in mine if m.state == "ready" and not event.stages[m.stage].closed_by), None)
    results = []
    for m in mine:
        if m.state not in ("done", "walkover") or not m.known:
            continue
        i = m.sides.index(name)
        o = m.outcome
        pts = o.points if o and o.points else (o.games if o and o.games else (o.shootout if o else None))
        results.append(
            {
                "match": m.id,
                "round_name": round_title(event, m),
                "opponent": m.sides[1 - i],
                "won": m.winner == name,
                "walkover": m.state == "walkover" or bool(o and o.walkover),
                "score": None if pts is None else f"{pts[i]}–{pts[1 - i]}",
            }
        )
    byes = [(st.name, r) for st in event.stages.values() for r, b in st.byes if b == name]
    kind, said = headline(event, name, busy)
    view: dict[str, Any] = {
        "name": name,
        "game": game_of(event),
        "players": list(e.players),
        "club": e.club,
        "status": e.status,
        "reason": e.reason,
        "kind": kind,
        "headline": said,
        "results": results,
        "byes": [Message("{stage} round {round}", stage=s, round=r) for s, r in byes],
        "next": None,
        "place": None,
        "alert": None,
    }
    if nxt is not None:
        doc = match_doc(nxt, event)
        doc["opponent"] = nxt.sides[1 - nxt.sides.index(name)]
        doc["playing"] = nxt.board is not None and on_boards(event).get(nxt.board, [None])[0] is nxt
        doc["live"] = live_score(event, nxt, scoreboard(nxt.board)) if doc["playing"] and nxt.board else None
        if doc["live"] is not None and doc["live"]["totals"]:
            i = nxt.sides.index(name)
            doc["live"]["mine"] = [doc["live"]["totals"][i], doc["live"]["totals"][1 - i]]
        view["next"] = doc
        if doc["playing"]:
            view["alert"] = f"{nxt.id}@{nxt.board}"  # the page alerts when this changes to a match on a board
    st = current_stage(event)
    if st is not None and name in st.entrants:
        for place, who in event.ranking(st):
            if who == name:
                view["place"] = {"stage": st.name, "place": place, "of": len(st.entrants)}
    return view


def standings_doc(event: Event) -> list[dict[str, Any]]:
    """Every stage's standings, as `flickboard tournament standings FILE STAGE` gives them (a table per pool, a
    bracket's places), then the event's final standings when there is more than one stage."""
    out: list[dict[str, Any]] = []
    for st in event.stages.values():
        doc: dict[str, Any] = {"stage": st.name, "format": FORMAT_NAMES[st.format], "progress": progress(event, st)}
        if st.format in BRACKETS:
            rows = [[str(p) if p is not None else Message("in"), who] for p, who in event.placings(st)]
            doc["tables"] = [{"pool": None, "columns": [PLACE, ENTRANT], "rows": [{"cells": r} for r in rows]}]
            doc["champion"] = event.champion(st)
        else:
            doc["tables"] = tables_of(event, st)
            doc["tiebreaks"] = list(st.tiebreaks)
        out.append(doc)
    if len(event.stages) > 1:
        rows = [
            [str(p) if p is not None else "-", who, event.entrants[who].club or "", stage]
            for p, who, stage in event.final_standings()
        ]
        heads = [PLACE, ENTRANT, CLUB, RANKED_IN]
        table = {"pool": None, "columns": heads, "rows": [{"cells": r} for r in rows]}
        out.append({"stage": None, "format": Message("final standings"), "progress": "", "tables": [table]})
    return out


def start_choices(event: Event) -> dict[str, Any]:
    """What the organiser's form to start a stage offers: the formats, and the finished stages whose first N may go on
    (a round robin, a Swiss stage or pools, complete and not taken from yet)."""
    sources = [
        {"stage": st.name, "format": FORMAT_NAMES[st.format], "entrants": len(st.entrants), "pools": len(st.pools)}
        for st in event.stages.values()
        if st.complete and st.closed_by is None and st.format not in BRACKETS
    ]
    active = sum(1 for e in event.entrants.values() if e.active)
    return {"formats": [{"value": k, "text": v} for k, v in FORMAT_NAMES.items()], "from": sources, "active": active}


def organiser_view(
    event: Event,
    held: list[dict[str, Any]],
    hall: dict[str, Any],
    seen: list[str],
    busy: list[dict[str, Any]] | None = None,
    refusals: list[dict[str, Any]] | None = None,
    missing: list[str] | None = None,
) -> dict[str, Any]:
    st = current_stage(event)
    boards_busy = on_boards(event)
    kept = {b["board"]: b for b in busy or []}
    boards = sorted(set(seen) | set(boards_busy) | {m.board for m in event.matches.values() if m.board}, key=natural)
    matches = [
        match_doc(m, event)
        for m in event.matches.values()
        if m.known and m.state in ("ready", "done", "walkover") and not event.stages[m.stage].closed_by
    ]
    cards = []
    for s in event.stages.values():
        for r in sorted({m.round for m in s.matches.values()}):
            cards.append({"stage": s.name, "round": r, "href": f"/cards/{s.name}/{r}"})
    return {
        "name": event.name,
        "game": game_of(event),
        "entries": event.count,
        "hall": hall,
        "stage": None if st is None else stage_doc(event, st),
        "can_pair": st is not None
        and st.format == "swiss"
        and not st.closed_by
        and len(st.rounds) < st.options["rounds"]
        and all(m.decided for m in st.matches.values()),
        "matches": matches,
        "next": proposals.next_match(event),
        "boards": [
            {
                "board": b,
                "free": b not in boards_busy,
                "match": boards_busy[b][0].id if b in boards_busy else None,
                "busy": kept.get(b),
            }
            for b in boards
        ],
        "busy": list(kept.values()),
        "refusals": list(reversed(refusals or [])),
        "notices": notices(event, busy or [], refusals or []),
        "held": held,
        "entrants": [{"name": e.name, "status": e.status} for e in event.entrants.values()],
        "cards": cards,
        "standings": standings_doc(event),
        "start": start_choices(event),
        "exports": [
            {"href": f"/api/tournament/export/{f}", "text": t}
            for f, t in (
                ("standings.csv", Message("Standings (CSV)")),
                ("results.csv", Message("Results (CSV)")),
                ("event.json", Message("The event (JSON)")),
                ("archive.zip", Message("Archive (zip, with the game journals)")),
            )
        ],
        "missing": missing or [],
    }
