"""Holds for a person (docs/reliability.md): when what a board sends cannot be trusted as it is, the game waits.

Two boots of one board alive (a message from a boot the board has restarted since), and a sequence number already
taken coming again with other content (a forged event sent ahead of the real one, or another device with this
board's id), each put the game on hold: the hold is journaled (in a batch, durable with it), folded as a review item,
logged, listed in the health document and published. Nothing acknowledged is lost: both boots' events are journaled,
and other content is journaled whole but not applied. A match holds at most MAX_TWO_BOOTS pairs of boots and
MAX_OTHER_CONTENT events of other content; beyond, they are counted (and other content is neither journaled nor acked,
so it comes again).
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

    def _hold(self, bg: BoardGame, kind: str, why: str, details: dict[str, Any]) -> None:
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
