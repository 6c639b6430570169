"""`flickboard web`: the TV scoreboard and the phone entry page, served over HTTP from what the bridge publishes.

    flickboard web --mqtt mqtt://localhost             # http://127.0.0.1:8080/
    app = start_web(WebConfig(parse_mqtt_url(url)))    # in-process (tests); app.url, app.stop()

One process, two sides. Its MQTT side (`Hub`) follows the broker like any display (docs/mqtt.md): the retained
scoreboards, the moments, the results and the bridge's status and health, and it sends manual entries on
`flickboard/<board>/input`; it is paho's network thread. Its HTTP side (Starlette, served by uvicorn in a thread of
its own with its own asyncio loop) serves the pages in `host/displays/webui/` and pushes the live data to them with
Server-Sent Events, so a browser needs one HTTP port and nothing else (the choice is explained in docs/displays.md).
The hub hands each update to the loop (`loop.call_soon_threadsafe`), which puts it in every open page's bounded
queue: an open page costs a queue and a coroutine, not a thread, so a hall's TVs and phones (up to MAX_STREAMS) fit:

| path | what |
|---|---|
| `/` | the boards seen on the broker, with links |
| `/tv/<board>`, `/enter/<board>` | the TV scoreboard, the phone entry page |
| `/static/<file>` | their CSS and scripts |
| `/api/boards`, `/api/rules` | JSON: the boards seen; every game's rule sets (and Pichenotte's zone values) |
| `/api/<board>/scoreboard` | JSON: the latest scoreboard document (404 until one was seen) |
| `/api/<board>/stream` | `text/event-stream`: `status` and the latest `scoreboard`, then each new one, `moment`s |
| `POST /api/<board>/input` | `{"line": ...}` or `{"new": {...}}`: checked, sent with an id, the bridge's answer |
| `/scorer?key=...`, `POST /api/key` | the scoring key, given once (operator's link, entry page's form): a cookie |
| `GET /api/scorer` | JSON: whether this browser holds the scoring key |
| `/console`, `GET /api/console` | the operator's console; its data (boards, each bridge and its health) needs the key |

Who may do what (docs/displays.md, "Who can score"): every request must name this server in its Host (not a name an
attacker pointed at it: DNS rebinding); reading needs nothing; a POST must come from this server's own page (Origin)
with the scoring key, which the operator's terminal shows, and entries are rate-limited per client and per board.
On the MQTT side a message over MAX_DOC is dropped unread (host/mqtt.py `PayloadGuard`), and a retained moment or
answer is not news. Every refusal is counted by kind and said once per kind on stderr (`Refusals`), and never
reaches the bridge.

Errors are one line: JSON `{"ok": false, "error": ...}` to the client, one line on stderr for the operator.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import errno
import hmac
import html
import ipaddress
import json
import logging
import math
import os
import resource
import secrets
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import parse_qs, urlsplit

import paho.mqtt.client as mqtt
import uvicorn
from paho.mqtt.reasoncodes import ReasonCode
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from flickboard import lifecycle
from flickboard.config import (
    ConfigError,
    MqttUrl,
    add_broker_arguments,
    board_problem,
    broker_of,
    is_board_id,
)
from flickboard.core.entries import MAX_INPUT, RequestError, read_request
from flickboard.mqtt import (
    DISPLAY_KINDS,
    EVENTS,
    EVERY_BRIDGE_HEALTH,
    HEALTH,
    INPUT,
    MAX_DOCUMENT,
    RESULT,
    BridgeWatch,
    PayloadGuard,
    Subscriber,
    board_topic,
    board_topics,
    parse_board_topic,
    parse_bridge_topic,
)
from flickboard.mqtt import client as mqtt_client
from flickboard.rules import games
from flickboard.rules.pichenotte import RULE_SETS, rule_set
from flickboard.rules.pichenotte.engine import ZONE_VALUES

if TYPE_CHECKING:
    from flickboard.displays.tournament_web import TournamentPages

__all__ = ["Hub", "WebApp", "WebConfig", "WebError", "configure_parser", "run_web", "start_web"]

MAX_BODY = 4096  # bytes of a POST body; a valid request is well under MAX_INPUT (2048) anyway
MAX_DOC = MAX_DOCUMENT  # bytes of a scoreboard or moment payload we keep; a real scoreboard is a few kB
MAX_STREAMS = 10_000  # live pages at once (a TV per board and a phone per player: a big hall is a few hundred)
MAX_QUEUED = 256  # events waiting for a slow page; beyond, its backlog is dropped and it gets the latest scoreboard
REQUEST_TIMEOUT = 30.0  # seconds a client may take to send a request's head, or its body, before it is dropped
LISTEN_BACKLOG = 2048  # connections waiting to be accepted (a hall's pages reconnecting at once after a restart)
PING_EVERY = 15.0  # seconds between SSE comments on a quiet stream (proxies and browsers close idle ones)
ANSWER_TIMEOUT = 10.0
PAGES = ("index.html", "tv.html", "enter.html", "console.html")
JS = "text/javascript"
STATIC = {"app.css": "text/css", "common.js": JS, "tv.js": JS, "enter.js": JS, "console.js": JS}
CLIENT_RATE = (3.0, 30.0)  # entries a second, and at once, from one client address
BOARD_RATE = (2.0, 20.0)  # entries a second, and at once, for one board
KEY_RATE = (1 / 12, 5.0)  # wrong scoring keys from one client address: 5 at once, then one every 12 s
MAX_BUCKETS = 4096  # client addresses and boards whose rates are kept
KEY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U: read aloud and typed on a phone
KEY_LENGTH = 8
KEY_ENV = "FLICKBOARD_WEB_KEY"
KEY_COOKIE = "flickboard_key"
KEY_HEADER = "X-Flickboard-Key"
KEY_MAX_AGE = 400 * 24 * 3600  # seconds a phone keeps the key (browsers cap a cookie at 400 days)
# The pages load nothing from anywhere else: no CDN, no fonts, no inline code.
CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'"


class WebError(Exception):
    """One line for the user."""


@dataclass(frozen=True)
class WebConfig:
    mqtt: MqttUrl
    ca_file: str | None = None  # mqtts: a CA file, or None / "system" for the system trust store
    host: str = "127.0.0.1"
    port: int = 8080  # 0: any free port (tests)
    boards: tuple[str, ...] | None = None  # None: every board that shows up
    answer_timeout: float = ANSWER_TIMEOUT
    reconnect_max: int = 10  # seconds between attempts to reach a broker that went away, at most
    key: str | None = None  # the scoring key (compared as `normal_key` makes it); None: a new one for this run
    key_source: str = "new for this run"  # where the key came from, as the terminal says it
    allowed_hosts: tuple[str, ...] = ()  # more names the server answers for (a reverse proxy's, a DNS name)
    client_rate: tuple[float, float] = CLIENT_RATE  # entries per second and burst, per client address
    board_rate: tuple[float, float] = BOARD_RATE  # entries per second and burst, per board
    key_rate: tuple[float, float] = KEY_RATE  # wrong keys per second and burst, per client address
    tournament: str | None = None  # a tournament journal: its pages and its hall (host/displays/tournament_web.py)


# ---------------------------------------------------------------- refusals, keys and rates


class Refusals:
    """Every request or message refused, counted by kind. The first of each kind is said in one line with its
    reason; the next ones are counted, and the counts are said at most once a minute and when the server stops."""

    def __init__(self, say: Callable[[str], None], every: float = 60.0) -> None:
        self.say = say
        self.every = every
        self.counts: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self._told = 0  # refusals when the counts were last said
        self._told_at = time.monotonic()

    def add(self, kind: str, text: str) -> None:
        with self.lock:
            self.counts[kind] += 1
            first = self.counts[kind] == 1
            total = sum(self.counts.values())
            due = not first and total > self._told and time.monotonic() - self._told_at >= self.every
            if first or due:
                self._told, self._told_at = total, time.monotonic()
        if first:
            self.say(f"refused ({kind}): {printable(text)} [first of its kind; the next ones are counted]")
        elif due:
            self.say(self.summary())

    def summary(self) -> str:
        with self.lock:
            counts = ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items()))
        return f"refused so far: {counts or 'nothing'}"


def printable(text: str) -> str:
    """`text` safe for the operator's terminal: what a client or a topic put in it cannot move the cursor, change
    colours or start a new line (each control character becomes `?`)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


class Buckets:
    """Token buckets by name (a client address, a board): `rate` tokens a second, at most `burst` saved up. At most
    MAX_BUCKETS names are kept; a full bucket is forgotten first, as it holds nothing a new one would not."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.lock = threading.Lock()
        self.levels: collections.OrderedDict[str, tuple[float, float]] = collections.OrderedDict()

    def wait(self, name: str) -> float:
        """The seconds until `name` has a token (0: it has one now); nothing is taken."""
        now = time.monotonic()
        with self.lock:
            level, at = self.levels.get(name, (self.burst, now))
        level = min(self.burst, level + (now - at) * self.rate)
        return 0.0 if level >= 1 else (1 - level) / self.rate

    def take(self, name: str) -> float:
        """0 when a token was taken; otherwise the seconds until the next one."""
        now = time.monotonic()
        with self.lock:
            level, at = self.levels.pop(name, (self.burst, now))
            level = min(self.burst, level + (now - at) * self.rate)
            if level >= 1:
                self.levels[name] = (level - 1, now)
                wait = 0.0
            else:
                self.levels[name] = (level, now)
                wait = (1 - level) / self.rate
            if len(self.levels) > MAX_BUCKETS:
                self._forget(now)
            return wait

    def _forget(self, now: float) -> None:
        for name, (level, at) in list(self.levels.items()):
            if level + (now - at) * self.rate >= self.burst:
                del self.levels[name]
        while len(self.levels) > MAX_BUCKETS:
            self.levels.popitem(last=False)


def new_key() -> str:
    """A scoring key of KEY_LENGTH characters from KEY_ALPHABET (about 39 bits), as `ABCD-EFGH`."""
    raw = "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))
    return shown_key(raw)


def normal_key(text: str) -> str:
    """A key as it is compared: upper case, without spaces and dashes (a phone may add either)."""
    return "".join(ch for ch in text.upper() if ch not in " -\t")


def shown_key(key: str) -> str:
    """A key as people read it: in groups of four."""
    k = normal_key(key)
    return "-".join(k[i : i + 4] for i in range(0, len(k), 4))


def key_problem(key: str) -> str | None:
    k = normal_key(key)
    if len(k) < KEY_LENGTH or len(k) > 64 or not k.isascii() or not k.isalnum():
        return f"a scoring key is {KEY_LENGTH} to 64 letters and digits (dashes and spaces are ignored)"
    return None


def load_key(env: dict[str, str], key_file: str | None) -> tuple[str, str]:
    """(the scoring key, where it came from): FLICKBOARD_WEB_KEY, else --key-file (made with a new key the first
    time, readable by its owner only, then kept), else a new key for this run. Raises WebError."""
    given = env.get(KEY_ENV)
    if given is not None and key_file is not None:
        raise WebError(f"give the scoring key one way: {KEY_ENV} or --key-file, not both")
    if given is not None:
        problem = key_problem(given)
        if problem:
            raise WebError(f"{KEY_ENV}: {problem}")
        return given.strip(), f"from {KEY_ENV}"
    if key_file is None:
        return new_key(), "new for this run; --key-file keeps one across restarts"
    path = Path(key_file)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = new_key()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key + "\n")
        except OSError as e:
            raise WebError(f"--key-file {key_file}: cannot write it: {e.strerror or e}") from None
        return key, f"new, kept in {key_file}"
    except (OSError, UnicodeDecodeError) as e:
        raise WebError(f"--key-file {key_file}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    problem = key_problem(text)
    if problem:
        raise WebError(f"--key-file {key_file}: {problem}")
    return text, f"from {key_file}"


# ---------------------------------------------------------------- the broker side


RESYNC = b"\0resync"  # in a page's queue: it fell behind, its backlog was dropped; send the status and scoreboard
PING = b": ping\n\n"  # a comment, on a quiet stream (proxies and browsers close idle ones)


def sse(event: str, data: str) -> bytes:
    """One Server-Sent Event, as it goes on the wire (made once per update, whatever the number of pages)."""
    return f"event: {event}\ndata: {data}\n\n".encode()


class Stream:
    """What waits to be sent on one open event stream, in the server's event loop: whole events, as bytes. The hub
    hands them over from paho's thread with `loop.call_soon_threadsafe`; everything here runs in the loop."""

    def __init__(self, board: str) -> None:
        self.board = board
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(MAX_QUEUED)
        self.closed = False
        self.resyncs = 0  # times this page fell MAX_QUEUED events behind
        self.sent_at = time.monotonic()  # when something last went out (the pinger's clock)

    def push(self, chunk: bytes) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(chunk)
        except asyncio.QueueFull:  # a page that cannot keep up: not a backlog, the latest scoreboard when it can
            self._drain()
            self.resyncs += 1
            self.queue.put_nowait(RESYNC)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._drain()
            self.queue.put_nowait(None)

    def _drain(self) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()


class _Answer:
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
        self._pinger: asyncio.Task[None] | None = None  # the loop's one task that pings quiet streams
        self.pending: dict[str, _Answer] = {}
        self._last_problem = ""
        self._closing = False
        try:
            c = mqtt_client(
                cfg.mqtt,
                f"flickboard-web-{uuid.uuid4().hex[:10]}",
                cfg.ca_file,
                reconnect=(1, max(1, cfg.reconnect_max)),
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
        return [*board_topics(self.cfg.boards, DISPLAY_KINDS), *BridgeWatch.TOPICS, EVERY_BRIDGE_HEALTH]

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

    def _down(self, rc: ReasonCode) -> None:
        if self._closing:
            return
        self._problem(f"lost the broker {self.cfg.mqtt} ({rc}); reconnecting")
        self._fan_status()

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
            self._message(msg.topic, bytes(msg.payload), bool(msg.retain))
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

    def open_stream(self, board: str) -> tuple[Stream, str | None] | None:
        """A new stream for the board and its latest scoreboard; None when MAX_STREAMS are open or the server
        stops. In the loop."""
        if len(self.streams) >= MAX_STREAMS or self._closing:
            return None
        if self._pinger is None or self._pinger.done():
            self._pinger = asyncio.get_running_loop().create_task(self._ping())
        s = Stream(board)
        self.streams.add(s)
        self.by_board.setdefault(board, set()).add(s)
        return s, self.scoreboard(board)

    def close_stream(self, s: Stream) -> None:
        """In the loop."""
        s.close()
        self.streams.discard(s)
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
            return 400, _error(f"request of {len(payload)} bytes, longer than {MAX_INPUT}")
        with self.lock:
            if not self.ready:
                return 503, _error(self._not_ready())
            self.pending[slot.rid] = slot
        info = self.client.publish(board_topic(board, INPUT), payload, qos=1)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            with self.lock:
                self.pending.pop(slot.rid, None)
            return 503, _error(f"the broker {self.cfg.mqtt} went away: nothing was sent, try again")
        return None

    def _no_answer(self, board: str) -> tuple[int, dict[str, Any]]:
        return 504, _error(
            f"no answer from a bridge for board {board} within {self.cfg.answer_timeout:g} s: is it running? "
            "(the entry may still arrive: check the scoreboard before sending it again)"
        )

    @staticmethod
    def _answered(slot: _Answer) -> tuple[int, dict[str, Any]]:
        res = slot.result or {}
        return 200, {k: res.get(k) for k in ("ok", "entry", "message", "board")}


def _json_object(payload: bytes) -> dict[str, Any] | None:
    """A message's JSON object; None when it is over MAX_DOC, not JSON, or not an object."""
    if len(payload) > MAX_DOC:
        return None
    try:
        doc = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _netloc(url: str) -> str | None:
    """The host:port of a URL in lower case; None when it is not a URL."""
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return None


def _error(text: str) -> dict[str, Any]:
    return {"ok": False, "error": text}


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


def rules_info() -> dict[str, Any]:
    """Every game's rule sets as the pages need them (rules/games.py): the game each belongs to, and for
    Pichenotte the zone values for the end of a game and the free-shot zone. Flicochet's layers combine
    (`flicochet+double-jack+school`); the combinations listed are the seed's own ones."""
    sets: list[dict[str, Any]] = []
    for name in RULE_SETS:
        o = rule_set(name)
        allowed = ZONE_VALUES if o.post_values else ZONE_VALUES[:4]
        values: list[int | str] = [*(v for v in allowed if v), 0, "edge"]  # 0: out of bounds; edge: 15
        sets.append(
            {
                "name": name,
                "game": "pichenotte",
                "summary": o.summary,
                "zone_values": values,
                "free_shot_zone": o.free_shot_zone,
            }
        )
    for game in ("pichenottes-quebec", "flicochet"):
        for name, summary in games.rule_sets(game):
            if "..." in name:  # `flicochet+A+B...`: a pattern, not a rule set
                continue
            sets.append({"name": name, "game": game, "summary": summary, "zone_values": [], "free_shot_zone": None})
    info = [
        {
            "name": name,
            "title": game.title,
            "default": game.default_rules,
            "players": game.players_said(game.default_rules),
            "counts": list(game.players),
        }
        for name, game in games.GAMES.items()
    ]
    return {"rules": sets, "games": info, "default": "tournament-2019"}


# ---------------------------------------------------------------- the HTTP side


def _load_ui() -> dict[str, bytes]:
    """Every page and static file, read once at start; a missing one is one sentence, not a traceback later."""
    files: dict[str, bytes] = {}
    base = resources.files("flickboard.displays").joinpath("webui")
    for name in (*PAGES, *STATIC):
        try:
            files[name] = base.joinpath(name).read_bytes()
        except OSError:
            raise WebError(f"the web page file host/displays/webui/{name} is missing from this installation") from None
    return files


def _response(code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> Response:
    """A whole response with this server's headers (names as written here: the wire keeps them)."""
    head = {
        "Content-Type": ctype,
        "Content-Length": str(len(body)),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": CSP,
        "Referrer-Policy": "no-referrer",
        "Server": "flickboard-web",
        **(extra or {}),
    }
    r = Response(body, status_code=code)
    r.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head.items()]
    return r


def _json(code: int, doc: Any, extra: dict[str, str] | None = None) -> Response:
    return _response(code, json.dumps(doc).encode(), "application/json", extra)


def _html(code: int, page: bytes | str, extra: dict[str, str] | None = None) -> Response:
    body = page.encode() if isinstance(page, str) else page
    return _response(code, body, "text/html; charset=utf-8", extra)


def _target(scope: Scope) -> str:
    """The request's path and query as the client wrote them (for the operator's terminal: see `printable`)."""
    raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
    query = scope.get("query_string") or b""
    text = raw.decode("latin-1")
    return f"{text}?{query.decode('latin-1')}" if query else text


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


class _EventStream(Response):
    """`text/event-stream` for one page: `retry`, `status` and the latest `scoreboard` at once, then what the hub
    hands to its queue (the hub's `: ping` too, after PING_EVERY of quiet). Ends when the page goes (its connection
    closes: noticed at once) or the server stops."""

    def __init__(self, hub: Hub, stream: Stream, first: str) -> None:
        super().__init__(status_code=200)
        self.hub, self.stream, self.first = hub, stream, first
        head = {
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # behind nginx: do not buffer the stream
            "Server": "flickboard-web",
            "Connection": "close",
        }
        self.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream = self.stream
        watcher = asyncio.create_task(self._watch(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": self.first.encode(), "more_body": True})
            while (chunk := await stream.queue.get()) is not None:  # None: the page went, or the server stops
                if chunk == RESYNC:
                    chunk = self.hub.stream_start(stream.board).encode()
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                stream.sent_at = time.monotonic()
            if not watcher.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            self.hub.close_stream(stream)

    async def _watch(self, receive: Receive) -> None:
        """The page never sends anything on its stream: the next message is its disconnection."""
        with contextlib.suppress(Exception):
            while (await receive())["type"] != "http.disconnect":
                pass
        self.stream.close()


class _Site:
    """The HTTP side: Starlette's routes, behind one guard that checks every request's Host first and turns any
    failure into one line on the terminal and a one-line answer (never a traceback)."""

    def __init__(self, web: WebApp) -> None:
        self.web = web
        get, post = ["GET"], ["POST"]
        routes = [
            *(web.tournament.routes(self) if web.tournament is not None else []),
            Route("/", self.index, methods=get),
            Route("/tv/{board}", self.page, methods=get),
            Route("/enter/{board}", self.page, methods=get),
            Route("/console", self.console, methods=get),
            Route("/static/{name}", self.static, methods=get),
            Route("/scorer", self.scorer_link, methods=get),
            Route("/api/boards", self.api_boards, methods=get),
            Route("/api/rules", self.api_rules, methods=get),
            Route("/api/scorer", self.api_scorer, methods=get),
            Route("/api/console", self.api_console, methods=get),
            Route("/api/key", self.post_key, methods=post),
            Route("/api/{board}/scoreboard", self.api_scoreboard, methods=get),
            Route("/api/{board}/stream", self.api_stream, methods=get),
            Route("/api/{board}/input", self.post_input, methods=post),
        ]
        handlers = {HTTPException: self._http_error, Exception: self._crashed}
        self.app = Starlette(routes=routes, exception_handlers=handlers)
        self.app.router.redirect_slashes = False  # `/tv/t1/` is no page, as it never was

    # -- the guard, around everything

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        started = False
        close = scope.get("method") == "POST"  # an entry's connection is not kept (as before: one per request)

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if close and not any(k.lower() == b"connection" for k, _ in message.get("headers", [])):
                    message = {**message, "headers": [*message.get("headers", []), (b"Connection", b"close")]}
            await send(message)

        try:
            request = Request(scope, receive)
            host = request.headers.get("host")
            server = scope.get("server") or ("", 0)
            problem = self.web.host_problem(host, str(server[0]))
            if problem is not None:
                refusal = await self.refuse(request, 421 if host else 400, "unknown Host", problem)
                await refusal(scope, receive, sending)
                return
            await self.app(scope, receive, sending)
        except (ClientDisconnect, ConnectionError, TimeoutError):
            return  # the browser went away: nothing to tell anyone
        except Exception as e:
            what = f"{scope.get('method')} {_target(scope)[:80]} failed: {type(e).__name__}: {e}"
            self.web.say(printable(what))
            if not started:
                with contextlib.suppress(Exception):
                    await _json(500, _error("internal error in flickboard web; see its terminal"))(scope, receive, send)

    async def _http_error(self, request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        if code in (404, 405):  # no such path, or not with this method: no such page either way
            return self.not_found(request)
        return _json(code, _error(str(getattr(exc, "detail", "bad request"))))

    async def _crashed(self, request: Request, exc: Exception) -> Response:
        return _json(500, _error("internal error in flickboard web; see its terminal"))

    def not_found(self, request: Request, what: str = "no such page") -> Response:
        if request.url.path.startswith("/api/"):
            return _json(404, _error(what))
        return _html(404, f"<!doctype html><title>Not found</title><p>{html.escape(what)}. <a href='/'>Boards</a></p>")

    # -- who may ask

    async def refuse(
        self, request: Request, code: int, kind: str, text: str, extra: dict[str, str] | None = None
    ) -> Response:
        """Refuse the request: counted, the first of its kind said on the terminal, one line to the client."""
        scope = request.scope
        self.web.refusals.add(kind, f"{request.method} {_target(scope)[:60]} from {_client(request)}: {text}")
        if request.method == "POST":  # closing on unread bytes would reset the connection
            await self._drain(request)
        headers = {**(extra or {}), "Connection": "close"}
        if request.url.path.startswith("/api/") or request.method != "GET":
            return _json(code, {**_error(text), "refused": kind}, headers)
        said = html.escape(text, quote=False)
        return _html(code, f"<!doctype html><title>Refused</title><p>{said}</p><p><a href='/'>Boards</a></p>", headers)

    @staticmethod
    async def _drain(request: Request) -> None:
        if request.scope.get("flickboard.body_read"):
            return
        with contextlib.suppress(ValueError):
            length = int(request.headers.get("content-length") or 0)
            if 0 < length <= 16 * MAX_BODY:
                request.scope["flickboard.body_read"] = True
                with contextlib.suppress(ClientDisconnect, TimeoutError):
                    async with asyncio.timeout(REQUEST_TIMEOUT):
                        async for _ in request.stream():
                            pass

    async def origin_ok(self, request: Request) -> Response | None:
        """A request that changes something comes from this server's own page: its Origin is this server."""
        origin = request.headers.get("origin")
        host = (request.headers.get("host") or "").lower()
        if origin is None:
            problem = "no Origin header: entries are taken from this server's own page (other programs: send Origin)"
        elif origin == "null":
            problem = "Origin null (a sandboxed or local file page): entries are taken from this server's own page"
        elif _netloc(origin) != host:
            problem = f"entries from another site's page are refused (Origin {origin[:80]})"
        else:
            return None
        return await self.refuse(request, 403, "foreign Origin", problem)

    @staticmethod
    def given_key(request: Request) -> str | None:
        given = request.headers.get(KEY_HEADER)
        if given is None:
            for part in (request.headers.get("cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == KEY_COOKIE:
                    given = value
        return given

    async def key_ok(self, request: Request, given: str | None) -> Response | None:
        """None when the scoring key is the server's; a refusal (401, 403) or throttled (429) otherwise. A device that
        sent too many wrong keys is refused for a while whatever it sends, so guessing goes no faster."""
        web, client = self.web, _client(request)
        if not given:
            return await self.refuse(
                request,
                401,
                "no scoring key",
                "to score, give this phone the scoring key: the organiser's screen shows it",
            )
        wait = web.key_tries.wait(client)
        if wait > 0:
            secs = max(1, math.ceil(wait))
            return await self.refuse(
                request,
                429,
                "wrong keys throttled",
                f"too many wrong scoring keys from this device: try again in {secs} s",
                {"Retry-After": str(secs)},
            )
        if web.key_matches(given):
            return None
        web.key_tries.take(client)
        # a cookie with an old key (the server restarted without --key-file) is cleared: the next page asks anew
        forget = {} if request.headers.get(KEY_HEADER) else {"Set-Cookie": f"{KEY_COOKIE}=; Path=/; Max-Age=0"}
        return await self.refuse(
            request,
            403,
            "wrong scoring key",
            "wrong scoring key: ask the organiser for the one on their screen",
            forget,
        )

    async def rate_ok(self, request: Request, board: str) -> Response | None:
        web = self.web
        wait = web.client_rate.take(_client(request))
        who = "this device"
        if wait == 0:
            wait = web.board_rate.take(board)
            who = f"board {board}"
        if wait == 0:
            return None
        secs = max(1, math.ceil(wait))
        return await self.refuse(
            request,
            429,
            "too many entries",
            f"too many entries for {who} at once: wait {secs} s and send it again (nothing was sent)",
            {"Retry-After": str(secs)},
        )

    def key_cookie(self) -> dict[str, str]:
        key = normal_key(self.web.key)
        return {"Set-Cookie": f"{KEY_COOKIE}={key}; Path=/; Max-Age={KEY_MAX_AGE}; HttpOnly; SameSite=Strict"}

    def board_ok(self, request: Request, board: str) -> Response | None:
        """None when the board may be shown: a valid id, followed by this server; a 404 otherwise."""
        boards = self.web.cfg.boards
        if not is_board_id(board):
            return self.not_found(request, f"bad board id {board[:40]!r} (1-32 of A-Z a-z 0-9 _ -)")
        if boards is not None and board not in boards:
            return self.not_found(request, f"board {board} is not one this server follows")
        return None

    # -- reading

    async def index(self, request: Request) -> Response:
        return _html(200, self.web.index_page())

    async def page(self, request: Request) -> Response:
        board = request.path_params["board"]
        kind = request.url.path.split("/")[1]  # tv or enter
        return self.board_ok(request, board) or _html(200, self.web.ui[f"{kind}.html"])

    async def console(self, request: Request) -> Response:
        """The operator's console: the page itself is free (it has its own key form); its data needs the key."""
        return _html(200, self.web.ui["console.html"])

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return self.not_found(request)
        return _response(200, self.web.ui[name], f"{STATIC[name]}; charset=utf-8")

    async def api_boards(self, request: Request) -> Response:
        hub = self.web.hub
        return _json(200, {"boards": hub.boards(), **hub.status()})

    async def api_rules(self, request: Request) -> Response:
        return _json(200, rules_info())

    async def api_scorer(self, request: Request) -> Response:
        """Whether this phone holds the key (a wrong one counts as a try)."""
        given = self.given_key(request)
        refused = await self.key_ok(request, given) if given else None
        return refused or _json(200, {"scorer": bool(given)})

    async def api_console(self, request: Request) -> Response:
        """The console's data, for the scoring key only: every board, and every bridge with its health document."""
        refused = await self.key_ok(request, self.given_key(request))
        if refused is not None:
            return refused
        hub = self.web.hub
        return _json(200, {"boards": hub.boards(), "broker": hub.connected, "bridges": hub.bridges()})

    async def scorer_link(self, request: Request) -> Response:
        """The operator's link: the key in the query, kept in a cookie, then the boards."""
        query = (request.scope.get("query_string") or b"").decode("latin-1")
        refused = await self.key_ok(request, parse_qs(query).get("key", [""])[0])
        return refused or _response(303, b"", "text/plain", {"Location": "/", **self.key_cookie()})

    async def api_scoreboard(self, request: Request) -> Response:
        board = request.path_params["board"]
        bad = self.board_ok(request, board)
        if bad is not None:
            return bad
        doc = self.web.hub.scoreboard(board)
        if doc is None:
            return _json(404, _error(f"no scoreboard for board {board} yet: is a bridge following it?"))
        return _response(200, doc.encode(), "application/json")

    async def api_stream(self, request: Request) -> Response:
        board = request.path_params["board"]
        bad = self.board_ok(request, board)
        if bad is not None:
            return bad
        hub = self.web.hub
        opened = hub.open_stream(board)
        if opened is None:
            if hub.closing:
                return _json(503, _error("flickboard web is stopping"), {"Connection": "close"})
            return await self.refuse(
                request,
                503,
                "too many pages",
                f"too many open pages (at most {MAX_STREAMS:,} live pages on this server); close one and reload",
            )
        stream, _doc = opened
        return _EventStream(hub, stream, "retry: 2000\n\n" + hub.stream_start(board))

    # -- entries

    async def post_input(self, request: Request) -> Response:
        board = request.path_params["board"]
        refused = (
            await self.origin_ok(request)
            or await self.key_ok(request, self.given_key(request))
            or await self.rate_ok(request, board)
            or self.board_ok(request, board)
        )
        if refused is not None:
            return refused
        body = await self.body(request)
        if isinstance(body, Response):
            return body
        try:
            checked = read_request(body, with_id=False)
        except RequestError as e:
            return _json(400, _error(str(e)))
        req = {"line": checked.line} if checked.line is not None else {"new": checked.new}
        code, res = await self.web.hub.send_async(board, req)
        return _json(code, res)

    async def post_key(self, request: Request) -> Response:
        """`{"key": "..."}` from the entry page's form: the key kept in a cookie, or refused."""
        refused = await self.origin_ok(request)
        if refused is not None:
            return refused
        doc = await self.json_object(request, '{"key": "..."}')
        if isinstance(doc, Response):
            return doc
        given = doc.get("key")
        if not isinstance(given, str):
            return _json(400, _error('send {"key": "..."}'))
        return await self.key_ok(request, given) or _json(200, {"ok": True}, self.key_cookie())

    async def json_object(self, request: Request, shape: str) -> dict[str, Any] | Response:
        """The POST body as a JSON object, or the refusal to answer (`shape`: what to send, for its message)."""
        body = await self.body(request)
        if isinstance(body, Response):
            return body
        try:
            doc = json.loads(body)
        except (UnicodeDecodeError, ValueError, RecursionError):
            doc = None
        return doc if isinstance(doc, dict) else _json(400, _error(f"send {shape}"))

    async def body(self, request: Request) -> bytes | Response:
        """The POST body, JSON of at most MAX_BODY bytes; or the refusal to answer."""
        length_text = request.headers.get("content-length")
        if length_text is None:
            return _json(411, _error("send the request with a Content-Length"))
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length < 0:
            return _json(400, _error("bad Content-Length"))
        if length > MAX_BODY:
            await self._drain(request)  # so the client gets this answer rather than a reset connection
            return _json(413, _error(f"request of {length} bytes, longer than {MAX_BODY}"))
        ctype = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        request.scope["flickboard.body_read"] = True
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                body = await request.body()
        except TimeoutError:
            return _json(408, _error(f"the request's body did not come within {REQUEST_TIMEOUT:g} s"))
        if ctype != "application/json":
            return _json(415, _error('send JSON (Content-Type: application/json): {"line": "..."}'))
        return body


class _Protocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol, with a deadline on a request's head: a client that connects and sends nothing, or
    its headers a byte at a time, is dropped after REQUEST_TIMEOUT (as the stdlib server's 30 s did), so silent
    connections cannot hold the server's file descriptors. An open event stream sends, it does not wait: no
    deadline then."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(REQUEST_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class _SayLog(logging.Handler):
    """uvicorn's own log lines, as one line each on the operator's terminal (never a traceback): a malformed request
    is a refusal like the others, counted; anything else is said."""

    def __init__(self, web: WebApp) -> None:
        super().__init__(logging.WARNING)
        self.web = web

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                err = record.exc_info[1]
                text += f" ({type(err).__name__}: {err})"
            if "Invalid HTTP request" in text:
                self.web.refusals.add("bad HTTP request", f"{text} (the HTTP parser refused it)")
            else:
                self.web.say(printable(f"HTTP server: {text}"))


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here (so a port in use is one line at start, and port 0 is known at once)."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    infos.sort(key=lambda i: i[0] != socket.AF_INET)  # IPv4 first, as the stdlib server did
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(LISTEN_BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _raise_file_limit(wanted: int) -> None:
    """One open page is one file descriptor: raise the soft limit towards `wanted` (never above the hard one)."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class WebApp:
    """A running `flickboard web`: the hub connected (in the background) and uvicorn serving the Starlette site in
    a thread of its own, with its own event loop."""

    def __init__(self, cfg: WebConfig, say: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.say = say
        self.ui = _load_ui()
        self.refusals = Refusals(say)
        self.key = cfg.key or new_key()  # as the operator wrote it, or ABCD-EFGH
        self.key_tries = Buckets(*cfg.key_rate)
        self.client_rate = Buckets(*cfg.client_rate)
        self.board_rate = Buckets(*cfg.board_rate)
        self.names = _own_names(cfg)
        self.hub = Hub(cfg, say, self.refusals)
        try:
            self.sock = _listen(cfg.host, cfg.port)
        except OSError as e:
            raise WebError(f"cannot listen on {cfg.host}:{cfg.port}: {e.strerror or e}") from None
        self.port = int(self.sock.getsockname()[1])
        self.tournament: TournamentPages | None = None
        if cfg.tournament is not None:
            from flickboard.displays import tournament_web  # (it imports this module: loaded only when asked for)

            try:
                self.tournament = tournament_web.TournamentPages(self, cfg.tournament)
            except WebError:
                self.sock.close()
                raise
        self.site = _Site(self)
        config = uvicorn.Config(
            self.site,
            http=_Protocol,
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=False,  # a client's X-Forwarded-For must not change its address (the rate limits)
            server_header=False,
            timeout_graceful_shutdown=2,
            backlog=LISTEN_BACKLOG,
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.log = _SayLog(self)
        self._stopped = False
        self._thread = threading.Thread(target=self._serve, name="flickboard-web", daemon=True)

    @property
    def url(self) -> str:
        host = self.cfg.host
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostname()
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def scorer_link(self) -> str:
        """The link that gives a phone the scoring key (for the operator's eyes only)."""
        return f"{self.url}/scorer?key={normal_key(self.key)}"

    def key_matches(self, given: str) -> bool:
        return hmac.compare_digest(normal_key(given).encode(), normal_key(self.key).encode())

    def host_problem(self, host: str | None, local: str) -> str | None:
        """Why a request's Host is not one this server answers for; None when it is: one of its names (localhost,
        the machine's names, --host, --allowed-host), or the very address the request came in on."""
        if not host:
            return "no Host header: send the name or address of this server"
        try:  # a host name or address and a port, nothing else (`evil@localhost` is not localhost)
            name = urlsplit(f"//{host}").hostname if not any(c in host for c in "@/?#\\ ") else None
            urlsplit(f"//{host}").port  # noqa: B018 (a bad port raises)
        except ValueError:
            name = None
        if name is None:
            return f"bad Host header {host[:80]!r}"
        name = name.rstrip(".")
        if name in self.names:
            return None
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(name) == ipaddress.ip_address(local.split("%")[0]):
                return None
        return (
            f"this server does not answer for the name {name[:80]!r}: open it by its own name or address "
            "(a name of your own: --allowed-host)"
        )

    def _serve(self) -> None:
        loop = self.loop
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(self._loop_error)
        try:
            loop.run_until_complete(self.server.serve(sockets=[self.sock]))
        except (Exception, SystemExit) as e:  # the thread's end: said in one line, whatever it was
            self.say(printable(f"the HTTP server stopped: {type(e).__name__}: {e}"))
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        err = context.get("exception")
        if isinstance(err, ConnectionError | TimeoutError | asyncio.CancelledError):
            return
        detail = f"{type(err).__name__}: {err}" if err is not None else str(context.get("message", "?"))
        if isinstance(err, OSError) and err.errno in (errno.EMFILE, errno.ENFILE):  # asyncio retries every second
            self.refusals.add(
                "out of open files",
                f"a connection could not be accepted: {detail} (raise the open-file limit: ulimit -n, LimitNOFILE=)",
            )
            return
        self.say(printable(f"HTTP server: {detail}"))

    def start(self) -> None:
        _raise_file_limit(MAX_STREAMS + 1024)
        self.hub.loop = self.loop
        try:
            self.hub.start()
        except WebError:
            self.sock.close()
            raise
        for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi"):  # all to "uvicorn", and no further
            logging.getLogger(name).propagate = True
        logging.getLogger("uvicorn").propagate = False
        logging.getLogger("uvicorn").addHandler(self.log)
        self._thread.start()
        if self.tournament is not None:
            self.tournament.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise WebError(f"the HTTP server on {self.cfg.host}:{self.port} did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.tournament is not None:
            self.tournament.stop()
        self.hub.stop()  # closes the event streams, in the loop: their responses end
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(10)
        with contextlib.suppress(OSError):
            self.sock.close()
        logging.getLogger("uvicorn").removeHandler(self.log)
        if self.refusals.counts:
            self.say(self.refusals.summary())

    def index_page(self) -> bytes:
        boards = self.hub.boards()
        status = self.hub.status()
        rows = []
        for b, row in boards.items():
            sides, totals = row["sides"], row["totals"]
            score = " - ".join(f"{s} {t}" for s, t in zip(sides, totals, strict=False)) or "?"
            state = {True: "board online", False: "board offline", None: "scored by hand"}.get(row["online"], "")
            if row["over"]:
                state = "match over" if row["game"] == "pichenotte" else "game over"
            rows.append(
                f'<li><span class="bid">{html.escape(b)}</span> <span class="bscore">{html.escape(score)}</span> '
                f'<span class="bstate">{html.escape(state)}</span> '
                f'<a class="btn" href="/tv/{b}">TV</a> <a class="btn" href="/enter/{b}">Enter</a></li>'
            )
        if not rows:
            rows.append(f"<li class='none'>No scoreboard seen yet on {html.escape(str(self.cfg.mqtt))}.</li>")
        if not status["broker"]:
            conn = f"not connected to the broker {self.cfg.mqtt}: trying again"
        else:
            bridges = status["bridges"]
            said = [f"bridge {b} " + ("running" if up else "OFFLINE") for b, up in sorted(bridges.items())]
            conn = "; ".join(said) if said else "no bridge has said it is running"
        page = self.ui["index.html"].decode()
        page = page.replace("<!--BOARDS-->", "\n".join(rows)).replace("<!--STATUS-->", html.escape(conn))
        return page.encode()


def _own_names(cfg: WebConfig) -> frozenset[str]:
    """The host names this server answers for, in lower case."""
    names = {"localhost", "localhost.localdomain", *(h.lower().rstrip(".") for h in cfg.allowed_hosts)}
    with contextlib.suppress(OSError):
        short = socket.gethostname().lower()
        names |= {short, f"{short}.local", socket.getfqdn().lower()}
    if cfg.host not in ("", "0.0.0.0", "::"):
        names.add(cfg.host.lower().strip("[]"))
    return frozenset(n for n in names if n)


def start_web(cfg: WebConfig, say: Callable[[str], None] | None = None) -> WebApp:
    """`flickboard web` started in the background. Raises WebError (one line)."""
    app = WebApp(cfg, say or (lambda text: print(f"flickboard web: {text}", file=sys.stderr, flush=True)))
    app.start()
    return app


# ---------------------------------------------------------------- the command


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The options of `flickboard web`."""
    add_broker_arguments(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0: all)")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    p.add_argument(
        "--board", action="append", metavar="ID", help="show only this board (repeatable; default: every board)"
    )
    p.add_argument(
        "--key-file",
        metavar="FILE",
        help=f"keep the scoring key in FILE (made the first time), so it stays across restarts; or set {KEY_ENV}. "
        "Default: a new key on every start",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        default=[],
        help="one more name the server answers for (a DNS name, a reverse proxy's; repeatable)",
    )
    p.add_argument(
        "--tournament",
        metavar="FILE",
        help="a tournament journal: its hall screen, entrants' and organiser's pages and score cards, and its hall "
        "(the boards open their assigned matches and report their results)",
    )


def web_config(args: Any) -> WebConfig:
    try:
        url, ca_file = broker_of(args)
    except ConfigError as e:
        raise WebError(str(e)) from None
    boards: tuple[str, ...] | None = None
    if args.board:
        for b in args.board:
            problem = board_problem(b)
            if problem:
                raise WebError(f"--board: {problem}")
        boards = tuple(dict.fromkeys(args.board))
    if not 0 <= args.port <= 65535:
        raise WebError(f"--port must be 0-65535, not {args.port}")
    key, source = load_key(dict(os.environ), getattr(args, "key_file", None))
    allowed = tuple(h.strip() for h in getattr(args, "allowed_host", None) or [] if h.strip())
    return WebConfig(
        url,
        ca_file=ca_file,
        host=args.host,
        port=args.port,
        boards=boards,
        key=key,
        key_source=source,
        allowed_hosts=allowed,
        tournament=getattr(args, "tournament", None),
    )


def run_web(args: Any, out: TextIO) -> int:
    """`flickboard web`: serve until Ctrl-C, SIGTERM or SIGHUP. Errors are one line on stderr (exit 2)."""
    stop = threading.Event()
    with lifecycle.on_stop_signals(stop.set):  # before the first line: whoever reads it may stop us at once
        try:
            app = start_web(web_config(args))
        except WebError as e:
            print(f"flickboard web: {e}", file=sys.stderr, flush=True)
            return 2
        try:
            print(f"flickboard web: {app.url}/ (boards seen on {app.cfg.mqtt}); Ctrl-C stops", file=out, flush=True)
            for b in app.cfg.boards or ("<board>",):
                print(f"  TV: {app.url}/tv/{b}", file=out, flush=True)
                print(f"  Entry: {app.url}/enter/{b}", file=out, flush=True)
            print(f"  Console: {app.url}/console", file=out, flush=True)
            if app.tournament is not None:
                print(f"  Hall: {app.url}/hall  Organiser: {app.url}/organiser  Entrants: {app.url}/entrant/<name>",
                      file=out, flush=True)  # fmt: skip
            print(f"  Scoring key: {app.key} ({app.cfg.key_source})", file=out, flush=True)
            print(f"  Scorers' link (for phones, not the TV): {app.scorer_link}", file=out, flush=True)
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            app.stop()
    print("flickboard web: stopped", file=out, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m flickboard.displays.web ...`: the same as `flickboard web ...`."""
    p = argparse.ArgumentParser(prog="flickboard web", description="the TV scoreboard and the phone entry page")
    configure_parser(p)
    return run_web(p.parse_args(argv), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
