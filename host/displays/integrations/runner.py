"""`flickboard integrations`: one MQTT client that follows the boards' scoreboards and moments and feeds the
integrations given on the command line (Home Assistant, AWTRIX 3, WLED; docs/integrations.md).

    runner = IntegrationRunner(parse_mqtt_url("mqtt://broker"), boards=None)
    runner.add(HomeAssistant(runner.publish, runner.boards))
    runner.start(); runner.wait_ready(10)
    ...
    runner.stop()         # lets each integration undo what is temporary (a WLED flash), then disconnects

It subscribes at QoS 1 to `flickboard/<board>/scoreboard`, `…/events` and `…/status` (`+` for every board,
or each board of `--board`), to every bridge's status (`BridgeWatch.TOPICS`: `flickboard/bridge/+/status`, and the
deprecated shared `flickboard/bridge/status` for the scoreboards of older bridges), and to each integration's own
topics (Home Assistant's `<prefix>/status`), again on every connect. A board's scores are live while the bridge its
latest scoreboard names (`bridge`) says `online`: when that bridge stops (a clean stop, or killed: its last will),
only its own boards are stale, and each integration hears it per board (`on_bridge`).

The client id is fixed (one runner per id) and the session is clean: the scoreboards are retained, so a reconnect
brings the current state anyway, and moments kept by the broker while this process was down would only flash old
twenties (docs/mqtt.md asks sound and light boxes for a clean session). A message it cannot read (a garbled
scoreboard, a moment of another format, an unknown status) is counted in `bad` and logged in one line; an
integration that fails on a message is counted in `failures` and logged in one line. Neither stops it.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from flickboard import lifecycle
from flickboard.config import ConfigError, MqttUrl, add_broker_arguments, board_problem, broker_of, is_board_id
from flickboard.displays.integrations import awtrix, homeassistant, wled
from flickboard.displays.integrations.commands import Commands
from flickboard.displays.integrations.common import BadDocument, Boards, Integration, read_moment, read_scoreboard
from flickboard.errors import UserError
from flickboard.mqtt import (
    EVENTS,
    MAX_DOCUMENT,
    SCOREBOARD,
    STATUS,
    BridgeWatch,
    PayloadGuard,
    Subscriber,
    board_topic,
    board_topics,
    parse_bridge_topic,
    publish_entry,
    split_board_topic,
)
from flickboard.mqtt import client as mqtt_client

log = logging.getLogger("flickboard.integrations")

DEFAULT_CLIENT_ID = "flickboard-integrations"
KINDS = (SCOREBOARD, EVENTS, STATUS)
TICK = 0.1  # seconds between the integrations' timer ticks


class IntegrationRunner:
    """The integrations' MQTT client; see the module docstring. Callbacks run on paho's thread and timers on the
    runner's own ticker thread, all under one lock."""

    def __init__(
        self,
        url: MqttUrl,
        *,
        client_id: str = DEFAULT_CLIENT_ID,
        ca_file: str | None = None,
        boards: Sequence[str] | None = None,
        keepalive: int = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.client_id = client_id
        self.ca_file = ca_file
        self.only = tuple(dict.fromkeys(boards)) if boards else None
        self.keepalive = keepalive
        self.clock = clock
        self.boards = Boards()
        self.integrations: list[Integration] = []
        self.bad = 0  # messages that could not be read
        self.failures = 0  # integration callbacks that raised
        self.fatal: str | None = None  # a refusal that retrying will not cure (bad password)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._started = False
        self._last: mqtt.MQTTMessageInfo | None = None
        self._live: dict[str, bool | None] = {}  # board -> whether its bridge was online, as last told

        c = mqtt_client(url, client_id, ca_file, ca_required=True, entries=True)  # the buttons' presses are entries
        c.on_message = self._on_message
        self.client = c
        self.guard = PayloadGuard(c, MAX_DOCUMENT)  # a 100 MB message is dropped unread
        self.subscriber = Subscriber(
            c, self.topics, up=self._up, down=self._down, refused=self._refused, subscribed=self._subscribed
        )

    def add(self, integration: Integration) -> None:
        self.integrations.append(integration)
        integration.subscribe = self.subscribe
        will = integration.will()
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)

    def subscribe(self, topics: list[str]) -> None:
        """Follow more topics now (an integration's `topics()` names them again at every connect)."""
        if topics and self.subscriber.connected:
            self.client.subscribe([(t, 1) for t in topics])

    def publish(self, topic: str, payload: bytes, retain: bool) -> None:
        """QoS 1; paho sends it now, or after the reconnect."""
        self._last = self.client.publish(topic, payload, qos=1, retain=retain)

    def enter(self, board: str, payload: bytes, wait: float) -> str | None:
        """Send an entry for the board with its lifetime (the sender waits `wait` s for the answer); None when sent,
        else why not. Only while connected: paho would keep it for after the reconnect, however long that takes, and
        its lifetime on the broker would start only then."""
        if not self.subscriber.connected:
            return f"not connected to the broker {self.url}"
        info = publish_entry(self.client, board, payload, wait)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            return f"the broker {self.url} went away: nothing was sent"
        self._last = info
        return None

    # ---------------------------------------------------------------- life cycle

    def start(self) -> None:
        if self._started:
            raise RuntimeError("IntegrationRunner already started")
        self._started = True
        self.client.connect_async(self.url.host, self.url.port, keepalive=self.keepalive)
        self.client.loop_start()
        self._stop.clear()
        self._ticker = threading.Thread(target=self._tick_loop, name="integrations-tick", daemon=True)
        self._ticker.start()

    @property
    def connects(self) -> int:
        return self.subscriber.connects

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until connected and subscribed (a refused subscription is logged, and the rest still runs);
        False on timeout."""
        return self.subscriber.wait_subscribed(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        if not self._started:
            return
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout)
        with self._lock:
            for integ in self.integrations:
                self._call(integ, "close")
        if self.subscriber.connected and self._last is not None:
            with contextlib.suppress(Exception):  # let the last messages (a WLED revert) reach the broker
                self._last.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self._started = False

    def __enter__(self) -> IntegrationRunner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _tick_loop(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                now = self.clock()
                for integ in self.integrations:
                    self._call(integ, "tick", now)

    # ---------------------------------------------------------------- paho callbacks

    def topics(self) -> list[str]:
        mine = board_topics(self.only, KINDS)
        return [*mine, *BridgeWatch.TOPICS, *(t for i in self.integrations for t in i.topics())]

    def _refused(self, rc: ReasonCode) -> None:
        if self.connects == 0 and rc.value in (4, 5, 134, 135):  # bad user name or password / not authorised
            self.fatal = f"the broker {self.url} refused the connection: {rc}"  # the command's one line
        else:
            log.warning("mqtt %s: connection refused: %s; trying again", self.url, rc)

    def _up(self, _client: mqtt.Client, _session_present: bool) -> None:
        log.info("mqtt %s: connected", self.url)

    def _subscribed(self, refused: list[str]) -> None:
        if refused:
            log.error("mqtt %s: subscription refused: %s", self.url, ", ".join(refused))
        with self._lock:
            for integ in self.integrations:
                self._call(integ, "on_connect")

    def _down(self, rc: ReasonCode) -> None:
        if not self._stop.is_set():
            log.warning("mqtt %s: disconnected (%s); reconnecting", self.url, rc)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        dropped = self.guard.take()
        if dropped is not None:
            with self._lock:
                self._bad(msg.topic[:100], f"{dropped} bytes, longer than {MAX_DOCUMENT} (dropped unread)")
            return
        if msg.retain and msg.topic.endswith("/" + EVENTS):
            with self._lock:  # a moment is news once: a retained one would come back at every restart
                self._bad(msg.topic[:100], "a retained moment (the broker's copy of an old one)")
            return
        try:
            with self._lock:
                self._dispatch(msg.topic, bytes(msg.payload), bool(msg.retain))
        except Exception as e:  # a bug here must not stop paho's thread
            self.failures += 1
            log.error("integrations: %s: %s: %s", msg.topic, type(e).__name__, e, exc_info=log.isEnabledFor(10))

    def _dispatch(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if topic in BridgeWatch.TOPICS or parse_bridge_topic(topic) is not None:
            self._bridge_status(topic, payload)
            return
        split = split_board_topic(topic)
        if split is not None and split[1] in KINDS:
            board, kind = split
            if self.only is not None and board not in self.only:
                return
            if kind == "scoreboard":
                self._scoreboard(board, payload)
            elif kind == "events":
                self._moment(board, payload)
            else:
                online = self._status(topic, payload)
                if online is not None:
                    first = board not in self.boards.docs and board not in self.boards.online
                    self.boards.online[board] = online
                    if first:
                        for integ in self.integrations:
                            self._call(integ, "on_board", board)
            return
        for integ in self.integrations:
            if any(mqtt.topic_matches_sub(sub, topic) for sub in integ.topics()):
                self._call(integ, "on_message", topic, payload, retained)

    def _bridge_status(self, topic: str, payload: bytes) -> None:
        """A bridge's status (its own, or the deprecated shared one): said once per change, and each board kept by
        that bridge follows it."""
        parsed = parse_bridge_topic(topic)
        if parsed is not None and parsed[1] != STATUS:
            return  # a health document: not subscribed to, but a wildcard of an integration may bring one
        bridge = None if parsed is None else parsed[0]
        self._status(topic, payload)  # an unknown payload is counted and logged; BridgeWatch ignores it
        before = self.boards.watch.online(bridge)
        if not self.boards.watch.feed(topic, payload):
            return
        now = self.boards.watch.online(bridge)
        if now is not None and now != before:
            name = f"bridge {bridge}" if bridge is not None else "the shared bridge status (flickboard/bridge/status)"
            kept = [b for b, doc in self.boards.docs.items() if doc.get("bridge") == bridge]
            which = f" (boards {', '.join(sorted(kept))})" if kept else ""
            log.info("%s is %s%s", name, "online" if now else "offline", which)
        self._follow_bridges()

    def _follow_bridges(self) -> None:
        """Tell the integrations of every board whose bridge's state changed (its status, or a scoreboard that names
        another bridge)."""
        for board in sorted(self.boards.docs):
            now = self.boards.bridge_online(board)
            if board not in self._live or self._live[board] != now:
                self._live[board] = now
                for integ in self.integrations:
                    self._call(integ, "on_bridge", board, now)

    def _scoreboard(self, board: str, payload: bytes) -> None:
        if not payload:
            # Someone cleared the retained scoreboard (an empty retained message; a broker delivers it live only,
            # never on subscribing): the board is removed (docs/integrations.md, "Removing a board").
            if not is_board_id(board):
                return
            self.boards.docs.pop(board, None)
            self.boards.online.pop(board, None)
            self._live.pop(board, None)
            log.info("board %s: its retained scoreboard was cleared: removed", board)
            for integ in self.integrations:
                self._call(integ, "on_removed", board)
            return
        try:
            doc = read_scoreboard(payload)
            if doc.get("board") != board:
                raise BadDocument(f"it is board {doc.get('board')!r}'s")
        except BadDocument as e:
            self._bad(board_topic(board, SCOREBOARD), str(e))
            return
        first = board not in self.boards.docs and board not in self.boards.online
        self.boards.docs[board] = doc
        if first:
            for integ in self.integrations:
                self._call(integ, "on_board", board)
        for integ in self.integrations:
            self._call(integ, "on_scoreboard", board, doc)
        self._follow_bridges()

    def _moment(self, board: str, payload: bytes) -> None:
        try:
            moment = read_moment(payload)
        except BadDocument as e:
            self._bad(board_topic(board, EVENTS), str(e))
            return
        for integ in self.integrations:
            self._call(integ, "on_moment", board, moment)

    def _status(self, topic: str, payload: bytes) -> bool | None:
        text = payload.strip()
        if text in (b"online", b"offline"):
            return text == b"online"
        if text:  # an empty payload clears a retained status: not an error
            self._bad(topic, f"unknown status {text[:32]!r}")
        return None

    def _bad(self, topic: str, why: str) -> None:
        self.bad += 1
        log.warning("%s: unreadable message ignored: %s", topic, why)

    def _call(self, integ: Integration, method: str, *args: Any) -> None:
        try:
            getattr(integ, method)(*args)
        except Exception as e:
            self.failures += 1
            log.error("%s: %s failed: %s: %s", integ.name, method, type(e).__name__, e, exc_info=log.isEnabledFor(10))


# ---------------------------------------------------------------- the command


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The options of `flickboard integrations`."""
    add_broker_arguments(p)
    p.add_argument(
        "--homeassistant",
        nargs="?",
        const=homeassistant.DEFAULT_PREFIX,
        metavar="PREFIX",
        help="announce each board to Home Assistant (MQTT discovery prefix, default: homeassistant)",
    )
    p.add_argument(
        "--ha-commands",
        action="store_true",
        help="Home Assistant buttons that enter 'confirm', 'undo' and 'reviewed' (off: anyone who may publish to "
        "the command topic could score; see docs/integrations.md for the broker rights)",
    )
    p.add_argument(
        "--retract",
        action="append",
        metavar="BOARD",
        help="remove this board's device from Home Assistant (clear its discovery config) and exit (repeatable)",
    )
    p.add_argument(
        "--web",
        metavar="URL",
        help="where flickboard web runs (http://host:8080): each Home Assistant device links to its board's page",
    )
    p.add_argument("--awtrix", metavar="PREFIX", help="an AWTRIX 3 clock's MQTT prefix: the score app, notifications")
    p.add_argument(
        "--awtrix-buttons",
        action="store_true",
        help="the clock's buttons score the one --board: hold right 1 s to confirm a twenty, hold left to undo",
    )
    p.add_argument(
        "--awtrix-lifetime",
        type=int,
        default=awtrix.DEFAULT_LIFETIME,
        metavar="S",
        help=f"seconds the clock keeps the app without an update (default {awtrix.DEFAULT_LIFETIME})",
    )
    p.add_argument("--wled", metavar="TOPIC", help="a WLED lamp's MQTT device topic: an effect on every twenty")
    p.add_argument(
        "--wled-preset", type=int, metavar="N", help="the lamp's preset to return to (default: its look before)"
    )
    p.add_argument(
        "--wled-seconds",
        type=float,
        default=wled.DEFAULT_SECONDS,
        metavar="S",
        help=f"how long the effect runs (default {wled.DEFAULT_SECONDS:g})",
    )
    p.add_argument(
        "--wled-fx", type=int, default=wled.DEFAULT_FX, metavar="ID", help="WLED effect id (default 42, Fireworks)"
    )
    p.add_argument("--board", action="append", metavar="ID", help="follow only this board (repeatable)")
    p.add_argument(
        "--client-id",
        default=DEFAULT_CLIENT_ID,
        help=f"MQTT client id (default {DEFAULT_CLIENT_ID}; the secured broker uses the user name)",
    )


def _topic(value: str, option: str) -> str:
    v = value.strip()
    if not v or len(v) > 200 or any(ch in v for ch in "+#\x00") or v.startswith("/") or v.endswith("/"):
        raise UserError(f"{option}: {value!r} is not a topic prefix (no wildcards, no leading or trailing '/')")
    return v


def _number(value: float | int | None, option: str, low: float, high: float) -> None:
    if value is not None and not low <= value <= high:
        raise UserError(f"{option}: {value:g} is out of range ({low:g} to {high:g})")


def build_runner(args: Any) -> IntegrationRunner:
    """The runner for the command line's options, integrations added. Raises UserError (one line)."""
    try:
        url, ca_file = broker_of(args)
    except ConfigError as e:
        raise UserError(str(e)) from None
    if not (args.homeassistant or args.awtrix or args.wled):
        raise UserError("nothing to do: enable at least one of --homeassistant, --awtrix PREFIX, --wled TOPIC")
    for option, given in (("--board", args.board), ("--retract", args.retract)):
        for b in given or ():
            problem = board_problem(b)
            if problem:
                raise UserError(f"{option}: {problem}")
    if args.ha_commands and not args.homeassistant:
        raise UserError("--ha-commands: the buttons are Home Assistant's; give --homeassistant too")
    if args.web is not None:
        if not args.homeassistant:
            raise UserError("--web: the link is on Home Assistant's devices; give --homeassistant too")
        if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", args.web):
            raise UserError(f"--web: {args.web[:80]!r} is not an http:// or https:// address")
    if args.retract and not args.homeassistant:
        raise UserError("--retract: give --homeassistant (and its prefix, if not the default) too")
    if args.awtrix_buttons and not (args.awtrix and args.board and len(set(args.board)) == 1):
        raise UserError("--awtrix-buttons: give --awtrix PREFIX and exactly one --board (the board the buttons score)")
    cid = args.client_id
    if not (1 <= len(cid) <= 64 and cid.isprintable()):
        raise UserError("--client-id: 1 to 64 printable characters")
    _number(args.awtrix_lifetime, "--awtrix-lifetime", 10, 86400)
    _number(args.wled_preset, "--wled-preset", 1, 250)
    _number(args.wled_seconds, "--wled-seconds", 0.2, 60)
    _number(args.wled_fx, "--wled-fx", 0, 255)
    try:
        runner = IntegrationRunner(url, client_id=cid, ca_file=ca_file, boards=args.board)
    except (ValueError, OSError) as e:
        raise UserError(f"--mqtt {url}: {e}") from None
    commands = None
    if args.homeassistant or args.awtrix_buttons:  # counts every press, sends those that are on
        commands = Commands(
            runner.publish,
            runner.boards,
            runner.only,
            listen=args.ha_commands or args.awtrix_buttons,
            enter=runner.enter,
        )
        runner.add(commands)
    if args.homeassistant:
        prefix = _topic(args.homeassistant, "--homeassistant")
        ha = homeassistant.HomeAssistant(
            runner.publish,
            runner.boards,
            prefix,
            commands=commands,
            buttons=args.ha_commands,
            client_id=cid,
            web=args.web,
        )
        runner.add(ha)
    if args.awtrix:
        prefix = _topic(args.awtrix, "--awtrix")
        runner.add(
            awtrix.Awtrix(
                runner.publish,
                runner.boards,
                prefix,
                lifetime=args.awtrix_lifetime,
                commands=commands if args.awtrix_buttons else None,
                board=args.board[0] if args.awtrix_buttons else None,
            )
        )
    if args.wled:
        topic = _topic(args.wled, "--wled")
        runner.add(
            wled.Wled(
                runner.publish,
                runner.boards,
                topic,
                seconds=args.wled_seconds,
                preset=args.wled_preset,
                fx=args.wled_fx,
            )
        )
    return runner


def run_integrations(args: Any, out: TextIO) -> int:
    """`flickboard integrations`: run until Ctrl-C, SIGTERM or SIGHUP. Raises UserError (one line) on bad options or
    when the broker refuses the credentials."""
    runner = build_runner(args)
    if not logging.getLogger().handlers:
        logging.basicConfig(level="INFO", format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    if args.retract:
        return retract(runner, args.retract, out)
    boards = ", ".join(runner.only) if runner.only else "every board"
    names = "; ".join(i.describe() for i in runner.integrations)
    stop = threading.Event()
    # SIGINT, SIGTERM, SIGHUP (in the main thread; else the caller stops us), from before the first line on
    with lifecycle.on_stop_signals(stop.set):
        print(f"flickboard integrations: {names}; {boards} on {runner.url}; Ctrl-C stops", file=out, flush=True)
        runner.start()
        try:
            while not stop.wait(0.25):
                if runner.fatal:
                    raise UserError(runner.fatal)
        finally:
            runner.stop()
    presses = "".join(f"; presses: {i.summary()}" for i in runner.integrations if isinstance(i, Commands))
    print(
        f"flickboard integrations: stopped ({runner.bad} unreadable messages, {runner.failures} failures{presses})",
        file=out,
        flush=True,
    )
    return 0


def retract(runner: IntegrationRunner, boards: Sequence[str], out: TextIO, timeout: float = 10.0) -> int:
    """`--retract BOARD`: clear each board's Home Assistant discovery config (and the per-entity configs of earlier
    versions) with empty retained payloads, then exit. Only the discovery topics are read (what is there is cleared,
    nothing else: an empty config for a device Home Assistant does not have makes it warn); the scoreboards are not:
    a retained scoreboard must not bring the device straight back. Raises UserError when the broker cannot be reached
    or refuses the login."""
    ha = next(i for i in runner.integrations if isinstance(i, homeassistant.HomeAssistant))
    wanted = list(dict.fromkeys(boards))
    topics = [t for b in wanted for t in (ha.device_topic(b), *ha.legacy_topics(b))]
    client = mqtt_client(runner.url, runner.client_id, runner.ca_file, ca_required=True)
    ready = threading.Event()
    refused: list[str] = []
    lock = threading.Lock()

    def on_message(_c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with lock:
            ha.on_message(msg.topic, bytes(msg.payload), bool(msg.retain))

    client.on_message = on_message
    Subscriber(client, lambda: topics, subscribed=lambda _r: ready.set(), refused=lambda rc: refused.append(str(rc)))
    last: list[mqtt.MQTTMessageInfo] = []
    ha._publish = lambda topic, payload, retain: last.append(client.publish(topic, payload, qos=1, retain=retain))
    client.connect_async(runner.url.host, runner.url.port, keepalive=runner.keepalive)
    client.loop_start()
    try:
        deadline = time.monotonic() + timeout
        while not ready.wait(0.1):
            if refused or time.monotonic() > deadline:
                why = f"refused the connection: {refused[0]}" if refused else f"was not reached in {timeout:g} s"
                raise UserError(f"the broker {runner.url} {why}")
        time.sleep(homeassistant.SETTLE)  # the retained configs come right after the subscription is granted
        for board in wanted:
            with lock:
                there = (board in ha.retained) + len(ha.legacy.get(board, ()))
                ha.retract(board)
            said = f"{there} config{'s' if there != 1 else ''} cleared" if there else "nothing of it on the broker"
            print(f"flickboard integrations: {board} retracted ({said})", file=out)
        for info in last:
            info.wait_for_publish(timeout)
    finally:
        client.disconnect()
        client.loop_stop()
    print(
        "flickboard integrations: done; a board whose scoreboard is still retained comes back at the next run "
        "(clear flickboard/<board>/scoreboard to remove it for good)",
        file=out,
        flush=True,
    )
    return 0
