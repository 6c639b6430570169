"""Every MQTT topic Flickboard publishes or reads, in one place (docs/mqtt.md and docs/protocol.md say what each
carries). Code elsewhere builds a topic with `board_topic` and reads one with `parse_board_topic`; it never spells
`flickboard/...` itself (tests/board/test_topics.py holds that). `client()` makes every paho client Flickboard uses: the
bridge's link, the web page, the integrations and the command-line tools.

    flickboard/<board>/status      the board's retained online/offline (its last will)       board -> all
    flickboard/<board>/raw         the board's protocol messages, QoS 1                       board -> bridge
    flickboard/<board>/cmd         host commands (ack, ping, ...), QoS 1                      bridge -> board
    flickboard/<board>/input       a manual entry for the board's game                        scorer -> bridge
    flickboard/<board>/result      the answer to an entry                                     bridge -> scorer
    flickboard/<board>/scoreboard  the retained scoreboard document                           bridge -> displays
    flickboard/<board>/events      the scoring moments, one per message                       bridge -> displays
    flickboard/bridge/status       the bridge's retained online/offline (its last will)       bridge -> all
    flickboard/bridge/health       the bridge's retained health document                      bridge -> operators
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterable
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from host.config import RESERVED_BOARDS, SYSTEM_CA, MqttUrl, is_board_id

ROOT = "flickboard"
BRIDGE_STATUS = f"{ROOT}/bridge/status"
BRIDGE_HEALTH = f"{ROOT}/bridge/health"

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


def client(
    url: MqttUrl,
    client_id: str,
    ca_file: str | None = None,
    *,
    ca_required: bool = False,
    persistent: bool = False,
    will: str | None = None,
    reconnect: tuple[int, int] = (1, 30),
) -> paho.Client:
    """A paho client (MQTT 3.1.1, callbacks version 2) for `url`: its user and password, TLS for mqtts:// with
    `ca_file` (None or "system": the system's trust store, unless `ca_required`), a persistent session if asked,
    a retained `offline` last will on `will`, reconnects `reconnect` seconds apart (first, at most), and every
    small packet sent at once (TCP_NODELAY). Raises ValueError with one line for a CA file that cannot be used."""
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
