"""Holds for a person (docs/reliability.md): when what a board sends cannot be trusted as it is, the game waits.

Two boots of one board alive (a message from a boot the board has restarted since), and a sequence number already
taken coming again with other content (a forged event sent ahead of the real one, or another device with this
board's id), each put the game on hold: the hold is journaled (in a batch, durable with it), folded as a review item,
logged, listed in the health document and published. Nothing acknowledged is lost: both boots' events are journaled,
and other content is journaled whole but not applied. A match holds at most MAX_TWO_BOOTS pairs of boots and
MAX_OTHER_CONTENT events of other content; beyond, they are counted (and other content is neither journaled nor acked,
so it comes again). A copy of an earlier boot's event that the journals hold with the same content is no such sign:
it is dropped and counted (`redelivered`), never held. Once a person has reviewed two boots alive, the boot that still
sends is the board's boot again.
"""

from __future__ import annotations

import logging
from typing import Any

from flickboard.board.bridge.board_game import BoardGame
from flickboard.board.bridge.digests import digest
from flickboard.board.bridge.output import Output
from flickboard.board.protocol import BoardMessage

log = logging.getLogger("flickboard.bridge")

MAX_OTHER_CONTENT = 1024  # events with a taken seq but other content journaled per match; beyond, refused unacked
MAX_TWO_BOOTS = 64  # two-boots holds per match (a forger may change its boot id at every message); beyond, counted


class Holds(Output):
    """The bridge's journals and output (output.py), with the holds for a person."""

    def _hold(self, bg: BoardGame, kind: str, why: str, details: dict[str, Any]) -> int:
        """Put the board's game on hold for a person: journaled (in a batch, durable with it), folded as a review
        item, logged, listed in the health document and published."""
        b = self._batch
        out = self._durable(bg.session.hold, why, {"hold": kind, "board": bg.board, **details}, b is None)
        if b is not None:
            b.sessions[bg.board] = bg.session
        log.warning("board %s: ON HOLD [%d]: %s", bg.board, out.n, why)
        self._note(f"board {bg.board}", kind, why)
        self._health_dirty = True
        self._publish_board(bg, out)
        return out.n

    def _check_boots(self, bg: BoardGame, msg: BoardMessage, conflict: tuple[int, int] | None) -> None:
        """The tracker found two boots of the board alive (`conflict`: retired, current): held once per pair of
        boots and journal, up to MAX_TWO_BOOTS; beyond, counted (the events are journaled all the same)."""
        if conflict is None or conflict in bg.two_boots:
            return
        if len(bg.two_boots) < MAX_TWO_BOOTS:
            self._hold_two_boots(bg, msg, conflict)
        else:  # the game is on hold already, many times over
            self.holds["two_boots_beyond"] += 1

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
        n = self._hold(bg, "two-boots", why, {"boots": [retired, current], "bt": msg.boot, "s": msg.seq, "m": msg.kind})
        bg.two_boots.add(pair)
        bg.two_boots_at.add(n)
        self.holds["two_boots"] += 1

    def _redelivered(self, bg: BoardGame, msg: BoardMessage) -> bool:
        """A copy of an event of an earlier boot that the journal already holds, with the same content: the broker
        handing over again what it had delivered (a restart from its last autosave, a QoS 1 resend). Dropped and
        counted (`redelivered`), said once per boot in one line; it raises no hold, since it says nothing about a
        boot being alive. The current boot's copies are the tracker's plain duplicates (acked again); a copy with
        other content, or an event the journal does not hold, goes on to the checks that hold the game."""
        if msg.boot == self.tracker.boot_of(bg.board):
            return False
        now = digest(msg.kind, msg.fields, msg.t_us)
        if msg.reliable:
            known = bg.digests.get(msg.boot)
            if known is None or known.get(msg.seq) != now:
                return False
        elif msg.kind == "gap":
            if (msg.boot, msg.seq, now) not in bg.gaps:
                return False
        elif msg.kind == "reply":
            # A reply (to a ping; QoS 1, so queued and kept by the broker) carries the boot's seq as it was: one no
            # later than what the boot is known to have sent is a copy of an old one; later, the boot is alive (held
            # as two boots). A heartbeat is QoS 0, never queued or kept: one of an earlier boot is that boot alive.
            ack = self.tracker.ack_for(bg.board, msg.boot)
            if ack is None or msg.seq > ack[1]:
                return False
        else:
            return False
        self.redelivered["events"] += 1
        self._health_dirty = True
        if (bg.board, msg.boot) not in self._said_redelivered and len(self._said_redelivered) < 4096:
            self._said_redelivered.add((bg.board, msg.boot))
            what = "with the content already journaled" if msg.reliable or msg.kind == "gap" else "from before its end"
            said = (
                f"board {bg.board}: {msg.kind} seq {msg.seq} of boot {msg.boot}, an earlier boot, came again {what} "
                "(the broker handed it over again): dropped, counted as redelivered"
            )
            log.info("%s", said)
            self._note(f"board {bg.board}", "redelivered", said)
        if msg.reliable and self.tracker.ack_for(bg.board, msg.boot) is not None:
            self._ack(bg, force=True, boot=msg.boot)  # a board still on that boot resends because an ack was lost
        return True

    def _reinstate_after_review(self, bg: BoardGame, boot: int | None) -> None:
        """Two boots alive, reviewed by a person: the boot that sent the board's latest event is the board's boot
        again (shown on the scoreboard, pinged for its missing events), the other one retired. A forger that speaks
        again is a new pair of boots alive, held again."""
        if boot is None or boot == self.tracker.boot_of(bg.board) or self._two_boots_pending(bg):
            return
        if self.tracker.reinstate(bg.board, boot):
            log.info("board %s: two boots reviewed: boot %d, which still sends, is the board's boot", bg.board, boot)
            self._health_dirty = True
            self._publish_board(bg)

    def _same_content(self, bg: BoardGame, msg: BoardMessage) -> bool:
        """A resend of a journaled event: compare its content with the journaled one. Other content under the same
        seq is journaled as a hold, in full (nothing acknowledged is lost) but not applied. False when it could not
        be journaled (MAX_OTHER_CONTENT), so it is not acknowledged either."""
        known = bg.digests.get(msg.boot)
        was = known.get(msg.seq) if known is not None else 0
        if not was:
            self.holds["unchecked"] += 1
            return True
        now = digest(msg.kind, msg.fields, msg.t_us)
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
