"""The organiser's acts from the organiser's page (`POST /api/tournament/act`, `{"do": ..., ...}`): start the next
stage, pair the next round, assign a board or take a match off it, give the free boards the next matches, enter or
correct a result, approve or dismiss a held board result, abandon the game in progress on a board, withdraw an
entrant. `take` is the one way in for all of them: each goes through the tournament's `Director` and is answered in
one line; a refused act (ActError) changes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from flickboard.config import board_problem
from flickboard.displays.tournament_pages.views import (
    FORMAT_NAMES,
    current_stage,
    entrant_problem,
    natural,
    near,
    on_boards,
)
from flickboard.rules import games
from flickboard.rules.base import did_you_mean
from flickboard.rules.text import N_, Message, message_of
from flickboard.tournament import TIEBREAKS, ActError, Director, PairingError, proposals
from flickboard.tournament.event import BRACKETS, Event, Match
from flickboard.tournament.hall import Hall
from flickboard.tournament.results import score_text

ACTS = (
    "start",
    "pair",
    "assign",
    "unassign",
    "next-free",
    "result",
    "correct",
    "approve",
    "dismiss",
    "abandon",
    "withdraw",
)  # the organiser's
Scoreboard = Callable[[str], dict[str, Any] | None]


def _two(v: Any, what: str) -> list[int] | None:
    """Two whole numbers from [a, b] or "a-b" (what a person types); None when not given."""
    if v is None or v == "":
        return None
    if isinstance(v, str):
        parts = v.replace("–", "-").replace(":", "-").split("-")
        try:
            v = [int(p.strip()) for p in parts]
        except ValueError:
            raise ActError(Message("{what}: type two whole numbers, one per side, as 310-250", what=what)) from None
    if not isinstance(v, list) or len(v) != 2 or any(type(x) is not int for x in v):
        raise ActError(Message("{what}: two whole numbers, one per side, as 310-250", what=what))
    return list(v)


def _text(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ActError(Message("say which {what}", what=what))
    return v.strip()


def _number(v: Any, what: str, low: int = 1) -> int | None:
    """A whole number typed in a form ("5", 5); None when left empty."""
    if v is None or v == "":
        return None
    try:
        n = int(str(v).strip())
    except ValueError:
        raise ActError(Message("{what}: type a whole number", what=what)) from None
    if n < low:
        raise ActError(Message("{what}: at least {low}", what=what, low=low))
    return n


def check(doc: dict[str, Any]) -> str:
    """The act's name, one of ACTS (ActError otherwise)."""
    do = doc.get("do")
    if not isinstance(do, str) or do not in ACTS:
        raise ActError(Message("unknown act '{act}': one of {acts}", act=str(do)[:40], acts=", ".join(ACTS)))
    return do


def take(
    d: Director,
    doc: dict[str, Any],
    hall: Hall | None,
    seen: Iterable[str],
    scoreboard: Scoreboard | None = None,
) -> str:
    """Take one act with the director `d` (its journal locked); the line that says what was done (ActError: what was
    refused, and nothing changed). `hall`: the hall run by this server, if any; `seen`: the boards seen on the
    broker (the free boards `next-free` may use); `scoreboard(board)`: a board's latest scoreboard (the game an
    `abandon` names must be the one its board shows)."""
    do = check(doc)
    ev = d.event
    if do == "start":
        return _start(d, doc)
    if do == "pair":
        st = current_stage(ev)
        stage = doc.get("stage") or (st.name if st else None)
        if stage is None:
            raise ActError(Message("no stage has started"))
        try:
            d.pair_round(str(stage))
        except PairingError as e:
            raise ActError(message_of(e)) from None
        s = ev.stages[str(stage)]
        said = N_("paired round {round} of {stage}: {n} matches")
        return Message(said, round=len(s.rounds), stage=str(stage), n=len(s.rounds[-1]))
    if do == "withdraw":
        name = _text(doc.get("entrant"), Message("entrant"))
        problem = entrant_problem(ev, name)
        if problem:
            raise ActError(problem)
        d.withdraw(name, str(doc.get("reason") or "withdrawn by the organiser"))
        return Message("{name} withdrawn: their unplayed matches are lost by walkover", name=name)
    if do == "next-free":
        return _next_free(d, doc, seen, hall)
    if do == "dismiss":
        if hall is None:
            raise ActError(Message("this server does not run the hall: it holds no board result"))
        return hall.dismiss(_text(doc.get("match"), Message("match")), _text(doc.get("journal"), Message("journal")))
    if do == "abandon":
        return _abandon(d, doc, scoreboard)
    m = _match(ev, doc.get("match"))
    if do == "assign":
        board = _text(doc.get("board"), Message("board"))
        problem = board_problem(board)
        if problem:
            raise ActError(problem)
        d.assign(m.id, board)
        who = " v ".join(m.sides)
        why = hall.in_the_way(board) if hall is not None else None
        if why:
            return Message(
                "{match} ({who}) on board {board}; it waits: {why}", match=m.id, who=who, board=board, why=why
            )
        return Message("{match} ({who}) on board {board}", match=m.id, who=who, board=board)
    if do == "unassign":
        if m.board is None:
            raise ActError(Message("{match} is not on a board", match=m.id))
        board = m.board
        d.unassign(m.id, str(doc.get("reason") or "taken off the board by the organiser"))
        return Message("{match} taken off board {board}: back to waiting for a board", match=m.id, board=board)
    if do == "approve":
        return _approve(d, m, _text(doc.get("journal"), Message("journal")), [] if hall is None else hall.held)
    if do in ("result", "correct"):
        winner = _text(doc.get("winner"), Message("winner"))
        if winner not in m.sides:
            said = N_("the winner of {match} is {a} or {b}{near}")
            raise ActError(Message(said, match=m.id, a=m.sides[0], b=m.sides[1], near=near(winner, m.sides)))
        twenties = _two(doc.get("twenties"), Message("twenties"))
        d.result(
            m.id,
            winner,
            points=_two(doc.get("points"), Message("points")),
            games=_two(doc.get("games"), Message("games")),
            twenties=twenties,
            twenties_confirmed=twenties is not None,
            shootout=_two(doc.get("shootout"), Message("the shoot-out's twenties")),
            source="organiser",
            correct=do == "correct",
            reason=str(doc.get("reason") or "corrected by the organiser"),
        )
        o = d.event.matches[m.id].outcome
        score = score_text(m.sides, o.points) if o and o.points else None  # the numbers with the names
        if do == "correct":
            if score:
                return Message("corrected: {match}: {winner} wins ({score})", match=m.id, winner=winner, score=score)
            return Message("corrected: {match}: {winner} wins", match=m.id, winner=winner)
        if score:
            return Message("result: {match}: {winner} wins ({score})", match=m.id, winner=winner, score=score)
        return Message("result: {match}: {winner} wins", match=m.id, winner=winner)
    raise AssertionError(do)  # (every one of ACTS is taken above)


def _match(ev: Event, mid: Any) -> Match:
    if not isinstance(mid, str) or not mid:
        raise ActError(Message("say which {what}", what=Message("match")))
    m = ev.matches.get(mid)
    if m is None:
        raise ActError(Message("there is no match {match}{near}", match=mid[:80], near=near(mid, ev.matches)))
    return m


def _next_free(d: Director, doc: dict[str, Any], seen: Iterable[str], hall: Hall | None) -> str:
    """Each free board takes the next match (`proposals.next_match`: longest-waiting entrants first). A board with
    a match to play, or with a game in progress that is not the tournament's (the hall says so), is not free."""
    given = doc.get("boards")
    if given:
        if not isinstance(given, list) or not all(isinstance(b, str) for b in given):
            raise ActError(Message("boards: a list of board ids"))
        for b in given:
            problem = board_problem(b)
            if problem:
                raise ActError(problem)
        boards = list(dict.fromkeys(given))
    else:
        known = set(seen) | {m.board for m in d.event.matches.values() if m.board}
        boards = sorted(known, key=natural)
    busy = on_boards(d.event)
    kept = [b for b in boards if b not in busy and hall is not None and hall.in_the_way(b)]
    free = [b for b in boards if b not in busy and b not in kept]
    if not free:
        if not kept:
            raise ActError(Message("no free board: every board has a match to play"))
        if len(kept) < len(boards):
            said = N_("no free board: a game in progress keeps {boards}; the others have a match to play")
            raise ActError(Message(said, boards=", ".join(kept)))
        raise ActError(Message("no free board: a game in progress keeps {boards}", boards=", ".join(kept)))
    done = []
    for b in free:
        mid = proposals.next_match(d.event)
        if mid is None:
            break
        d.assign(mid, b)
        done.append(Message("{match} on {board}", match=mid, board=b))
    if not done:
        raise ActError(Message("no match is ready to start"))
    listed = _listed(done)
    if kept:
        said = N_("assigned {matches} ({boards}: kept by a game in progress)")
        return Message(said, matches=listed, boards=", ".join(kept))
    return Message("assigned {matches}", matches=listed)


def _listed(items: Sequence[str]) -> str:
    """Sentences in a list, "a, b, c", each said in the page's language ("{first}, {rest}")."""
    out = items[-1]
    for x in reversed(items[:-1]):
        out = Message("{first}, {rest}", first=x, rest=out)
    return out


def _abandon(d: Director, doc: dict[str, Any], scoreboard: Scoreboard | None) -> str:
    """The organiser's word that the unfinished game on a board may be left: the board's next match opens over it.
    The game named must be the one the board shows now (its journal), so a game begun since is never abandoned
    unseen."""
    board = _text(doc.get("board"), Message("board"))
    problem = board_problem(board)
    if problem:
        raise ActError(problem)
    path = _text(doc.get("journal"), Message("game (its journal)"))
    shown = scoreboard(board) if scoreboard is not None else None
    if shown is None:
        raise ActError(Message("board {board} shows no game here: nothing to abandon", board=board))
    if shown.get("journal") != path:
        raise ActError(Message("board {board} shows another game now: look again before abandoning it", board=board))
    score = shown.get("score")
    if isinstance(score, dict) and score.get("over") is True:
        raise ActError(Message("the game on board {board} is over: nothing to abandon", board=board))
    d.abandon(board, path, str(doc.get("reason") or "abandoned by the organiser"))
    said = N_("the game on board {board} is abandoned (its journal stays as it is): the board's next match opens there")
    return Message(said, board=board)


def _start(d: Director, doc: dict[str, Any]) -> str:
    """A new stage, as `flickboard tournament start` makes one: a name, a format with its option (a Swiss stage's
    rounds, the pools, a double elimination's reset), who enters (every active entrant, or the first N of a finished
    stage), the game, rule set and match format, and the tie-break chain (empty: the format's usual one)."""
    ev = d.event
    name = _text(doc.get("stage"), Message("stage name (as 'final')"))
    fmt = doc.get("format")
    if fmt not in FORMAT_NAMES:
        raise ActError(Message("a stage's format is one of {formats}", formats=", ".join(FORMAT_NAMES)))
    rounds = _number(doc.get("rounds"), Message("rounds"))
    pools = _number(doc.get("pools"), Message("pools"), 2)
    top = _number(doc.get("top"), Message("the number who go on"))
    source = doc.get("from") or None
    options: dict[str, Any] = {}
    if (top is None) != (source is None):
        raise ActError(Message("the first N of a finished stage: give both N and the stage they come from"))
    intake = None
    if source is not None:
        src = ev.stages.get(str(source))
        if src is None:
            said = N_("there is no stage named {stage}{near}")
            raise ActError(Message(said, stage=str(source)[:60], near=did_you_mean(str(source), ev.stages)))
        if src.closed_by is None and not src.complete:
            left = sum(1 for m in src.matches.values() if not m.decided)
            if src.format == "swiss" and len(src.rounds) < src.options["rounds"]:
                why = Message(
                    "round {round} of {rounds} has been paired", round=len(src.rounds), rounds=src.options["rounds"]
                )
            else:
                why = Message("{n} of its matches still to play", n=left)
            said = N_("stage {stage} cannot start yet: stage {source} is not finished: {why}")
            raise ActError(Message(said, stage=name, source=src.name, why=why))
        intake = {"from": src.name, "top": top}
    if fmt == "swiss":
        if rounds is None:
            n = len(ev.intake(None)) if intake is None else top or 2
            suggest = max(1, math.ceil(math.log2(max(n, 2))))
            said = N_("a Swiss stage needs its number of rounds (for {n} entrants, {suggest} find one winner)")
            raise ActError(Message(said, n=n, suggest=suggest))
        options["rounds"] = rounds
    elif rounds is not None:
        raise ActError(Message("rounds are for a Swiss stage (a round robin's rounds follow from its entrants)"))
    if fmt == "pools":
        if pools is None:
            raise ActError(Message("a pools stage needs the number of pools"))
        options["pools"] = pools
    elif pools is not None:
        raise ActError(Message("the number of pools is for a pools stage"))
    if fmt == "double-elimination" and doc.get("reset") is not None:
        if not isinstance(doc["reset"], bool):
            raise ActError(Message("reset is yes or no"))
        options["reset"] = doc["reset"]
    try:
        game = games.game_name(str(doc.get("game") or "pichenotte"))
    except games.GameError as e:
        raise ActError(message_of(e)) from None
    rules = doc.get("rules") or None
    if rules is not None:
        known = [r for r, _ in games.rule_sets(game)]
        if rules not in known:
            said = N_("{game} has no rule set '{rules}'{near}")
            raise ActError(
                Message(said, game=games.title(game), rules=str(rules)[:40], near=did_you_mean(str(rules), known))
            )
    match = str(doc["match"]).strip() if doc.get("match") else None
    chain = _chain(doc.get("tiebreaks"))
    try:
        d.start_stage(name, str(fmt), options=options, game=game, rules=rules, match=match, tiebreaks=chain,
                      intake=intake)  # fmt: skip
    except (ActError, PairingError) as e:
        raise ActError(Message("stage {stage} cannot start: {why}", stage=name, why=message_of(e))) from None
    st = d.event.stages[name]
    said = Message(
        "stage {stage} started: {format}, {n} entrants", stage=name, format=FORMAT_NAMES[st.format], n=len(st.entrants)
    )
    if st.format == "swiss":
        return Message("{said}; pair its first round", said=said)
    if st.format in BRACKETS:
        ready = sum(1 for m in st.matches.values() if m.state == "ready")
        return Message("{said}; {matches} ready for the boards", said=said, matches=_matches(ready))
    in_rounds = Message("1 round") if len(st.rounds) == 1 else Message("{n} rounds", n=len(st.rounds))
    return Message("{said}; {matches} in {rounds}", said=said, matches=_matches(len(st.matches)), rounds=in_rounds)


def _matches(n: int) -> str:
    return Message("1 match") if n == 1 else Message("{n} matches", n=n)


def _chain(v: Any) -> list[str] | None:
    """The tie-break chain typed "twenties, buchholz" (or "none"); None when left empty: the format's usual one."""
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    words = v if isinstance(v, list) else str(v).replace(",", " ").split()
    if [str(w).lower() for w in words] == ["none"]:
        return []
    chain: list[str] = []
    for w in (str(x).strip().lower() for x in words):
        if w not in TIEBREAKS:
            said = N_("unknown tie-break '{key}'{near}: one of {keys}")
            raise ActError(Message(said, key=w[:30], near=did_you_mean(w, TIEBREAKS), keys=", ".join(TIEBREAKS)))
        if w in chain:
            raise ActError(Message("the tie-break {key} is in the chain twice", key=w))
        chain.append(w)
    return chain


def _approve(d: Director, m: Match, path: str, held: list[dict[str, Any]]) -> str:
    h = next((h for h in held if h["match"] == m.id and h["journal"] == path), None)
    if h is None:
        raise ActError(Message("no held board result for {match} from that journal", match=m.id))
    act = dict(h["result"])
    if m.outcome is not None:
        act["act"] = "correct"
        act["reason"] = f"the organiser approved board {h['board']}'s result"
    d.act(act)
    said = N_("approved board {board}'s result for {match}: {winner} wins")
    return Message(said, board=h["board"], match=m.id, winner=act["winner"])
