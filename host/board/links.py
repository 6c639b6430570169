"""The bridge's links to boards: USB serial (pyserial) and MQTT (paho-mqtt 2.x).

Both links only move raw protocol data; decoding, de-duplication and acks belong to the caller.

Serial — one board per port, a background reader thread:

    link = SerialLink("auto" or "/dev/serial/by-id/…", on_line, on_state=..., ping_line=lambda: framed_ping)
    link.start()          # "auto": raises NoBoardFound when no board is plugged in
    link.send(line)       # one host -> board line ("\\n" added); False when the port is not open
    link.stop()

`on_line(port, line)` gets every line that starts with `FB1|` (or another version's `FBn|`, so it can be refused
with a reason; trailing "\\r\\n" stripped) from the reader
thread; any other line (boot banner, `>>>`, tracebacks) is counted in `noise` and logged at debug level.
On a read/write error (unplug) the port is closed, `on_state` reports `connected=False` with the reason,
and the thread re-opens it with exponential backoff (`backoff_initial` doubling up to `backoff_max`);
"auto" looks for a board again at every attempt. After every (re)open `ping_line()` is sent, so the board
resends everything not yet acked (docs/protocol.md, "Delivery").
With `batch` (the bridge's `batch`), the lines of one read are handed over inside one `with batch():`.

MQTT — one connection for many boards, paho's network thread (`loop_start`):

    link = MqttLink("mqtts://user:pw@host", "flickboard-bridge", ["b1"] or None, on_payload, ca_file=...)
    link.start(); link.wait_ready(10)
    link.send_command("b1", line); link.publish(topic, payload, qos=1, retain=True)
    link.stop()           # publishes the retained `offline` itself (the last will covers crashes)

The link's status is its bridge's own, `flickboard/bridge/<bridge_id>/status` (`online` on every connect, `offline`
as its last will and on a clean stop); it also says `online`/`offline` on the deprecated shared
`flickboard/bridge/status` for the displays that still read it (not as a last will: a connection has one).

`on_payload(board, payload)` gets the bare JSON of every board message on `flickboard/<board>/raw` (QoS 1;
docs/protocol.md, "MQTT topics") from paho's thread. `flickboard/<board>/events` is the bridge's own stream
of scoring moments and is not read back.
With `on_input`, manual entries on `flickboard/<board>/input` (docs/mqtt.md) go to `on_input(board, payload)`.
Board presence comes from the retained `online`/`offline` on `flickboard/<board>/status` (`on_board`).
With `batch`, board messages are queued (host/board/inbox.py) and one worker thread calls `on_payload` for everything
queued inside one `with batch():`; `dropped` counts messages refused by a full queue (not acked: resent).
The broker's acknowledgement of a board message (its PUBACK) goes out only once the message is handled, after its
batch is durable: a bridge killed with messages still queued here gets them again from the broker, instead of the
broker counting them delivered (an event the board has since forgotten in a reboot would otherwise be lost, and come
back only as an old copy after a broker restart).
The session is persistent (fixed client id, clean_session False) and the subscriptions are made again in
every on_connect: a broker that restarted without persistence has forgotten them.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from flickboard.board.inbox import Inbox
from flickboard.board.protocol import MAX_BOARD_LINE
from flickboard.config import MqttUrl, board_problem, is_board_id, parse_mqtt_url
from flickboard.core.entries import MAX_INPUT
from flickboard.mqtt import (
    BRIDGE_STATUS,
    CMD,
    DEFAULT_BRIDGE_ID,
    EVERY_BOARD,
    INPUT,
    RAW,
    STATUS,
    PayloadGuard,
    Subscriber,
    board_topic,
    board_topics,
    bridge_topic,
    split_board_topic,
)
from flickboard.mqtt import client as mqtt_client

Batch = Callable[[], AbstractContextManager[object]]  # the bridge's `batch`: messages handled together

__all__ = [
    "PREFIX",
    "USB_IDS",
    "LinkState",
    "MqttLink",
    "NoBoardFound",
    "SerialLink",
    "close_board_port",
    "find_ports",
    "open_board_port",
    "select_ports",
]

log = logging.getLogger("flickboard.links")

PREFIX = "FB1|"
_PROTOCOL_LINE = re.compile(r"FB[0-9]{1,3}\|")

# pyserial ships no type information: use it through Any rather than requiring stub packages.
_serial: Any = importlib.import_module("serial")
try:  # pyserial's flush() drains with termios on POSIX, which raises termios.error (not an OSError) on a dead port
    import termios

    _WRITE_ERRORS: tuple[type[BaseException], ...] = (OSError, _serial.SerialException, termios.error)
except ImportError:  # Windows
    _WRITE_ERRORS = (OSError, _serial.SerialException)
_list_ports: Any = importlib.import_module("serial.tools.list_ports")

# USB VID -> PIDs (None: any PID of that vendor) of the boards and USB-serial bridges Flickboard runs on.
USB_IDS: dict[int, frozenset[int] | None] = {
    0x2E8A: None,  # Raspberry Pi (RP2040 / RP2350 MicroPython CDC)
    0x303A: None,  # Espressif (ESP32-S2/S3/C3/C6 native USB)
    0x10C4: frozenset({0xEA60}),  # Silicon Labs CP210x
    0x1A86: frozenset({0x7523, 0x55D4}),  # WCH CH340 / CH9102
    0x0403: frozenset({0x6001, 0x6010, 0x6014, 0x6015}),  # FTDI FT232R / FT2232 / FT232H / FT231X
}
BY_ID_DIR = Path("/dev/serial/by-id")


@dataclass(frozen=True)
class LinkState:
    """A link coming up or going down. `name`: the serial port or the (password-masked) broker URL."""

    link: str  # "serial" or "mqtt"
    name: str
    connected: bool
    reason: str


StateCallback = Callable[[LinkState], None]


class NoBoardFound(RuntimeError):
    """`--serial auto` found no board with a known USB VID/PID."""


# ---------------------------------------------------------------------------------------------- serial


def _known(vid: int | None, pid: int | None) -> bool:
    if vid is None or vid not in USB_IDS:
        return False
    pids = USB_IDS[vid]
    return pids is None or pid in pids


def select_ports(infos: Iterable[Any], by_id_dir: Path = BY_ID_DIR) -> list[str]:
    """The device paths of the ports (pyserial ListPortInfo-like: device, vid, pid) that look like a board,
    each replaced by its stable /dev/serial/by-id/ link when there is one; sorted, by-id paths first."""
    by_id: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for entry in sorted(by_id_dir.iterdir()):
            with contextlib.suppress(OSError):
                by_id.setdefault(os.path.realpath(entry), str(entry))
    found = []
    for info in infos:
        if _known(info.vid, info.pid):
            dev = str(info.device)
            found.append(by_id.get(os.path.realpath(dev), dev))
    return sorted(set(found), key=lambda p: (not p.startswith(str(by_id_dir) + "/"), p))


def find_ports(by_id_dir: Path = BY_ID_DIR, infos: Iterable[Any] | None = None) -> list[str]:
    """Serial ports of plugged-in boards (see USB_IDS), stable by-id paths preferred. NoBoardFound if none.
    `infos` is the machine's port list (pyserial's comports()) unless given."""
    infos = list(_list_ports.comports() if infos is None else infos)
    found = select_ports(infos, by_id_dir)
    if found:
        return found
    if infos:
        seen = ", ".join(
            f"{i.device} ({i.vid:04X}:{i.pid:04X})" if i.vid is not None else f"{i.device} (no USB id)" for i in infos
        )
        detail = f"{len(infos)} serial port(s), none with a known board USB id: {seen}"
    else:
        detail = "no serial ports at all"
    raise NoBoardFound(f"no Flickboard found on USB: {detail}; plug it in or pass --serial /dev/ttyACM0")


def open_board_port(path: str, baudrate: int = 115200, timeout: float = 0.1, exclusive: bool = True) -> Any:
    """A board's serial port, opened without resetting it.

    An ESP32 DevKit's USB-serial chip drives the chip's EN (reset) and GPIO0 (boot mode) through two transistors
    from RTS and DTR: EN goes low, resetting the board, while RTS is asserted and DTR is not. With both asserted, or
    neither, nothing happens. Opening a tty asserts both at once; pyserial then sets DTR and then RTS to its
    settings. So both are set asserted before the open (pyserial's default, said here so that nothing changes it):
    no step of the open ever asserts RTS alone. A Pico W's USB port needs DTR too: MicroPython sends nothing to a
    host that has not raised it. close_board_port() takes them down in the safe order."""
    ser = _serial.Serial()
    ser.port = path
    ser.baudrate = baudrate
    ser.timeout = timeout
    ser.write_timeout = 2.0
    ser.exclusive = exclusive
    ser.dsrdtr = False
    ser.rtscts = False
    ser.dtr = True
    ser.rts = True
    ser.open()
    return ser


def close_board_port(ser: Any) -> None:
    """Close a port open_board_port() opened: RTS down first, then DTR (never RTS asserted alone: an ESP32 DevKit
    would reset, open_board_port), so the hang-up at close finds both down whatever order its driver drops them in."""
    for line in ("rts", "dtr"):
        with contextlib.suppress(Exception):
            setattr(ser, line, False)
    with contextlib.suppress(Exception):
        ser.close()


class SerialLink:
    """A board on a serial port, read by a background thread; see the module docstring.

    Counters (read them any time): `lines` delivered, `noise` non-protocol lines, `oversize` lines longer
    than `max_line` (dropped), `opens` successful opens, `failures` lost connections and failed opens.
    """

    def __init__(
        self,
        port: str,
        on_line: Callable[[str, str], None],
        *,
        on_state: StateCallback | None = None,
        ping_line: Callable[[], str] | None = None,
        baudrate: int = 115200,
        read_timeout: float = 0.05,
        backoff_initial: float = 0.25,
        backoff_max: float = 5.0,
        max_line: int = 4096,
        exclusive: bool = True,
        finder: Callable[[], list[str]] = find_ports,
        batch: Batch | None = None,
    ) -> None:
        self.port = port
        self.batch = batch
        self.finder = finder  # how "auto" finds the board
        self.on_line = on_line
        self.on_state = on_state
        self.ping_line = ping_line
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.max_line = max_line
        self.exclusive = exclusive
        self.lines = 0
        self.noise = 0
        self.oversize = 0
        self.opens = 0
        self.failures = 0
        self.device: str | None = None  # the path currently open (the resolved one for "auto")
        self._ser: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._buf = bytearray()
        self._discarding = False
        self._was_connected: bool | None = None

    @property
    def connected(self) -> bool:
        return self._ser is not None

    # -- life cycle

    def start(self) -> None:
        """Start the reader thread. With port "auto", first checks that a board is plugged in (NoBoardFound)."""
        if self._thread is not None:
            raise RuntimeError("SerialLink already started")
        if self.port == "auto":
            self.finder()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"serial-link {self.port}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._close("stopped")

    def __enter__(self) -> SerialLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- sending

    def send(self, line: str) -> bool:
        """Write one line (a "\\n" is added unless present). False if the port is not open or the write failed
        (the reader thread then re-opens it)."""
        data = (line if line.endswith("\n") else line + "\n").encode()
        with self._write_lock:
            ser = self._ser
            if ser is None:
                return False
            try:
                ser.write(data)
                ser.flush()
            except _WRITE_ERRORS as e:
                log.warning("serial %s: write failed: %s", self.device, e)
                with contextlib.suppress(Exception):
                    ser.cancel_read()  # wake the reader, which sees the error and re-opens
                return False
        return True

    # -- reader thread

    def _report(self, connected: bool, reason: str) -> None:
        if connected == self._was_connected:
            return
        self._was_connected = connected
        name = self.device or self.port
        if connected:
            log.info("serial %s: connected", name)
        elif self._stop.is_set():
            log.info("serial %s: closed", name)
        else:
            log.warning("serial %s: disconnected: %s", name, reason)
        if self.on_state is not None:
            try:
                self.on_state(LinkState("serial", name, connected, reason))
            except Exception:
                _callback_failed("serial %s: on_state callback failed", name)

    def _open(self) -> None:
        path = self.finder()[0] if self.port == "auto" else self.port
        ser = open_board_port(path, self.baudrate, self.read_timeout, self.exclusive)
        self._buf.clear()
        self._discarding = False
        self.device = path
        with self._write_lock:
            self._ser = ser
        self.opens += 1
        self._report(True, "opened")
        if self.ping_line is not None:
            self.send(self.ping_line())

    def _close(self, reason: str) -> None:
        with self._write_lock:
            ser, self._ser = self._ser, None
        if ser is not None:
            close_board_port(ser)
            self._report(False, reason)

    def _run(self) -> None:
        delay = self.backoff_initial
        while not self._stop.is_set():
            if self._ser is None:
                try:
                    self._open()
                    delay = self.backoff_initial
                except (OSError, NoBoardFound, _serial.SerialException) as e:
                    self.failures += 1
                    self._report(False, f"cannot open: {e}")
                    log.debug("serial %s: open failed (%s), retrying in %.2f s", self.port, e, delay)
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff_max)
                    continue
            ser = self._ser
            if ser is None:
                continue
            try:
                data = ser.read(max(1, ser.in_waiting))
            except (OSError, TypeError, _serial.SerialException) as e:
                # TypeError: pyserial reading a port that another thread closed (stop()).
                if self._stop.is_set():
                    break
                self.failures += 1
                self._close(f"read failed: {e}")
                self._stop.wait(self.backoff_initial)
                continue
            if data:
                try:  # the batch's end sends acks and scoreboards: a failure there must not stop the reader
                    with self.batch() if self.batch is not None else contextlib.nullcontext():
                        self._feed(bytes(data))
                except Exception:
                    _callback_failed("serial %s: handling what was read failed", self.device)

    def _feed(self, data: bytes) -> None:
        while data:
            nl = data.find(b"\n")
            chunk, data = (data, b"") if nl < 0 else (data[:nl], data[nl + 1 :])
            if not self._discarding:
                self._buf += chunk
                if len(self._buf) > self.max_line:
                    self.oversize += 1
                    log.warning("serial %s: line longer than %d bytes dropped", self.device, self.max_line)
                    self._buf.clear()
                    self._discarding = True
            if nl < 0:
                return
            if self._discarding:
                self._discarding = False
            else:
                self._line(bytes(self._buf))
            self._buf.clear()

    def _line(self, raw: bytes) -> None:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw:
            return
        # Bytes that are not UTF-8 are kept as they came (surrogate escapes), so the decoder can say what they are.
        text = raw.decode("utf-8", errors="surrogateescape")
        if not _PROTOCOL_LINE.match(text):  # any FBn| line goes on, so another version is refused with a reason
            self.noise += 1
            log.debug("serial %s: noise: %r", self.device, text[:200])
            return
        self.lines += 1
        try:
            self.on_line(self.device or self.port, text)
        except Exception:
            _callback_failed("serial %s: on_line callback failed", self.device)


# ------------------------------------------------------------------------------------------------ mqtt


class MqttLink:
    """The bridge's MQTT connection; see the module docstring. Callbacks run on paho's network thread.

    `boards`: the board ids to follow, or None for every board (`flickboard/+/raw`, `flickboard/+/status`).
    With a list, the link still reads every board's retained status (one small message per board), so a board
    that is on the broker but not on the list is reported to `on_unlisted(board, online)`; its events are not
    subscribed to (another bridge may follow it).
    Counters: `payloads` delivered, `ignored` messages for boards not followed or with an unknown status
    payload, `unlisted` status messages of boards not on the list, `connects`.
    """

    def __init__(
        self,
        url: str | MqttUrl,
        client_id: str,
        boards: Iterable[str] | None,
        on_payload: Callable[[str, bytes], None],
        *,
        ca_file: str | None = None,
        on_state: StateCallback | None = None,
        on_board: Callable[[str, bool], None] | None = None,
        on_input: Callable[[str, bytes], object] | None = None,
        on_unlisted: Callable[[str, bool], object] | None = None,
        keepalive: int = 30,
        reconnect_min: int = 1,
        reconnect_max: int = 30,
        bridge_id: str = DEFAULT_BRIDGE_ID,
        batch: Batch | None = None,
    ) -> None:
        self.url = url if isinstance(url, MqttUrl) else parse_mqtt_url(url)
        self.batch = batch
        # (board, payload, mid, qos): the message's id, to acknowledge it to the broker once handled
        self.inbox: Inbox[tuple[str, bytes, int, int]] | None = None if batch is None else Inbox(self._deliver, "mqtt")
        self.client_id = client_id
        self.boards: tuple[str, ...] | None = None
        if boards is not None:
            self.boards = tuple(dict.fromkeys(boards))
            for b in self.boards:
                _check_board(b)
        self.on_payload = on_payload
        self.on_state = on_state
        self.on_board = on_board
        self.on_input = on_input
        self.on_unlisted = on_unlisted
        self.unlisted = 0
        self.keepalive = keepalive
        self.bridge_id = bridge_id
        self.status_topic = bridge_topic(bridge_id, STATUS)  # raises ValueError for a bad id
        self.payloads = 0
        self.ignored = 0
        self.refused: dict[str, int] = {}  # reason -> messages refused before they reached the bridge
        self._refusals_said: set[tuple[str, str]] = set()  # (reason, topic) already logged
        self._online: dict[str, bool] = {}
        self._lock = threading.Lock()
        self._started = False
        self._stopping = False

        c = mqtt_client(
            self.url,
            client_id,
            ca_file,
            ca_required=True,
            persistent=True,
            will=self.status_topic,
            reconnect=(reconnect_min, reconnect_max),
        )
        c.on_message = self._on_message
        c.manual_ack_set(True)  # PUBACK once handled (_on_message, _deliver)
        self.client = c
        self.guard = PayloadGuard(c, max(MAX_PAYLOAD.values()))  # a 100 MB message is dropped unread
        self.subscriber = Subscriber(
            c, self._topics, up=self._up, down=self._down, refused=self._refused, subscribed=self._subscribed
        )

    # -- life cycle

    def start(self) -> None:
        """Connect in the background (paho retries until the broker answers, then reconnects on its own)."""
        if self._started:
            raise RuntimeError("MqttLink already started")
        self._started = True
        if self.inbox is not None:
            self.inbox.start()
        self.client.connect_async(self.url.host, self.url.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self, timeout: float = 2.0) -> None:
        """Publish the retained `offline` (a clean disconnect does not fire the last will) and disconnect."""
        if not self._started:
            return
        self._stopping = True
        if self.inbox is not None:  # what has arrived is handled (and acked) before the link goes
            self.inbox.stop(timeout)
        if self.subscriber.connected:
            self.client.publish(BRIDGE_STATUS, b"offline", qos=1, retain=True)  # deprecated (host/mqtt.py)
            info = self.client.publish(self.status_topic, b"offline", qos=1, retain=True)
            with contextlib.suppress(Exception):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self._started = False

    def __enter__(self) -> MqttLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self.subscriber.connected

    @property
    def connects(self) -> int:
        return self.subscriber.connects

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until connected and every subscription is granted; False on timeout."""
        return self.subscriber.wait_ready(timeout)

    # -- board presence

    @property
    def boards_online(self) -> dict[str, bool]:
        """board -> online, for every board whose status topic has been seen."""
        with self._lock:
            return dict(self._online)

    def board_online(self, board: str) -> bool | None:
        with self._lock:
            return self._online.get(board)

    # -- sending

    def publish(self, topic: str, payload: str | bytes, qos: int = 1, retain: bool = False) -> mqtt.MQTTMessageInfo:
        """Queue a message; paho sends it now or after the next reconnect (QoS ≥ 1)."""
        return self.client.publish(topic, payload, qos=qos, retain=retain)

    def send_command(self, board: str, payload: str | bytes) -> mqtt.MQTTMessageInfo:
        """A host -> board command (the bare JSON) on flickboard/<board>/cmd, QoS 1, not retained."""
        _check_board(board)
        return self.publish(board_topic(board, CMD), payload, qos=1, retain=False)

    # -- paho callbacks (network thread)

    def _topics(self) -> list[str]:
        kinds = (RAW, INPUT) if self.on_input is not None else (RAW,)
        # every board's presence, also of the boards not on the list (to flag them)
        return [*board_topics(self.boards, kinds), board_topic(EVERY_BOARD, STATUS)]

    def _state(self, connected: bool, reason: str) -> None:
        if connected:
            log.info("mqtt %s: connected (%s)", self.url, reason)
        elif self._stopping:
            log.info("mqtt %s: disconnected (stopped)", self.url)
        else:
            log.warning("mqtt %s: disconnected: %s", self.url, reason)
        if self.on_state is not None:
            try:
                self.on_state(LinkState("mqtt", str(self.url), connected, reason))
            except Exception:
                _callback_failed("mqtt: on_state callback failed")

    def _up(self, client: mqtt.Client, session_present: bool) -> None:
        client.publish(self.status_topic, b"online", qos=1, retain=True)
        client.publish(BRIDGE_STATUS, b"online", qos=1, retain=True)  # deprecated (host/mqtt.py)
        self._state(True, "session resumed" if session_present else "new session")

    def _down(self, reason_code: ReasonCode) -> None:
        self._state(False, str(reason_code))

    def _refused(self, reason_code: ReasonCode) -> None:
        self._state(False, f"connection refused: {reason_code}")

    def _subscribed(self, refused: list[str]) -> None:
        if refused:  # the link is not ready: the bridge would miss a board's events
            log.error("mqtt %s: subscription refused: %s", self.url, ", ".join(refused))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Every message is acknowledged to the broker once handled: here, or by the inbox worker after its batch."""
        queued = False
        try:
            queued = self._take(msg)
        finally:
            if not queued:
                client.ack(msg.mid, msg.qos)

    def _take(self, msg: mqtt.MQTTMessage) -> bool:
        """Handle one message; True when it was queued for the inbox worker (which acknowledges it)."""
        dropped = self.guard.take()  # the size of a message too long to read, dropped unread
        split = split_board_topic(msg.topic)
        if split is None:
            self.ignored += 1
            return False
        board, kind = split
        if self.boards is not None and board not in self.boards:
            if kind == STATUS and is_board_id(board):
                self._unlisted(board, bytes(msg.payload))
            else:
                self.ignored += 1
            return False
        if kind in (RAW, INPUT):
            problem = "oversized" if dropped is not None else _not_new_input(kind, msg)
            if problem is not None:
                self._refuse(problem, msg.topic, len(msg.payload) if dropped is None else dropped)
                return False
        elif dropped is not None:
            self.ignored += 1
            return False
        if kind == RAW:
            self.payloads += 1
            if self.inbox is not None:
                # False: refused by a full queue, acknowledged at once (the board resends it: the bridge did not ack)
                return self.inbox.put((board, bytes(msg.payload), msg.mid, msg.qos))
            self._payload(board, bytes(msg.payload))
        elif kind == STATUS:
            self._status(board, bytes(msg.payload))
        elif kind == INPUT and self.on_input is not None:
            try:
                self.on_input(board, bytes(msg.payload))
            except Exception:
                _callback_failed("mqtt: on_input callback failed for %s", board)
        else:
            self.ignored += 1
        return False

    def _refuse(self, reason: str, topic: str, size: int) -> None:
        """Counted always; logged once per reason and topic (a flood of the same says nothing new)."""
        with self._lock:
            self.refused[reason] = self.refused.get(reason, 0) + 1
            first = (reason, topic) not in self._refusals_said and len(self._refusals_said) < 1000
            if first:
                self._refusals_said.add((reason, topic))
        if first:
            why = REFUSALS[reason].format(size=size)
            log.warning("mqtt: %s: %s: not taken (counted in the health document as %s)", topic[:100], why, reason)

    def _payload(self, board: str, payload: bytes) -> None:
        try:
            self.on_payload(board, payload)
        except Exception:
            _callback_failed("mqtt: on_payload callback failed for %s", board)

    def _deliver(self, items: list[tuple[str, bytes, int, int]]) -> None:
        """The inbox worker: everything queued, inside one batch; then each is acknowledged to the broker (also when
        the batch failed: what was not journaled is not acked to its board, which resends it)."""
        assert self.batch is not None
        try:
            with self.batch():
                for board, payload, _, _ in items:
                    self._payload(board, payload)
        finally:
            for _, _, mid, qos in items:
                self.client.ack(mid, qos)

    def _unlisted(self, board: str, payload: bytes) -> None:
        text = payload.decode("utf-8", errors="replace").strip()
        if text not in ("online", "offline"):
            self.ignored += 1
            return
        self.unlisted += 1
        if self.on_unlisted is not None:
            try:
                self.on_unlisted(board, text == "online")
            except Exception:
                _callback_failed("mqtt: on_unlisted callback failed for %s", board)

    def _status(self, board: str, payload: bytes) -> None:
        text = payload.decode("utf-8", errors="replace").strip()
        if text not in ("online", "offline"):
            self.ignored += 1
            log.warning("mqtt: board %s: unknown status %r", board, text[:64])
            return
        online = text == "online"
        with self._lock:
            changed = self._online.get(board) != online
            self._online[board] = online
        if changed:
            log.info("mqtt: board %s %s", board, text)
            if self.on_board is not None:
                try:
                    self.on_board(board, online)
                except Exception:
                    _callback_failed("mqtt: on_board callback failed for %s", board)


# Why a message on a board's raw or input topic is not taken, by the name it is counted under.
REFUSALS = {
    "retained": "a retained message (the broker's copy of an old one, replayed at every subscription)",
    "oversized": "a message of {size} bytes, longer than any a board or a scorer sends",
}
MAX_PAYLOAD = {RAW: MAX_BOARD_LINE, INPUT: MAX_INPUT}


def _not_new_input(kind: str, msg: mqtt.MQTTMessage) -> str | None:
    """Retained board events and entries are never new input: the broker hands its stored copy to every new
    subscription, so a retained `undo` would be one more undo at every bridge restart. A payload longer than the
    protocol allows is refused before anything copies or decodes it."""
    if msg.retain:
        return "retained"
    if len(msg.payload) > MAX_PAYLOAD[kind]:
        return "oversized"
    return None


def _callback_failed(what: str, *args: object) -> None:
    """A bug in a callback must not stop a link: one line in the log (the traceback only at DEBUG level)."""
    err = sys.exc_info()[1]
    log.error(what + ": %s: %s", *args, type(err).__name__, err, exc_info=log.isEnabledFor(logging.DEBUG))


def _check_board(board: str) -> None:
    problem = board_problem(board)
    if problem:
        raise ValueError(problem)
