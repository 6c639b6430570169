"""The organiser's acts from the organiser's page (`POST /api/tournament/act`, `{"do": ..., ...}`): pair the next
round, assign a board, give the free boards the next matches, enter or correct a result, approve or dismiss a held
board result, withdraw an entrant. Each goes through the tournament's `Director` and is answered in one line; a
refused act (ActError) changes nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flickboard.config import board_problem
from flickboard.displays.tournament_pages.views import (
    current_stage,
    entrant_problem,
    natural,
    near,
    on_boards,
    pair_text,
)
from flickboard.tournament import ActError, Director, PairingError, proposals
from flickboard.tournament.event import Event, Match
from flickboard.tournament.hall import Hall

ACTS = ("pair", "assign", "next-free", "result", "correct", "approve", "dismiss", "withdraw")  # the organiser's


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


def check(doc: dict[str, Any]) -> str:
    """The act's name, one of ACTS (ActError otherwise)."""
    do = doc.get("do")
    if not isinstance(do, str) or do not in ACTS:
        raise ActError(f"unknown act {str(do)[:40]!r}: one of {', '.join(ACTS)}")
    return do


def take(d: Director, doc: dict[str, Any], hall: Hall | None, seen: Iterable[str]) -> str:
    """Take one act with the director `d` (its journal locked); the line that says what was done (ActError: what was
    refused, and nothing changed). `hall`: the hall run by this server, if any; `seen`: the boards seen on the
    broker (the free boards `next-free` may use)."""
    do = check(doc)
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
        return _next_free(d, doc, seen)
    if do == "dismiss":
        if hall is None:
            raise ActError("this server does not run the hall: it holds no board result")
        return hall.dismiss(_text(doc.get("match"), "match"), _text(doc.get("journal"), "journal"))
    m = _match(ev, doc.get("match"))
    if do == "assign":
        board = _text(doc.get("board"), "board")
        problem = board_problem(board)
        if problem:
            raise ActError(problem)
        d.assign(m.id, board)
        return f"{m.id} ({' v '.join(m.sides)}) on board {board}"
    if do == "approve":
        return _approve(d, m, _text(doc.get("journal"), "journal"), [] if hall is None else hall.held)
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
        said = f" {pair_text(o.points)}" if o and o.points else ""
        return f"{'corrected' if do == 'correct' else 'result'}: {m.id}: {winner} wins{said}"
    raise AssertionError(do)  # (every one of ACTS is taken above)


def _match(ev: Event, mid: Any) -> Match:
    if not isinstance(mid, str) or not mid:
        raise ActError("say which match")
    m = ev.matches.get(mid)
    if m is None:
        raise ActError(f"there is no match {mid[:80]}{near(mid, ev.matches)}")
    return m


def _next_free(d: Director, doc: dict[str, Any], seen: Iterable[str]) -> str:
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
        known = set(seen) | {m.board for m in d.event.matches.values() if m.board}
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


def _approve(d: Director, m: Match, path: str, held: list[dict[str, Any]]) -> str:
    h = next((h for h in held if h["match"] == m.id and h["journal"] == path), None)
    if h is None:
        raise ActError(f"no held board result for {m.id} from that journal")
    act = dict(h["result"])
    if m.outcome is not None:
        act["act"] = "correct"
        act["reason"] = f"the organiser approved board {h['board']}'s result"
    d.act(act)
    return f"approved board {h['board']}'s result for {m.id}: {act['winner']} wins"
