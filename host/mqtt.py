"""Every MQTT topic Flickboard publishes or reads, in one place (docs/mqtt.md and docs/protocol.md say what each
carries). Code elsewhere builds a topic with `board_topic` and reads one with `parse_board_topic`; it never spells
`flickboard/...` itself (tests/board/test_topics.py holds that). `client()` makes every paho client Flickboard uses: the
bridge's link, the web page, the integrations and the command-line tools; `Subscriber` keeps one of them subscribed
across reconnects and says when it is ready.

    flickboard/<board>/status      the board's retained online/offline (its last will)       board -> all
    flickboard/<board>/raw         the board's protocol messages, QoS 1                       board -> bridge
    flickboard/<board>/cmd         host commands (ack, ping, ...), QoS 1                      bridge -> board
    flickboard/<board>/input       a manual entry for the board's game                        scorer -> bridge
    flickboard/<board>/result      the answer to an entry                                     bridge -> scorer
    flickboard/<board>/scoreboard  the retained scoreboard document                           bridge -> displays
    flickboard/<board>/events      the scoring moments, one per message                       bridge -> displays
    flickboard/bridge/<id>/status  each bridge's retained online/offline (its last will)      bridge -> all
    flickboard/bridge/<id>/health  each bridge's retained health document                     bridge -> operators
    flickboard/bridge/status       deprecated: the shared status of one-bridge days           bridge -> all
    flickboard/bridge/health       deprecated: the shared health document                     bridge -> operators

A scoreboard names the bridge that keeps it (`"bridge": "<id>"`); a display follows every bridge's status
(`EVERY_BRIDGE_STATUS`) with a `BridgeWatch` and asks it whether that bridge is online, so one bridge stopping
marks only its own boards' scores stale.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from flickboard.config import RESERVED_BOARDS, SYSTEM_CA, MqttUrl, is_board_id, is_bridge_id

ROOT = "flickboard"
BRIDGE = "bridge"  # the level under ROOT that holds the bridges' own topics (a reserved board id)
HEALTH = "health"
# Deprecated: the one status and health topic every bridge shared. With two bridges on a broker the last will of one
# said "offline" for the boards of both. Flickboard's own displays (terminal, web, integrations) follow each bridge's
# own status through BridgeWatch, and read the shared one only for a scoreboard that names no bridge (one published
# by a bridge older than per-bridge topics). The bridge still says `online` on connect and `offline` on a clean stop
# here (not as its last will) for such older displays a club may run.
BRIDGE_STATUS = f"{ROOT}/{BRIDGE}/status"
BRIDGE_HEALTH = f"{ROOT}/{BRIDGE}/health"
BRIDGE_KINDS = ("status", HEALTH)
DEFAULT_BRIDGE_ID = "flickboard-bridge"  # the default client id's (host/config.py derives it)
EVERY_BRIDGE = "+"
EVERY_BRIDGE_STATUS = f"{ROOT}/{BRIDGE}/{EVERY_BRIDGE}/status"  # what a display subscribes to (BridgeWatch.TOPICS)
EVERY_BRIDGE_HEALTH = f"{ROOT}/{BRIDGE}/{EVERY_BRIDGE}/{HEALTH}"  # what an operator's console subscribes to

STATUS = "status"
RAW = "raw"
CMD = "cmd"
INPUT = "input"
RESULT = "result"
SCOREBOARD = "scoreboard"
EVENTS = "events"
BOARD_KINDS = (STATUS, RAW, CMD, INPUT, RESULT, SCOREBOARD, EVENTS)
DISPLAY_KINDS = (SCOREBOARD, EVENTS, RESULT)  # what a screen follows
EVERY_BOARD = "+"
# The longest scoreboard, moment or answer a Flickboard program reads (a long match's scoreboard is tens of KB): a
# longer message is refused before it is decoded. The documented broker refuses far larger packets itself.
MAX_DOCUMENT = 1 << 20
CHUNK = 1 << 16  # bytes read at a time from an oversized message, which are then dropped
PUBLISH = 0x30  # an MQTT PUBLISH packet's type, in the first byte's high nibble


def board_topic(board: str, kind: str) -> str:
    """`flickboard/<board>/<kind>`; `board` may be `EVERY_BOARD` (a subscription)."""
    if kind not in BOARD_KINDS:
        raise ValueError(f"no board topic {kind!r}")
    return f"{ROOT}/{board}/{kind}"


def board_topics(boards: Iterable[str] | None, kinds: Iterable[str]) -> list[str]:
    """The topics of `kinds` for each board, or for every board (`+`) when `boards` is None."""
    names = list(boards) if boards is not None else [EVERY_BOARD]
    return [board_topic(b, k) for b in names for k in kinds]


def split_board_topic(topic: str) -> tuple[str, str] | None:
    """(board, kind) of `flickboard/<board>/<kind>`, whatever the board id and the kind say (the caller judges
    them, and says why it refuses); None for the bridge's own topics and anything else."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != ROOT or parts[1] in RESERVED_BOARDS:
        return None
    return parts[1], parts[2]


def parse_board_topic(topic: str) -> tuple[str, str] | None:
    """(board, kind) of a board's topic with a valid board id and a known kind; None for anything else."""
    split = split_board_topic(topic)
    if split is None or split[1] not in BOARD_KINDS or not is_board_id(split[0]):
        return None
    return split


def bridge_topic(bridge_id: str, kind: str) -> str:
    """`flickboard/bridge/<id>/<kind>`: a bridge's own `status` (its last will) or `health`; `bridge_id` may be
    `EVERY_BRIDGE` (a subscription)."""
    if kind not in BRIDGE_KINDS:
        raise ValueError(f"no bridge topic {kind!r}")
    if bridge_id != EVERY_BRIDGE and not is_bridge_id(bridge_id):
        raise ValueError(f"bad bridge id {bridge_id[:40]!r}")
    return f"{ROOT}/{BRIDGE}/{bridge_id}/{kind}"


def parse_bridge_topic(topic: str) -> tuple[str, str] | None:
    """(bridge id, kind) of `flickboard/bridge/<id>/<kind>` with a valid id and a known kind; None otherwise."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[1] != BRIDGE or parts[3] not in BRIDGE_KINDS:
        return None
    return (parts[2], parts[3]) if is_bridge_id(parts[2]) else None


class BridgeWatch:
    """Which bridges are online, for a display: feed it every message of `TOPICS` (each bridge's retained status,
    and the deprecated shared one) and ask whether the bridge that keeps a scoreboard is online.

        watch = BridgeWatch()
        subscribe to [..., *BridgeWatch.TOPICS]
        on_message: if watch.feed(topic, payload): return        # a bridge's status: taken
        watch.owner_online(doc)                                   # True, False, or None (not known)

    `owner_online(doc)` reads the document's `bridge` (docs/mqtt.md): that bridge's own status. A document without
    one comes from a bridge older than per-bridge topics: the shared status answers for it. A bridge whose status has
    not been heard (nor a retained one found) is not known: None, which a display shows as neither live nor stale.
    Thread-safe (paho's network thread feeds it, a display's thread asks)."""

    TOPICS = (EVERY_BRIDGE_STATUS, BRIDGE_STATUS)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._online: dict[str, bool] = {}
        self._shared: bool | None = None

    def feed(self, topic: str, payload: bytes) -> bool:
        """Take one message: True when it was a bridge's status (whatever it said), False for any other topic.
        `online`/`offline` set the bridge's state; an empty payload (a retained status cleared) forgets it; any
        other payload is ignored."""
        if topic == BRIDGE_STATUS:
            bridge = None
        else:
            parsed = parse_bridge_topic(topic)
            if parsed is None or parsed[1] != "status":
                return False
            bridge = parsed[0]
        said = bytes(payload).strip()
        state = {b"online": True, b"offline": False}.get(said)
        with self._lock:
            if bridge is None:
                if state is not None or not said:
                    self._shared = state
            elif state is not None:
                self._online[bridge] = state
            elif not said:
                self._online.pop(bridge, None)
        return True

    def online(self, bridge_id: str | None) -> bool | None:
        """The bridge's own status (None: not heard); `bridge_id` None: the deprecated shared status."""
        with self._lock:
            return self._shared if bridge_id is None else self._online.get(bridge_id)

    def owner_online(self, doc: Any) -> bool | None:
        """Whether the bridge that keeps the scoreboard `doc` is online (see the class docstring)."""
        if not isinstance(doc, dict):
            return None
        owner = doc.get("bridge")
        if owner is None:
            return self.online(None)
        return self.online(owner) if is_bridge_id(owner) else None

    def retained(self) -> list[tuple[str, bytes]]:
        """What was heard, as the retained messages that said it (for a listener that joins later)."""
        with self._lock:
            said = [(bridge_topic(b, "status"), b"online" if up else b"offline") for b, up in self._online.items()]
            if self._shared is not None:
                said.append((BRIDGE_STATUS, b"online" if self._shared else b"offline"))
        return said

    @property
    def bridges(self) -> dict[str, bool]:
        """Every bridge heard of: id -> online."""
        with self._lock:
            return dict(self._online)


# An entry's lifetime (docs/mqtt.md, "An entry's lifetime"). Every program that sends entries waits a while for the
# bridge's answer (10 s unless told otherwise) and then tells its user that nothing was entered. So that this is true,
# the entry is published with an MQTT 5 message expiry a little shorter than that wait: the broker drops an entry it
# could not deliver in time (a bridge that is down, restarting, or cut off), from its queues and from its persistence
# file alike, instead of handing it to the bridge minutes later. ENTRY_MARGIN_S covers the bridge's own work and the
# answer's way back.
ENTRY_MARGIN_S = 2.0
ENTRY_LIFETIME_MIN_S = 1


# -- what a board's scoreboard document says (docs/mqtt.md), read alike by the tournament hall and the bridge --------


def under_way(doc: Mapping[str, Any]) -> bool:
    """Whether a board's scoreboard shows a game that is not over and has been played: a point scored, a game or round
    finished, a shot or flick played or under way, or a shoot-out begun (a game just set up, with only the board's
    own messages in its journal, is not under way)."""
    score = doc.get("score")
    if not isinstance(score, dict) or score.get("over") is True or not doc.get("entries"):
        return False
    if score.get("games") or score.get("rounds") or doc.get("open_shot"):
        return True
    totals = score.get("totals")
    if isinstance(totals, list) and any(type(t) is int and t != 0 for t in totals):
        return True
    current = score.get("current")
    if isinstance(current, dict) and any(
        current.get(k) for k in ("shots_played", "shot_open", "shots", "turn_shots", "flicks_played")
    ):
        return True
    shootout = score.get("shootout")
    return isinstance(shootout, dict) and any(type(n) is int and n > 0 for n in shootout.get("shots") or ())


def game_text(doc: Mapping[str, Any]) -> str:
    """A board's game in a few words for people: "Ana 120 – Ben 80"."""
    score = doc.get("score")
    if not isinstance(score, dict):
        return "a game"
    sides = score.get("sides")
    names = (
        [str(s.get("name", "?"))[:40] for s in sides]
        if isinstance(sides, list) and all(isinstance(s, dict) for s in sides)
        else []
    )
    totals = score.get("totals")
    if len(names) == 2 and isinstance(totals, list) and len(totals) == 2:
        return f"{names[0]} {totals[0]} – {names[1]} {totals[1]}"
    return " v ".join(names) or "a game"


def entry_lifetime(wait: float) -> int:
    """The whole seconds an entry may wait on the broker when its sender waits `wait` seconds for the answer."""
    return max(ENTRY_LIFETIME_MIN_S, int(wait - ENTRY_MARGIN_S))


def publish_entry(c: paho.Client, board: str, payload: str | bytes, wait: float) -> paho.MQTTMessageInfo:
    """Publish an entry (a request on `flickboard/<board>/input`, QoS 1, not retained) that the broker drops unless
    delivered within `entry_lifetime(wait)` seconds. `c` must be an MQTT 5 client (`client(..., entries=True)`):
    MQTT 3.1.1 has no message expiry."""
    if getattr(c, "protocol", None) != MQTTProtocolVersion.MQTTv5:
        raise ValueError("an entry needs an MQTT 5 client for its lifetime: client(..., entries=True)")
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]  # paho leaves it unannotated
    props.MessageExpiryInterval = entry_lifetime(wait)
    return c.publish(board_topic(board, INPUT), payload, qos=1, retain=False, properties=props)


def client(
    url: MqttUrl,
    client_id: str,
    ca_file: str | None = None,
    *,
    ca_required: bool = False,
    persistent: bool = False,
    will: str | None = None,
    reconnect: tuple[int, int] = (1, 30),
    entries: bool = False,
) -> paho.Client:
    """A paho client (callbacks version 2) for `url`: its user and password, TLS for mqtts:// with `ca_file` (None
    or "system": the system's trust store, unless `ca_required`), a persistent session if asked, a retained `offline`
    last will on `will`, reconnects `reconnect` seconds apart (first, at most), and every small packet sent at once
    (TCP_NODELAY). MQTT 3.1.1, except for a program that sends entries (`entries`): MQTT 5, whose message expiry gives
    each entry its lifetime (`publish_entry`); such a client starts a clean session on each connect. Raises ValueError
    with one line for a CA file that cannot be used."""
    if entries and persistent:
        raise ValueError("a client that sends entries keeps no session: nothing of it may arrive late")
    if entries:
        c = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5)
    else:
        c = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=not persistent,
            protocol=MQTTProtocolVersion.MQTTv311,
        )
    if url.username is not None:
        c.username_pw_set(url.username, url.password)
    if url.tls:
        if ca_file is None and ca_required:
            raise ValueError(f"{url}: mqtts needs a CA file (--ca-file, or {SYSTEM_CA!r} for the system store)")
        try:
            c.tls_set(ca_certs=None if ca_file in (None, SYSTEM_CA) else ca_file)
        except (OSError, ValueError) as e:
            raise ValueError(f"CA file {ca_file}: {e}") from None
    elif ca_file is not None:
        raise ValueError(f"the CA file is for mqtts:// brokers; {url} is plain mqtt://")
    if will is not None:
        c.will_set(will, b"offline", qos=1, retain=True)
    c.reconnect_delay_set(*reconnect)
    c.on_socket_open = _no_delay
    return c


def _no_delay(_client: paho.Client, _userdata: Any, sock: Any) -> None:
    """Send each small packet at once (TCP_NODELAY). Otherwise an ack, a PUBACK and a scoreboard written back to
    back wait for the broker's delayed TCP acknowledgement (Nagle's algorithm): tens of ms per event
    (docs/performance.md)."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Subscriber:
    """Keeps a paho client subscribed to `topics()`, at QoS 1, across reconnects: it subscribes again on every
    connect (a broker that restarted without persistence, or a clean session, has forgotten the subscriptions), and
    is *ready* once the broker has answered every subscription of this connection and refused none.

    It takes over the client's on_connect, on_disconnect and on_subscribe; its owner hears of them through hooks,
    called on paho's network thread:
        up(client, session_present)   connected; the subscriptions are on their way
        down(reason)                  a connection that was up is gone (also by the owner's own disconnect)
        refused(reason_code)          the broker refused the connection (paho tries again)
        subscribed(refused_topics)    every subscription of this connection is answered; the topics refused
    A broker refuses a subscription by answering it with a failure code; Mosquitto's file ACL grants every
    subscription and delivers nothing that the user may not read (docs/security.md), so with it `subscribed`
    always comes with no refusals.
    """

    def __init__(
        self,
        client: paho.Client,
        topics: Callable[[], Sequence[str]],
        *,
        up: Callable[[paho.Client, bool], None] | None = None,
        down: Callable[[ReasonCode], None] | None = None,
        refused: Callable[[ReasonCode], None] | None = None,
        subscribed: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.client = client
        self.topics = topics
        self._up, self._down, self._refused_hook, self._subscribed_hook = up, down, refused, subscribed
        self.connects = 0  # connections accepted
        self.refused_topics: list[str] = []  # refused on this connection
        self._lock = threading.Lock()
        self._pending: dict[int, list[str]] = {}  # SUBSCRIBE packet id -> its topics
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self._ready = threading.Event()
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def ready(self) -> bool:
        """Connected, every subscription answered, none refused."""
        return self._ready.is_set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until ready; False on timeout."""
        return self._ready.wait(timeout)

    def wait_subscribed(self, timeout: float | None = None) -> bool:
        """Wait until every subscription of this connection is answered, refused or not; False on timeout."""
        return self._subscribed.wait(timeout)

    def _on_connect(
        self,
        client: paho.Client,
        _userdata: Any,
        flags: paho.ConnectFlags,
        reason_code: ReasonCode,
        _properties: Properties | None,
    ) -> None:
        if reason_code.is_failure:
            if self._refused_hook is not None:
                self._refused_hook(reason_code)
            return
        topics = list(dict.fromkeys(self.topics()))
        with self._lock:
            self.connects += 1
            self.refused_topics = []
            self._pending.clear()
            self._connected.set()
            self._subscribed.clear()
            self._ready.clear()
            if topics:
                result, mid = client.subscribe([(t, 1) for t in topics])
                if result == paho.MQTT_ERR_SUCCESS and mid is not None:
                    self._pending[mid] = topics
        if not topics:
            self._all_answered()
        if self._up is not None:
            self._up(client, bool(flags.session_present))

    def _on_disconnect(
        self,
        _client: paho.Client,
        _userdata: Any,
        _flags: paho.DisconnectFlags,
        reason_code: ReasonCode,
        _properties: Properties | None,
    ) -> None:
        with self._lock:
            was = self._connected.is_set()
            self._connected.clear()
            self._subscribed.clear()
            self._ready.clear()
            self._pending.clear()
        if was and self._down is not None:
            self._down(reason_code)

    def _on_subscribe(
        self,
        _client: paho.Client,
        _userdata: Any,
        mid: int,
        reason_codes: list[ReasonCode],
        _properties: Properties | None,
    ) -> None:
        with self._lock:
            topics = self._pending.pop(mid, None)
            if topics is None:  # an answer to a subscription of an earlier connection, or not ours
                return
            self.refused_topics += [t for t, rc in zip(topics, reason_codes, strict=False) if rc.is_failure]
            done = not self._pending
        if done:
            self._all_answered()

    def _all_answered(self) -> None:
        """The owner hears first, so that what it does on subscription is done when `wait_ready` returns."""
        with self._lock:
            if not self._connected.is_set():
                return
            refused = list(self.refused_topics)
        if self._subscribed_hook is not None:
            self._subscribed_hook(refused)
        with self._lock:
            if self._connected.is_set():
                self._subscribed.set()
                if not refused:
                    self._ready.set()


class PayloadGuard:
    """Keeps paho from reading an oversized PUBLISH into memory. paho reads a packet's length, then the whole packet
    into one buffer, and copies the payload out of it: one 100 MB message took the web server to 341 MB and the
    bridge to 452 MB. Here, once the length of a PUBLISH is known to be over `limit`, its topic and packet id are
    read and the rest is read in CHUNK-sized pieces and dropped; paho then handles the message with an empty payload
    (so it acknowledges a QoS 1 message as usual, and the broker keeps sending) and `take()` says, in on_message,
    that it was this one.

    Every Flickboard client has one (the bridge's link, the web page, the integrations, enter and scoreboard): on a
    broker without a size limit (docs/security.md sets one) a single message would otherwise cost its size several
    times over. It hooks two of paho's internal methods (`_packet_read`, `_sock_recv`) on this one client: paho 2.x,
    as pyproject.toml pins it; tests/displays/test_web_attacks.py and tests/board/test_host_links.py send a 100 MB
    message to a running program and watch its memory."""

    def __init__(self, client: paho.Client, limit: int) -> None:
        self.client, self.limit = client, limit
        self._read = client._packet_read
        self._recv = client._sock_recv
        self.packet: object = None  # paho's state of the oversized PUBLISH being read, if any
        self.left = 0  # its bytes still to read
        self.size: int | None = None  # the size of the oversized message paho is handling now
        client._packet_read = self.packet_read  # type: ignore[method-assign]
        client._sock_recv = self.sock_recv  # type: ignore[method-assign]

    def take(self) -> int | None:
        """The size of the message on_message is being given, when it came over the limit; None otherwise."""
        size, self.size = self.size, None
        return size

    def sock_recv(self, bufsize: int) -> bytes:
        p = self.client._in_packet
        big = p["have_remaining"] and p["command"] & 0xF0 == PUBLISH and p["remaining_length"] > self.limit
        if big and self.packet is not p:  # paho is about to read the body: packet_read takes it over
            self.packet, self.left = p, int(p["remaining_length"])
            raise BlockingIOError
        return self._recv(bufsize)

    def packet_read(self) -> MQTTErrorCode:
        p = self.client._in_packet
        if self.packet is not p:  # none, or the connection was lost meanwhile (paho starts a new packet state)
            self.packet = None
            return self._read()
        head: bytearray = p["packet"]
        qos = (p["command"] >> 1) & 3
        v5 = self.client.protocol == MQTTProtocolVersion.MQTTv5
        while self.left > 0:
            want = _publish_head(head, qos, v5)
            n = min(self.left, want - len(head) if len(head) < want else CHUNK)
            try:
                data = self._recv(n)
            except BlockingIOError:
                return MQTTErrorCode.MQTT_ERR_AGAIN
            except OSError:
                return MQTTErrorCode.MQTT_ERR_CONN_LOST
            if not data:
                return MQTTErrorCode.MQTT_ERR_CONN_LOST
            self.left -= len(data)
            if len(head) < want:
                head.extend(data)
            with self.client._msgtime_mutex:  # bytes are arriving: the keepalive is not due
                self.client._last_bytes_received = paho.time_func()
        self.packet = None
        p["to_process"] = 0  # paho's own reader now finds the packet complete and handles it
        self.size = int(p["remaining_length"]) - len(head)  # the payload's bytes
        try:
            return self._read()
        finally:
            self.size = None


def _publish_head(head: bytearray, qos: int, v5: bool) -> int:
    """How many bytes of a PUBLISH packet's body come before its payload, as far as `head` (its first bytes) tells:
    the topic, the packet id (QoS 1 and 2) and, in MQTT 5, the properties' length and the properties. While a length
    is still unread, the answer is one byte more than `head` has."""
    if len(head) < 2:
        return 2
    at = 2 + int.from_bytes(head[:2], "big") + (2 if qos else 0)
    if not v5 or len(head) < at:
        return at
    size, shift = 0, 0
    for i in range(at, min(len(head), at + 4)):  # the properties' length: a variable byte integer of 1 to 4 bytes
        size |= (head[i] & 0x7F) << shift
        if head[i] < 0x80:
            return i + 1 + size
        shift += 7
    return len(head) + 1 if len(head) < at + 4 else len(head)  # four bytes and no end: malformed, read no more
