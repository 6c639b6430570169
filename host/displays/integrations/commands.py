"""Commands from Home Assistant's buttons and an AWTRIX clock's buttons, entered the way a person enters them: a
manual-entry request on the board's `flickboard/<board>/input` with an id of our own, answered by the bridge on
`flickboard/<board>/result` (docs/mqtt.md, "Manual entries"). The bridge checks everything (the line, the board,
the game's state); this module only sends the one line a button stands for and says what became of it.

    confirm   -> `confirm`    the provisional sensor twenties are confirmed (rules/pichenotte notation)
    undo      -> `undo`       the latest entry still in effect stops counting
    reviewed  -> `reviewed`   the review hold is cleared; sensor events go on (host/core/session.py)

Every press ends in one of: `entered` (the bridge took it), `refused` (the bridge said why: logged in one line),
`unanswered` (no answer in `timeout` seconds: the bridge is down or does not follow the board), or `ignored`
(commands are off, the board is unknown, the bridge that keeps the board says it is offline, the command is not one
of ours: nothing was sent; a request sent while the bridge is down would wait in its session and count much later).
Each is counted and logged in one line; the counts are printed when the command stops.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from flickboard.displays.integrations.common import Boards, Integration, Publish
from flickboard.mqtt import INPUT, RESULT, board_topic, board_topics, split_board_topic

log = logging.getLogger("flickboard.integrations")

# command -> the notation line it enters (the same words a scorer types)
LINES = {"confirm": "confirm", "undo": "undo", "reviewed": "reviewed"}
DEFAULT_TIMEOUT = 10.0  # seconds to wait for the bridge's answer


class Commands(Integration):
    """Sends button presses as manual entries and reads their answers. Added to the runner (for the result topic
    and the timer) by whichever integration has buttons; `enabled` False: every press is ignored, counted, logged."""

    name = "commands"

    def __init__(
        self,
        publish: Publish,
        boards: Boards,
        only: Sequence[str] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        listen: bool = True,
        enter: Callable[[str, bytes, float], str | None] | None = None,
    ) -> None:
        super().__init__(publish, boards)
        # Sends an entry with its lifetime (the runner's `enter`: MQTT 5 message expiry) and says why not when it
        # cannot send now; without one (tests of this class alone), entries go out as any message.
        self.enter = enter
        self.only = tuple(only) if only else None
        self.listen = listen  # some buttons are on: read the answers (off: presses are only counted, ignored)
        self.timeout = timeout
        self.clock = clock
        self.pending: dict[str, tuple[str, str, str, float]] = {}  # request id -> (board, command, source, sent at)
        self.counts = {"sent": 0, "entered": 0, "refused": 0, "unanswered": 0, "ignored": 0}
        self.answers: list[dict[str, Any]] = []  # the answers to our requests, latest last (at most 50)
        # Told what became of every press (source, board, command, outcome, message): Home Assistant shows it as an
        # event of the board's device. Outcomes: entered, refused, unanswered, not_sent (ignored: nothing was sent).
        self.listeners: list[Callable[[str, str, str, str, str], None]] = []

    def describe(self) -> str:
        return "commands (manual entries on flickboard/<board>/input)"

    def topics(self) -> list[str]:
        return board_topics(self.only, [RESULT]) if self.listen else []

    def summary(self) -> str:
        c = self.counts
        return f"{c['entered']} entered, {c['refused']} refused, {c['unanswered']} unanswered, {c['ignored']} ignored"

    def ignore(self, source: str, board: str, command: str, why: str) -> None:
        """A press that sends nothing: logged in one line, then counted (whoever sees the count finds the line)."""
        log.warning("%s: %s on board %s ignored: %s", source, command[:32], board[:32], why)
        self.counts["ignored"] += 1
        self._tell(source, board, command[:32], "not_sent", why)

    def _tell(self, source: str, board: str, command: str, outcome: str, message: str) -> None:
        for listener in self.listeners:
            listener(source, board, command, outcome, message)

    def press(self, source: str, board: str, command: str) -> str | None:
        """Enter the command's line for the board; the request id, or None when nothing was sent (ignored)."""
        line = LINES.get(command)
        if line is None:
            self.ignore(source, board, command, f"not a command (known: {', '.join(LINES)})")
            return None
        if board not in self.boards.docs or (self.only is not None and board not in self.only):
            self.ignore(source, board, command, "no scoreboard of that board is followed here")
            return None
        if self.boards.bridge_online(board) is False:  # the request would wait for the bridge and count much later
            owner = self.boards.owner(board)
            self.ignore(source, board, command, f"its bridge{f' {owner}' if owner else ''} is offline")
            return None
        rid = f"{source}-{uuid.uuid4().hex[:12]}"
        request = {"id": rid, "line": line}
        if self.enter is None:
            self.send(board_topic(board, INPUT), request)
        else:
            why = self.enter(board, json.dumps(request, separators=(",", ":")).encode(), self.timeout)
            if why is not None:
                self.ignore(source, board, command, why)
                return None
        self.pending[rid] = (board, command, source, self.clock())
        self.counts["sent"] += 1
        log.info("%s: %s on board %s: sent %r as request %s", source, command, board, line, rid)
        return rid

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        split = split_board_topic(topic)
        if split is None or split[1] != RESULT or not self.pending:
            return
        try:
            answer = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return  # not ours to judge: other senders read this topic too
        if not isinstance(answer, dict) or not isinstance(answer.get("id"), str):
            return
        mine = self.pending.pop(answer["id"], None)
        if mine is None:
            return  # another sender's answer
        board, command, source, _ = mine
        message = str(answer.get("message", ""))[:200].replace("\n", " ")
        self.answers = [*self.answers[-49:], answer]
        if answer.get("ok") is True:
            entry = answer.get("entry")
            log.info("%s: %s on board %s: entered as entry %s: %s", source, command, board, entry, message)
            self.counts["entered"] += 1
            self._tell(source, board, command, "entered", f"entry {entry}: {message}" if message else f"entry {entry}")
        else:
            log.warning("%s: %s on board %s refused by the bridge: %s", source, command, board, message)
            self.counts["refused"] += 1
            self._tell(source, board, command, "refused", message)

    def tick(self, now: float) -> None:
        for rid, (board, command, source, at) in list(self.pending.items()):
            if now - at >= self.timeout:
                del self.pending[rid]
                log.warning(
                    "%s: %s on board %s: no answer from the bridge in %g s (request %s): is it running and "
                    "following that board?",
                    source,
                    command,
                    board,
                    self.timeout,
                    rid,
                )
                self.counts["unanswered"] += 1
                self._tell(source, board, command, "unanswered", f"no answer from the bridge in {self.timeout:g} s")
