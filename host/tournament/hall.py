"""The hall: the director's link to the boards over MQTT (issue 21). The one module of host/tournament that does I/O.

    hall = Hall("spring-open.jsonl", parse_mqtt_url("mqtt://localhost"), say=print).start()
    with hall.director() as d:        # the tournament journal, locked for these acts only, the event up to date
        d.assign("swiss/R1-1", "table-1")
    hall.opens   hall.held   hall.busy   hall.refusals   hall.counts   hall.in_the_way("table-2")   hall.stop()

What it does:
- **Opens each assigned match on its board.** For every board, the first match assigned to it (`assign` acts, in
  journal order) that is not decided yet is opened through the checked entry path a person uses: a `new` request
  (the stage's rules and match format, the entrants' players; doubles seated A1 B1 A2 B2; a tie-break shoot-out
  match: the match format `shootout`, only the R-1-B shoot-out, scored by the engine) with an id on
  `flickboard/<board>/input`, answered on `flickboard/<board>/result`. The board's TV then shows who plays. When
  that match is decided (from the board or by anyone), the board's next match is opened. A request with no answer
  within `answer_timeout` is counted (`unanswered`) and sent again only while the board's bridge says it is online
  and the board still shows the match it showed before.
- **Never opens a match over a game in progress.** Before it sends `new`, the hall looks at the board's retained
  scoreboard: a game that is not over and has been played (`under_way`: a point, a finished game or round, a shot)
  and that is none of this tournament's matches (a casual game, a match opened by hand) keeps the board. The match
  waits, listed in `busy` with a plain reason ("board t3 has a game in progress: Ana 120 – Ben 80; finish it, or
  abandon it"), and opens by itself once that game is over, or once the organiser abandons it (an `abandon` act
  naming the game's journal: `Event.abandoned(board)`). The game's journal stays on disk as it is. The hall's copy of
  the scoreboard can be older than a game started just before the assignment: the request names the journal the copy
  showed and its count of entries (`replaces`, `replaces_entries`), and the bridge opens nothing over a game under way
  that the copy did not show, in another journal or gone on since (its answer says `stale`). The match then stays on its
  board, not refused: said once per answer, counted (`stale`), and looked at again once the copy has moved on (held
  busy, or sent again); after MAX_STALE such answers for one assignment the next is a refusal.
- **A refusal sends the match back.** A board (its bridge) that refuses the `new` request: the refusal is logged in
  one line, counted (`refused`), written in the hall's journal with its time and kept in `refusals` (the latest
  MAX_REFUSALS: match, board, reason, time, for the organiser's page and the hall screen), and the hall appends an
  `unassign` act with the reason, so the match is back to waiting for a board; assigning it again sends it again.
- **Takes each board's own result.** When a board's retained scoreboard says its match is over, and the scoreboard
  belongs to the match (below) and has its players, the hall appends a `result` act: source `board`, the points
  (`score.totals`), the games won, the twenties per side and the match shoot-out (`match_shootout`: the engine's
  `shootout_result`, all a shoot-out match's result is), in the match's order of sides, and
  the evidence {"journal", "entries", "board", "bridge"} of the scoreboard. The twenties are confirmed only when the
  game's journal has no provisional twenty, no board event waiting and no review open. A table without sensors ends
  its match from the phone page, on the same scoreboard: the same path.
- **Never overwrites a result.** A match that already has one: when the board agrees (same winner; same points,
  games and twenties where the recorded result gives them) nothing happens, so a retained scoreboard delivered again
  or a restart appends nothing. When it disagrees (the organiser typed another result first), the board's result is
  held for the organiser: listed in `held`, logged once, and never appended as a correction by the hall itself. A
  held result leaves the list when the recorded result comes to agree with it (a correction), or when the
  organiser dismisses it (`dismiss(match, journal)`: written in the hall's journal, so a restart does not hold it
  again, unless the board's journal has changed since). The list itself is the hall's state, not the tournament's:
  after a restart the retained scoreboards give it again (and it is logged again, once).

Which game journal belongs to a match: the one the bridge opened for the hall's own `new` request, named in its
answer ("new match: PATH", the path the scoreboard's `journal` then says). The hall writes each request *before* it
is sent (with the journal the board showed then, `prior`) and each answer, in its own journal beside the tournament's
(`<tournament>.hall`, a host/core/journal.py file: checked lines, fsynced, locked: one hall per tournament). Only a
scoreboard whose `journal` is the one recorded for a match can give that match's result: a stale retained scoreboard
of the board's previous match names another journal, and is never taken. When the answer was lost (the hall was
killed between the request and its answer, or none came in time), the request is recognised by the board's
scoreboard: a journal other than `prior`, claimed by no other match, with the match's players, is adopted as the
match's (counted in `recognised`); an answer that comes later still names the journal. A request just sent waits for
its answer, so a match a person opens by hand on the same board meanwhile is not mistaken for it.

The tournament journal is locked only while the hall (or `director()`) appends, so the organiser's own commands
can act on the same file meanwhile; the hall follows what they append (an `assign` typed elsewhere opens the match).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import logging
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import paho.mqtt.client as paho

from flickboard.config import MqttUrl
from flickboard.core import journal
from flickboard.mqtt import (
    MAX_DOCUMENT,
    RESULT,
    SCOREBOARD,
    BridgeWatch,
    PayloadGuard,
    Subscriber,
    board_topics,
    game_text,
    parse_board_topic,
    publish_entry,
    under_way,
)
from flickboard.mqtt import client as mqtt_client
from flickboard.rules.text import N_, Message
from flickboard.tournament.director import Director, event_name
from flickboard.tournament.event import ActError, Event, Match

log = logging.getLogger("flickboard.tournament")

VERSION = 1
SUFFIX = ".hall"
LOCK_WAIT = 10.0  # seconds the hall waits for the tournament journal another command holds
POLL = 0.25  # seconds between looks at the tournament journal and at the timeouts
MAX_REFUSALS = 50  # the latest refusals kept for the pages
# Stale answers (the board had a game under way that the hall's copy of its scoreboard did not show yet) a match's
# assignment takes before the next one is a plain refusal: a board whose scoreboard never reaches the hall cannot keep
# the hall sending for ever.
MAX_STALE = 3
COUNTS = (
    "requests",  # `new` requests sent
    "opened",  # answered ok, or recognised on the board's scoreboard
    "recognised",  # of those: recognised (the answer was not heard, e.g. the hall was killed before it came)
    "refused",  # answered with a refusal (the match is sent back to waiting for a board)
    "stale",  # answered "a game in progress this request did not see": the hall looks at the board again
    "busy",  # a match kept from its board by a game in progress there (counted once per match and game)
    "displaced",  # an opened match a new game was started over (a `new` typed on its board): held for the organiser
    "unanswered",  # no answer within the timeout
    "results",  # result acts appended from a board
    "agreed",  # a board's result the event already had (a retained scoreboard again, a restart)
    "held",  # a board's result that disagrees with the one recorded: held for the organiser
    "dismissed",  # held results the organiser set aside
    "other_bridge",  # a scoreboard of a match's journal from a bridge other than the one that keeps its board
    "other_players",  # a match's own journal whose players are not the match's (a person re-opened it by hand)
    "unreadable",  # a scoreboard or answer that is not a JSON object of the known format
    "oversize",  # a message over MAX_DOCUMENT, dropped unread
)


class HallError(Exception):
    """The hall cannot start; str() is one line for the organiser."""


class Link(Protocol):
    """Another program's MQTT connection the hall runs on (`flickboard web --tournament`: its hub's), so that one
    program is one connection under one broker user. It subscribes to what the hall reads (`Hall.topics`), hands
    every message to `Hall.feed` (after its own size guard), tells `Hall.connection(up, refused)` when its
    subscriptions are answered or the connection is lost, and publishes the hall's requests."""

    @property
    def ready(self) -> bool: ...

    @property
    def connected(self) -> bool: ...

    def publish_entry(self, board: str, payload: bytes, wait: float) -> bool:
        """An entry on the board's input topic, with the lifetime of one whose answer is awaited `wait` seconds
        (flickboard/mqtt.py `publish_entry`); False when it could not be sent."""
        ...

    def attach(self, hall: Hall) -> None:
        """From now on, hand the hall every message; first, the latest retained scoreboard of each board."""
        ...

    def detach(self, hall: Hall) -> None:
        """No more messages for the hall."""
        ...


@dataclass
class Open:
    """The hall's request to open a match on a board, and what became of it."""

    match: str
    board: str
    rid: str
    assign: int  # the entry of the `assign` act it answers
    prior: str | None  # the journal the board's scoreboard named when the request was written
    prior_entries: int | None = None  # and its count of entries then
    state: str = "sent"  # "opened", "refused", "unanswered", "retry" (to be sent again)
    journal: str | None = None  # the match's game journal, once opened
    message: str = ""
    sent: float = 0.0  # time.monotonic() of the last send
    restored: bool = False  # written by an earlier run of the hall: its answer may never come
    bridge: str | None = None  # the bridge that keeps the board: the first scoreboard of the match's journal names it
    stale: int = 0  # stale answers to this assignment's requests so far (MAX_STALE)
    answered: float = 0.0  # time.monotonic() of its stale answer

    def doc(self) -> dict[str, Any]:
        return {
            "match": self.match,
            "board": self.board,
            "state": self.state,
            "journal": self.journal,
            "message": self.message,
            "id": self.rid,
        }


def players_of(event: Event, m: Match) -> list[str]:
    """The players of a match's `new` request: singles A B; doubles A1 B1 A2 B2 (clockwise, partners opposite)."""
    a, b = (event.entrants[s].players for s in m.sides)
    return [p for pair in zip(a, b, strict=True) for p in pair]


def request_of(event: Event, m: Match) -> dict[str, Any]:
    """The `new` part of the request that opens match `m` (docs/mqtt.md, "The request")."""
    st = event.stages[m.stage]
    new: dict[str, Any] = {"rules": st.rules, "players": players_of(event, m)}
    if m.format is not None:  # a tie-break shoot-out match: the Pichenotte match that is only the shoot-out (R-1-B)
        new["match"] = m.format
    elif st.match is not None:
        new["match" if st.game == "pichenotte" else "target"] = st.match
    return new


def send_of(event: Event, m: Match, rid: str, prior: str | None, entries: int | None = None) -> dict[str, Any]:
    """The whole request that opens match `m`: its `new` part, with `replaces` the journal the board showed (`prior`,
    None: none) and `replaces_entries` its count of entries then, so that the bridge opens nothing over a game the
    hall's copy of the scoreboard did not show yet, nor over one that has gone on since."""
    new = {**request_of(event, m), "replaces": prior}
    if entries is not None:
        new["replaces_entries"] = entries
    return {"id": rid, "new": new}


def _count(v: Any) -> int | None:
    """A count of entries from a scoreboard or a journal record: a whole number, else None."""
    return v if type(v) is int and v >= 0 else None


def _rid(match: str, attempt: int) -> str:
    rid = f"hall:{match}#{attempt}"
    if len(rid) > 64:  # the entry id's limit
        rid = f"hall:{hashlib.sha256(match.encode()).hexdigest()[:40]}#{attempt}"
    return rid


def _pair(v: Any) -> list[Any] | None:
    return list(v) if isinstance(v, list) and len(v) == 2 else None


def board_result(event: Event, m: Match, board: str, doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `result` act a finished board scoreboard gives for match `m`, in the match's order of sides; None when the
    scoreboard's match is not over, or its sides are not the match's entrants (by their players)."""
    score = doc.get("score")
    if not isinstance(score, dict) or score.get("over") is not True or not isinstance(score.get("winner"), str):
        return None
    sides = score.get("sides")
    if not isinstance(sides, list) or len(sides) != 2 or not all(isinstance(s, dict) for s in sides):
        return None
    names = [s.get("name") for s in sides]
    sets = [frozenset(s.get("players") or ()) for s in sides]
    order: list[int] = []
    for e in m.sides:
        want = frozenset(event.entrants[e].players)
        if want not in sets:
            return None
        order.append(sets.index(want))
    if sorted(order) != [0, 1] or score["winner"] not in names:
        return None
    winner = m.sides[order.index(names.index(score["winner"]))]

    def ours(v: Any) -> list[int] | None:
        p = _pair(v)
        if p is None or not all(type(x) is int for x in p):
            return None
        return [p[i] for i in order]

    games = twenties = None
    played = score.get("games")
    if isinstance(played, list) and all(isinstance(g, dict) for g in played):
        games = ours([sum(1 for g in played if g.get("winner") == n) for n in names])
        tw = [g.get("twenties") for g in played]
        if all(_pair(t) is not None and all(type(x) is int for x in t) for t in tw):
            twenties = ours([sum(t[i] for t in tw) for i in (0, 1)])
    current = score.get("current")
    provisional = isinstance(current, dict) and bool(current.get("provisional_twenties"))
    confirmed = twenties is not None and not (
        provisional or doc.get("needs_review") or doc.get("queued") or doc.get("waiting")
    )
    evidence: dict[str, Any] = {"journal": doc["journal"], "board": board}
    for key in ("entries", "bridge"):
        if type(doc.get(key)) in (str, int):
            evidence[key] = doc[key]
    return {
        "act": "result",
        "match": m.id,
        "sides": list(m.sides),
        "winner": winner,
        "games": games,
        "points": ours(score.get("totals")),
        "twenties": twenties,
        "twenties_confirmed": confirmed,
        "shootout": ours(score.get("match_shootout")),
        "source": "board",
        "evidence": evidence,
    }


def agrees(m: Match, act: Mapping[str, Any]) -> bool:
    """Whether the result recorded for `m` says what the board's `act` says: the same winner, and the same points,
    games, twenties and shoot-out twenties wherever the recorded result gives them."""
    o = m.outcome
    if o is None:
        return False
    if o.walkover or o.winner != act["winner"]:
        return False
    pairs = ((o.points, act["points"]), (o.games, act["games"]), (o.twenties, act["twenties"]))
    for mine, theirs in (*pairs, (o.shootout, act["shootout"])):
        if mine is not None and (theirs is None or list(mine) != list(theirs)):
            return False
    return True


class Hall:
    """The director's link to the boards (the module docstring). `start()` connects and follows; `stop()` ends it.
    `say(line)` hears every opened match, result, refusal and held result in one line (default: the log)."""

    def __init__(
        self,
        path: str,
        mqtt: MqttUrl,
        *,
        ca_file: str | None = None,
        boards: Iterable[str] | None = None,
        client_id: str | None = None,
        answer_timeout: float = 10.0,
        settle: float = 0.5,
        say: Callable[[str], None] | None = None,
        link: Link | None = None,
    ) -> None:
        self.path = path
        self.link = link  # another program's connection to run on (None: the hall's own)
        self.url = mqtt
        self.ca_file = ca_file
        self.boards = tuple(boards) if boards is not None else None
        self.client_id = client_id or f"flickboard-hall-{uuid.uuid4().hex[:10]}"
        self.answer_timeout = answer_timeout
        self.settle = settle
        self.say = say or log.info
        self.lock = threading.RLock()  # the event, the opens, the held results
        self._counts = dict.fromkeys(COUNTS, 0)
        self._opens: dict[str, Open] = {}  # match -> its latest request
        self._by_rid: dict[str, Open] = {}
        self._journals: dict[str, str] = {}  # game journal -> the match it was opened for
        self._docs: dict[str, dict[str, Any]] = {}  # board -> its latest scoreboard
        self._held: dict[tuple[str, str], dict[str, Any]] = {}  # (match, journal) -> the held result
        self._dismissed: set[tuple[str, str, Any]] = set()  # (match, journal, its entries) the organiser set aside
        self._said: set[tuple[str, str, str]] = set()  # what was logged once
        self._refusals: collections.deque[dict[str, Any]] = collections.deque(maxlen=MAX_REFUSALS)
        self._busy: dict[str, dict[str, Any]] = {}  # board -> the match its game in progress keeps waiting
        self._inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self._stop = threading.Event()
        self._dirty = True
        self._size = -1  # the tournament journal's size when last read
        self._ready_at: float | None = None
        self._side: journal.Journal | None = None
        self._worker: threading.Thread | None = None
        self.watch = BridgeWatch()
        self.event = Event()
        self._client: paho.Client | None = None
        self._subscriber: Subscriber | None = None

    # -- the API -------------------------------------------------------------------------------------------

    @property
    def counts(self) -> dict[str, int]:
        with self.lock:
            return dict(self._counts)

    @property
    def held(self) -> list[dict[str, Any]]:
        """The board results held for the organiser: {match, board, journal, result (the board's act), recorded
        (the result in the event), why}."""
        with self.lock:
            return [dict(h) for h in self._held.values()]

    @property
    def opens(self) -> dict[str, dict[str, Any]]:
        """Each match the hall asked a board to open: {match, board, state (sent, opened, refused, unanswered, retry:
        to be looked at again), journal, message, id}."""
        with self.lock:
            return {m: o.doc() for m, o in self._opens.items()}

    @property
    def refusals(self) -> list[dict[str, Any]]:
        """The latest refusals, oldest first: {match, board, reason, at (seconds since the epoch)}."""
        with self.lock:
            return [dict(r) for r in self._refusals]

    @property
    def busy(self) -> list[dict[str, Any]]:
        """The boards whose game in progress keeps an assigned match waiting: {board, match, journal, game (in words),
        reason}, in board order."""
        with self.lock:
            return [dict(self._busy[b]) for b in sorted(self._busy)]

    def in_the_way(self, board: str) -> str | None:
        """Why the board cannot take a match now (a game in progress there that is not one of this tournament's
        matches, nor abandoned by the organiser), in one sentence; None when it can."""
        with self.lock:
            doc = self._docs.get(board)
            if doc is None or not under_way(doc):
                return None
            path = doc["journal"]
            if path in self._journals or path in self.event.abandoned(board):
                return None
            said = N_("board {board} has a game in progress: {game}; finish it, or abandon it")
            return Message(said, board=board, game=game_text(doc))

    @property
    def ready(self) -> bool:
        if self.link is not None:
            return self.link.ready
        return self._subscriber is not None and self._subscriber.ready

    def wait_ready(self, timeout: float = 10) -> bool:
        if self.link is not None:
            deadline = time.monotonic() + timeout
            while not self.link.ready and time.monotonic() < deadline:
                time.sleep(0.02)
            return self.link.ready
        return self._subscriber is not None and self._subscriber.wait_ready(timeout)

    def dismiss(self, match: str, journal_path: str) -> str:
        """The organiser sets a held board result aside: the event keeps its own. Written in the hall's journal, so
        a restart does not hold it again; the same game journal with more entries (the board's scorer changed it) is
        held again."""
        with self.lock:
            h = self._held.get((match, journal_path))
            if h is None:
                raise ActError(Message("no held result for {match} from that journal", match=match))
            key = (match, journal_path, h["result"]["evidence"].get("entries"))
            self._write({"hall": "dismiss", "match": match, "journal": journal_path, "entries": key[2]})
            self._dismissed.add(key)
            del self._held[(match, journal_path)]
            self._counts["dismissed"] += 1
            line = Message("dismissed the board's result for {match}; the event keeps its own", match=match)
            self.say(f"{line} (board {h['board']})")
            return line

    def start(self) -> Hall:
        side = self.path + SUFFIX
        try:
            size = os.path.getsize(self.path)  # before the read: an act appended meanwhile is read at the next look
            snap = journal.read(self.path)
            self.event = Event(event_name(self.path, snap.header))
            self._catch_up(snap.records)
            self._size = size
            if os.path.exists(side):
                self._side = journal.Journal.open(side)
            else:
                self._side = journal.Journal.create(side, {"hall": {"tournament": self.event.name, "version": VERSION}})
        except journal.JournalInUse:
            raise HallError(f"another hall is running for {self.path} (its {side} is locked)") from None
        except journal.JournalError as e:
            raise HallError(str(e)) from None
        for rec in self._side.records:
            self._restore(rec)
        if self.link is not None:  # on another program's connection: no second login under the same user
            self._worker = threading.Thread(target=self._work, name="hall", daemon=True)
            self._worker.start()
            self.link.attach(self)
            return self
        try:
            c = mqtt_client(self.url, self.client_id, self.ca_file, entries=True)
        except ValueError as e:
            self._side.close()
            raise HallError(f"--ca-file: {e}") from None
        c.suppress_exceptions = True
        c.on_message = self._on_message
        self._guard = PayloadGuard(c, MAX_DOCUMENT)
        self._subscriber = Subscriber(c, self._topics, subscribed=self._subscribed, down=self._down)
        self._client = c
        try:
            c.connect_async(self.url.host, self.url.port, keepalive=30)
        except (OSError, ValueError) as e:
            self._side.close()
            raise HallError(f"MQTT {self.url}: {e}") from None
        c.loop_start()
        self._worker = threading.Thread(target=self._work, name="hall", daemon=True)
        self._worker.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self.link is not None:
            self.link.detach(self)
        if self._worker is not None:
            self._worker.join(10)
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.disconnect()
            self._client.loop_stop()
        if self._side is not None:
            self._side.close()

    def __enter__(self) -> Hall:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @contextlib.contextmanager
    def director(self) -> Iterator[Director]:
        """The tournament journal locked (waiting up to LOCK_WAIT for another command to let it go), the event
        brought up to date with what others appended, as a Director for the acts inside; unlocked at the end."""
        with self.lock:
            try:
                j = journal.Journal.open(self.path, wait=LOCK_WAIT)
            except journal.JournalInUse:
                said = N_("the tournament journal {path} is held by another command")
                raise ActError(Message(said, path=self.path)) from None
            try:
                self._catch_up(j.records)
                yield Director(j, self.event)
            finally:
                self._size = os.path.getsize(self.path)  # while locked: every act up to here is folded
                j.close()
                self._dirty = True

    def act(self, act: dict[str, Any]) -> int:
        """Append one act (checked first; ActError says why not)."""
        with self.director() as d:
            return d.act(act)

    # -- the tournament journal ----------------------------------------------------------------------------

    def _catch_up(self, records: list[dict[str, Any]]) -> None:
        for rec in records:
            if rec.get("n", 0) <= self.event.count:
                continue
            try:
                self.event.apply(rec)
            except ActError as e:
                self.event.rejected.append((int(rec.get("n", 0)), str(e)))
        self._dirty = True

    def _follow(self) -> None:
        """Fold what another command appended to the tournament journal since the hall last read it."""
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return
        if size == self._size:
            return
        try:
            snap = journal.read(self.path)
        except journal.JournalError as e:
            self._once("journal", self.path, f"tournament journal {self.path}: {e}")
            return
        self._size = size  # measured before the read (see start)
        self._catch_up(snap.records)

    # -- the hall's own journal ----------------------------------------------------------------------------

    def _write(self, rec: dict[str, Any]) -> None:
        assert self._side is not None
        self._side.append(rec)

    def _restore(self, rec: Mapping[str, Any]) -> None:
        kind = rec.get("hall")
        match = str(rec.get("match"))
        if kind == "dismiss":
            self._dismissed.add((match, str(rec.get("journal")), rec.get("entries")))
            return
        if kind == "open":
            o = Open(match, str(rec["board"]), str(rec["id"]), int(rec["assign"]), rec.get("prior"))
            o.prior_entries = _count(rec.get("prior_entries"))
            o.sent, o.restored = time.monotonic(), True
            before = self._opens.get(match)
            if before is not None and before.assign == o.assign and before.board == o.board:
                o.stale = before.stale
            self._opens[match] = self._by_rid[o.rid] = o
            return
        o2 = self._by_rid.get(str(rec.get("id")))
        if o2 is None:
            return
        if kind == "opened":
            if o2.journal is not None:  # a journal recognised, then named otherwise by the answer
                self._journals.pop(o2.journal, None)
            o2.state, o2.journal, o2.message = "opened", str(rec["journal"]), str(rec.get("message", ""))
            self._journals[o2.journal] = o2.match
        elif kind == "stale":  # to be looked at again: sent again, or held while the game is under way
            o2.state, o2.message, o2.stale = "retry", str(rec.get("message", "")), int(rec.get("stale", 1))
        elif kind == "refused":
            o2.state, o2.message = "refused", str(rec.get("message", ""))
            at = rec.get("at")
            if type(at) in (int, float):
                self._refusals.append({"match": o2.match, "board": o2.board, "reason": o2.message, "at": at})

    # -- MQTT (paho's network thread: hand everything to the worker) ---------------------------------------

    def topics(self) -> list[str]:
        """What the hall reads: every bridge's status, and the boards' scoreboards and answers."""
        return [*BridgeWatch.TOPICS, *board_topics(self.boards, (SCOREBOARD, RESULT))]

    _topics = topics

    def connection(self, up: bool, refused: list[str] | None = None) -> None:
        """From a `Link`: its subscriptions are answered (`up`), or the connection is lost."""
        if up:
            self._subscribed(refused or [])
        else:
            self._down("the connection was lost")

    def feed(self, topic: str, payload: bytes) -> None:
        """One message, from a `Link` (paho's thread: handed to the worker)."""
        if self.watch.feed(topic, payload):
            return
        self._inbox.put((topic, payload))

    def _subscribed(self, refused: list[str]) -> None:
        if refused:
            self.say(f"hall: the broker {self.url} refused the subscription to {', '.join(refused)}")
        self._inbox.put(("", b"ready"))

    def _down(self, rc: Any) -> None:
        if not self._stop.is_set():
            self.say(f"hall: lost the broker {self.url} ({rc}); reconnecting")

    def _on_message(self, _c: paho.Client, _u: Any, msg: paho.MQTTMessage) -> None:
        size = self._guard.take()
        if size is not None:
            with self.lock:
                self._counts["oversize"] += 1
            self._once("oversize", msg.topic, f"hall: a message of {size} bytes on {msg.topic[:100]} was not read")
            return
        if self.watch.feed(msg.topic, bytes(msg.payload)):
            return
        self._inbox.put((msg.topic, bytes(msg.payload)))

    # -- the worker ------------------------------------------------------------------------------------------

    def _work(self) -> None:
        next_poll = 0.0
        while not self._stop.is_set():
            try:
                topic, payload = self._inbox.get(timeout=POLL)
            except queue.Empty:
                topic, payload = "", b""
            try:
                with self.lock:
                    if topic:
                        self._message(topic, payload)
                    elif payload == b"ready":
                        self._ready_at = time.monotonic() + self.settle  # the retained scoreboards come first
                        # and plan then, even when no message comes after: on another program's connection the
                        # retained scoreboards may all have been handed over before it said ready
                        self._dirty = True
                    if time.monotonic() >= next_poll:
                        next_poll = time.monotonic() + POLL
                        self._follow()
                        self._timeouts()
                    if self._dirty:
                        self._dirty = False
                        self._plan()
            except Exception:  # a bug must not end the hall: said, and the next message is taken
                log.exception("hall: unexpected error")

    def _message(self, topic: str, payload: bytes) -> None:
        parsed = parse_board_topic(topic)
        if parsed is None:
            return
        board, kind = parsed
        try:
            doc = json.loads(payload) if payload else None
        except ValueError:
            doc = None
        if kind == SCOREBOARD:
            self._dirty = True  # a game may have ended, or a new one been started over a match: look again
        if kind == SCOREBOARD and not payload:  # a retained scoreboard cleared
            self._docs.pop(board, None)
            return
        if not isinstance(doc, dict):
            self._counts["unreadable"] += 1
            return
        if kind == RESULT:
            self._answer(board, doc)
        elif kind == SCOREBOARD:
            if doc.get("format") != "flickboard-scoreboard" or doc.get("version") != 1:
                self._counts["unreadable"] += 1
                return
            if not isinstance(doc.get("journal"), str):
                self._counts["unreadable"] += 1
                return
            self._docs[board] = doc
            self._scoreboard(board, doc)

    def _answer(self, board: str, doc: dict[str, Any]) -> None:
        rid = doc.get("id")
        o = self._by_rid.get(rid) if isinstance(rid, str) else None
        if o is None or o.board != board or self._opens.get(o.match) is not o:
            return
        message = str(doc.get("message", ""))[:300]
        if doc.get("ok") is True:
            path = message.split(": ", 1)[1] if ": " in message else None
            current = self._docs.get(board, {}).get("journal")
            if not path and current != o.prior:
                path = current
            if path and path != o.journal:  # the answer names the journal, even one recognised before it came
                self._opened(o, path, message)
            return
        if o.state in ("opened", "refused"):
            return
        if doc.get("stale") is True and o.state == "retry":
            return  # a copy of the stale answer taken already, or a late one to a request about to go again
        if doc.get("stale") is True and o.stale < MAX_STALE:
            self._stale(o, message)
            return
        o.state, o.message = "refused", message
        at = round(time.time(), 3)
        self._write({"hall": "refused", "match": o.match, "board": board, "id": o.rid, "message": message, "at": at})
        self._counts["refused"] += 1
        self._refusals.append({"match": o.match, "board": board, "reason": message, "at": at})
        self.say(f"not opened: {o.match} on {board}: {message}; the match is back to waiting for a board")
        self._send_back(o.match, board, message)

    def _stale(self, o: Open, message: str) -> None:
        """The board had a game under way that the hall's copy of its scoreboard did not show when the request was
        written (a game started just before the assignment): nothing was opened, and the match stays on its board.
        The next pass looks again, once the hall's copy has moved on from the journal the request saw (or after the
        answer timeout): the game holds the board (`busy`), or the request goes again with the journal now shown."""
        o.state, o.message, o.answered = "retry", message, time.monotonic()
        o.stale += 1
        self._write({"hall": "stale", "match": o.match, "board": o.board, "id": o.rid, "message": message,
                     "stale": o.stale})  # fmt: skip
        self._counts["stale"] += 1
        self.say(f"not opened yet: {o.match} on {o.board}: {message}; the hall looks at the board again")
        self._dirty = True

    def _send_back(self, match: str, board: str, message: str) -> None:
        """The refused match off its board (an `unassign` act), unless it has moved or been decided meanwhile."""
        m = self.event.matches.get(match)
        if m is None or m.board != board or m.decided:
            return
        try:
            with self.director() as d:
                m = self.event.matches[match]
                if m.board == board and not m.decided:
                    d.unassign(match, f"board {board} refused it: {message}"[:200])
        except ActError as e:
            self.say(f"{match} stays on {board} (not opened): {e}")

    def _opened(self, o: Open, path: str, message: str) -> None:
        again = o.state == "opened"
        if o.journal is not None:
            self._journals.pop(o.journal, None)
        o.state, o.journal, o.message = "opened", path, message
        self._journals[path] = o.match
        self._write({"hall": "opened", "match": o.match, "board": o.board, "id": o.rid, "journal": path,
                     "message": message})  # fmt: skip
        m = self.event.matches.get(o.match)
        who = " v ".join(m.sides) if m else "?"
        if not again:
            self._counts["opened"] += 1
            self.say(f"opened: {o.match} on {o.board}: {who}")
        doc = self._docs.get(o.board)
        if doc is not None and doc.get("journal") == path:  # the scoreboard came before the answer
            self._scoreboard(o.board, doc)

    def _scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        path = doc["journal"]
        match = self._journals.get(path)
        if match is None:
            self._adopt(board, doc)
            match = self._journals.get(path)
            if match is None:
                return  # not a journal of this tournament's matches: a stale or unrelated scoreboard
        m = self.event.matches.get(match)
        if m is None or not m.known:
            return
        o = self._opens.get(match)
        if o is None or o.board != board or o.journal != path:
            return  # not the board and journal the hall opened this match on
        said = doc.get("bridge") if isinstance(doc.get("bridge"), str) else None
        if o.bridge is None:
            o.bridge = said
        elif said != o.bridge:  # another bridge's scoreboard for this journal: not the board's own result
            self._counts["other_bridge"] += 1
            self._once(
                "bridge",
                f"{match} {said}",
                f"hall: a scoreboard for {match} on {board} from bridge {said}, not {o.bridge} that keeps the board: "
                "not taken",
            )
            return
        act = board_result(self.event, m, board, doc)
        if act is None:
            score = doc.get("score")
            if isinstance(score, dict) and score.get("over") is True:
                self._counts["other_players"] += 1
                self._once("players", path, f"hall: board {board}'s journal {path} for {match} is not its players'")
            return
        self._take(m, act, board)

    def _adopt(self, board: str, doc: dict[str, Any]) -> None:
        """A request whose answer was lost (sent by the hall before a restart, or not answered in time): the board's
        new journal, with the match's players, is the match's. A request in flight waits for its answer."""
        waiting = [
            x
            for x in self._opens.values()
            if x.board == board
            and (x.state == "unanswered" or (x.state == "sent" and x.restored))
            and x.match in self.event.matches
            and not self.event.matches[x.match].decided
        ]
        o = max(waiting, key=lambda x: x.assign, default=None)
        if o is None or doc["journal"] == o.prior:
            return
        m = self.event.matches.get(o.match)
        score = doc.get("score")
        if m is None or not m.known or not isinstance(score, dict):
            return
        if sorted(map(str, score.get("players") or ())) != sorted(players_of(self.event, m)):
            return
        self._counts["recognised"] += 1
        self._opened(o, doc["journal"], "recognised on the board's scoreboard (the answer was not heard)")

    def _take(self, m: Match, act: dict[str, Any], board: str) -> None:
        if m.outcome is None and not m.decided:
            try:
                with self.director() as d:
                    m = self.event.matches[m.id]  # (another command may have recorded one meanwhile, or undone)
                    if m.outcome is None:
                        n = d.act(act)
                        self._counts["results"] += 1
                        self.say(f"result: {m.id} on {board}: {_said(act)} (entry {n})")
                        return
            except ActError as e:
                m = self.event.matches.get(m.id, m)
                if m.outcome is None:
                    self._hold(m, act, board, f"not taken: {e}")
                    return
        if agrees(m, act):
            self._counts["agreed"] += 1
            self._held.pop((m.id, act["evidence"]["journal"]), None)
            return
        o = m.outcome
        rec = "none" if o is None else f"{o.winner} wins {list(o.points) if o.points else ''} ({o.source})".strip()
        self._hold(m, act, board, f"the board says {_said(act)}; the event has {rec}")

    def _hold(self, m: Match, act: dict[str, Any], board: str, why: str) -> None:
        key = (m.id, act["evidence"]["journal"])
        if (*key, act["evidence"].get("entries")) in self._dismissed:
            return  # the organiser has seen this one and set it aside
        if key in self._held:
            self._held[key].update(result=act, why=why)
            return
        o = m.outcome
        recorded = None
        if o is not None:
            recorded = {"winner": o.winner, "points": list(o.points) if o.points else None, "source": o.source,
                        "entry": o.entry}  # fmt: skip
        self._held[key] = {"match": m.id, "board": board, "journal": key[1], "result": act, "recorded": recorded,
                           "why": why}  # fmt: skip
        self._counts["held"] += 1
        self.say(f"held for the organiser: {m.id} on {board}: {why}")

    def _timeouts(self) -> None:
        now = time.monotonic()
        for o in self._opens.values():
            if o.state == "sent" and now - o.sent > self.answer_timeout:
                o.state = "unanswered"
                self._counts["unanswered"] += 1
                self.say(f"no answer: {o.match} on {o.board} (request {o.rid}); sent again once its bridge is online")
                self._dirty = True
            elif o.state == "unanswered" and now - o.sent > self.answer_timeout:
                doc = self._docs.get(o.board)
                if doc is not None and doc.get("journal") == o.prior and self.watch.owner_online(doc):
                    o.state = "retry"
                    self._dirty = True

    def _plan(self) -> None:
        """Open the first undecided match assigned to each board, once the subscriptions (and the retained
        scoreboards behind them) are in; drop held results the event now agrees with."""
        for key, h in list(self._held.items()):
            m = self.event.matches.get(key[0])
            if m is not None and agrees(m, h["result"]):
                del self._held[key]
                self.say(f"no longer held: {key[0]}: the event now agrees with board {h['board']}")
        if self._ready_at is None or time.monotonic() < self._ready_at or not self.ready:
            if self._ready_at is not None:
                self._dirty = True  # look again after the settle time
            return
        assigned: dict[str, int] = {}
        for n, rec in self.event.applied:
            if rec.get("act") == "assign":
                assigned[str(rec["match"])] = n
        heads: dict[str, tuple[int, Match]] = {}
        for mid, n in assigned.items():
            m = self.event.matches.get(mid)
            if m is None or m.board is None or m.decided or not m.known or self.event.stages[m.stage].closed_by:
                continue
            if self.boards is not None and m.board not in self.boards:
                continue
            if m.board not in heads or n < heads[m.board][0]:
                heads[m.board] = (n, m)
        busy: dict[str, dict[str, Any]] = {}
        for board, (n, m) in heads.items():
            o = self._opens.get(m.id)
            if o is not None and o.assign == n and o.board == board and o.state == "retry" and self._unseen(o):
                self._dirty = True  # the scoreboard a stale answer spoke of is not in yet: look again
                continue
            if o is not None and o.assign == n and o.board == board and o.state != "retry":
                why = self._displaced(o)
                if why is not None:  # a `new` typed over the opened match: held for the organiser, said
                    path = self._docs[board]["journal"]
                    busy[board] = {"board": board, "match": m.id, "journal": path,
                                   "game": game_text(self._docs[board]), "reason": why}  # fmt: skip
                    if ("displaced", f"{m.id} {path}", board) not in self._said:
                        self._said.add(("displaced", f"{m.id} {path}", board))
                        self._counts["displaced"] += 1
                        self.say(f"held for the organiser: {m.id} on {board}: {why}")
                continue
            why = self.in_the_way(board)
            if why is not None:
                path = self._docs[board]["journal"]
                busy[board] = {"board": board, "match": m.id, "journal": path, "game": game_text(self._docs[board]),
                               "reason": why}  # fmt: skip
                if ("busy", f"{m.id} {path}", board) not in self._said:
                    self._said.add(("busy", f"{m.id} {path}", board))
                    self._counts["busy"] += 1
                    self.say(f"waiting: {m.id} for {board}: {why}")
                continue
            self._send(m, board, n, attempt=1 if o is None else int(o.rid.rsplit("#", 1)[1]) + 1)
        self._busy = busy

    def _unseen(self, o: Open) -> bool:
        """Whether a stale answer's game is still not in the hall's copy of the board's scoreboard (it names the
        journal the request saw), within the answer timeout."""
        if not o.stale or not o.answered or time.monotonic() - o.answered > self.answer_timeout:
            return False
        doc = self._docs.get(o.board, {})
        return doc.get("journal") == o.prior and _count(doc.get("entries")) == o.prior_entries

    def _displaced(self, o: Open) -> str | None:
        """Why the match the hall opened is no longer on its board: a new game was started there over it (a `new`
        typed at the bridge or sent by `flickboard enter`), not one of this tournament's matches. None when the board
        still shows the match's journal. Once that game is over, or the organiser abandons it, the match is sent
        again (`retry`)."""
        if o.state != "opened" or o.journal is None:
            return None
        doc = self._docs.get(o.board)
        if doc is None or doc["journal"] == o.journal or doc["journal"] in self._journals:
            return None
        score = doc.get("score")
        over = isinstance(score, dict) and score.get("over") is True
        if over or doc["journal"] in self.event.abandoned(o.board):
            o.state = "retry"
            self._dirty = True
            return None
        m = self.event.matches.get(o.match)
        who = " v ".join(m.sides) if m is not None else o.match
        return (
            f"a new game was started on board {o.board} over the match {o.match} ({who}): {game_text(doc)}; the match "
            "waits: finish that game, or abandon it, and the match opens again"
        )

    def _send(self, m: Match, board: str, assign: int, attempt: int) -> None:
        if self.link is not None:
            if not self.link.connected:  # the next pass sends it, once connected
                return
        elif self._client is None or self._subscriber is None or not self._subscriber.connected:
            return  # paho would keep it until the reconnect, and its lifetime start then: the next pass sends it
        prior = self._docs.get(board, {}).get("journal")
        entries = _count(self._docs.get(board, {}).get("entries")) if prior is not None else None
        o = Open(m.id, board, _rid(m.id, attempt), assign, prior, entries)
        before = self._opens.get(m.id)
        if before is not None and before.assign == assign and before.board == board:
            o.stale = before.stale  # stale answers count across the assignment's requests (MAX_STALE)
        self._write({"hall": "open", "match": m.id, "board": board, "id": o.rid, "assign": assign, "prior": prior,
                     "prior_entries": entries})  # fmt: skip
        self._opens[m.id] = self._by_rid[o.rid] = o
        payload = json.dumps(send_of(self.event, m, o.rid, prior, entries)).encode()
        o.sent = time.monotonic()
        if self.link is not None:  # dropped by the broker if not taken in time
            self.link.publish_entry(board, payload, self.answer_timeout)
        elif self._client is not None:
            publish_entry(self._client, board, payload, self.answer_timeout)
        self._counts["requests"] += 1

    def _once(self, what: str, key: str, line: str) -> None:
        with self.lock:
            if (what, key, line) in self._said:
                return
            self._said.add((what, key, line))
        self.say(line)


def _said(act: Mapping[str, Any]) -> str:
    pts = act.get("points")
    return f"{act['winner']} wins" + (f" {pts[0]}-{pts[1]}" if pts else "")
