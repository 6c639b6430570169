"""People's entries: a manual entry for a board's game (`submit`, from the terminal or the phone), a new match on a
board (`new_game`), and the requests that carry them on `flickboard/<board>/input`, answered on
`flickboard/<board>/result` (docs/mqtt.md, "Manual entries").

An entry is journaled whatever its verdict (a refused one too), judged by the rules and published. A request's id is
kept with its entry, so a request sent again (its answer was lost; the bridge restarted in between; the broker handed
it over again after a `new`) is answered as the first time and entered once: the ids of the board's earlier matches
are read back from their journals (journals.py, REMEMBER_MATCHES). An entry does not make a board (admission.py):
only a `new` request opens one.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flickboard import i18n
from flickboard.board.bridge.admission import unknown_board
from flickboard.board.bridge.board_game import BoardGame, BridgeError, GameSetup
from flickboard.board.bridge.holds import Holds
from flickboard.board.bridge.output import Publish
from flickboard.config import board_problem
from flickboard.core.entries import RequestError, read_request
from flickboard.core.session import Outcome
from flickboard.mqtt import DEFAULT_BRIDGE_ID, INPUT, RESULT, board_topic, game_text, under_way
from flickboard.rules import games
from flickboard.rules.text import message_of

log = logging.getLogger("flickboard.bridge")


class Entries(Holds):
    """The bridge's journals, output and holds, with the entries people make."""

    def __init__(
        self,
        journals: str | Path,
        setup: GameSetup,
        boards: Iterable[str] | None,
        publish: Publish | None,
        clock: Callable[[], float],
        bridge_id: str = DEFAULT_BRIDGE_ID,
    ) -> None:
        super().__init__(journals, setup, boards, publish, clock, bridge_id)
        self.inputs = {"accepted": 0, "refused": 0, "invalid": 0, "stale": 0}

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
            before = Path(old.session.journal.path).name
            opened = old.session.journal.header.get("rid")
            if isinstance(opened, str):
                old.remember_request(opened, before, 0, True)
            for key, (n, ok) in old.requests.items():  # a copy that comes in the new match is still known
                old.remember_request(key, before, n, ok)
            old.session.close()
            old.session = session
            old.requests = {}
            old.two_boots_at = set()
            self._health_dirty = True
            self._publish_board(old)
            return old

    def submit(self, board: str, text: str, source: str = "manual", rid: str | None = None) -> Outcome:
        """A manual entry for the board's game: journaled, judged, published. Refused entries are journaled too.
        `rid`: the request id; an id already journaled is not entered again (a resent request)."""
        with self.lock:
            bg = self.game(board)
            bg.used = self.clock()
            if rid is not None and rid in bg.requests:
                n, ok = bg.requests[rid]
                return Outcome(n, ok, f"already entered as entry {n} (request {rid!r} was sent again)")
            if rid is not None and rid in bg.earlier:
                return self._entered_before(bg, rid)
            pending = self._two_boots_pending(bg)
            out = self._durable(bg.session.submit, text, "sensor" if source == "sensor" else "manual", rid)
            if pending and out.accepted:
                self._reinstate_after_review(bg, bg.last_boot)
            if rid is not None and out.n:
                bg.requests[rid] = (out.n, out.accepted)
            if out.n:
                self.inputs["accepted" if out.accepted else "refused"] += 1
                self._health_dirty = True
            self._publish_board(bg, out)
            return out

    def _entered_before(self, bg: BoardGame, rid: str) -> Outcome:
        """A request whose id an earlier match of the board holds: a copy (a client's resend across a `new`, or the
        broker handing over again what it had delivered). Answered as the first time, never applied to this match;
        counted and said in one line."""
        name, n, ok = bg.earlier[rid]
        previous = self._journals_of(bg.board)
        newest = Path(bg.session.journal.path).name
        names = [p.name for p in previous if p.name != newest]
        where = "the previous match" if names and names[-1] == name else f"an earlier match ({name})"
        request = f"request {rid.split(':', 1)[-1]!r} came again"
        if n == 0:
            said = f"this `new` opened {where} already ({request}): no other match is opened"
        else:
            said = f"already entered in {where} as entry {n} ({request}): not entered in this match"
        self.redelivered["entries"] += 1
        self._health_dirty = True
        log.info("board %s: %s", bg.board, said)
        self._note(f"board {bg.board}", "redelivered", said)
        return Outcome(n, ok, said)

    def mqtt_input(self, board: str, payload: bytes) -> dict[str, Any]:
        """A request on flickboard/<board>/input (docs/mqtt.md); the answer goes to flickboard/<board>/result."""
        result = self._input(board, payload)
        result["board"] = board
        if self.publish is not None:
            self.publish(board_topic(board, RESULT), json.dumps(result).encode(), 1, False)
        return result

    def _unknown_board(self, board: str) -> str | None:
        """Why an entry cannot be for `board`, or None. Without a list of boards, an entry does not make a board: a
        mistyped id (`tabel-1`) would otherwise open a phantom board with a journal of its own, a place on every
        screen and its own retained documents. A board is known by its list, its game or its journal; an operator
        admits a new one on purpose with a `new` request."""
        if self._known(board):
            return None
        known = list(self.games)
        with contextlib.suppress(OSError):
            known = list({*self.games, *(p.name for p in self.journals.iterdir() if p.is_dir())})
        return unknown_board(board, known)

    def _unseen_game(self, bg: BoardGame, replaces: str | None, entries: int | None) -> str | None:
        """A `new` request's compare-and-set (docs/mqtt.md, "The request"): its sender saw `replaces` on the board's
        scoreboard (None: no journal) with `entries` entries (None: not said), and the board has moved on since to a
        game under way, in another journal or further in the same one (the tournament hall's copy of the scoreboard
        was older than the game). Why nothing is opened, in one line, counted (`inputs.stale`)
        and listed (code `stale`), the board's scoreboard published again so that the sender's copy catches up; None
        when the request may open its match. Under the bridge's lock."""
        path = bg.session.journal.path
        if replaces == path and (entries is None or bg.session.journal.count <= entries):
            return None  # the game it saw, as it saw it (`replaces_entries`: not gone on since)
        doc = self.scoreboard(bg.board)
        if not under_way(doc):
            return None
        said = (
            f"board {bg.board} has a game in progress that this request did not see: {game_text(doc)} (journal "
            f"{path}); nothing was opened"
        )
        self.inputs["stale"] += 1
        self._note(f"mqtt {board_topic(bg.board, INPUT)}", "stale", said)
        self._health_dirty = True
        log.warning("board %s: new match not opened: %s", bg.board, said)
        self._publish_board(bg)
        return said

    def _input(self, board: str, payload: bytes) -> dict[str, Any]:
        def invalid(reason: str, rid: object = None) -> dict[str, Any]:
            with self.lock:
                self.inputs["invalid"] += 1
                self._note(f"mqtt {board_topic(board, INPUT)}", "input", reason)
                self._health_dirty = True
            log.warning("board %s: input refused: %s", board, reason)
            answer = {"id": rid, "ok": False, "entry": None, "message": str(reason)}
            said = i18n.said(reason)  # a set-up the rules refused: their sentence, for the scorer's language
            return {**answer, "sentence": said} if said else answer

        problem = board_problem(board) or self.admission.not_listed(board)
        if problem:
            return invalid(problem)
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
                return invalid(message_of(e), rid)
            if out.n == 0:
                return invalid("a blank line is not an entry", rid)
            answer = {"id": rid, "ok": out.accepted, "entry": out.n, "message": out.message}
            said = i18n.said(out.message)  # the rules' sentence, for a screen in the players' language
            return {**answer, "sentence": said} if said else answer
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
                if key is not None and key in current.earlier:  # it opened an earlier match: nothing more opens
                    out = self._entered_before(current, key)
                    return {"id": rid, "ok": out.accepted, "entry": 0, "message": out.message}
                if not again and "replaces" in new:
                    unseen = self._unseen_game(current, new["replaces"], new.get("replaces_entries"))
                    if unseen is not None:
                        return {"id": rid, "ok": False, "entry": None, "message": unseen, "stale": True}
                bg = current if again else self.new_game(board, rules, players, match, target, key)
        except BridgeError as e:
            return invalid(message_of(e), rid)
        what = "match" if bg.session.game.name == "pichenotte" else f"{games.title(bg.session.game.name)} game"
        return {"id": rid, "ok": True, "entry": 0, "message": f"new {what}: {bg.session.journal.path}"}
