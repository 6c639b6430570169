"""The bridge: boards' sensor events and people's entries -> one journal per board -> the rules -> scoreboards.

    bridge = Bridge(journals_dir, GameSetup("tournament-2019", ("Ana", "Ben"), None), boards=None, publish=...)
    bridge.serial_line(port, line, send_line)   # a SerialLink's on_line (send_line: that link's send)
    bridge.mqtt_payload(board, payload)         # an MqttLink's on_payload
    bridge.mqtt_input(board, payload)           # an MqttLink's on_input: manual entries as JSON (docs/mqtt.md)
    bridge.submit(board, "Ana 15 10 5")         # a manual entry from the terminal
    bridge.tick()                               # now and then: the health document, pings
    with bridge.batch(): ...                    # many messages at once: one fsync, one ack and one scoreboard each

For every board message: decode (host/board/protocol.py) -> refuse with a coded one-line reason, counted and shown, or
-> de-duplicate on (board, boot, seq) -> journal it durably (host/core/session.py) -> fold it into the game -> ack it to
the board (only now: an acknowledged event is on disk) -> publish the board's scoreboard and scoring moments.
One lock serialises everything, so serial threads, paho's thread and the terminal never interleave an entry.

Under a flood the links hand over what has arrived in one go (`batch`, group commit): each message is journaled and
folded at once, then one fsync per journal makes them all durable, and only then does each board get one ack (the
highest) and one scoreboard. A lone event is its own batch, so its latency does not change.

Each board has its own journal folder, `<journals>/<board>/`, with one journal per match; the newest is resumed
at start. The delivery state (what each board's events were received and acked) is rebuilt from the journals,
so a bridge killed and restarted counts nothing twice and acks where it left off.
"""

from __future__ import annotations

import array
import collections
import contextlib
import datetime
import json
import logging
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flickboard.board import protocol
from flickboard.board.protocol import BoardMessage, ProtocolError, Tracker, Verdict
from flickboard.config import board_problem
from flickboard.core.entries import RequestError, read_request
from flickboard.core.journal import HeaderDamaged, JournalError, salvage
from flickboard.core.scoreboard import moments, scoreboard_doc
from flickboard.core.session import Outcome, Session, now_stamp
from flickboard.jsontext import canonical, compact
from flickboard.mqtt import (
    BRIDGE_HEALTH,
    DEFAULT_BRIDGE_ID,
    EVENTS,
    HEALTH,
    INPUT,
    RAW,
    RESULT,
    SCOREBOARD,
    board_topic,
    bridge_topic,
)
from flickboard.rules import games
from flickboard.rules.base import near_miss
from flickboard.rules.games import AnyGame

log = logging.getLogger("flickboard.bridge")
_dumps = compact  # moments and scoreboards (host/jsontext.py)

HEALTH_FORMAT = "flickboard-bridge-health"
PING_EVERY = 1.0  # s: at most one catch-up ping per board per second
SERIAL_SILENCE = 35.0  # s: a serial board silent this long (3 heartbeats of 10 s, and some) is shown offline
EARLY_WAIT = 10.0  # s: how long events wait behind a missing one (with pings) before the hole is recorded lost
MAX_EARLY = 1024  # events held behind a hole per board; beyond, they are left to the board's resend
MAX_DIGESTS = 1 << 20  # content checks held per boot (4 bytes each); beyond, the oldest half is let go
MAX_OTHER_CONTENT = 1024  # events with a taken seq but other content journaled per match; beyond, refused unacked
MAX_TWO_BOOTS = 64  # two-boots holds per match (a forger may change its boot id at every message); beyond, counted
# Admission (no list of boards): a board with no journal yet is taken at its first valid message (or an operator's
# entry or `new` request), at most MAX_NEW_BOARDS of them per run; the rest are refused, counted and said once per
# board. A board's retained status alone opens nothing.
MAX_NEW_BOARDS = 64
MAX_OPEN = 128  # boards' journals open at once (two files each): the least recently used idle one is closed first
IDLE_CLOSE = 900.0  # s: a journal with no message and no entry this long is closed (boards not on the list)
MAX_SAID = 1024  # boards whose refusal is logged and listed; beyond, only counted
MAX_UNLISTED = 256  # boards on the broker not on the list, shown in the health document; beyond, only counted
# A board that keeps sending while every event it sends is a duplicate (a simulated or re-flashed board reusing a boot
# id and its sequence numbers): once its duplicates have gone on this long (from the first to the latest, bridge
# clock) and number at least ONLY_DUPLICATES_MIN, with no new event between, its scoreboard says so
# (`board_link.only_duplicates`), since a screen would otherwise show it online while nothing it sends counts.
ONLY_DUPLICATES_AFTER = 30.0  # s
ONLY_DUPLICATES_MIN = 3  # duplicates
# A board's heartbeat (every 10 s by default) is shown on its scoreboard (`board_link.heartbeat`), but republishes
# the scoreboard only when it says something new: the outbox depth, the drops or the reconnects changed, the Wi-Fi
# signal moved by HEARTBEAT_RSSI_STEP dB or more (or came or went), the board's link view changed (a high-water mark
# above what was received), or HEARTBEAT_EVERY has passed since the board's last scoreboard. So a quiet board's
# scoreboard goes out every 30 s, not at every heartbeat, and the uptime it shows is at most that old.
HEARTBEAT_EVERY = 30.0  # s
HEARTBEAT_RSSI_STEP = 5  # dB
HEARTBEAT_KEYS = ("up", "heap", "q", "drop", "rc", "rssi")  # the heartbeat's fields shown (docs/protocol.md)

Publish = Callable[[str, bytes, int, bool], None]  # topic, payload, qos, retain


class BridgeError(Exception):
    """One line for the user (a bad game set-up, a journal that cannot be opened)."""


@dataclass(frozen=True)
class GameSetup:
    """A board's next game. The rule set names the game too (`tournament-2019`, `officiel`, `flicochet+school`):
    rule-set names are unique across games (rules/games.py)."""

    rules: str
    players: tuple[str, ...]
    match: str | None = None  # Pichenotte's match format
    target: str | None = None  # Québec Pichenottes and Flicochet: the points to play to

    def game(self) -> AnyGame:
        try:
            kind = games.find_rules(self.rules)
            return games.create(kind, list(self.players), rules=self.rules, match=self.match, target=self.target)
        except ValueError as e:
            raise BridgeError(f"cannot set up a game: {e}") from None


_now = now_stamp


def _stamp() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")


@dataclass
class _Batch:
    """What a batch owes once its journals are synced: acks ((board, boot) -> forced), scoreboards, moments in
    order."""

    sessions: dict[str, Session] = field(default_factory=dict)
    acks: dict[tuple[str, int | None], bool] = field(default_factory=dict)
    boards: dict[str, BoardGame] = field(default_factory=dict)
    moments: list[tuple[str, str, bytes]] = field(default_factory=list)  # (board, topic, payload)


def _digest(kind: str, fields: dict[str, Any], t_us: int) -> int:
    """A check of one board event's content (its kind, fields and time), to tell a resend from another event that
    takes the same sequence number. Never 0 (0 means: not known)."""
    return zlib.crc32(canonical([kind, fields, t_us]).encode("utf-8")) or 1


class _Digests:
    """The content checks of one boot's journaled events, by seq: 4 bytes each, dense from `start` (the bridge
    journals a boot's events in order). Bounded by MAX_DIGESTS: the oldest half goes when it is full."""

    def __init__(self) -> None:
        self.start = 1
        self.sums = array.array("I")

    def put(self, seq: int, digest: int) -> None:
        i = seq - self.start
        if 0 <= i < len(self.sums):
            self.sums[i] = digest
            return
        if i < 0 or i - len(self.sums) > 4096:  # far outside: start again from here
            self.start, self.sums = seq, array.array("I")
            i = 0
        self.sums.extend([0] * (i - len(self.sums)))
        self.sums.append(digest)
        if len(self.sums) > MAX_DIGESTS:
            half = len(self.sums) // 2
            del self.sums[:half]
            self.start += half

    def get(self, seq: int) -> int:
        i = seq - self.start
        return self.sums[i] if 0 <= i < len(self.sums) else 0


class BoardGame:
    """One board's game: its session (journal + fold) and what the bridge knows of the board's link."""

    def __init__(self, board: str, session: Session) -> None:
        self.board = board
        self.session = session
        self.via: str | None = None  # "serial /dev/..." or "mqtt"
        self.online: bool | None = None
        self.send: Callable[[dict[str, Any]], object] | None = None  # a command back to the board
        self.acked: tuple[int, int] | None = None
        self.pinged = 0.0
        self.seen = 0.0  # when its last message arrived (bridge clock)
        self.beat_at: float | None = None  # when its last heartbeat arrived
        self.beat = 0.0  # the interval between its last two heartbeats
        self.early_since = 0.0  # when the oldest event held behind a hole arrived
        self.early: dict[tuple[int, int], BoardMessage] = {}  # (boot, seq) received ahead of a missing one
        self.used = 0.0  # when it last had a message or an entry (bridge clock): the idle journals are closed
        self.requests: dict[str, tuple[int, bool]] = {}  # input request id -> (entry, accepted), from the journal
        self.digests: dict[int, _Digests] = {}  # boot -> the content checks of its journaled events
        self.two_boots: set[tuple[int, int]] = set()  # (retired boot, current boot) already held in this journal
        self.other_content: set[tuple[int, int, int]] = set()  # (boot, seq, digest) already held in this journal
        # Duplicates since the last new event: when the first came (bridge clock, and UTC for people), how many.
        self.dups_at = 0.0
        self.dups_since: str | None = None
        self.dups = 0
        self.only_duplicates = False  # said: ONLY_DUPLICATES_AFTER and ONLY_DUPLICATES_MIN reached
        # Its latest heartbeat as shown on the scoreboard (`at` and HEARTBEAT_KEYS), and the boot that sent it.
        self.heartbeat: dict[str, Any] | None = None
        self.heartbeat_boot: int | None = None
        # What its last published scoreboard showed: the link view and when (bridge clock), for HEARTBEAT_EVERY.
        self.shown_link: dict[str, Any] | None = None
        self.shown_at = 0.0


class Bridge:
    def __init__(
        self,
        journals: str | Path,
        setup: GameSetup,
        boards: Iterable[str] | None = None,
        publish: Publish | None = None,
        clock: Callable[[], float] = time.monotonic,
        bridge_id: str = DEFAULT_BRIDGE_ID,
    ) -> None:
        self.journals = Path(journals)
        self.bridge_id = bridge_id
        self.health_topic = bridge_topic(bridge_id, HEALTH)  # raises ValueError for a bad id
        self.setup = setup
        setup.game()  # refuse a bad set-up now, not at the first event
        self.boards = tuple(boards) if boards is not None else None
        self.publish = publish
        self.clock = clock
        self.lock = threading.RLock()
        self.tracker = Tracker()
        self.games: dict[str, BoardGame] = {}
        self.inputs = {"accepted": 0, "refused": 0, "invalid": 0}
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=20)
        self.unlisted: dict[str, str] = {}  # board -> when it was seen online, for boards not in `boards`
        self.links: dict[str, dict[str, Any]] = {}
        self.link_counters: dict[str, Callable[[], dict[str, int]]] = {}
        self.mqtt_send: Callable[[str, bytes], object] | None = None
        self.started = _now()
        # Holds for a person (docs/reliability.md): two boots of one board alive, a taken seq with other content,
        # damaged journal lines; `unchecked`: resends whose content is no longer held to compare; `refused`: other
        # content beyond MAX_OTHER_CONTENT per match (not journaled, not acked).
        self.holds = {
            "two_boots": 0,
            "two_boots_beyond": 0,
            "other_content": 0,
            "damaged_lines": 0,
            "unchecked": 0,
            "refused": 0,
        }
        # New boards taken without a list, board messages refused for want of admission, journals closed when idle.
        self.admission = {"new_boards": 0, "refused": 0, "closed_idle": 0, "unlisted_not_shown": 0}
        self.only_duplicates = 0  # times a board was found sending only duplicates (ONLY_DUPLICATES_AFTER)
        self._said: set[str] = set()
        self._health_dirty = True
        self._batch: _Batch | None = None
        for b in self.boards or ():
            self.game(b)

    # ---------------------------------------------------------------- games

    def game(self, board: str) -> BoardGame:
        """The board's game: the one in memory, else its newest journal resumed, else a new one from the set-up."""
        with self.lock:
            bg = self.games.get(board)
            if bg is None:
                problem = board_problem(board)
                if problem:
                    raise BridgeError(problem)
                existing = self._journals_of(board)
                if not existing and self.boards is None and self.admission["new_boards"] >= MAX_NEW_BOARDS:
                    raise BridgeError(
                        f"board {board} is new and this bridge has already taken {MAX_NEW_BOARDS} new boards without "
                        "a list of boards: add it to 'boards' to follow it"
                    )
                self._make_room()
                if existing:
                    try:
                        # A damaged line is said and held for a person, never a reason to stop the board: every
                        # other line is read, and the board is acked for what they show (docs/journal.md).
                        session = Session.resume(str(existing[-1]), damaged_ok=True)
                    except HeaderDamaged as e:
                        session = self._after_damaged_set_up(board, existing[-1], e)
                    except (JournalError, ValueError) as e:
                        raise BridgeError(f"board {board}: {e}") from None
                    for d in session.journal.damaged:
                        said = d.message(session.journal.path) + ": the game is on hold until someone checks it"
                        log.warning("board %s: %s", board, said)
                        self.recent.append(
                            {"at": _now(), "source": f"journal {board}", "code": "damaged", "reason": said}
                        )
                        self.holds["damaged_lines"] += 1
                    torn = session.journal.torn.message() if session.journal.torn else None
                    if torn:  # the bridge stopped while writing an entry it had not acknowledged
                        log.warning("board %s: %s", board, torn)
                        self.recent.append({"at": _now(), "source": f"journal {board}", "code": "torn", "reason": torn})
                    log.info("board %s: resumed %s (%d entries)", board, existing[-1], session.journal.count)
                else:
                    session = self._create(board, self.setup.game())
                    self.admission["new_boards"] += 1
                bg = self.games[board] = BoardGame(board, session)
                bg.used = self.clock()
                self._restore(bg)
            return bg

    def _after_damaged_set_up(self, board: str, old: Path, err: HeaderDamaged) -> Session:
        """The newest journal's set-up cannot be read: it is kept as it is, and a new match starts from this bridge's
        set-up, its delivery position taken from the old journal's lines that can still be read (so the board's
        resends are duplicates and it is acked), held for a person with a plain sentence."""
        try:
            readable = salvage(str(old))
        except JournalError as e:
            raise BridgeError(f"board {board}: {e}") from None
        mine = [r for r in readable if _board_record(r, board) and not r["f"].get("reboot_lost")]
        baseline = None
        if mine:
            boot = mine[-1]["bt"]
            baseline = {"bt": boot, "s": max(r["s"] for r in mine if r["bt"] == boot)}
        session = self._create(board, self.setup.game(), baseline)
        why = (
            f"the set-up line of the journal {old.name} is damaged ({str(err).split(': ', 2)[-1]}): that match could "
            f"not be resumed and is kept as it is, with the {len(readable)} entries that can still be read; a new "
            "match was started. Enter the score so far by hand, then type 'reviewed'"
        )
        session.hold(why, {"hold": "damage", "line": 1, "journal": str(old)})
        log.warning("board %s: %s", board, why)
        self.recent.append({"at": _now(), "source": f"journal {board}", "code": "damaged", "reason": why})
        self.holds["damaged_lines"] += 1
        return session

    def _unknown_board(self, board: str) -> str | None:
        """Why an entry cannot be for `board`, or None. Without a list of boards, an entry does not make a board: a
        mistyped id (`tabel-1`) would otherwise open a phantom board with a journal of its own, a place on every
        screen and its own retained documents. A board is known by its list, its game or its journal; an operator
        admits a new one on purpose with a `new` request."""
        if self.boards is not None or board in self.games or self._journals_of(board):
            return None
        known = sorted(self.games)
        with contextlib.suppress(OSError):
            known = sorted({*self.games, *(p.name for p in self.journals.iterdir() if p.is_dir())})
        near = near_miss(board, known) if known else None
        hint = f"; did you mean {near!r}?" if near else (f" (boards: {', '.join(known[:8])})" if known else "")
        return f"no game on board {board!r}: start one with a new match, or check the board id{hint}"

    def _journals_of(self, board: str) -> list[Path]:
        folder = self.journals / board
        return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []

    def _make_room(self) -> None:
        """At most MAX_OPEN journals open: close the least recently used board with nothing held in memory (it is
        resumed from its journal at its next message)."""
        if len(self.games) < MAX_OPEN:
            return
        idle = [
            bg
            for bg in self.games.values()
            if not bg.early and (self._batch is None or bg.board not in self._batch.sessions)
        ]
        if not idle:
            raise BridgeError(f"{MAX_OPEN} boards' journals are open and none can be closed now")
        self._close_game(min(idle, key=lambda bg: bg.used), "to make room for another board")

    def _close_game(self, bg: BoardGame, why: str) -> None:
        log.info("board %s: journal closed %s (it is resumed at the board's next message)", bg.board, why)
        bg.session.close()
        del self.games[bg.board]
        self.tracker.forget(bg.board)
        self._health_dirty = True

    def _create(
        self, board: str, game: AnyGame, baseline: dict[str, int] | None = None, rid: str | None = None
    ) -> Session:
        folder = self.journals / board
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{_stamp()}.jsonl"
            extra: dict[str, Any] = {"board": board}
            if baseline:
                extra["delivery"] = baseline
            if rid is not None:  # the `new` request that opened it: the same request again opens nothing more
                extra["rid"] = rid
            session = Session.create(str(path), game, extra=extra)
        except (OSError, JournalError) as e:
            raise BridgeError(f"board {board}: cannot start a journal in {folder}: {e}") from None
        log.info("board %s: new %s match %s -> %s", board, game.name, " v ".join(games.side_names(game)), path)
        return session

    def _restore(self, bg: BoardGame) -> None:
        """Rebuild the board's delivery state from its journal: what was journaled is received and acked. A damaged
        line counts too: for what it seems to say when it still parses, and in any case as the seq it stands for
        (`Tracker.settle`); it was acked before it was damaged."""
        saved = self.tracker.counters
        self.tracker.counters = protocol.Counters()
        journal = bg.session.journal
        base = journal.header.get("delivery")
        if isinstance(base, dict) and base.get("s", 0) > 0:
            self.tracker.restore(bg.board, int(base["bt"]), int(base["s"]))
        records: Iterable[tuple[dict[str, Any], bool]] = ((r, False) for r in journal.stream())
        if journal.damaged:  # (record, damaged): what a damaged line seems to say, in its place
            seen = [(d.seen, True) for d in journal.damaged if d.seen is not None and _board_record(d.seen, bg.board)]
            records = sorted([*records, *seen], key=lambda x: x[0]["n"] if type(x[0].get("n")) is int else 0)
        refused = {n for n, _, _ in bg.session.fold.rejected}
        for r, damaged in records:
            if isinstance(r.get("rid"), str) and not damaged:  # the requests already entered (one pass over the file)
                bg.requests[r["rid"]] = (r["n"], r["n"] not in refused)
            if r.get("src") == "bridge":
                self._restore_hold(bg, r)
                continue
            if not _board_record(r, bg.board) or r["f"].get("reboot_lost"):
                continue
            seq = r["s"]
            if damaged:
                # Its place says more than its digits: the bridge journals a boot's events in order, so an event of
                # the current boot on a damaged line was that boot's next seq, whatever seq a flipped digit now shows
                # (trusting it would ack what never came). A gap, or another boot, cannot be placed: left out.
                if r["m"] == "gap" or r["bt"] != self.tracker.boot_of(bg.board):
                    continue
                seq = self._next_seq(bg, r["bt"])
            msg = BoardMessage(bg.board, r["bt"], seq, r.get("t", 0), r["m"], r["f"], r["m"] != "gap", "")
            self.tracker.accept(msg)
            self.tracker.processed(msg)
            if msg.reliable and not damaged:
                bg.digests.setdefault(msg.boot, _Digests()).put(msg.seq, _digest(msg.kind, msg.fields, msg.t_us))
        self.tracker.settle(bg.board)
        self.tracker.counters = saved
        bg.acked = None  # the first message after a restart is answered with the ack of everything on disk

    @staticmethod
    def _restore_hold(bg: BoardGame, r: dict[str, Any]) -> None:
        if r.get("hold") == "two-boots" and isinstance(r.get("boots"), list) and len(r["boots"]) == 2:
            bg.two_boots.add((r["boots"][0], r["boots"][1]))
        elif r.get("hold") == "other-content" and _board_record({**r, "src": "board"}, bg.board):
            bg.other_content.add((r["bt"], r["s"], _digest(r["m"], r["f"], r.get("t", 0))))

    def new_game(
        self,
        board: str,
        rules: str,
        players: Iterable[str],
        match: str | None,
        target: str | None = None,
        rid: str | None = None,
    ) -> BoardGame:
        """Start a new match on the board, in a new journal (the old one stays as it is). `rid`: the id of the
        request that asked for it, kept in the new journal's set-up line."""
        with self.lock:
            game = GameSetup(rules, tuple(players), match, target).game()
            old = self.game(board)
            ack = self.tracker.ack_for(board)
            baseline = {"bt": ack[0], "s": ack[1]} if ack else None
            session = self._create(board, game, baseline, rid)
            old.session.close()
            old.session = session
            old.requests = {}
            self._health_dirty = True
            self._publish_board(old)
            return old

    def close(self) -> None:
        with self.lock:
            for bg in self.games.values():
                bg.session.close()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Messages handled inside are made durable together when it ends (one fsync per journal); their acks and
        scoreboards go out only then. Holds the bridge's lock throughout; nested batches join the outer one."""
        with self.lock:
            if self._batch is not None:
                yield
                return
            self._batch = b = _Batch()
            try:
                yield
            finally:
                self._batch = None
                self._flush(b)

    def _flush(self, b: _Batch) -> None:
        lost: set[str] = set()
        for board, session in b.sessions.items():
            try:
                session.journal.sync()
            except JournalError as e:
                lost.add(board)
                self._lost_journal(board, e)
        # Each ack and each message on its own: one that fails (a link that just went down) stops none of the others.
        for (board, boot), force in b.acks.items():
            if board not in lost and board in self.games:
                self._guarded(board, self._send_ack, self.games[board], force, boot)
        for board, bg in b.boards.items():
            if board not in lost:
                self._guarded(board, self._publish_doc, bg)
        if self.publish is not None:
            for board, topic, body in b.moments:
                if board not in lost:
                    self._guarded(board, self.publish, topic, body, 1, False)

    def _guarded(self, board: str, do: Callable[..., object], *args: Any) -> None:
        try:
            do(*args)
        except Exception as e:  # the journal is durable whatever happens here; the board resends what is not acked
            log.warning("board %s: %s failed: %s: %s", board, getattr(do, "__name__", "a send"), type(e).__name__, e)

    def _lost_journal(self, board: str, err: JournalError) -> None:
        """The batch's entries could not be made durable: none was acked, the journal cut them off and closed. The
        board's game is dropped from memory; its next message resumes the journal as it is on disk, and the board
        resends what was not acked."""
        log.error("board %s: %s", board, err)
        self.recent.append({"at": _now(), "source": f"journal {board}", "code": "journal", "reason": str(err)})
        self._health_dirty = True
        bg = self.games.pop(board, None)
        if bg is not None:
            bg.session.close()
        self.tracker.forget(board)

    # ---------------------------------------------------------------- board messages

    def serial_line(self, port: str, line: str, send_line: Callable[[str], object]) -> None:
        """One protocol line from a serial port (SerialLink's on_line)."""
        try:
            msg = protocol.decode_line(line)
        except ProtocolError as e:
            self.refused(f"serial {port}", e)
            return

        def send(cmd: dict[str, Any]) -> object:
            return send_line(protocol.encode_command(cmd))

        self.message(msg, f"serial {port}", send)

    def mqtt_payload(self, board: str, payload: bytes) -> None:
        """One payload from flickboard/<board>/raw (MqttLink's on_payload)."""
        try:
            msg = protocol.decode_payload(payload, board)
        except ProtocolError as e:
            self.refused(f"mqtt {board_topic(board, RAW)}", e)
            return
        mqtt_send = self.mqtt_send

        def send(cmd: dict[str, Any]) -> object:
            return None if mqtt_send is None else mqtt_send(board, protocol.command_payload(cmd))

        self.message(msg, "mqtt", send)

    def refused(self, source: str, err: ProtocolError) -> None:
        with self.lock:
            self.tracker.count_error(err)
            if err.is_noise:
                log.debug("%s: %s", source, err.reason)
                return
            log.warning("%s: refused (%s): %s", source, err.code, err.reason)
            self.recent.append({"at": _now(), "source": source, "code": err.code, "reason": err.reason})
            self._health_dirty = True

    def unlisted_board(self, board: str, online: bool) -> None:
        """A board on the broker that is not in this bridge's list (its retained status): flagged, not followed.
        Said once per board while it stays online; it shows in the health document until it goes offline."""
        with self.lock:
            if not online:
                if self.unlisted.pop(board, None) is not None:
                    self._health_dirty = True
                return
            if board in self.unlisted:
                return
            if len(self.unlisted) >= MAX_UNLISTED:
                self.admission["unlisted_not_shown"] += 1
                return
            self.unlisted[board] = _now()
            self.refused(
                "mqtt",
                ProtocolError(
                    f"board {board!r} is online on the broker but not in this bridge's list of boards: its events "
                    "are not followed (add it to 'boards' if it is yours)",
                    "board",
                ),
            )

    def message(self, msg: BoardMessage, via: str, send: Callable[[dict[str, Any]], object]) -> None:
        """A decoded board message: de-duplicate, journal, fold, ack, publish. Never raises: a journal that cannot
        be written is logged in one line and the message is not acked, so the board keeps it and resends it."""
        try:
            self._message(msg, via, send)
        except BridgeError as e:
            log.error("board %s: %s", msg.board, e)

    def _admit(self, msg: BoardMessage, via: str) -> bool:
        """Without a list, a board with no journal here is taken at its first valid message, MAX_NEW_BOARDS per run;
        a board beyond that is refused (counted always, said once per board), and nothing is opened for it."""
        if self.boards is not None or msg.board in self.games or self._journals_of(msg.board):
            return True
        if self.admission["new_boards"] >= MAX_NEW_BOARDS:
            why = (
                f"board {msg.board!r} is new and this bridge has already taken {MAX_NEW_BOARDS} new boards without a "
                "list of boards: add it to 'boards' to follow it"
            )
        else:
            return True
        self.admission["refused"] += 1
        err = ProtocolError(why, "board")
        if msg.board in self._said or len(self._said) >= MAX_SAID:
            self.tracker.count_error(err)
            self._health_dirty = True
        else:
            self._said.add(msg.board)
            self.refused(via, err)
        return False

    def _message(self, msg: BoardMessage, via: str, send: Callable[[dict[str, Any]], object]) -> None:
        with self.lock:
            if self.boards is not None and msg.board not in self.boards:
                self.refused(via, ProtocolError(f"board {msg.board!r} is not in this bridge's list of boards", "board"))
                return
            if not self._admit(msg, via):
                return
            bg = self.game(msg.board)
            bg.send = send
            bg.seen = bg.used = self.clock()
            if bg.via != via or (via != "mqtt" and not bg.online):
                bg.via = via
                if via != "mqtt":
                    bg.online = True  # on MQTT, the board's own retained status says it
            verdict = self.tracker.accept(msg)
            for note in verdict.notes:
                log.info("%s", note)
            self._health_dirty = True
            if verdict.conflict is not None and verdict.conflict not in bg.two_boots:
                if len(bg.two_boots) < MAX_TWO_BOOTS:
                    self._hold_two_boots(bg, msg, verdict.conflict)
                else:  # the game is on hold already, many times over: the events are journaled all the same
                    self.holds["two_boots_beyond"] += 1
            if msg.kind == "heartbeat":
                if bg.beat_at is not None:
                    bg.beat = self.clock() - bg.beat_at
                bg.beat_at = self.clock()
                if verdict.status == "new" and verdict.conflict is None:  # not a boot since replaced
                    bg.heartbeat = {"at": _now(), **{k: msg.fields[k] for k in HEARTBEAT_KEYS}}
                    bg.heartbeat_boot = msg.boot
            if msg.reliable:
                self._count_duplicates(bg, msg, verdict.status == "duplicate")
            if verdict.new and (msg.reliable or msg.kind == "gap"):
                if verdict.reboot is not None:
                    self._close_boot(bg, verdict)
                if msg.reliable and msg.seq > self._next_seq(bg, msg.boot):
                    # Ahead of a missing event: keep it until the hole is filled (or declared lost), so the game
                    # sees the board's events in the board's order. It is not acked yet; the board resends it too.
                    if not bg.early:
                        bg.early_since = self.clock()
                    if len(bg.early) < MAX_EARLY:
                        bg.early[(msg.boot, msg.seq)] = msg
                else:
                    self._process(bg, msg)
                self._process_early(bg)
            elif verdict.status != "new":
                if verdict.status == "duplicate" and msg.reliable and not self._same_content(bg, msg):
                    return  # other content that could not be journaled: not acked, so it comes again
                self._ack(bg, force=True, boot=msg.boot)  # it resends because our ack got lost: say it again
            elif msg.kind != "heartbeat" or self._heartbeat_news(bg):
                self._publish_board(bg)  # a heartbeat or reply: the link view may have changed
            if verdict.should_ping and self.clock() - bg.pinged >= PING_EVERY:
                bg.pinged = self.clock()
                send({"c": "ping"})

    def _heartbeat_news(self, bg: BoardGame) -> bool:
        """Whether the board's new heartbeat is worth a scoreboard (HEARTBEAT_EVERY, HEARTBEAT_RSSI_STEP)."""
        view = self.link_view(bg.board)
        shown = bg.shown_link
        if shown is None or self.clock() - bg.shown_at >= HEARTBEAT_EVERY:
            return True
        new, old = view.pop("heartbeat"), shown.get("heartbeat")
        if view != {k: v for k, v in shown.items() if k != "heartbeat"}:
            return True  # the link itself changed (a high-water mark above what was received)
        if new is None or old is None:
            return new is not old
        if any(new[k] != old[k] for k in ("q", "drop", "rc")):
            return True
        a, b = new["rssi"], old["rssi"]
        return (a is None) != (b is None) or (a is not None and abs(a - b) >= HEARTBEAT_RSSI_STEP)

    def _count_duplicates(self, bg: BoardGame, msg: BoardMessage, duplicate: bool) -> None:
        """Every event is a duplicate for a while (ONLY_DUPLICATES_AFTER): say it on the scoreboard, in the log (once)
        and in the health document; the first event that is not a duplicate clears it."""
        if not duplicate:
            if bg.only_duplicates:
                log.info("board %s: a new event (seq %d of boot %d) counts again after %d repeats", bg.board,
                         msg.seq, msg.boot, bg.dups)  # fmt: skip
                self._publish_board(bg)
            bg.dups, bg.dups_since, bg.only_duplicates = 0, None, False
            return
        if bg.dups == 0:
            bg.dups_at, bg.dups_since = self.clock(), _now()
        bg.dups += 1
        if bg.only_duplicates:
            self._publish_board(bg)  # the count on the scoreboard
        elif bg.dups >= ONLY_DUPLICATES_MIN and self.clock() - bg.dups_at >= ONLY_DUPLICATES_AFTER:
            bg.only_duplicates = True
            self.only_duplicates += 1
            self._health_dirty = True
            log.warning(
                "board %s: its last %d events (for %.0f s) were all repeats of events already counted: nothing it "
                "sends counts; restart the board or check its boot id (now boot %d, seq %d)",
                bg.board,
                bg.dups,
                self.clock() - bg.dups_at,
                msg.boot,
                msg.seq,
            )
            self._publish_board(bg)

    def _next_seq(self, bg: BoardGame, boot: int) -> int:
        ack = self.tracker.ack_for(bg.board, boot)
        return ack[1] + 1 if ack is not None and ack[0] == boot else 1

    def _hold(self, bg: BoardGame, kind: str, why: str, details: dict[str, Any]) -> None:
        """Put the board's game on hold for a person: journaled (in a batch, durable with it), folded as a review
        item, logged, listed in the health document and published."""
        b = self._batch
        out = self._durable(bg.session.hold, why, {"hold": kind, "board": bg.board, **details}, b is None)
        if b is not None:
            b.sessions[bg.board] = bg.session
        log.warning("board %s: ON HOLD [%d]: %s", bg.board, out.n, why)
        self.recent.append({"at": _now(), "source": f"board {bg.board}", "code": kind, "reason": why})
        self._health_dirty = True
        self._publish_board(bg, out)

    def _hold_two_boots(self, bg: BoardGame, msg: BoardMessage, pair: tuple[int, int]) -> None:
        """A message from a boot the board has restarted since: two boots of one board seem alive. Both boots'
        events are journaled; the game waits for a person once per pair of boots and journal."""
        retired, current = pair
        why = (
            f"board {bg.board} seems to have two boots alive: boot {current} said hello after boot {retired}, and "
            f"boot {retired} still sends ({msg.kind}, seq {msg.seq}). One of them may be forged or another device "
            "using this board's id. The events of both are kept in the journal; those still to come wait here. "
            "Check the board and the score, then type 'reviewed'"
        )
        self._hold(bg, "two-boots", why, {"boots": [retired, current], "bt": msg.boot, "s": msg.seq, "m": msg.kind})
        bg.two_boots.add(pair)
        self.holds["two_boots"] += 1

    def _same_content(self, bg: BoardGame, msg: BoardMessage) -> bool:
        """A resend of a journaled event: compare its content with the journaled one. Other content under the same
        seq is journaled as a hold, in full (nothing acknowledged is lost) but not applied. False when it could not
        be journaled (MAX_OTHER_CONTENT), so it is not acknowledged either."""
        known = bg.digests.get(msg.boot)
        was = known.get(msg.seq) if known is not None else 0
        if not was:
            self.holds["unchecked"] += 1
            return True
        now = _digest(msg.kind, msg.fields, msg.t_us)
        if now == was or (msg.boot, msg.seq, now) in bg.other_content:
            return True
        if len(bg.other_content) >= MAX_OTHER_CONTENT:
            self.holds["refused"] += 1
            log.warning("board %s: seq %d of boot %d again with other content: not taken", bg.board, msg.seq, msg.boot)
            return False
        sensor = msg.fields.get("n")
        what = f"{msg.kind}" + (f" of sensor {str(sensor)[:24]}" if isinstance(sensor, str) else "")
        why = (
            f"board {bg.board} sent event {msg.seq} of boot {msg.boot} twice with different content (now: {what}). "
            "One of them may be forged. The first is in the game; the other is kept in the journal here and not "
            "applied. Check the board and the score, correct it if needed, then type 'reviewed'"
        )
        details = {"bt": msg.boot, "s": msg.seq, "m": msg.kind, "f": msg.fields, "t": msg.t_us}
        self._hold(bg, "other-content", why, details)
        bg.other_content.add((msg.boot, msg.seq, now))
        self.holds["other_content"] += 1
        return True

    def _process(self, bg: BoardGame, msg: BoardMessage) -> None:
        """Journal, fold, ack, publish one board message, in the board's order."""
        out = self._record(bg, msg.boot, msg.seq, msg.kind, msg.fields, msg.t_us)
        self.tracker.processed(msg)
        if msg.reliable:
            digests = bg.digests.get(msg.boot)
            if digests is None:
                digests = bg.digests[msg.boot] = _Digests()
                for boot in [b for b in bg.digests if self.tracker.ack_for(bg.board, b) is None and b != msg.boot]:
                    del bg.digests[boot]  # boots the tracker no longer keeps
            digests.put(msg.seq, _digest(msg.kind, msg.fields, msg.t_us))
        self._ack(bg, force=False, boot=msg.boot)
        self._publish_board(bg, out)
        if out.message and msg.kind != "hello":
            log.info("%s [%d] %s: %s", msg.board, out.n, msg.kind, out.message)

    def _process_early(self, bg: BoardGame) -> None:
        for key in sorted(bg.early):  # by boot, then seq: each boot's events in its order
            boot, seq = key
            if self.tracker.ack_for(bg.board, boot) is None and boot != self.tracker.boot_of(bg.board):
                del bg.early[key]  # a boot no longer kept: its loss is recorded as a gap
                continue
            nxt = self._next_seq(bg, boot)
            if seq <= nxt:
                msg = bg.early.pop(key)
                if seq == nxt:
                    self._process(bg, msg)

    def _record(self, bg: BoardGame, boot: int, seq: int, kind: str, fields: dict[str, Any], t_us: int = 0) -> Outcome:
        """Journal and fold one board event: durably now, or (in a batch) when the batch ends."""
        b = self._batch
        out = self._durable(bg.session.record, bg.board, boot, seq, kind, fields, t_us, b is None)
        if b is not None:
            b.sessions[bg.board] = bg.session
        return out

    def _durable(self, write: Callable[..., Outcome], *args: Any) -> Outcome:
        """`write(*args)`, a journal append; a journal that cannot be written becomes a one-line BridgeError."""
        try:
            return write(*args)
        except JournalError as e:
            log.error("%s", e)
            raise BridgeError(f"the journal cannot be written: {e}") from None

    def _close_boot(self, bg: BoardGame, v: Verdict) -> None:
        """The board restarted: what its previous boot sent after a hole is journaled now, in seq order, with
        each hole that will never be filled journaled as a gap (lost evidence: a review for a person)."""
        assert v.reboot is not None
        old_boot = v.reboot[0]
        held = sorted((k[1], m) for k, m in bg.early.items() if k[0] == old_boot)
        for k in [k for k in bg.early if k[0] == old_boot]:
            del bg.early[k]
        items: list[tuple[int, tuple[int, int] | BoardMessage]] = [(a, (a, b)) for a, b in v.reboot_lost]
        items += held
        for _, item in sorted(items, key=lambda i: i[0]):
            if isinstance(item, BoardMessage):
                msg = item
                out = self._record(bg, msg.boot, msg.seq, msg.kind, msg.fields, msg.t_us)
            else:
                a, b = item
                fields = {"first": a, "last": b, "lost": b - a + 1, "reboot_lost": True}
                out = self._record(bg, old_boot, b, "gap", fields)
            self._publish_board(bg, out)

    def _give_up_waiting(self, bg: BoardGame) -> None:
        """Events held behind a hole the board does not fill (it was acked elsewhere, or its outbox lost it without
        telling): after EARLY_WAIT the hole is recorded as lost, like a board's own gap, and the rest goes on."""
        boot = self.tracker.boot_of(bg.board)
        ahead = sorted(k[1] for k in bg.early if k[0] == boot)
        if boot is None or not ahead:
            bg.early.clear()
            return
        first, last = self._next_seq(bg, boot), ahead[0] - 1
        hw = self.tracker.status()["boards"][bg.board]["high_water"]
        fields = {"first": first, "last": last, "lost": last - first + 1, "host_gave_up": True}
        gap = BoardMessage(bg.board, boot, max(hw, last), 0, "gap", fields, False, "")
        log.warning(
            "board %s: seqs %d..%d never came after %.0f s of pings: recorded as lost",
            bg.board,
            first,
            last,
            EARLY_WAIT,
        )
        if self.tracker.accept(gap).new:
            self._process(bg, gap)
        self._process_early(bg)
        bg.early_since = self.clock()

    def _ack(self, bg: BoardGame, force: bool, boot: int | None = None) -> None:
        """The cumulative ack of `boot` (None: the board's current boot): each boot is acked for its own events."""
        if boot == self.tracker.boot_of(bg.board):
            boot = None
        if self._batch is not None:  # once the batch is durable
            key = (bg.board, boot)
            self._batch.acks[key] = self._batch.acks.get(key, False) or force
            return
        self._send_ack(bg, force, boot)

    def _send_ack(self, bg: BoardGame, force: bool, boot: int | None = None) -> None:
        ack = self.tracker.ack_for(bg.board, boot)
        if ack is None or bg.send is None or (ack == bg.acked and not force):
            return
        bg.acked = ack
        try:
            bg.send(protocol.ack_command(*ack))
        except (OSError, ValueError) as e:  # the link is down: the board resends, we ack then
            log.debug("board %s: ack not sent: %s", bg.board, e)

    def board_state(self, board: str, online: bool) -> None:
        """The board's retained MQTT status, or its serial port going up or down."""
        with self.lock:
            if self.boards is None and board not in self.games and not self._journals_of(board):
                # Its status alone opens no journal (anyone can publish one); a ping makes a real board resend what
                # is not acked, and its first message is taken as any new board's.
                if online and self.mqtt_send is not None:
                    self.mqtt_send(board, protocol.command_payload({"c": "ping"}))
                return
            try:
                bg = self.game(board)
            except BridgeError as e:
                log.warning("%s", e)
                return
            if bg.online != online:
                bg.online = online
                self._health_dirty = True
                log.info("board %s: %s", board, "online" if online else "offline")
                self._publish_board(bg)
            if online and bg.via in (None, "mqtt") and self.mqtt_send is not None:
                # It may have sent events before we listened: a ping makes it resend everything not acked.
                bg.pinged = self.clock()
                self.mqtt_send(board, protocol.command_payload({"c": "ping"}))

    def link_state(self, kind: str, name: str, connected: bool, reason: str) -> None:
        with self.lock:
            self.links[f"{kind} {name}"] = {"connected": connected, "reason": reason, "at": _now()}
            self._health_dirty = True
            if kind == "serial":
                for bg in self.games.values():
                    if bg.via == f"serial {name}" and bg.online != connected:
                        bg.online = connected
                        self._publish_board(bg)
            elif kind == "mqtt" and connected:
                for bg in self.games.values():  # a broker that restarted without persistence lost the retained docs
                    self._publish_board(bg)

    # ---------------------------------------------------------------- manual entries

    def submit(self, board: str, text: str, source: str = "manual", rid: str | None = None) -> Outcome:
        """A manual entry for the board's game: journaled, judged, published. Refused entries are journaled too.
        `rid`: the request id; an id already journaled is not entered again (a resent request)."""
        with self.lock:
            bg = self.game(board)
            bg.used = self.clock()
            if rid is not None and rid in bg.requests:
                n, ok = bg.requests[rid]
                return Outcome(n, ok, f"already entered as entry {n} (request {rid!r} was sent again)")
            out = self._durable(bg.session.submit, text, "sensor" if source == "sensor" else "manual", rid)
            if rid is not None and out.n:
                bg.requests[rid] = (out.n, out.accepted)
            if out.n:
                self.inputs["accepted" if out.accepted else "refused"] += 1
                self._health_dirty = True
            self._publish_board(bg, out)
            return out

    def mqtt_input(self, board: str, payload: bytes) -> dict[str, Any]:
        """A request on flickboard/<board>/input (docs/mqtt.md); the answer goes to flickboard/<board>/result."""
        result = self._input(board, payload)
        result["board"] = board
        if self.publish is not None:
            self.publish(board_topic(board, RESULT), json.dumps(result).encode(), 1, False)
        return result

    def _input(self, board: str, payload: bytes) -> dict[str, Any]:
        def invalid(reason: str, rid: object = None) -> dict[str, Any]:
            with self.lock:
                self.inputs["invalid"] += 1
                self.recent.append(
                    {"at": _now(), "source": f"mqtt {board_topic(board, INPUT)}", "code": "input", "reason": reason}
                )
                self._health_dirty = True
            log.warning("board %s: input refused: %s", board, reason)
            return {"id": rid, "ok": False, "entry": None, "message": reason}

        problem = board_problem(board)
        if problem:
            return invalid(problem)
        if self.boards is not None and board not in self.boards:
            return invalid(f"board {board!r} is not in this bridge's list of boards")
        try:
            req = read_request(payload)
        except RequestError as e:
            return invalid(str(e), e.rid)
        rid = req.rid
        if req.line is not None:
            unknown = self._unknown_board(board)
            if unknown:
                return invalid(unknown, rid)
            try:
                out = self.submit(board, req.line, rid=None if rid is None else f"{type(rid).__name__}:{rid}")
            except BridgeError as e:
                return invalid(str(e), rid)
            if out.n == 0:
                return invalid("a blank line is not an entry", rid)
            return {"id": rid, "ok": out.accepted, "entry": out.n, "message": out.message}
        new = req.new or {}
        rules, players = new.get("rules", self.setup.rules), new["players"]
        match, target = new.get("match"), new.get("target")
        key = None if rid is None else f"{type(rid).__name__}:{rid}"
        try:
            with self.lock:
                # A resent `new` (its answer was lost; the bridge restarted in between) opened the board's match
                # already: answer as the first time, open nothing more.
                current = self.game(board)  # the board's latest journal, read again after a restart
                again = key is not None and current.session.journal.header.get("rid") == key
                bg = current if again else self.new_game(board, rules, players, match, target, key)
        except BridgeError as e:
            return invalid(str(e), rid)
        what = "match" if bg.session.game.name == "pichenotte" else f"{games.title(bg.session.game.name)} game"
        return {"id": rid, "ok": True, "entry": 0, "message": f"new {what}: {bg.session.journal.path}"}

    # ---------------------------------------------------------------- output

    def link_view(self, board: str) -> dict[str, Any]:
        bg = self.games[board]
        st = self.tracker.board_status(board)
        view: dict[str, Any] = {"online": bg.online, "via": bg.via}
        if st is not None:
            view.update(
                boot=st["boot"],
                processed=st["processed"],
                high_water=st["high_water"],
                in_sync=st["processed"] >= st["high_water"] and not st["missing"],
                missing=st["missing"],
            )
        view["only_duplicates"] = {"since": bg.dups_since, "count": bg.dups} if bg.only_duplicates else None
        current = st is not None and bg.heartbeat_boot == st["boot"]  # a heartbeat of an earlier boot is not shown
        view["heartbeat"] = dict(bg.heartbeat) if current and bg.heartbeat is not None else None
        return view

    def scoreboard(self, board: str) -> dict[str, Any]:
        with self.lock:
            bg = self.game(board)
            return scoreboard_doc(board, bg.session, self.link_view(board), _now(), self.bridge_id)

    def _publish_board(self, bg: BoardGame, out: Outcome | None = None) -> None:
        """The board's scoreboard, and the scoring moments of `out`; in a batch, once it is durable (one
        scoreboard per board, every moment in order)."""
        if self.publish is None:
            return
        said = [] if out is None or not out.accepted else moments(bg.board, bg.session.game, out)
        topic = board_topic(bg.board, EVENTS)
        if self._batch is not None:
            self._batch.boards[bg.board] = bg
            self._batch.moments += [(bg.board, topic, _dumps(m).encode()) for m in said]
            return
        self._publish_doc(bg)
        for m in said:
            self.publish(topic, _dumps(m).encode(), 1, False)

    def _publish_doc(self, bg: BoardGame) -> None:
        if self.publish is not None:
            link = self.link_view(bg.board)
            doc = scoreboard_doc(bg.board, bg.session, link, _now(), self.bridge_id)
            bg.shown_link, bg.shown_at = link, self.clock()
            self.publish(board_topic(bg.board, SCOREBOARD), _dumps(doc).encode(), 1, True)

    def health(self) -> dict[str, Any]:
        with self.lock:
            links = {name: dict(v) for name, v in self.links.items()}
            for name, counters in self.link_counters.items():
                links.setdefault(name, {}).update(counters())
            return {
                "format": HEALTH_FORMAT,
                "version": 1,
                "bridge": self.bridge_id,
                "updated": _now(),
                "started": self.started,
                "protocol": self.tracker.status(),
                "inputs": dict(self.inputs),
                "recent_errors": list(self.recent),
                "unlisted_boards": dict(sorted(self.unlisted.items())),
                "links": links,
                "holds": dict(self.holds),
                "admission": dict(self.admission),
                "only_duplicates": {
                    "boards": sorted(b for b, bg in self.games.items() if bg.only_duplicates),
                    "times": self.only_duplicates,
                },
                "boards": {
                    b: {
                        "journal": bg.session.journal.path,
                        "entries": bg.session.journal.count,
                        "needs_review": bool(bg.session.fold.review),
                        "review": [t for _, t in bg.session.fold.review],
                        "damaged_lines": [
                            {"line": d.line, "reason": d.reason, "saved_to": d.saved_to}
                            for d in bg.session.journal.damaged
                        ],
                        "online": bg.online,
                        "via": bg.via,
                        "only_duplicates": bg.only_duplicates,
                    }
                    for b, bg in sorted(self.games.items())
                },
            }

    def tick(self) -> None:
        """Call a few times a second: pings a board whose events are missing (it resends them), and publishes the
        health document when something changed."""
        with self.lock:
            for bg in [bg for bg in self.games.values() if self.boards is None or bg.board not in self.boards]:
                if self.clock() - bg.used > IDLE_CLOSE and not bg.early:
                    self._close_game(bg, f"after {IDLE_CLOSE:.0f} s without a message or an entry")
                    self.admission["closed_idle"] += 1
            boards = self.tracker.status()["boards"]
            for b, bg in self.games.items():
                serial = bg.via is not None and bg.via.startswith("serial")
                silence = max(SERIAL_SILENCE, 3.5 * bg.beat)  # three heartbeats missed, whatever their period
                if bg.online and serial and self.clock() - bg.seen > silence:
                    bg.online = False  # no heartbeat: the board hangs, or the port is dead without an error
                    self._health_dirty = True
                    log.warning("board %s: nothing heard for %.0f s on %s", b, silence, bg.via)
                    self._publish_board(bg)
                if bg.early and self.clock() - bg.early_since > EARLY_WAIT:
                    try:
                        self._give_up_waiting(bg)
                    except BridgeError as e:
                        log.error("board %s: %s", b, e)
                st = boards.get(b)
                lagging = st is not None and (st["missing"] or st["processed"] < st["high_water"])
                if lagging and bg.send is not None and self.clock() - bg.pinged >= 2 * PING_EVERY:
                    bg.pinged = self.clock()
                    try:
                        bg.send({"c": "ping"})
                    except (OSError, ValueError) as e:
                        log.debug("board %s: ping not sent: %s", b, e)
            if self.publish is None or not self._health_dirty:
                return
            self._health_dirty = False
            doc = self.health()
        body = json.dumps(doc).encode()
        self.publish(self.health_topic, body, 1, True)
        self.publish(BRIDGE_HEALTH, body, 1, True)  # deprecated: the shared topic (host/mqtt.py)


def _board_record(r: dict[str, Any], board: str) -> bool:
    """A board-event record of `board` with the envelope the delivery state needs."""
    return (
        r.get("src") == "board"
        and r.get("board") == board
        and type(r.get("bt")) is int
        and type(r.get("s")) is int
        and isinstance(r.get("m"), str)
        and isinstance(r.get("f"), dict)
        and type(r.get("t", 0)) is int
    )
