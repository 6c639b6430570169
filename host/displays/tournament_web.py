"""The tournament's web pages (issue 21), served by `flickboard web --tournament FILE` beside the TV and phone pages:

- `/hall` (`?page=N` pins one page of the standings): the room's big screen: the stage and round, each board and
  its match with the board's live score, the matches waiting for a board, the standings with the chain's columns, the
  bracket. Read every 2 s from `/api/tournament/hall`.
- `/entrant/<name>`: a player's phone: their next match and where (its board and the board's TV), their results,
  their place. From `/api/tournament/entrant/<name>`.
- `/organiser`: the organiser's page (the page is free; its data, `/api/tournament/organiser`, and its acts,
  `POST /api/tournament/act` `{"do": ..., ...}`, need the scoring key): pair the next round, assign boards ("next
  free boards take the next matches"), enter or correct a result, approve or dismiss a held board result, withdraw
  an entrant. Each act is answered in one line; a refused one changes nothing.
- `/cards/<stage>/<round>`: printable A4 score cards, one per match: entrants, board, format, a grid per game for
  the players' own scores (S-2), and a QR code to the board's phone page.

The JSON is read lock-free (`flickboard.tournament.read`), and again only when the file changed.

The event is the tournament journal; every act goes through the `Director` (a short lock per act, so the hall and
`flickboard tournament` commands may act on the same file). The server runs the `Hall` (host/tournament/hall.py) for
the event in-process: the boards open their assigned matches and report their results, and its held results are the
organiser's to approve (appended as a correction) or dismiss (set aside in the hall's own journal, so it stays
dismissed after a restart). If another hall holds the file (`flickboard tournament run`), the
pages work the same and the organiser's page says the boards' results come from that process.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from flickboard.config import board_problem
from flickboard.core import journal
from flickboard.displays.web import WebApp, WebError, _error, _html, _json, _response, _Site
from flickboard.rules.base import did_you_mean
from flickboard.tournament import ActError, Director, PairingError, proposals, read
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Event, Match, Stage
from flickboard.tournament.hall import Hall, HallError, players_of

PAGES = ("hall.html", "entrant.html", "organiser.html")
STATIC = {"hall.js": "text/javascript", "entrant.js": "text/javascript", "organiser.js": "text/javascript"}
ACTS = ("pair", "assign", "next-free", "result", "correct", "approve", "dismiss", "withdraw")  # the organiser's
LOCK_WAIT = 10.0  # seconds an act waits for another command holding the tournament journal
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


class EventFile:
    """The tournament journal, folded lock-free and again only when the file changed (its size or time)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._key: tuple[int, int] | None = None
        self._event: Event | None = None
        self._lock = threading.Lock()

    def get(self) -> Event:
        with self._lock:
            st = os.stat(self.path)
            key = (st.st_size, st.st_mtime_ns)
            if key != self._key or self._event is None:
                self._event = read(self.path)
                self._key = key
            return self._event


# ---------------------------------------------------------------- what the pages show (pure functions of the event)


def _who(name: str) -> str | None:
    return None if name in (PENDING, EMPTY) else name


def _pair_text(v: tuple[int, int] | None) -> str | None:
    return None if v is None else f"{v[0]}–{v[1]}"


def match_doc(m: Match) -> dict[str, Any]:
    o = m.outcome
    return {
        "id": m.id,
        "stage": m.stage,
        "label": m.label,
        "round": m.round,
        "pool": None if m.pool is None else m.pool + 1,
        "sides": [_who(s) for s in m.sides],
        "state": m.state,
        "board": m.board,
        "winner": _who(m.winner) if m.decided else None,
        "walkover": bool(o and o.walkover),
        "points": list(o.points) if o and o.points else None,
        "games": list(o.games) if o and o.games else None,
        "twenties": list(o.twenties) if o and o.twenties else None,
        "source": o.source if o else None,
        "score": (_pair_text(o.points) or _pair_text(o.games)) if o else None,
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


# ---------------------------------------------------------------- the acts


def _two(v: Any, what: str) -> list[int] | None:
    """Two whole numbers from [a, b] or "a-b" (what a person types); None when not given."""
    if v is None or v == "":
        return None
    if isinstance(v, str):
        parts = v.replace("–", "-").replace(":", "-").split("-")
        try:
            v = [int(p.strip()) for p in parts]
        except ValueError:
            raise ActError(f"{what}: type two whole numbers, one per side, as 310-250") from None
    if not isinstance(v, list) or len(v) != 2 or any(type(x) is not int for x in v):
        raise ActError(f"{what}: two whole numbers, one per side, as 310-250")
    return list(v)


def _text(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ActError(f"say which {what}")
    return v.strip()


class TournamentPages:
    """The event file, the hall run for it, and the routes of its pages; `act(doc)` takes one organiser's act."""

    def __init__(self, web: WebApp, path: str) -> None:
        self.web = web
        self.path = path
        self.file = EventFile(path)
        self.hall: Hall | None = None
        self.hall_problem: str | None = None
        self.ui: dict[str, bytes] = {}
        try:
            self.file.get()
        except (OSError, journal.JournalError) as e:
            raise WebError(f"--tournament {path}: {getattr(e, 'strerror', None) or e}") from None
        from importlib import resources

        base = resources.files("flickboard.displays").joinpath("webui")
        for name in (*PAGES, *STATIC):
            try:
                self.ui[name] = base.joinpath(name).read_bytes()
            except OSError:
                raise WebError(
                    f"the web page file host/displays/webui/{name} is missing from this installation"
                ) from None

    # -- the hall

    def start(self) -> None:
        cfg = self.web.cfg
        hall = Hall(
            self.path, cfg.mqtt, ca_file=cfg.ca_file, boards=cfg.boards, say=lambda t: self.web.say(f"tournament: {t}")
        )
        try:
            self.hall = hall.start()
        except HallError as e:
            self.hall_problem = str(e)
            self.web.say(f"the tournament's boards are not followed here: {e}")

    def stop(self) -> None:
        if self.hall is not None:
            self.hall.stop()

    def hall_state(self) -> dict[str, Any]:
        if self.hall is not None:
            return {"state": "here", "text": "This server runs the hall: boards open their matches and report results"}
        if self.hall_problem and "another hall" in self.hall_problem:
            return {
                "state": "other",
                "text": f"Results from the boards come from the other process: {self.hall_problem}",
            }
        return {"state": "none", "text": f"The boards' results are not followed here: {self.hall_problem}"}

    def held(self) -> list[dict[str, Any]]:
        if self.hall is None:
            return []
        return self.hall.held

    @contextlib.contextmanager
    def director(self) -> Iterator[Director]:
        """The tournament journal locked for one act (through the hall when it runs here)."""
        if self.hall is not None:
            with self.hall.director() as d:
                yield d
            return
        try:
            d = Director.open(self.path, wait=LOCK_WAIT)
        except journal.JournalInUse:
            raise ActError(f"the tournament journal {self.path} is held by another command") from None
        try:
            yield d
        finally:
            d.close()

    def scoreboard(self, board: str) -> dict[str, Any] | None:
        text = self.web.hub.scoreboard(board)
        if text is None:
            return None
        with contextlib.suppress(ValueError):
            doc = json.loads(text)
            return doc if isinstance(doc, dict) else None
        return None

    # -- one act, as the organiser's page sends it

    def act(self, doc: dict[str, Any]) -> str:
        """Take one act; the line that says what was done (ActError: what was refused, and nothing changed)."""
        do = doc.get("do")
        if do not in ACTS:
            raise ActError(f"unknown act {str(do)[:40]!r}: one of {', '.join(ACTS)}")
        with self.director() as d:
            ev = d.event
            if do == "pair":
                st = current_stage(ev)
                stage = doc.get("stage") or (st.name if st else None)
                if stage is None:
                    raise ActError("no stage has started")
                try:
                    d.pair_round(str(stage))
                except PairingError as e:
                    raise ActError(str(e)) from None
                s = ev.stages[str(stage)]
                return f"paired round {len(s.rounds)} of {stage}: {len(s.rounds[-1])} matches"
            if do == "withdraw":
                name = _text(doc.get("entrant"), "entrant")
                problem = entrant_problem(ev, name)
                if problem:
                    raise ActError(problem)
                d.withdraw(name, str(doc.get("reason") or "withdrawn by the organiser"))
                return f"{name} withdrawn: their unplayed matches are lost by walkover"
            if do == "next-free":
                return self._next_free(d, doc)
            if do == "dismiss":
                if self.hall is None:
                    raise ActError("this server does not run the hall: it holds no board result")
                return self.hall.dismiss(_text(doc.get("match"), "match"), _text(doc.get("journal"), "journal"))
            m = self._match(ev, doc.get("match"))
            if do == "assign":
                board = _text(doc.get("board"), "board")
                problem = board_problem(board)
                if problem:
                    raise ActError(problem)
                d.assign(m.id, board)
                return f"{m.id} ({' v '.join(m.sides)}) on board {board}"
            if do == "approve":
                return self._approve(d, m, _text(doc.get("journal"), "journal"))
            if do in ("result", "correct"):
                winner = _text(doc.get("winner"), "winner")
                if winner not in m.sides:
                    raise ActError(f"the winner of {m.id} is {m.sides[0]} or {m.sides[1]}{near(winner, m.sides)}")
                twenties = _two(doc.get("twenties"), "twenties")
                d.result(
                    m.id,
                    winner,
                    points=_two(doc.get("points"), "points"),
                    games=_two(doc.get("games"), "games"),
                    twenties=twenties,
                    twenties_confirmed=twenties is not None,
                    shootout=_two(doc.get("shootout"), "the shoot-out's twenties"),
                    source="organiser",
                    correct=do == "correct",
                    reason=str(doc.get("reason") or "corrected by the organiser"),
                )
                o = d.event.matches[m.id].outcome
                said = f" {_pair_text(o.points)}" if o and o.points else ""
                return f"{'corrected' if do == 'correct' else 'result'}: {m.id}: {winner} wins{said}"
        raise AssertionError(do)  # (every one of ACTS is taken above)

    @staticmethod
    def _match(ev: Event, mid: Any) -> Match:
        if not isinstance(mid, str) or not mid:
            raise ActError("say which match")
        m = ev.matches.get(mid)
        if m is None:
            raise ActError(f"there is no match {mid[:80]}{near(mid, ev.matches)}")
        return m

    def _next_free(self, d: Director, doc: dict[str, Any]) -> str:
        """Each free board takes the next match (`proposals.next_match`: longest-waiting entrants first)."""
        given = doc.get("boards")
        if given:
            if not isinstance(given, list) or not all(isinstance(b, str) for b in given):
                raise ActError("boards: a list of board ids")
            for b in given:
                problem = board_problem(b)
                if problem:
                    raise ActError(problem)
            boards = list(dict.fromkeys(given))
        else:
            known = set(self.web.hub.boards()) | {m.board for m in d.event.matches.values() if m.board}
            boards = sorted(known, key=natural)
        busy = on_boards(d.event)
        free = [b for b in boards if b not in busy]
        if not free:
            raise ActError("no free board: every board has a match to play")
        done = []
        for b in free:
            mid = proposals.next_match(d.event)
            if mid is None:
                break
            d.assign(mid, b)
            done.append(f"{mid} on {b}")
        if not done:
            raise ActError("no match is ready to start")
        return "assigned " + ", ".join(done)

    def _approve(self, d: Director, m: Match, path: str) -> str:
        h = next((h for h in self.held() if h["match"] == m.id and h["journal"] == path), None)
        if h is None:
            raise ActError(f"no held board result for {m.id} from that journal")
        act = dict(h["result"])
        if m.outcome is not None:
            act["act"] = "correct"
            act["reason"] = f"the organiser approved board {h['board']}'s result"
        d.act(act)
        return f"approved board {h['board']}'s result for {m.id}: {act['winner']} wins"

    # -- the routes

    def routes(self, site: _Site) -> list[Route]:
        get, post = ["GET"], ["POST"]

        async def page(request: Request) -> Response:
            kind = request.url.path.split("/")[1]
            return _html(200, self.ui[f"{kind}.html"])

        async def static(request: Request) -> Response:
            name = request.path_params["name"]
            if name not in STATIC:
                return site.not_found(request)
            return _response(200, self.ui[name], f"{STATIC[name]}; charset=utf-8")

        def view_of_hall() -> dict[str, Any]:
            return hall_view(self.file.get(), self.scoreboard)

        async def api_hall(request: Request) -> Response:  # (a fold of a long journal: not in the event loop)
            return _json(200, await asyncio.to_thread(view_of_hall))

        async def api_entrant(request: Request) -> Response:
            ev = await asyncio.to_thread(self.file.get)
            name = request.path_params["name"]
            problem = entrant_problem(ev, name)
            if problem:
                return _json(404, _error(problem))
            return _json(200, entrant_view(ev, name, self.scoreboard))

        async def api_organiser(request: Request) -> Response:
            refused = await site.key_ok(request, site.given_key(request))
            if refused is not None:
                return refused
            seen = list(self.web.hub.boards())
            ev = await asyncio.to_thread(self.file.get)
            return _json(200, organiser_view(ev, self.held(), self.hall_state(), seen))

        async def post_act(request: Request) -> Response:
            refused = await site.origin_ok(request) or await site.key_ok(request, site.given_key(request))
            if refused is not None:
                return refused
            doc = await site.json_object(request, '{"do": ..., ...}')
            if isinstance(doc, Response):
                return doc
            try:
                said = await asyncio.to_thread(self.act, doc)
            except (ActError, journal.JournalError) as e:
                return _json(400, _error(str(e).splitlines()[0] if str(e) else type(e).__name__))
            self.web.say(f"organiser: {said}")
            return _json(200, {"ok": True, "message": said})

        async def cards(request: Request) -> Response:
            ev = await asyncio.to_thread(self.file.get)
            stage, rnd = request.path_params["stage"], request.path_params["round"]
            st = ev.stages.get(stage)
            if st is None:
                return line_page(404, f"no stage named {stage[:60]!r}{near(stage, ev.stages)}")
            ms = [m for m in st.matches.values() if str(m.round) == rnd and m.state != "bye" and m.state != "void"]
            if not ms:
                return line_page(404, f"stage {stage} has no matches in round {rnd[:10]!r}")
            base = card_base(request.url.scheme, request.headers.get("host", ""), self.web.cfg.host, self.web.url)
            return _html(200, cards_page(ev, st, rnd, ms, base))

        return [
            Route("/hall", page, methods=get),
            Route("/entrant/{name}", page, methods=get),
            Route("/organiser", page, methods=get),
            Route("/cards/{stage}/{round}", cards, methods=get),
            Route("/static/t/{name}", static, methods=get),
            Route("/api/tournament/hall", api_hall, methods=get),
            Route("/api/tournament/entrant/{name}", api_entrant, methods=get),
            Route("/api/tournament/organiser", api_organiser, methods=get),
            Route("/api/tournament/act", post_act, methods=post),
        ]


# ---------------------------------------------------------------- score cards


def line_page(code: int, text: str) -> Response:
    """A page that says one line (a score card link that names nothing)."""
    said = html.escape(text, quote=False)
    return _html(
        code, f"<!doctype html><title>Score cards</title><p class='line'>{said}</p><p><a href='/hall'>Hall</a>"
    )


def qr_svg(url: str) -> str:
    """The QR code of `url` as an inline SVG element (segno; no style attributes, so the pages' CSP holds)."""
    qr = segno.make(url, error="m", micro=False)
    return str(qr.svg_inline(scale=4, border=4, omitsize=True, title=url, svgclass="qr"))


def games_of(st: Stage) -> int:
    """The rows of a card's grid: a Pichenotte match of N games has N; a match to a target, as many as fit (6)."""
    if st.match and st.match.startswith("games:"):
        with contextlib.suppress(ValueError):
            return max(1, min(12, int(st.match.split(":", 1)[1])))
    return 6


def format_said(st: Stage) -> str:
    m = st.match
    if m and m.startswith("games:"):
        n = m.split(":", 1)[1]
        return f"{n} game" if n == "1" else f"{n} games"
    return f"to {m}" if m else "the rule set's match"


LOOPBACK = ("localhost", "127.", "[::1]", "::1")


def card_base(scheme: str, host: str, listen: str, server_url: str) -> str:
    """Where the score cards' QR codes point: the address the organiser's browser used, as the phones in the room
    reach the same server; but a card printed from this machine's own `localhost` would send every phone to itself,
    so when the server listens on the network its own address (the one it printed) is used instead."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if name.startswith(LOOPBACK) and not listen.startswith(LOOPBACK):
        return server_url
    return f"{scheme}://{host}"


def cards_page(ev: Event, st: Stage, rnd: str, ms: list[Match], base: str) -> str:
    esc = html.escape
    cards = []
    for m in ms:
        sides = [_who(s) or "(to be decided)" for s in m.sides]
        players = [
            ", ".join(ev.entrants[s].players) if s in ev.entrants and len(ev.entrants[s].players) > 1 else ""
            for s in m.sides
        ]
        if m.board:
            link = f"{base}/enter/{m.board}"
            qr = f'<figure class="qrbox">{qr_svg(link)}<figcaption>{esc(link)}</figcaption></figure>'
            board = esc(m.board)
        else:
            qr = '<figure class="qrbox none"><figcaption>no board yet: assign one, then print again'
            qr += "</figcaption></figure>"
            board = "________"
        rows = "".join(f"<tr><th>{g}</th><td></td><td></td><td></td><td></td></tr>" for g in range(1, games_of(st) + 1))
        cards.append(
            f"""<section class="scorecard" data-match="{esc(m.id)}" data-board="{esc(m.board or "")}">
<header><h1>{esc(ev.name)}</h1><p>{esc(st.name)} · round {esc(rnd)} · match {esc(m.label)}</p></header>
<div class="cardtop">
<table class="who"><tr><th>Board</th><td class="board">{board}</td></tr>
<tr><th>Format</th><td>{esc(format_said(st))} · {esc(st.rules)}</td></tr>
<tr><th>A</th><td class="side">{esc(sides[0])} <small>{esc(players[0])}</small></td></tr>
<tr><th>B</th><td class="side">{esc(sides[1])} <small>{esc(players[1])}</small></td></tr></table>
{qr}</div>
<table class="grid"><thead><tr><th>Game</th><th>A points</th><th>A twenties</th>
<th>B points</th><th>B twenties</th></tr></thead>
<tbody>{rows}<tr class="total"><th>Total</th><td></td><td></td><td></td><td></td></tr></tbody></table>
<p class="sign">Winner: ____________________ &nbsp; Signed A: __________ &nbsp; B: __________</p>
<p class="note">S-2: each player keeps their own card, so the referees can check the scores. Scan the code to score on
the board's phone page.</p>
</section>"""
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css"><title>Score cards: {esc(st.name)} round {esc(rnd)}</title></head>
<body class="cards" data-cards="{len(ms)}">
{"".join(cards)}
</body></html>
"""
