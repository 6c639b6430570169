"""`flickboard web`: the TV scoreboard and the phone entry page, served over HTTP from what the bridge publishes.

    flickboard web --mqtt mqtt://localhost             # http://127.0.0.1:8080/
    app = start_web(WebConfig(parse_mqtt_url(url)))    # in-process (tests); app.url, app.stop()

One process, two sides. Its MQTT side (`Hub`) follows the broker like any display (docs/mqtt.md): the retained
scoreboards, the moments, the results and the bridge's status, and it sends manual entries on
`flickboard/<board>/input`. Its HTTP side (stdlib `ThreadingHTTPServer`) serves the pages in `host/displays/webui/` and
pushes the live data to them with Server-Sent Events, so a browser needs one HTTP port and nothing else (the
choice is explained in docs/displays.md):

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
import collections
import contextlib
import hmac
import html
import ipaddress
import json
import math
import os
import secrets
import select
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from host import lifecycle
from host.config import (
    ConfigError,
    MqttUrl,
    add_broker_arguments,
    board_problem,
    broker_of,
    is_board_id,
)
from host.core.entries import MAX_INPUT, RequestError, read_request
from host.mqtt import (
    BRIDGE_STATUS,
    DISPLAY_KINDS,
    EVENTS,
    INPUT,
    MAX_DOCUMENT,
    RESULT,
    PayloadGuard,
    Subscriber,
    board_topic,
    board_topics,
    parse_board_topic,
)
from host.mqtt import client as mqtt_client
from rules import games
from rules.pichenotte import RULE_SETS, rule_set
from rules.pichenotte.engine import ZONE_VALUES

__all__ = ["Hub", "WebApp", "WebConfig", "WebError", "configure_parser", "run_web", "start_web"]

MAX_BODY = 4096  # bytes of a POST body; a valid request is well under MAX_INPUT (2048) anyway
MAX_DOC = MAX_DOCUMENT  # bytes of a scoreboard or moment payload we keep; a real scoreboard is a few kB
MAX_STREAMS = 256  # open event streams (one per TV or phone page: a 40-board evening needs about 100)
MAX_QUEUED = 256  # events waiting for a slow stream; beyond, the stream is closed and the browser reconnects
PING_EVERY = 15.0  # seconds between SSE comments on a quiet stream (proxies and browsers close idle ones)
ANSWER_TIMEOUT = 10.0
PAGES = ("index.html", "tv.html", "enter.html")
JS = "text/javascript"
STATIC = {"app.css": "text/css", "common.js": JS, "tv.js": JS, "enter.js": JS}
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


class Stream:
    """The events waiting for one open event stream: (event name, one-line JSON data)."""

    def __init__(self, board: str) -> None:
        self.board = board
        self.cond = threading.Condition()
        self.items: collections.deque[tuple[str, str]] = collections.deque()
        self.closed = False

    def push(self, event: str, data: str) -> None:
        with self.cond:
            if self.closed:
                return
            if len(self.items) >= MAX_QUEUED:  # a stuck reader: drop it, its browser reconnects and catches up
                self.closed = True
            else:
                self.items.append((event, data))
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def next(self, timeout: float) -> tuple[str, str] | None:
        """The next event; None when nothing came within `timeout` or the stream is closed (see `closed`)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self.items and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            if self.closed:
                return None
            return self.items.popleft()


class _Answer:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.result: dict[str, Any] | None = None


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
        self.bridge: str | None = None  # "online" / "offline" / None: never said
        self.streams: set[Stream] = set()
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
        return [*board_topics(self.cfg.boards, DISPLAY_KINDS), BRIDGE_STATUS]

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
        with self.lock:
            streams = list(self.streams)
        for s in streams:
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
        if topic == BRIDGE_STATUS:
            text = payload.decode("utf-8", "replace").strip()
            with self.lock:
                self.bridge = text if text in ("online", "offline") else None
            self._fan_status()
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
            return
        if len(payload) > MAX_DOC:
            return
        try:
            doc = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return
        if not isinstance(doc, dict):
            return
        if kind == "scoreboard":
            if doc.get("format") != "flickboard-scoreboard" or doc.get("version") != 1:
                self._problem(f"board {board}: a scoreboard this version cannot show (format/version not 1)")
                return
            data = json.dumps(doc, separators=(",", ":"))
            with self.lock:
                self.docs[board] = data
                self.seen[board] = _index_row(doc)
            self._fan(board, "scoreboard", data)
        elif kind == "events":
            if doc.get("format") == "flickboard-moment":
                self._fan(board, "moment", json.dumps(doc, separators=(",", ":")))
        elif kind == "result":
            rid = doc.get("id")
            with self.lock:
                slot = self.pending.get(rid) if isinstance(rid, str) else None
            if slot is not None:
                slot.result = doc
                slot.event.set()

    # -- fan-out to the event streams

    def status(self) -> dict[str, Any]:
        with self.lock:
            return {"broker": self.connected, "bridge": self.bridge}

    def _fan(self, board: str, event: str, data: str) -> None:
        with self.lock:
            targets = [s for s in self.streams if s.board == board]
        for s in targets:
            s.push(event, data)

    def _fan_status(self) -> None:
        data = json.dumps(self.status())
        with self.lock:
            targets = list(self.streams)
        for s in targets:
            s.push("status", data)

    def open_stream(self, board: str) -> tuple[Stream, str | None] | None:
        """A new stream for the board and its latest scoreboard; None when too many are open."""
        with self.lock:
            if len(self.streams) >= MAX_STREAMS:
                return None
            s = Stream(board)
            self.streams.add(s)
            return s, self.docs.get(board)

    def close_stream(self, s: Stream) -> None:
        with self.lock:
            self.streams.discard(s)

    def scoreboard(self, board: str) -> str | None:
        with self.lock:
            return self.docs.get(board)

    def boards(self) -> dict[str, dict[str, Any]]:
        with self.lock:
            return {b: dict(v) for b, v in sorted(self.seen.items())}

    # -- manual entries

    def send(self, board: str, req: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Publish a checked request with a fresh id and wait for the bridge's answer: (HTTP status, body)."""
        rid = f"web-{uuid.uuid4().hex[:16]}"
        payload = json.dumps({"id": rid, **req}).encode()
        if len(payload) > MAX_INPUT:
            return 400, _error(f"request of {len(payload)} bytes, longer than {MAX_INPUT}")
        slot = _Answer()
        with self.lock:
            if not self.ready:
                return 503, _error(self._not_ready())
            self.pending[rid] = slot
        try:
            info = self.client.publish(board_topic(board, INPUT), payload, qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                return 503, _error(f"the broker {self.cfg.mqtt} went away: nothing was sent, try again")
            if not slot.event.wait(self.cfg.answer_timeout) or slot.result is None:
                return 504, _error(
                    f"no answer from a bridge for board {board} within {self.cfg.answer_timeout:g} s: is it running? "
                    "(the entry may still arrive: check the scoreboard before sending it again)"
                )
        finally:
            with self.lock:
                self.pending.pop(rid, None)
        res = slot.result
        return 200, {k: res.get(k) for k in ("ok", "entry", "message", "board")}


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
    files: dict[str, bytes] = {}
    base = resources.files("host.displays").joinpath("webui")
    for name in (*PAGES, *STATIC):
        try:
            files[name] = base.joinpath(name).read_bytes()
        except OSError:
            raise WebError(f"the web page file host/displays/webui/{name} is missing from this installation") from None
    return files


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: WebApp

    def handle_error(self, request: Any, client_address: Any) -> None:
        err = sys.exc_info()[1]
        if isinstance(err, ConnectionError | TimeoutError):
            return  # the browser went away: nothing to tell anyone
        self.app.say(f"request from {client_address[0]} failed: {type(err).__name__}: {err}")


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "flickboard-web"
    timeout = 30  # seconds of silence from a client before its connection is dropped
    body_read = False  # a POST's body was read (a refusal reads it first otherwise)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # no line per request; errors are said once, by the app

    # -- responses

    def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Referrer-Policy", "no-referrer")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, doc: Any) -> None:
        self._send(code, json.dumps(doc).encode(), "application/json")

    def _not_found(self, what: str = "no such page") -> None:
        if self.path.startswith("/api/"):
            self._json(404, _error(what))
        else:
            page = f"<!doctype html><title>Not found</title><p>{html.escape(what)}. <a href='/'>Boards</a></p>"
            self._send(404, page.encode(), "text/html; charset=utf-8")

    # -- routing

    def do_GET(self) -> None:
        self._guarded(self._get)

    def do_POST(self) -> None:
        self._guarded(self._post)

    def _guarded(self, fn: Callable[[list[str]], None]) -> None:
        try:
            path = urlsplit(self.path).path
            parts = path.split("/")[1:] if path.startswith("/") else []
            if self._host_ok():
                fn(parts)
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as e:
            self.server.app.say(printable(f"{self.command} {self.path[:80]} failed: {type(e).__name__}: {e}"))
            with contextlib.suppress(Exception):
                self._json(500, _error("internal error in flickboard web; see its terminal"))
            self.close_connection = True

    # -- who may ask

    @property
    def client(self) -> str:
        return str(self.client_address[0])

    def _refuse(self, code: int, kind: str, text: str, extra: dict[str, str] | None = None) -> None:
        """Refuse the request: counted, the first of its kind said on the terminal, one line to the client."""
        self.server.app.refusals.add(kind, f"{self.command} {self.path[:60]} from {self.client}: {text}")
        self.close_connection = True
        if self.command == "POST" and not self.body_read:  # closing on unread bytes would reset the connection
            with contextlib.suppress(ValueError):
                length = int(self.headers.get("Content-Length") or 0)
                if 0 < length <= 16 * MAX_BODY:
                    self.rfile.read(length)
        if self.path.startswith("/api/") or self.command != "GET":
            self._send(code, json.dumps({**_error(text), "refused": kind}).encode(), "application/json", extra)
        else:
            said = html.escape(text, quote=False)
            page = f"<!doctype html><title>Refused</title><p>{said}</p><p><a href='/'>Boards</a></p>"
            self._send(code, page.encode(), "text/html; charset=utf-8", extra)

    def _host_ok(self) -> bool:
        """The Host is one this server answers for: not a name pointed at it by someone else (DNS rebinding)."""
        host = self.headers.get("Host")
        problem = self.server.app.host_problem(host, self.connection.getsockname()[0])
        if problem is None:
            return True
        self._refuse(421 if host else 400, "unknown Host", problem)
        return False

    def _origin_ok(self) -> bool:
        """A request that changes something comes from this server's own page: its Origin is this server."""
        origin = self.headers.get("Origin")
        host = (self.headers.get("Host") or "").lower()
        if origin is None:
            problem = "no Origin header: entries are taken from this server's own page (other programs: send Origin)"
        elif origin == "null":
            problem = "Origin null (a sandboxed or local file page): entries are taken from this server's own page"
        elif _netloc(origin) != host:
            problem = f"entries from another site's page are refused (Origin {origin[:80]})"
        else:
            return True
        self._refuse(403, "foreign Origin", problem)
        return False

    def _given_key(self) -> str | None:
        given = self.headers.get(KEY_HEADER)
        if given is None:
            for part in (self.headers.get("Cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == KEY_COOKIE:
                    given = value
        return given

    def _key_ok(self, given: str | None) -> bool:
        """The scoring key is the server's; refused (401, 403) or throttled (429) otherwise. A device that sent too
        many wrong keys is refused for a while whatever it sends, so guessing goes no faster."""
        app = self.server.app
        if not given:
            self._refuse(
                401, "no scoring key", "to score, give this phone the scoring key: the organiser's screen shows it"
            )
            return False
        wait = app.key_tries.wait(self.client)
        if wait > 0:
            secs = max(1, math.ceil(wait))
            self._refuse(
                429,
                "wrong keys throttled",
                f"too many wrong scoring keys from this device: try again in {secs} s",
                {"Retry-After": str(secs)},
            )
            return False
        if app.key_matches(given):
            return True
        app.key_tries.take(self.client)
        # a cookie with an old key (the server restarted without --key-file) is cleared: the next page asks anew
        forget = {} if self.headers.get(KEY_HEADER) else {"Set-Cookie": f"{KEY_COOKIE}=; Path=/; Max-Age=0"}
        self._refuse(
            403, "wrong scoring key", "wrong scoring key: ask the organiser for the one on their screen", forget
        )
        return False

    def _rate_ok(self, board: str) -> bool:
        app = self.server.app
        wait = app.client_rate.take(self.client)
        who = "this device"
        if wait == 0:
            wait = app.board_rate.take(board)
            who = f"board {board}"
        if wait == 0:
            return True
        secs = max(1, math.ceil(wait))
        self._refuse(
            429,
            "too many entries",
            f"too many entries for {who} at once: wait {secs} s and send it again (nothing was sent)",
            {"Retry-After": str(secs)},
        )
        return False

    def _set_key_cookie(self) -> dict[str, str]:
        key = normal_key(self.server.app.key)
        return {"Set-Cookie": f"{KEY_COOKIE}={key}; Path=/; Max-Age={KEY_MAX_AGE}; HttpOnly; SameSite=Strict"}

    def _board(self, board: str) -> bool:
        """Whether the board may be shown: a valid id, followed by this server; answers 404 otherwise."""
        boards = self.server.app.cfg.boards
        if not is_board_id(board):
            self._not_found(f"bad board id {board[:40]!r} (1-32 of A-Z a-z 0-9 _ -)")
            return False
        if boards is not None and board not in boards:
            self._not_found(f"board {board} is not one this server follows")
            return False
        return True

    def _get(self, parts: list[str]) -> None:
        app = self.server.app
        if parts in ([""], []):
            self._send(200, app.index_page(), "text/html; charset=utf-8")
        elif len(parts) == 2 and parts[0] in ("tv", "enter"):
            if self._board(parts[1]):
                self._send(200, app.ui[f"{parts[0]}.html"], "text/html; charset=utf-8")
        elif len(parts) == 2 and parts[0] == "static" and parts[1] in STATIC:
            self._send(200, app.ui[parts[1]], f"{STATIC[parts[1]]}; charset=utf-8")
        elif parts == ["api", "boards"]:
            self._json(200, {"boards": app.hub.boards(), **app.hub.status()})
        elif parts == ["api", "rules"]:
            self._json(200, rules_info())
        elif parts == ["api", "scorer"]:  # whether this phone holds the key (a wrong one counts as a try)
            given = self._given_key()
            if not given or self._key_ok(given):
                self._json(200, {"scorer": bool(given)})
        elif parts == ["scorer"]:  # the operator's link: the key in the query, kept in a cookie, then the boards
            given = parse_qs(urlsplit(self.path).query).get("key", [""])[0]
            if self._key_ok(given):
                self._send(303, b"", "text/plain", {"Location": "/", **self._set_key_cookie()})
        elif len(parts) == 3 and parts[0] == "api" and parts[2] == "scoreboard":
            if self._board(parts[1]):
                doc = app.hub.scoreboard(parts[1])
                if doc is None:
                    self._json(404, _error(f"no scoreboard for board {parts[1]} yet: is a bridge following it?"))
                else:
                    self._send(200, doc.encode(), "application/json")
        elif len(parts) == 3 and parts[0] == "api" and parts[2] == "stream":
            if self._board(parts[1]):
                self._stream(parts[1])
        else:
            self._not_found()

    def _stream(self, board: str) -> None:
        hub = self.server.app.hub
        opened = hub.open_stream(board)
        if opened is None:
            self._json(503, _error(f"too many open pages (at most {MAX_STREAMS}); close one and reload"))
            return
        stream, doc = opened
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Accel-Buffering", "no")  # behind nginx: do not buffer the stream
            self.end_headers()
            self.close_connection = True
            first = f"retry: 2000\n\nevent: status\ndata: {json.dumps(hub.status())}\n\n"
            if doc is not None:
                first += f"event: scoreboard\ndata: {doc}\n\n"
            self.wfile.write(first.encode())
            self.wfile.flush()
            quiet_since = time.monotonic()
            while True:
                item = stream.next(1.0)
                if item is None:
                    if stream.closed or self._client_gone():
                        break
                    if time.monotonic() - quiet_since < PING_EVERY:
                        continue
                chunk = ": ping\n\n" if item is None else f"event: {item[0]}\ndata: {item[1]}\n\n"
                self.wfile.write(chunk.encode())
                self.wfile.flush()
                quiet_since = time.monotonic()
        finally:
            hub.close_stream(stream)

    def _client_gone(self) -> bool:
        """The browser closed the stream (it never sends anything on it, so readable means closed)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
        except (OSError, ValueError):
            return True

    def _post(self, parts: list[str]) -> None:
        is_key = parts == ["api", "key"]
        if not is_key and not (len(parts) == 3 and parts[0] == "api" and parts[2] == "input"):
            self._not_found()
            return
        self.close_connection = True
        if not self._origin_ok():
            return
        if is_key:
            self._post_key()
            return
        if not self._key_ok(self._given_key()) or not self._rate_ok(parts[1]) or not self._board(parts[1]):
            return
        body = self._body()
        if body is None:
            return
        try:
            request = read_request(body, with_id=False)
        except RequestError as e:
            self._json(400, _error(str(e)))
            return
        req = {"line": request.line} if request.line is not None else {"new": request.new}
        code, res = self.server.app.hub.send(parts[1], req)
        self._json(code, res)

    def _post_key(self) -> None:
        """`{"key": "..."}` from the entry page's form: the key kept in a cookie, or refused."""
        body = self._body()
        if body is None:
            return
        try:
            doc = json.loads(body)
        except (UnicodeDecodeError, ValueError, RecursionError):
            doc = None
        given = doc.get("key") if isinstance(doc, dict) else None
        if not isinstance(given, str):
            self._json(400, _error('send {"key": "..."}'))
            return
        if self._key_ok(given):
            self._send(200, json.dumps({"ok": True}).encode(), "application/json", self._set_key_cookie())

    def _body(self) -> bytes | None:
        """The POST body, JSON of at most MAX_BODY bytes; None when refused (answered)."""
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            self._json(411, _error("send the request with a Content-Length"))
            return None
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length < 0:
            self._json(400, _error("bad Content-Length"))
            return None
        if length > MAX_BODY:
            if length <= 16 * MAX_BODY:  # read it, so the client gets this answer rather than a reset connection
                self.rfile.read(length)
            self._json(413, _error(f"request of {length} bytes, longer than {MAX_BODY}"))
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        body = self.rfile.read(length)
        self.body_read = True
        if ctype != "application/json":
            self._json(415, _error('send JSON (Content-Type: application/json): {"line": "..."}'))
            return None
        return body


class WebApp:
    """A running `flickboard web`: the hub connected (in the background) and the HTTP server serving."""

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
            self.server = _Server((cfg.host, cfg.port), _Handler)
        except OSError as e:
            raise WebError(f"cannot listen on {cfg.host}:{cfg.port}: {e.strerror or e}") from None
        self.server.app = self
        self.port = int(self.server.server_address[1])
        self._stopped = False
        self._thread = threading.Thread(target=self.server.serve_forever, name="flickboard-web", daemon=True)

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

    def start(self) -> None:
        try:
            self.hub.start()
        except WebError:
            self.server.server_close()
            raise
        self._thread.start()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.hub.stop()  # closes the event streams, so their threads end
        self.server.shutdown()
        self.server.server_close()
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
            conn = {"online": "the bridge is running", "offline": "the bridge (the scorer) is offline"}.get(
                status["bridge"] or "", "no bridge has said it is running"
            )
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
    """`python -m host.displays.web ...`: the same as `flickboard web ...`."""
    p = argparse.ArgumentParser(prog="flickboard web", description="the TV scoreboard and the phone entry page")
    configure_parser(p)
    return run_web(p.parse_args(argv), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
