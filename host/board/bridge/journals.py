"""The bridge's journals, one folder per board (`<journals>/<board>/`, one journal per match): the base of the bridge.

`Journals` opens a board's game (the one in memory, else its newest journal resumed, else a new one from the
bridge's set-up), rebuilds from the journal what the board delivered (so a bridge killed and restarted counts nothing
twice and acks where it left off) and, from the journals of its earlier matches, the boots, events and request ids
they hold (so a copy the broker hands over again is known in any match), keeps at most MAX_OPEN journals open (the
least recently used idle one is closed first), and journals each event durably, or with its batch (output.py). A
damaged line is said and held for a person, never a reason to stop the board (docs/journal.md); a damaged set-up line
starts a new match beside the old journal.
It holds the state every part of the bridge shares: the lock, the delivery tracker, the games, the recent problems.
"""

from __future__ import annotations

import collections
import contextlib
import datetime
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flickboard.board import protocol
from flickboard.board.bridge.admission import Admission, full_text
from flickboard.board.bridge.board_game import BoardGame, BridgeError, GameSetup
from flickboard.board.bridge.digests import Digests, digest
from flickboard.board.protocol import BoardMessage, ProtocolError, Tracker
from flickboard.config import board_problem
from flickboard.core.journal import HeaderDamaged, JournalError, salvage
from flickboard.core.journal import read as journal_read
from flickboard.core.session import Outcome, Session, fold_records, game_of, now_stamp
from flickboard.rules import games
from flickboard.rules.games import AnyGame

log = logging.getLogger("flickboard.bridge")

MAX_HEARD = 1024  # boards whose status was heard before their journal was opened (the oldest forgotten first)
MAX_OPEN = 128  # boards' journals open at once (two files each): the least recently used idle one is closed first
IDLE_CLOSE = 900.0  # s: a journal with no message and no entry this long is closed (boards not on the list)
# Exactly once across matches (docs/reliability.md, "What the broker may hand over again"): when a board's game is
# opened, its REMEMBER_MATCHES journals before the newest are read back too, so a request id or a board event they
# hold is known as already entered, whatever match is being played now and however often the bridge restarted.
# At most REMEMBER_MATCHES journals, and no more than REMEMBER_BYTES of them once the one just before is read (it always
# is): about 25,000 board events, read back in about a second when the game opens, however long the matches were.
REMEMBER_MATCHES = 8
REMEMBER_BYTES = 4 << 20

_now = now_stamp


def _stamp() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")


@dataclass
class Batch:
    """What a batch owes once its journals are synced: acks ((board, boot) -> forced), scoreboards, moments in
    order (output.py)."""

    sessions: dict[str, Session] = field(default_factory=dict)
    acks: dict[tuple[str, int | None], bool] = field(default_factory=dict)
    boards: dict[str, BoardGame] = field(default_factory=dict)
    moments: list[tuple[str, str, bytes]] = field(default_factory=list)  # (board, topic, payload)


class Journals:
    """Each board's game and journal, and the state the bridge's parts share (one lock serialises them all)."""

    def __init__(
        self, journals: str | Path, setup: GameSetup, boards: Iterable[str] | None, clock: Callable[[], float]
    ) -> None:
        self.journals = Path(journals)
        self.setup = setup
        setup.game()  # refuse a bad set-up now, not at the first event
        self.admission = Admission(boards)
        self.boards = self.admission.boards
        self.clock = clock
        self.lock = threading.RLock()
        self.tracker = Tracker()
        self.games: dict[str, BoardGame] = {}
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=20)
        # Holds for a person (docs/reliability.md): two boots of one board alive, a taken seq with other content,
        # damaged journal lines; `unchecked`: resends whose content is no longer held to compare; `refused`: other
        # content beyond MAX_OTHER_CONTENT per match (not journaled, not acked). (holds.py)
        self.holds = {
            "two_boots": 0,
            "two_boots_beyond": 0,
            "other_content": 0,
            "damaged_lines": 0,
            "unchecked": 0,
            "refused": 0,
        }
        # A board's latest retained status heard before its game was opened here (its status opens nothing): taken
        # as the board's link state when its first message or entry opens the game (messages.py, board_state).
        self.heard: dict[str, bool] = {}
        # Copies of what is already in a journal, dropped (docs/reliability.md): `events`, board events of an earlier
        # boot with the same content; `entries`, requests whose id an earlier match of the board holds.
        self.redelivered = {"events": 0, "entries": 0}
        self._said_redelivered: set[tuple[str, int]] = set()  # (board, boot) whose copies were said once
        self._health_dirty = True
        self._batch: Batch | None = None

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
                if existing and _unfinished(existing[-1]):
                    self._set_aside_unfinished(board, existing.pop())
                if not existing and self.admission.full:
                    raise BridgeError(full_text(board))
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
                        self._note(f"journal {board}", "damaged", said)
                        self.holds["damaged_lines"] += 1
                    torn = session.journal.torn.message() if session.journal.torn else None
                    if torn:  # the bridge stopped while writing an entry it had not acknowledged
                        log.warning("board %s: %s", board, torn)
                        self._note(f"journal {board}", "torn", torn)
                    log.info("board %s: resumed %s (%d entries)", board, existing[-1], session.journal.count)
                else:
                    session = self._create(board, self.setup.game())
                    self.admission.counts["new_boards"] += 1
                bg = self.games[board] = BoardGame(board, session)
                bg.used = self.clock()
                heard = self.heard.pop(board, None)
                if heard is not None:  # its own status said it before anything opened its game: on MQTT
                    bg.online, bg.via = heard, "mqtt"
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
        mine = [r for r in readable if board_record(r, board) and not r["f"].get("reboot_lost")]
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
        self._note(f"journal {board}", "damaged", why)
        self.holds["damaged_lines"] += 1
        return session

    def _set_aside_unfinished(self, board: str, path: Path) -> None:
        """A journal whose set-up line was never written whole: the bridge stopped while it created it (a `new`
        killed midway). Nothing in it was answered or acked, so the match before it goes on, and the `new` request,
        not acknowledged to the broker either, comes again. The file is kept beside, renamed, and the fact said."""
        aside = path.with_name(path.name + ".unfinished")
        try:
            path.rename(aside)
        except OSError as e:
            raise BridgeError(f"board {board}: {path} was never finished and cannot be set aside: {e}") from None
        said = (
            f"the journal {path.name} was being created when the bridge stopped (no complete set-up line): set aside "
            f"as {aside.name}; the match before it goes on"
        )
        log.warning("board %s: %s", board, said)
        self._note(f"journal {board}", "unfinished", said)

    def _journals_of(self, board: str) -> list[Path]:
        folder = self.journals / board
        return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []

    def _known(self, board: str) -> bool:
        """A board this bridge knows: on its list, in memory, or with a journal here."""
        return self.boards is not None or board in self.games or bool(self._journals_of(board))

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

    def _close_idle(self) -> None:
        """Close the journals of boards not on the list that had no message and no entry for IDLE_CLOSE."""
        for bg in [bg for bg in self.games.values() if self.boards is None or bg.board not in self.boards]:
            if self.clock() - bg.used > IDLE_CLOSE and not bg.early:
                self._close_game(bg, f"after {IDLE_CLOSE:.0f} s without a message or an entry")
                self.admission.counts["closed_idle"] += 1

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

    def close(self) -> None:
        with self.lock:
            for bg in self.games.values():
                bg.session.close()

    # ---------------------------------------------------------------- what the board delivered

    def _restore(self, bg: BoardGame) -> None:
        """Rebuild the board's delivery state from its journal: what was journaled is received and acked. A damaged
        line counts too: for what it seems to say when it still parses, and in any case as the seq it stands for
        (`Tracker.settle`); it was acked before it was damaged."""
        saved = self.tracker.counters
        self.tracker.counters = protocol.Counters()
        journal = bg.session.journal
        for path in self._earlier(bg.board, journal.path):
            self._read_earlier(bg, path)
        base = journal.header.get("delivery")
        if isinstance(base, dict) and base.get("s", 0) > 0:
            self.tracker.restore(bg.board, int(base["bt"]), int(base["s"]))
        records: Iterable[tuple[dict[str, Any], bool]] = ((r, False) for r in journal.stream())
        if journal.damaged:  # (record, damaged): what a damaged line seems to say, in its place
            seen = [(d.seen, True) for d in journal.damaged if d.seen is not None and board_record(d.seen, bg.board)]
            records = sorted([*records, *seen], key=lambda x: x[0]["n"] if type(x[0].get("n")) is int else 0)
        refused = {n for n, _, _ in bg.session.fold.rejected}
        last_boot: int | None = None  # the boot of the newest board event: the one that still sends
        for r, damaged in records:
            if isinstance(r.get("rid"), str) and not damaged:  # the requests already entered (one pass over the file)
                bg.requests[r["rid"]] = (r["n"], r["n"] not in refused)
            if r.get("src") == "bridge":
                _restore_hold(bg, r)
                continue
            if not board_record(r, bg.board) or r["f"].get("reboot_lost"):
                continue
            if r["m"] != "gap" and not damaged:
                last_boot = r["bt"]
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
                bg.digests.setdefault(msg.boot, Digests()).put(msg.seq, digest(msg.kind, msg.fields, msg.t_us))
            elif not damaged:
                bg.remember_gap(msg.boot, msg.seq, digest(msg.kind, msg.fields, msg.t_us))
        self.tracker.settle(bg.board)
        self.tracker.counters = saved
        bg.last_boot = last_boot
        if last_boot is not None and not self._two_boots_pending(bg):
            self.tracker.reinstate(bg.board, last_boot)  # two boots reviewed: the one that still sends is the board's
        bg.acked = None  # the first message after a restart is answered with the ack of everything on disk

    def _earlier(self, board: str, newest: str) -> list[Path]:
        """The board's journals before `newest` that are read back (REMEMBER_MATCHES, REMEMBER_BYTES), oldest first."""
        taken: list[Path] = []
        size = 0
        for p in reversed([p for p in self._journals_of(board) if str(p) != newest][-REMEMBER_MATCHES:]):
            with contextlib.suppress(OSError):
                size += p.stat().st_size
            if taken and size > REMEMBER_BYTES:
                break
            taken.append(p)
        return taken[::-1]

    def _read_earlier(self, bg: BoardGame, path: Path) -> None:
        """What an earlier match of the board holds: its board events (their boots, seqs and content, as if this
        bridge had never stopped) and its request ids (with the entry each made and whether it was accepted)."""
        try:
            snap = journal_read(str(path), damaged_ok=True)
        except (JournalError, OSError, ValueError) as e:
            log.warning("board %s: an earlier journal could not be read back (%s): its ids are not known", bg.board, e)
            return
        rids = [(r["rid"], r["n"]) for r in snap.records if isinstance(r.get("rid"), str) and type(r.get("n")) is int]
        refused: set[int] = set()
        if rids:
            try:
                refused = {n for n, _, _ in fold_records(game_of(snap.header, str(path)), snap.records).rejected}
            except Exception as e:  # a match this bridge cannot fold any more: the ids are still known
                log.warning("board %s: %s could not be folded again (%s)", bg.board, path.name, e)
        if isinstance(snap.header.get("rid"), str):
            bg.remember_request(snap.header["rid"], path.name, 0, True)
        for rid, n in rids:
            bg.remember_request(rid, path.name, n, n not in refused)
        for r in snap.records:
            if not board_record(r, bg.board) or r["f"].get("reboot_lost"):
                continue
            msg = BoardMessage(bg.board, r["bt"], r["s"], r.get("t", 0), r["m"], r["f"], r["m"] != "gap", "")
            self.tracker.accept(msg)
            self.tracker.processed(msg)
            if msg.reliable:
                bg.digests.setdefault(msg.boot, Digests()).put(msg.seq, digest(msg.kind, msg.fields, msg.t_us))
            else:
                bg.remember_gap(msg.boot, msg.seq, digest(msg.kind, msg.fields, msg.t_us))

    def _two_boots_pending(self, bg: BoardGame) -> bool:
        """Whether a two-boots hold still waits for a person in the board's game."""
        return any(n in bg.two_boots_at for n, _ in bg.session.fold.review)

    def _next_seq(self, bg: BoardGame, boot: int) -> int:
        ack = self.tracker.ack_for(bg.board, boot)
        return ack[1] + 1 if ack is not None and ack[0] == boot else 1

    # ---------------------------------------------------------------- writing

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

    # ---------------------------------------------------------------- what went wrong, for the health document

    def _note(self, source: str, code: str, reason: str) -> None:
        """One of the recent problems the health document lists."""
        self.recent.append({"at": _now(), "source": source, "code": code, "reason": reason})

    def refused(self, source: str, err: ProtocolError) -> None:
        """A board message or a board refused: counted, logged (noise at debug level only) and listed."""
        with self.lock:
            self.tracker.count_error(err)
            if err.is_noise:
                log.debug("%s: %s", source, err.reason)
                return
            log.warning("%s: refused (%s): %s", source, err.code, err.reason)
            self._note(source, err.code, err.reason)
            self._health_dirty = True


def _unfinished(path: Path) -> bool:
    """A journal file with no complete line: its creation (one write of the set-up line) never finished."""
    try:
        with path.open("rb") as f:
            return b"\n" not in f.read(1 << 16)
    except OSError:
        return False


def _restore_hold(bg: BoardGame, r: dict[str, Any]) -> None:
    """A hold journaled by the bridge (holds.py): the pair of boots or the content already held is not held again."""
    if r.get("hold") == "two-boots" and isinstance(r.get("boots"), list) and len(r["boots"]) == 2:
        bg.two_boots.add((r["boots"][0], r["boots"][1]))
        if type(r.get("n")) is int:
            bg.two_boots_at.add(r["n"])
    elif r.get("hold") == "other-content" and board_record({**r, "src": "board"}, bg.board):
        bg.other_content.add((r["bt"], r["s"], digest(r["m"], r["f"], r.get("t", 0))))


def board_record(r: dict[str, Any], board: str) -> bool:
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
