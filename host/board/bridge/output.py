"""What the bridge sends once it is durable: the acks to the boards, and the scoreboards and scoring moments on MQTT.

An ack goes only after the event is on disk, so an acknowledged event is never lost. Under a flood the links hand
over what has arrived in one go (`batch`, group commit): each message is journaled and folded at once, then one fsync
per journal makes them all durable, and only then does each board get one ack (the highest) and one scoreboard,
and every moment in order. A lone event is its own batch, so its latency does not change. A batch whose journal
cannot be synced acks nothing: the board resends, and its game is resumed from the journal as it is on disk.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from flickboard.board import protocol
from flickboard.board.bridge.board_game import BoardGame, GameSetup
from flickboard.board.bridge.journals import Batch, Journals
from flickboard.core.journal import JournalError
from flickboard.core.scoreboard import moments, scoreboard_doc
from flickboard.core.session import Outcome, now_stamp
from flickboard.jsontext import compact
from flickboard.mqtt import DEFAULT_BRIDGE_ID, EVENTS, HEALTH, SCOREBOARD, board_topic, bridge_topic

log = logging.getLogger("flickboard.bridge")
_dumps = compact  # moments and scoreboards (flickboard/jsontext.py)
_now = now_stamp

Publish = Callable[[str, bytes, int, bool], None]  # topic, payload, qos, retain


class Output(Journals):
    """The bridge's journals (journals.py), with what goes out once they are durable."""

    def __init__(
        self,
        journals: str | Path,
        setup: GameSetup,
        boards: Iterable[str] | None = None,
        publish: Publish | None = None,
        clock: Callable[[], float] = time.monotonic,
        bridge_id: str = DEFAULT_BRIDGE_ID,
    ) -> None:
        self.bridge_id = bridge_id
        self.health_topic = bridge_topic(bridge_id, HEALTH)  # raises ValueError for a bad id
        super().__init__(journals, setup, boards, clock)
        self.publish = publish

    # ---------------------------------------------------------------- batches

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Messages handled inside are made durable together when it ends (one fsync per journal); their acks and
        scoreboards go out only then. Holds the bridge's lock throughout; nested batches join the outer one."""
        with self.lock:
            if self._batch is not None:
                yield
                return
            self._batch = b = Batch()
            try:
                yield
            finally:
                self._batch = None
                self._flush(b)

    def _flush(self, b: Batch) -> None:
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
        self._note(f"journal {board}", "journal", str(err))
        self._health_dirty = True
        bg = self.games.pop(board, None)
        if bg is not None:
            bg.session.close()
        self.tracker.forget(board)

    # ---------------------------------------------------------------- acks

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

    # ---------------------------------------------------------------- scoreboards and moments

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
