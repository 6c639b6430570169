"""The broker side of `flickboard web` (`Hub`): what the bridges publish, kept and handed to the open pages'
streams, and manual entries sent on the boards' input topics with the bridge's answer awaited.

It follows the broker like any display (docs/mqtt.md): the retained scoreboards, the moments, the results and each
bridge's status and health. It runs in paho's network thread; the streams live in the HTTP server's event loop, so
every update crosses over with `loop.call_soon_threadsafe`. A message over MAX_DOC is dropped unread
(flickboard/mqtt.py `PayloadGuard`), and a retained moment or answer is not news: both are refusals, counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from flickboard.core.entries import MAX_INPUT
from flickboard.displays.web import limits
from flickboard.displays.web.config import WebConfig, WebError
from flickboard.displays.web.refusals import Refusals, printable
from flickboard.displays.web.responses import error_doc
from flickboard.displays.web.streams import PING, PING_EVERY, Stream, sse
from flickboard.mqtt import (
    DISPLAY_KINDS,
    EVENTS,
    EVERY_BRIDGE_HEALTH,
    HEALTH,
    MAX_DOCUMENT,
    RESULT,
    SCOREBOARD,
    BridgeWatch,
    PayloadGuard,
    Subscriber,
    board_topic,
    board_topics,
    parse_board_topic,
    parse_bridge_topic,
    publish_entry,
)
from flickboard.mqtt import client as mqtt_client

MAX_DOC = MAX_DOCUMENT  # bytes of a scoreboard or moment payload we keep; a real scoreboard is a few kB


class _Answer:
    """One entry waiting for the bridge's answer (its id is the request's)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.event = threading.Event()
        self.rid = f"web-{uuid.uuid4().hex[:16]}"
        self.result: dict[str, Any] | None = None
        self.loop = loop  # an HTTP request waits in the server's loop: woken there
        self.done: asyncio.Future[None] | None = loop.create_future() if loop is not None else None

    def answer(self, doc: dict[str, Any]) -> None:
        """The bridge's answer (paho's thread)."""
        self.result = doc
        self.event.set()
        if self.loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                self.loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_result(None)


class Tap(Protocol):
    """What listens on the hub's connection besides the pages (a tournament's hall)."""

    def feed(self, topic: str, payload: bytes) -> None: ...

    def connection(self, up: bool, refused: list[str] | None = None) -> None: ...


class Hub:
    """The broker side of `flickboard web`: what the bridge publishes, kept and fanned out to the event streams,
    and manual entries sent on its input topics. paho reconnects on its own; `on_connect` subscribes again."""

    def __init__(self, cfg: WebConfig, say: Callable[[str], None], refusals: Refusals | None = None) -> None:
        self.cfg = cfg
        self.say = say
        self.refusals = refusals or Refusals(say)
        self.lock = threading.Lock()
        self.docs: dict[str, str] = {}  # board -> its latest scoreboard, one-line JSON
        self.seen: dict[str, dict[str, Any]] = {}  # board -> what the index page shows
        self.watch = BridgeWatch()  # every bridge's own status: a board's page follows the bridge that keeps it
        self.health: dict[str, dict[str, Any]] = {}  # bridge id -> its latest retained health document
        self.owner: dict[str, str | None] = {}  # board -> the bridge its latest scoreboard names
        self.loop: asyncio.AbstractEventLoop | None = None  # the HTTP server's: the streams live there
        self.streams: set[Stream] = set()  # the open event streams (changed in the loop only)
        self.by_board: dict[str, set[Stream]] = {}
        self.by_address: dict[str, int] = {}  # client address -> its open streams (in the loop only)
        self._pinger: asyncio.Task[None] | None = None  # the loop's one task that pings quiet streams
        self.pending: dict[str, _Answer] = {}
        self.taps: list[Tap] = []  # a tournament's hall run on this connection (tournament_pages): every message
        # checks an entry must pass before it is sent: (board, request) -> why not, or None (a tournament's pages
        # refuse a `new` over a board's tournament match)
        self.checks: list[Callable[[str, dict[str, Any]], str | None]] = []
        self._last_problem = ""
        self._closing = False
        try:
            c = mqtt_client(
                cfg.mqtt,
                f"flickboard-web-{uuid.uuid4().hex[:10]}",
                cfg.ca_file,
                reconnect=(1, max(1, cfg.reconnect_max)),
                entries=True,
            )
        except ValueError as e:
            raise WebError(f"--ca-file: {e}") from None
        c.suppress_exceptions = True  # a bug in a callback must not end paho's network thread
        c.on_connect_fail = lambda *_: self._problem(f"cannot reach the broker {self.cfg.mqtt}; trying again")
        c.on_message = self._on_message
        self.client = c
        self.guard = PayloadGuard(c, MAX_DOC)
        self.subscriber = Subscriber(
            c, self.topics, up=self._up, down=self._down, refused=self._refused, subscribed=self._subscribed
        )

    @property
    def connected(self) -> bool:
        return self.subscriber.connected

    @property
    def ready(self) -> bool:
        """Connected, and every subscription granted: an entry sent now gets its answer."""
        return self.subscriber.ready

    def topics(self) -> list[str]:
        """What the pages read, and what a hall on this connection reads (the same boards' scoreboards and answers,
        and every bridge's status: already among them)."""
        return [*board_topics(self.cfg.boards, DISPLAY_KINDS), *BridgeWatch.TOPICS, EVERY_BRIDGE_HEALTH]

    # -- a tournament's hall on this connection (host/tournament/hall.py, `Link`): one program, one connection

    def attach(self, tap: Tap) -> None:
        """Hand `tap` every message from now on; first, each board's latest scoreboard and every bridge's status (the
        retained ones it would have heard had it subscribed itself), and whether the subscriptions are answered."""
        with self.lock:
            self.taps = [*self.taps, tap]
            docs = dict(self.docs)
        for topic, payload in self.watch.retained():
            tap.feed(topic, payload)
        for board, doc in docs.items():
            tap.feed(board_topic(board, SCOREBOARD), doc.encode())
        # Told now, whatever the state (the subscriber tells its hooks before it counts itself ready, so a tap that
        # joins in between would never hear): a hall plans only while `ready` holds, and hears again at each new
        # connection's subscriptions.
        tap.connection(True, [])

    def detach(self, tap: Tap) -> None:
        with self.lock:
            self.taps = [t for t in self.taps if t is not tap]

    def publish_entry(self, board: str, payload: bytes, wait: float) -> bool:
        """A request of the hall's, with an entry's lifetime (QoS 1); False when paho could not take it."""
        return publish_entry(self.client, board, payload, wait).rc == mqtt.MQTT_ERR_SUCCESS

    def start(self) -> None:
        try:
            self.client.connect_async(self.cfg.mqtt.host, self.cfg.mqtt.port, keepalive=30)
        except (OSError, ValueError) as e:
            raise WebError(f"MQTT {self.cfg.mqtt}: {e}") from None
        self.client.loop_start()

    def stop(self) -> None:
        self._closing = True
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()
        self._in_loop(self._close_streams)

    def _in_loop(self, fn: Callable[..., None], *args: Any) -> None:
        """Run `fn(*args)` in the HTTP server's event loop (from paho's thread, or any other)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no stream is left to tell
            loop.call_soon_threadsafe(fn, *args)

    def _close_streams(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
        for s in list(self.streams):
            s.close()

    def _problem(self, text: str) -> None:
        """One line on stderr per new problem; the same problem again (paho retrying) is not repeated."""
        if text != self._last_problem:
            self._last_problem = text
            self.say(text)

    # -- paho callbacks (paho's network thread)

    def _not_ready(self) -> str:
        refused = self.subscriber.refused_topics
        if self.connected and refused:
            return (
                f"the broker {self.cfg.mqtt} refused this server's subscription to {', '.join(refused)}, "
                "so no answer could come back: nothing was sent (docs/security.md)"
            )
        return f"not connected to the broker {self.cfg.mqtt}: nothing was sent, try again"

    def _refused(self, rc: ReasonCode) -> None:
        self._problem(f"the broker {self.cfg.mqtt} refused the connection: {rc}; trying again")

    def _up(self, _client: mqtt.Client, _session_present: bool) -> None:
        if self._last_problem:
            self.say(f"connected to the broker {self.cfg.mqtt}")
        self._last_problem = ""
        self._fan_status()

    def _subscribed(self, refused: list[str]) -> None:
        if refused:
            self._problem(f"the broker {self.cfg.mqtt} refused the subscription to {', '.join(refused)}")
        for tap in self.taps:
            tap.connection(True, refused)

    def _down(self, rc: ReasonCode) -> None:
        if self._closing:
            return
        self._problem(f"lost the broker {self.cfg.mqtt} ({rc}); reconnecting")
        self._fan_status()
        for tap in self.taps:
            tap.connection(False)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        size = self.guard.take()
        try:
            if size is not None:
                self.refusals.add(
                    "oversized MQTT message",
                    f"a message of {size} bytes on {msg.topic[:80]}, over the {MAX_DOC} this server reads: "
                    "dropped unread (a real scoreboard is a few kB)",
                )
                return
            payload = bytes(msg.payload)
            self._message(msg.topic, payload, bool(msg.retain))
            for tap in self.taps:  # after the pages' own copy is kept: `attach` misses nothing in between
                tap.feed(msg.topic, payload)
        except Exception as e:  # never let one odd message stop the others
            self.say(printable(f"a message on {msg.topic[:80]} could not be used ({type(e).__name__}: {e})"))

    def _message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if self.watch.feed(topic, payload):  # a bridge's own status (or the shared one of older bridges)
            self._fan_status()
            return
        bridge_topic_of = parse_bridge_topic(topic)
        if bridge_topic_of is not None:
            if bridge_topic_of[1] == HEALTH:
                health = _json_object(payload) if payload else None
                with self.lock:
                    if health is None:
                        self.health.pop(bridge_topic_of[0], None)
                    else:
                        self.health[bridge_topic_of[0]] = health
            return
        parsed = parse_board_topic(topic)
        if parsed is None:
            return
        board, kind = parsed
        if self.cfg.boards is not None and board not in self.cfg.boards:
            return
        if retained and kind in (EVENTS, RESULT):  # a moment or an answer is news once: a kept one is not news
            self.refusals.add(
                f"retained {kind} message",
                f"a retained message on {topic}: moments and answers are never retained by the bridge, so it is "
                "old or forged; ignored (clear it: mosquitto_pub -r -n -t TOPIC)",
            )
            return
        if kind == "scoreboard" and not payload:  # the retained scoreboard was cleared
            with self.lock:
                self.docs.pop(board, None)
                self.seen.pop(board, None)
                self.owner.pop(board, None)
            return
        doc = _json_object(payload)
        if doc is None:
            return
        if kind == "scoreboard":
            if doc.get("format") != "flickboard-scoreboard" or doc.get("version") != 1:
                self._problem(f"board {board}: a scoreboard this version cannot show (format/version not 1)")
                return
            data = json.dumps(doc, separators=(",", ":"))
            owner = doc.get("bridge") if isinstance(doc.get("bridge"), str) else None
            with self.lock:
                self.docs[board] = data
                self.seen[board] = _index_row(doc)
                moved = self.owner.get(board, "") != owner
                self.owner[board] = owner
            if moved:  # another bridge keeps it now (or the first scoreboard): its page follows that one's status
                self._in_loop(self._fan_here, board, sse("status", json.dumps(self.status(board))))
            self._fan(board, "scoreboard", data)
        elif kind == "events":
            if doc.get("format") == "flickboard-moment":
                self._fan(board, "moment", json.dumps(doc, separators=(",", ":")))
        elif kind == "result":
            rid = doc.get("id")
            with self.lock:
                slot = self.pending.get(rid) if isinstance(rid, str) else None
            if slot is not None:
                slot.answer(doc)

    # -- fan-out to the event streams

    def status(self, board: str | None = None) -> dict[str, Any]:
        """{broker, bridge} for a board's page: `bridge` is "online" / "offline" for the bridge that keeps the
        board's scoreboard (None: not known). Without a board: {broker, bridges: {id: online}}."""
        if board is None:
            return {"broker": self.connected, "bridges": self.watch.bridges}
        with self.lock:
            known, owner = board in self.owner, self.owner.get(board)
        online = self.watch.owner_online({"bridge": owner} if owner else {}) if known else None
        return {"broker": self.connected, "bridge": None if online is None else ("online" if online else "offline")}

    def _fan(self, board: str, event: str, data: str) -> None:
        self._in_loop(self._fan_here, board, sse(event, data))

    def _fan_here(self, board: str, chunk: bytes) -> None:
        for s in list(self.by_board.get(board, ())):
            s.push(chunk)

    def _fan_status(self) -> None:
        self._in_loop(self._fan_status_here)

    def _fan_status_here(self) -> None:
        """Each open board's status, to its pages (in the loop)."""
        for board, streams in list(self.by_board.items()):
            chunk = sse("status", json.dumps(self.status(board)))
            for s in list(streams):
                s.push(chunk)

    async def _ping(self) -> None:
        """Every second, a `: ping` to each stream quiet for PING_EVERY (one task for all, not a timer per page)."""
        while True:
            await asyncio.sleep(1.0)
            quiet = time.monotonic() - PING_EVERY
            for s in list(self.streams):
                if s.sent_at <= quiet and s.queue.empty():
                    s.push(PING)

    @property
    def closing(self) -> bool:
        return self._closing

    def stream_start(self, board: str) -> str:
        """What a page's stream says first (and again after it fell behind): the status, the latest scoreboard."""
        first = f"event: status\ndata: {json.dumps(self.status(board))}\n\n"
        doc = self.scoreboard(board)
        return first if doc is None else f"{first}event: scoreboard\ndata: {doc}\n\n"

    def open_stream(self, board: str, address: str = "") -> tuple[Stream, str | None] | str:
        """A new stream for the board and its latest scoreboard; or why not, in one sentence: the server stops,
        MAX_STREAMS are open, or this address has its share open (`streams_per_address`; past CROWDED pages, only
        CROWDED_PER_ADDRESS: the last pages are kept for devices with a page or two). In the loop."""
        if self._closing:
            return "flickboard web is stopping"
        total = len(self.streams)
        mine = self.by_address.get(address, 0)
        if total >= limits.MAX_STREAMS:
            return (
                f"too many open pages (at most {limits.MAX_STREAMS:,} live pages on this server); close one and reload"
            )
        share = self.cfg.streams_per_address
        if total >= limits.CROWDED:
            share = min(share, limits.CROWDED_PER_ADDRESS)
        if mine >= share:
            return f"too many live pages open from this device ({mine}; at most {share} at once): close one and reload"
        if self._pinger is None or self._pinger.done():
            self._pinger = asyncio.get_running_loop().create_task(self._ping())
        s = Stream(board, address)
        self.streams.add(s)
        self.by_board.setdefault(board, set()).add(s)
        self.by_address[address] = mine + 1
        return s, self.scoreboard(board)

    def close_stream(self, s: Stream) -> None:
        """In the loop."""
        s.close()
        if s not in self.streams:
            return
        self.streams.discard(s)
        left = self.by_address.get(s.address, 0) - 1
        if left > 0:
            self.by_address[s.address] = left
        else:
            self.by_address.pop(s.address, None)
        mine = self.by_board.get(s.board)
        if mine is not None:
            mine.discard(s)
            if not mine:
                del self.by_board[s.board]

    def scoreboard(self, board: str) -> str | None:
        with self.lock:
            return self.docs.get(board)

    def boards(self) -> dict[str, dict[str, Any]]:
        with self.lock:
            return {b: dict(v) for b, v in sorted(self.seen.items())}

    def bridges(self) -> dict[str, dict[str, Any]]:
        """Every bridge heard of: id -> {online, health} (its latest health document, or None)."""
        online = self.watch.bridges
        with self.lock:
            health = dict(self.health)
        return {b: {"online": online.get(b), "health": health.get(b)} for b in sorted({*online, *health})}

    # -- manual entries

    def send(self, board: str, req: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Publish a checked request with a fresh id and wait for the bridge's answer: (HTTP status, body)."""
        slot = _Answer()
        refused = self._publish(board, req, slot)
        if refused is not None:
            return refused
        try:
            if not slot.event.wait(self.cfg.answer_timeout):
                return self._no_answer(board)
        finally:
            with self.lock:
                self.pending.pop(slot.rid, None)
        return self._answered(slot)

    async def send_async(self, board: str, req: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """`send` for the HTTP server's event loop: the wait for the answer holds no thread."""
        slot = _Answer(asyncio.get_running_loop())
        refused = self._publish(board, req, slot)
        if refused is not None:
            return refused
        assert slot.done is not None
        try:
            async with asyncio.timeout(self.cfg.answer_timeout):
                await slot.done
        except TimeoutError:
            return self._no_answer(board)
        finally:
            with self.lock:
                self.pending.pop(slot.rid, None)
        return self._answered(slot)

    def _publish(self, board: str, req: dict[str, Any], slot: _Answer) -> tuple[int, dict[str, Any]] | None:
        """Send the request with the slot's id; an answer when it could not be sent (nothing is left pending)."""
        payload = json.dumps({"id": slot.rid, **req}).encode()
        if len(payload) > MAX_INPUT:
            return 400, error_doc(f"request of {len(payload)} bytes, longer than {MAX_INPUT}")
        if self.status(board).get("bridge") == "offline":  # it would only expire on the broker: say so now
            why = f"the bridge that keeps board {board} is offline: nothing was sent; enter it again when it is back"
            self.refusals.add("bridge offline", why)
            return 503, error_doc(why)
        with self.lock:
            if not self.ready:
                return 503, error_doc(self._not_ready())
            self.pending[slot.rid] = slot
        info = publish_entry(self.client, board, payload, self.cfg.answer_timeout)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            with self.lock:
                self.pending.pop(slot.rid, None)
            return 503, error_doc(f"the broker {self.cfg.mqtt} went away: nothing was sent, try again")
        return None

    def _no_answer(self, board: str) -> tuple[int, dict[str, Any]]:
        return 504, error_doc(
            f"no answer from a bridge for board {board} within {self.cfg.answer_timeout:g} s: nothing was entered, "
            "and it will not be entered later; is the bridge running?"
        )

    @staticmethod
    def _answered(slot: _Answer) -> tuple[int, dict[str, Any]]:
        res = slot.result or {}
        sentence = res.get("sentence")  # the rules' sentence, for the page's language (docs/mqtt.md)
        kept = {k: res.get(k) for k in ("ok", "entry", "message", "board")}
        return 200, kept | ({"sentence": sentence} if sentence else {})


def _json_object(payload: bytes) -> dict[str, Any] | None:
    """A message's JSON object; None when it is over MAX_DOC, not JSON, or not an object."""
    if len(payload) > MAX_DOC:
        return None
    try:
        doc = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _obj(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _index_row(doc: dict[str, Any]) -> dict[str, Any]:
    """What the index page and /api/boards say about a board, from its scoreboard."""
    score = _obj(doc.get("score"))
    sides = score.get("sides") if isinstance(score.get("sides"), list) else []
    totals = score.get("totals") if isinstance(score.get("totals"), list) else []
    return {
        "sides": [str(_obj(s).get("name", "?")) for s in sides or []],
        "totals": list(totals or []),
        "rules": score.get("rules"),
        "game": score.get("game", "pichenotte"),
        "over": bool(score.get("over")),
        "online": _obj(doc.get("board_link")).get("online"),
        "updated": doc.get("updated"),
    }


# ---------------------------------------------------------------- requests, checked as the bridge checks them
