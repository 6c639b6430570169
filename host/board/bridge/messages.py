"""The bridge (`Bridge`): boards' sensor events and people's entries -> one journal per board -> the rules ->
scoreboards. This module takes the board messages; the bridge is built in layers, each a module with one job:

| module | its one job |
|---|---|
| `journals.py` | each board's journal: opened, resumed (what the board delivered rebuilt), damage held, room kept |
| `output.py` | what goes out once durable: batches (group commit), acks, scoreboards and moments |
| `holds.py` | the holds for a person: two boots alive, a taken seq with other content |
| `entries.py` | people's entries and new matches, and the input requests that carry them |
| `messages.py` | board messages in (serial lines, MQTT payloads), board and link states, the tick, the health |
| `admission.py` | which boards are followed (a list, or new ones up to a cap) |
| `digests.py`, `board_game.py` | the content checks of journaled events; a board's game, its set-up, the error |

For every board message: decode (flickboard/board/protocol.py) -> refuse with a coded one-line reason, counted and
shown, or -> de-duplicate on (board, boot, seq) -> journal it durably (flickboard/core/session.py) -> fold it into the
game -> ack it to the board (only now: an acknowledged event is on disk) -> publish the board's scoreboard and scoring
moments. One lock serialises everything, so serial threads, paho's thread and the terminal never interleave an entry.
Events that arrive ahead of a missing one wait (EARLY_WAIT, with pings) so the game sees the board's order; a board
that restarted has its old boot's holes journaled as gaps.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flickboard.board import protocol
from flickboard.board.bridge.admission import full_text
from flickboard.board.bridge.board_game import BoardGame, BridgeError, GameSetup
from flickboard.board.bridge.digests import Digests, digest
from flickboard.board.bridge.entries import Entries
from flickboard.board.bridge.journals import MAX_HEARD
from flickboard.board.bridge.output import Publish
from flickboard.board.protocol import BoardMessage, ProtocolError, Verdict
from flickboard.config import board_problem
from flickboard.core.session import now_stamp
from flickboard.mqtt import BRIDGE_HEALTH, DEFAULT_BRIDGE_ID, RAW, board_topic

log = logging.getLogger("flickboard.bridge")
_now = now_stamp

HEALTH_FORMAT = "flickboard-bridge-health"
PING_EVERY = 1.0  # s: at most one catch-up ping per board per second
SERIAL_SILENCE = 35.0  # s: a serial board silent this long (3 heartbeats of 10 s, and some) is shown offline
EARLY_WAIT = 10.0  # s: how long events wait behind a missing one (with pings) before the hole is recorded lost
MAX_EARLY = 1024  # events held behind a hole per board; beyond, they are left to the board's resend
MQTT_BACKLOG = 256  # messages from the broker waiting to be handled beyond one batch: a handover, no hole is lost yet
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


class Bridge(Entries):
    """Board messages and people's entries in; journals, acks, scoreboards and the health document out.

    bridge = Bridge(journals_dir, GameSetup("tournament-2019", ("Ana", "Ben"), None), boards=None, publish=...)
    bridge.serial_line(port, line, send_line)   # a SerialLink's on_line (send_line: that link's send)
    bridge.mqtt_payload(board, payload)         # an MqttLink's on_payload
    bridge.mqtt_input(board, payload)           # an MqttLink's on_input: manual entries as JSON (docs/mqtt.md)
    bridge.submit(board, "Ana 15 10 5")         # a manual entry from the terminal
    bridge.tick()                               # now and then: the health document, pings
    with bridge.batch(): ...                    # many messages at once: one fsync, one ack and one scoreboard each
    """

    def __init__(
        self,
        journals: str | Path,
        setup: GameSetup,
        boards: Iterable[str] | None = None,
        publish: Publish | None = None,
        clock: Callable[[], float] = time.monotonic,
        bridge_id: str = DEFAULT_BRIDGE_ID,
    ) -> None:
        super().__init__(journals, setup, boards, publish, clock, bridge_id)
        self.links: dict[str, dict[str, Any]] = {}
        self.link_counters: dict[str, Callable[[], dict[str, int]]] = {}
        self.mqtt_send: Callable[[str, bytes], object] | None = None
        self.started = _now()
        self.only_duplicates = 0  # times a board was found sending only duplicates (ONLY_DUPLICATES_AFTER)
        self.mqtt_up: bool | None = None  # the bridge's link to the broker (None: no MQTT link, or not yet said)
        self.mqtt_backlog: Callable[[], int] | None = None  # board messages taken from the broker, not yet handled
        self.late_after_lost = 0  # events that came after the hole they were in was journaled as lost
        for b in self.boards or ():
            self.game(b)

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

    def unlisted_board(self, board: str, online: bool) -> None:
        """A board on the broker that is not in this bridge's list (its retained status): flagged, not followed.
        Said once per board while it stays online; it shows in the health document until it goes offline."""
        with self.lock:
            seen = self.admission.online_unlisted(board, online, _now())
            if seen == "gone":
                self._health_dirty = True
            elif seen == "new":
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
        if self._known(msg.board) or not self.admission.full:
            return True
        err = ProtocolError(full_text(repr(msg.board)), "board")
        if self.admission.refused_new(msg.board):
            self.refused(via, err)
        else:
            self.tracker.count_error(err)
            self._health_dirty = True
        return False

    def _message(self, msg: BoardMessage, via: str, send: Callable[[dict[str, Any]], object]) -> None:
        with self.lock:
            unlisted = self.admission.not_listed(msg.board)
            if unlisted:
                self.refused(via, ProtocolError(unlisted, "board"))
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
            if self._redelivered(bg, msg):
                return
            was_lost = msg.reliable and self._declared_lost(bg.board, msg.boot, msg.seq)
            verdict = self.tracker.accept(msg)
            for note in verdict.notes:
                log.info("%s", note)
            if was_lost and verdict.new:
                self.late_after_lost += 1
                said = (
                    f"board {bg.board}: event {msg.seq} of boot {msg.boot} ({msg.kind}) came after it was declared "
                    "lost: it is journaled now, after the gap; check the shots since the gap"
                )
                log.warning("%s", said)
                self._note(f"board {bg.board}", "late", said)
            self._health_dirty = True
            self._check_boots(bg, msg, verdict.conflict)
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

    def _declared_lost(self, board: str, boot: int, seq: int) -> bool:
        """Whether `seq` of the board's current boot is inside a range already journaled as lost (a gap)."""
        st = self.tracker.board_status(board)
        return st is not None and st["boot"] == boot and any(a <= seq <= b for a, b in st["lost"])

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

    def _process(self, bg: BoardGame, msg: BoardMessage) -> None:
        """Journal, fold, ack, publish one board message, in the board's order."""
        out = self._record(bg, msg.boot, msg.seq, msg.kind, msg.fields, msg.t_us)
        self.tracker.processed(msg)
        if msg.kind == "gap":
            bg.remember_gap(msg.boot, msg.seq, digest(msg.kind, msg.fields, msg.t_us))
        if msg.reliable:
            bg.last_boot = msg.boot
            digests = bg.digests.get(msg.boot)
            if digests is None:
                digests = bg.digests[msg.boot] = Digests()
                for boot in [b for b in bg.digests if self.tracker.ack_for(bg.board, b) is None and b != msg.boot]:
                    del bg.digests[boot]  # boots the tracker no longer keeps
            digests.put(msg.seq, digest(msg.kind, msg.fields, msg.t_us))
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

    def _broker_handing_over(self, bg: BoardGame) -> bool:
        """A board on MQTT while the bridge's link to the broker is down, while the board itself is offline, or while
        more than a batch of messages taken from the broker waits to be handled (a queue handed over at a reconnect):
        its missing events may still be on the broker, in that backlog or in the board's outbox, so the hole is not
        declared lost yet; its EARLY_WAIT starts when none of these holds any more."""
        if bg.via != "mqtt":
            return False
        backlog = self.mqtt_backlog() if self.mqtt_backlog is not None else 0
        return self.mqtt_up is False or bg.online is False or backlog > MQTT_BACKLOG

    def board_state(self, board: str, online: bool) -> None:
        """The board's retained MQTT status, or its serial port going up or down."""
        with self.lock:
            if not self._known(board):
                # Its status alone opens no journal (anyone can publish one); a ping makes a real board resend what
                # is not acked, and its first message is taken as any new board's. The status is kept for then (the
                # board is online before its journal exists), at most MAX_HEARD boards, the oldest forgotten.
                if board_problem(board) is None:
                    self.heard.pop(board, None)
                    self.heard[board] = online
                    while len(self.heard) > MAX_HEARD:
                        del self.heard[next(iter(self.heard))]
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
                if online:  # what it kept in its outbox comes now: a hole gets EARLY_WAIT from here
                    bg.early_since = max(bg.early_since, self.clock())
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
            elif kind == "mqtt":
                self.mqtt_up = connected
                for bg in self.games.values():
                    if connected:
                        # The broker may still be handing over what it kept (its queue, the board's resends): a hole
                        # gets EARLY_WAIT from now before it is declared lost, not from before the link went down.
                        bg.early_since = max(bg.early_since, self.clock())
                        self._publish_board(bg)  # a broker that restarted without persistence lost the retained docs

    # ---------------------------------------------------------------- health

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
                "unlisted_boards": dict(sorted(self.admission.unlisted.items())),
                "links": links,
                "holds": dict(self.holds),
                "redelivered": dict(self.redelivered),
                "late_after_lost": self.late_after_lost,
                "admission": dict(self.admission.counts),
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
            self._close_idle()
            boards = self.tracker.status()["boards"]
            for b, bg in self.games.items():
                serial = bg.via is not None and bg.via.startswith("serial")
                silence = max(SERIAL_SILENCE, 3.5 * bg.beat)  # three heartbeats missed, whatever their period
                if bg.online and serial and self.clock() - bg.seen > silence:
                    bg.online = False  # no heartbeat: the board hangs, or the port is dead without an error
                    self._health_dirty = True
                    log.warning("board %s: nothing heard for %.0f s on %s", b, silence, bg.via)
                    self._publish_board(bg)
                if bg.early and self._broker_handing_over(bg):
                    bg.early_since = max(bg.early_since, self.clock())  # the wait starts once the handover is over
                elif bg.early and self.clock() - bg.early_since > EARLY_WAIT:
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
        self.publish(BRIDGE_HEALTH, body, 1, True)  # deprecated: the shared topic (flickboard/mqtt.py)
