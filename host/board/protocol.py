"""Host side of wire protocol v1 (docs/protocol.md, "The host side").

Decode board -> host lines (serial frames `FB1|json|crc`) and MQTT payloads (bare JSON) into `BoardMessage`s,
reject everything else with a `ProtocolError` that has a short `code` and a one-line `reason`; track delivery
per (board, boot) with `Tracker` (de-duplication, gaps, reboots, the cumulative ack); encode host -> board
commands byte-exact with the firmware's decoder (`firmware/fb/proto.py`).

Pure: no clock, no I/O. The bridge owns the ports, the journal and the timers.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any, Literal

from flickboard.config import board_problem
from flickboard.jsontext import read
from flickboard.rules.immutable import fast_init

VERSION = 1
PREFIX = "FB1|"
MAX_COMMAND_LINE = 512  # host -> board, frame included (firmware proto.MAX_LINE)
# Board -> host lines have no limit in the doc, but a `config_get` of the whole configuration is over 1 KiB;
# anything above this is not a line the v1 firmware writes: it is refused so a runaway line stays bounded.
MAX_BOARD_LINE = 4096

RELIABLE_KINDS = frozenset(
    {"hello", "pass", "stuck", "clear", "shot_start", "baseline_rest", "count", "chatter", "fault"}
)
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "pass": ("dur_us",),
    "stuck": ("after_ms",),
    "clear": ("dur_us",),
    "shot_start": ("q", "seg"),
    "baseline_rest": ("q", "seg"),
    "count": ("expected", "seen"),
    "chatter": ("bursts", "edges"),
}
KINDS = frozenset(RELIABLE_KINDS | {"gap", "heartbeat", "reply"})
COMMANDS = ("ack", "ping", "status", "selftest", "watch", "config_get", "config_set", "reboot")

# ProtocolError codes. "noise" is not an error: a line that is not the protocol's (REPL, boot banner, prints).
ERROR_CODES: tuple[str, ...] = (
    "noise",
    "echo",
    "frame",
    "crc",
    "encoding",
    "json",
    "oversize",
    "version",
    "schema",
    "unknown",
    "board",
)


_CRC = re.compile(rb"[0-9a-f]{8}\Z")
_OTHER_VERSION = re.compile(rb"FB(\d+)\|")


class ProtocolError(ValueError):
    """A line or payload that is not a valid v1 board message. `code`: one of ERROR_CODES; `reason`: one line."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.reason = reason
        self.code = code

    @property
    def is_noise(self) -> bool:
        """True for console noise (no `FB1|` prefix): ignore quietly, count it, log at debug level."""
        return self.code == "noise"


@fast_init  # made for every message: a one-step __init__ (rules/immutable.py)
@dataclass(frozen=True)
class BoardMessage:
    """One decoded board -> host message. `fields`: every key but the envelope (v, b, bt, s, t, m)."""

    board: str
    boot: int
    seq: int
    t_us: int
    kind: str
    fields: dict[str, Any]
    reliable: bool
    raw: str

    @property
    def key(self) -> tuple[str, int, int]:
        """The de-duplication key (board, boot, seq); only meaningful for reliable messages."""
        return (self.board, self.boot, self.seq)


# ---- decoding ------------------------------------------------------------------------------------------------


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def decode_line(line: str | bytes, max_line: int = MAX_BOARD_LINE) -> BoardMessage:
    """Decode one serial line (`FB1|json|crc`, with or without its `\\n` / `\\r\\n`). Raises ProtocolError.

    A line without the `FB1|` prefix raises code "noise" (REPL prompts, boot banner, tracebacks, prints)."""
    data = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else bytes(line)
    if data.endswith(b"\n"):
        data = data[:-1]
    if data.endswith(b"\r"):
        data = data[:-1]
    if not data.startswith(PREFIX.encode()):
        other = _OTHER_VERSION.match(data)
        if other is not None:
            raise ProtocolError(f"protocol version {other.group(1).decode()} line; this host speaks 1", "version")
        text = data.decode("utf-8", "replace")
        raise ProtocolError("not a protocol line: " + repr(_clip(text)), "noise")
    if len(data) > max_line:
        raise ProtocolError(f"line of {len(data)} bytes, longer than {max_line}", "oversize")
    if not data.isascii():  # the board sends ASCII only (JSON escapes the rest); UTF-8 is checked here for the reason
        _utf8(data, "line")
    body, bar, crc = data[len(PREFIX) :].rpartition(b"|")
    if not bar or not _CRC.match(crc):
        raise ProtocolError("no |crc32 at the end (a half or garbled line)", "frame")
    if f"{zlib.crc32(body):08x}".encode() != crc:
        raise ProtocolError("CRC mismatch: line garbled in transit", "crc")
    return _decode_json(body, None)


def decode_payload(payload: bytes, topic_board: str | None, max_line: int = MAX_BOARD_LINE) -> BoardMessage:
    """Decode one MQTT payload (bare JSON). `topic_board`: the board id in the topic (None: not checked)."""
    data = bytes(payload)
    if len(data) > max_line:
        raise ProtocolError(f"payload of {len(data)} bytes, longer than {max_line}", "oversize")
    return _decode_json(data, topic_board)


def _utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolError(
            f"{what} is not UTF-8 text (byte 0x{data[e.start]:02x} at {e.start}): garbled, or a wrong baud rate",
            "encoding",
        ) from None


def _decode_json(body: bytes, topic_board: str | None) -> BoardMessage:
    text = _utf8(body, "payload")
    try:
        obj, floats = read(text)  # floats are refused below, once the message kind is known (for the wording)
    except (ValueError, RecursionError):
        raise ProtocolError("not valid JSON (half or garbled line)", "json") from None
    if not isinstance(obj, dict):
        raise ProtocolError("a board message is a JSON object, not " + type(obj).__name__, "schema")
    if "m" not in obj and "c" in obj:
        raise ProtocolError("a host command came back (echo): is the board sitting in the REPL?", "echo")
    if "v" not in obj:
        raise ProtocolError('missing envelope field "v"', "schema")
    v = obj["v"]
    if v != VERSION or not _is_int(v):
        raise ProtocolError(f"protocol version {_clip(repr(v), 12)}; this host speaks 1", "version")
    b = _need(obj, "b", str, "envelope")
    problem = board_problem(b)
    if problem:
        raise ProtocolError(problem, "schema")
    bt = _need_int(obj, "bt", "envelope")
    s = _need_int(obj, "s", "envelope")
    t = _need_int(obj, "t", "envelope")
    m = _need(obj, "m", str, "envelope")
    if m not in KINDS:
        raise ProtocolError("unknown message kind " + repr(_clip(m, 24)), "unknown")
    if floats:
        raise ProtocolError(f"{m}: floats are not used on the wire", "schema")
    fields = {k: val for k, val in obj.items() if k not in ("v", "b", "bt", "s", "t", "m")}
    reliable = m in RELIABLE_KINDS
    if reliable and s < 1:
        raise ProtocolError(f"{m} is reliable: s must be >= 1, not {s}", "schema")
    _check_fields(m, s, fields)
    if topic_board is not None and b != topic_board:
        raise ProtocolError(f"board id {b!r} on a message from topic board {topic_board!r}", "board")
    return BoardMessage(board=b, boot=bt, seq=s, t_us=t, kind=m, fields=fields, reliable=reliable, raw=text)


def _need(obj: dict[str, Any], key: str, typ: type, where: str) -> Any:
    if key not in obj:
        raise ProtocolError(f'{where}: missing field "{key}"', "schema")
    val = obj[key]
    if not isinstance(val, typ) or (typ is int and isinstance(val, bool)):
        raise ProtocolError(f'{where}: "{key}" must be {typ.__name__}, not {_clip(repr(val), 24)}', "schema")
    return val


def _need_int(obj: dict[str, Any], key: str, where: str, lo: int | None = 0) -> int:
    val: int = _need(obj, key, int, where)
    if lo is not None and val < lo:
        raise ProtocolError(f'{where}: "{key}" must be >= {lo}, not {val}', "schema")
    return val


def _check_fields(m: str, s: int, f: dict[str, Any]) -> None:
    if m in EVENT_FIELDS:
        _need(f, "n", str, m)
        for k in EVENT_FIELDS[m]:
            _need_int(f, k, m)
    elif m == "hello":
        _need(f, "fw", str, m)
        _need(f, "prof", str, m)
        _need(f, "rst", str, m)
        for sensor in _need(f, "sn", list, m):
            if not isinstance(sensor, dict):
                raise ProtocolError('hello: every "sn" entry must be an object', "schema")
            _need(sensor, "n", str, "hello sensor")
            if _need(sensor, "k", str, "hello sensor") == "hall":
                _need_int(sensor, "c", "hello sensor")
    elif m == "fault":
        _need(f, "code", str, m)
        _need(f, "msg", str, m)
        if "n" in f:
            _need(f, "n", str, m)
    elif m == "gap":
        first = _need_int(f, "first", m, 1)
        last = _need_int(f, "last", m, first)
        lost = _need_int(f, "lost", m)
        if lost != last - first + 1:
            raise ProtocolError(f"gap: lost={lost} but {first}..{last} is {last - first + 1} seqs", "schema")
        if last > s:
            raise ProtocolError(f"gap: last={last} above the high-water mark s={s}", "schema")
    elif m == "heartbeat":
        for k in ("up", "heap", "q", "drop", "rc"):
            _need_int(f, k, m)
        if "rssi" not in f:
            raise ProtocolError('heartbeat: missing field "rssi"', "schema")
        if f["rssi"] is not None:
            _need_int(f, "rssi", m, None)
    elif m == "reply":
        for k in ("c", "id", "ok"):
            if k not in f:
                raise ProtocolError(f'reply: missing field "{k}"', "schema")
        if f["c"] is not None and not isinstance(f["c"], str):
            raise ProtocolError('reply: "c" must be a string or null', "schema")
        if f["id"] is not None and not (_is_int(f["id"]) or isinstance(f["id"], str)):
            raise ProtocolError('reply: "id" must be an int, a string or null', "schema")
        if _need(f, "ok", bool, m):
            if "d" in f and not isinstance(f["d"], dict):
                raise ProtocolError('reply: "d" must be an object', "schema")
        else:
            _need(f, "err", str, m)
            _need(f, "msg", str, m)


# ---- host -> board commands ------------------------------------------------------------------------------------

_HEX = "0123456789abcdef"


def _dumps(v: Any) -> str:
    """Compact ASCII JSON with sorted keys, as the board writes it. The board checks the CRC over the text it
    receives, so the host need not copy the firmware's encoder byte for byte. Floats are not used on the wire."""
    _check_wire_value(v)
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _check_wire_value(v: Any) -> None:
    if isinstance(v, float):
        raise ValueError("cannot encode float (floats are not used on the wire)")
    if isinstance(v, list | tuple):
        for x in v:
            _check_wire_value(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str):
                raise ValueError(f"object keys must be strings, not {k!r}")
            _check_wire_value(x)
    elif not (v is None or isinstance(v, bool | int | str)):
        raise ValueError(f"cannot encode {type(v).__name__}")


_COMMAND_FIELDS: dict[str, frozenset[str]] = {
    "ack": frozenset({"bt", "s"}),
    "ping": frozenset(),
    "status": frozenset(),
    "selftest": frozenset(),
    "watch": frozenset({"s"}),
    "config_get": frozenset({"k"}),
    "config_set": frozenset({"k", "val"}),
    "reboot": frozenset(),
}


def _command_json(cmd: dict[str, Any]) -> str:
    """Validate a command dict and write it: `v` (if given), `c`, `id` (unless None), then the rest sorted."""
    c = cmd.get("c")
    if c not in _COMMAND_FIELDS:
        raise ValueError(f"unknown command {c!r}; v1 commands: {', '.join(COMMANDS)}")
    extra = set(cmd) - {"c", "id", "v"} - _COMMAND_FIELDS[c]
    if extra:
        raise ValueError(f"{c}: unexpected fields {sorted(extra)}")
    head = []
    if "v" in cmd:
        if cmd["v"] != VERSION or not _is_int(cmd["v"]):
            raise ValueError(f"v must be {VERSION}")
        head.append('"v":1')
    head.append('"c":' + _dumps(c))
    rid = cmd.get("id")
    if rid is not None:
        if not ((_is_int(rid) and 0 <= rid <= 0x7FFFFFFF) or (isinstance(rid, str) and 0 < len(rid) <= 32)):
            raise ValueError("id must be an int 0..2147483647 or a string of 1..32 characters")
        head.append('"id":' + _dumps(rid))
    body = {k: cmd[k] for k in _COMMAND_FIELDS[c] if k in cmd}
    if c == "ack":
        for k in ("bt", "s"):
            if not (_is_int(body.get(k)) and body[k] >= 0):
                raise ValueError(f"ack needs {k}, an int >= 0")
    elif c == "config_get":
        if body.get("k") is None:
            body.pop("k", None)
        elif not isinstance(body["k"], str):
            raise ValueError("config_get k must be a dotted key string")
    elif c == "config_set":
        if not isinstance(body.get("k"), str) or not body["k"]:
            raise ValueError("config_set needs k, a dotted key string")
        if "val" not in body:
            raise ValueError("config_set needs val")
    parts = head + [_dumps(k) + ":" + _dumps(body[k]) for k in sorted(body)]
    payload = "{" + ",".join(parts) + "}"
    framed = len(PREFIX) + len(payload) + 9
    if framed > MAX_COMMAND_LINE:
        raise ValueError(f"{c}: command line of {framed} bytes, longer than {MAX_COMMAND_LINE}")
    return payload


def encode_command(cmd: dict[str, Any]) -> str:
    """The serial line for a host command: `FB1|json|crc32` + `\\n`. Raises ValueError for a bad command."""
    payload = _command_json(cmd)
    return f"{PREFIX}{payload}|{zlib.crc32(payload.encode()):08x}\n"


def command_payload(cmd: dict[str, Any]) -> bytes:
    """The MQTT payload (bare JSON) for a host command. Raises ValueError for a bad command."""
    return _command_json(cmd).encode()


def ack_command(boot: int, seq: int) -> dict[str, Any]:
    """The cumulative ack: every reliable message of `boot` with seq <= `seq` is received or known lost."""
    return {"c": "ack", "bt": boot, "s": seq}


# ---- delivery tracking -----------------------------------------------------------------------------------------

Range = tuple[int, int]


def _fmt(ranges: tuple[Range, ...] | list[Range]) -> str:
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def _complement(lo: int, hi: int, covered: list[Range]) -> list[Range]:
    """The sub-ranges of lo..hi (inclusive) outside every range of `covered`. No per-seq loop: seqs are big."""
    out: list[Range] = []
    q = lo
    for a, b in sorted(covered):
        if b < q:
            continue
        if a > hi:
            break
        if a > q:
            out.append((q, a - 1))
        q = max(q, b + 1)
        if q > hi:
            return out
    if q <= hi:
        out.append((q, hi))
    return out


class _Level:
    """Seqs 1..level all in; `above`: single seqs above it; `ranges`: whole ranges in (merged in as they join)."""

    def __init__(self) -> None:
        self.level = 0
        self.above: set[int] = set()
        self.ranges: list[Range] = []

    def __contains__(self, seq: int) -> bool:
        return seq <= self.level or seq in self.above or any(a <= seq <= b for a, b in self.ranges)

    def covered(self) -> list[Range]:
        head = [(1, self.level)] if self.level > 0 else []
        return head + [(q, q) for q in self.above] + self.ranges

    def add(self, seq: int) -> None:
        if seq == self.level + 1 and not self.above and not self.ranges:  # in order: the usual case
            self.level = seq
        elif seq > self.level:
            self.above.add(seq)
            self._advance()

    def cover(self, first: int, last: int) -> None:
        if last > self.level:
            self.ranges.append((first, last))
            self._advance()

    def _advance(self) -> None:
        moved = True
        while moved:
            moved = False
            if self.level + 1 in self.above:
                self.above.discard(self.level + 1)
                self.level += 1
                moved = True
            for a, b in self.ranges:
                if a <= self.level + 1 <= b:
                    self.level = b
                    moved = True
        self.above = {q for q in self.above if q > self.level}
        self.ranges = [r for r in self.ranges if r[1] > self.level]


class _Boot:
    def __init__(self, boot: int) -> None:
        self.boot = boot
        self.got = _Level()  # reliable seqs received
        self.known = _Level()  # received, or declared lost by the board
        self.done = _Level()  # processed (durable), or declared lost and the gap message processed
        self.lost: list[Range] = []  # ranges declared lost (gap messages), only seqs not received then
        self.max_seen = 0  # highest reliable seq received
        self.hw = 0  # highest seq or high-water mark seen

    def holes(self) -> list[Range]:
        """Seqs up to the high-water mark neither received nor declared lost."""
        return _complement(self.known.level + 1, self.hw, self.known.covered())


Status = Literal["new", "duplicate", "stale"]


@fast_init
@dataclass(frozen=True)
class Verdict:
    """What `Tracker.accept` decided about one message.

    status: "new" (process it: journal, then `processed`), "duplicate" (already seen: drop it), "stale" (a
    heartbeat, reply or gap of a boot of this board that has since restarted: nothing to journal). `conflict`:
    (retired boot, current boot) when the message comes from a boot the board has restarted since and is not a
    resend of what that boot sent before: two boots seem alive, which the bridge must hold for a person.
    `missing`: seq ranges newly found missing (a jump; wait for
    the resend, ping). `lost`: ranges newly declared lost by the board (its `gap` message). `reboot`: (old, new)
    boot ids when the board restarted, with `reboot_lost` the old boot's seqs that never arrived. `filled`: a late
    arrival filled a hole. `should_ping`: the board is ahead of what we have (holes, or a high-water mark above).
    `notes`: one human line per thing worth showing."""

    status: Status
    board: str
    boot: int
    seq: int
    missing: tuple[Range, ...] = ()
    lost: tuple[Range, ...] = ()
    reboot: tuple[int, int] | None = None
    reboot_lost: tuple[Range, ...] = ()
    filled: bool = False
    should_ping: bool = False
    notes: tuple[str, ...] = ()
    conflict: tuple[int, int] | None = None  # (retired boot, current boot): a message from a boot since replaced

    @property
    def new(self) -> bool:
        return self.status == "new"


@dataclass
class Counters:
    messages: int = 0
    new: int = 0
    duplicates: int = 0
    stale: int = 0
    gaps: int = 0  # jumps in seq seen (ranges)
    missing_seqs: int = 0  # seqs in those ranges
    late: int = 0  # holes filled by a late arrival
    lost_seqs: int = 0  # seqs the boards declared lost (gap) or lost across a reboot
    reboots: int = 0
    conflicts: int = 0  # messages from a boot the board had restarted since (two boots alive)
    noise: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "new": self.new,
            "duplicates": self.duplicates,
            "stale": self.stale,
            "gaps": self.gaps,
            "missing_seqs": self.missing_seqs,
            "late": self.late,
            "lost_seqs": self.lost_seqs,
            "reboots": self.reboots,
            "conflicts": self.conflicts,
            "noise": self.noise,
            "errors": dict(self.errors),
        }


class Tracker:
    """Delivery state per board: the current boot's seqs received / processed, gaps, reboots, the ack to send.

    Protocol: `v = accept(msg)` for every decoded message; if `v.new` and the message is reliable (or a gap),
    journal it, then `processed(msg)`; send `ack_for(board)` (batched) once it changes. `count_error(err)` for
    every ProtocolError (noise and errors are counted apart)."""

    KEEP_OLD_BOOTS = 16

    def __init__(self) -> None:
        self.counters = Counters()
        self._current: dict[str, _Boot] = {}
        self._old: dict[str, dict[int, _Boot]] = {}  # board -> its retired boots, oldest first

    # -- input

    def count_error(self, err: ProtocolError) -> None:
        if err.is_noise:
            self.counters.noise += 1
        else:
            self.counters.errors[err.code] = self.counters.errors.get(err.code, 0) + 1

    def restore(self, board: str, boot: int, seq: int) -> None:
        """Resume from the journal: seqs 1..`seq` of `boot` are durable (or recorded lost); resends are duplicates."""
        st = self._current.get(board)
        if st is not None and st.boot != boot:  # what earlier journals showed of the board stays known, retired
            if self.reinstate(board, boot):
                st = self._current[board]
            else:
                old = self._old.setdefault(board, {})
                old[st.boot] = st
                while len(old) > self.KEEP_OLD_BOOTS:
                    del old[next(iter(old))]
                st = None
        if st is None:
            st = self._current[board] = _Boot(boot)
        if seq > 0:
            for level in (st.got, st.known, st.done):
                level.cover(1, seq)
            st.max_seen = max(st.max_seen, seq)
            st.hw = max(st.hw, seq)

    def accept(self, msg: BoardMessage) -> Verdict:
        """Classify one decoded message; update the per-boot state and the counters."""
        c = self.counters
        c.messages += 1
        notes: list[str] = []
        reboot: tuple[int, int] | None = None
        reboot_lost: tuple[Range, ...] = ()
        st = self._current.get(msg.board)
        if st is None or st.boot != msg.boot:
            old = self._old.setdefault(msg.board, {})
            retired = old.pop(msg.boot, None)
            if retired is not None:
                old[msg.boot] = retired  # the most recently heard of last: a boot that speaks is never let go first
                # A boot this board has restarted since. A resend of what it sent before is a duplicate; anything
                # else means two boots of one board are alive (a forged `hello`, a second device with its id, a
                # late link): it is taken under its own boot, and `conflict` says so (the bridge holds the game).
                assert st is not None
                return self._from_retired(msg, retired, st.boot)
            if st is not None:
                reboot = (st.boot, msg.boot)
                reboot_lost = tuple(st.holes())
                c.reboots += 1
                c.lost_seqs += sum(b - a + 1 for a, b in reboot_lost)
                notes.append(f"board {msg.board} rebooted (boot {st.boot} -> {msg.boot})")
                if reboot_lost:
                    notes.append(f"board {msg.board} boot {st.boot}: seqs {_fmt(reboot_lost)} lost in the reboot")
                old[st.boot] = st
                while len(old) > self.KEEP_OLD_BOOTS:
                    del old[next(iter(old))]
            st = self._current[msg.board] = _Boot(msg.boot)

        missing: tuple[Range, ...] = ()
        lost: tuple[Range, ...] = ()
        filled = False
        status: Status = "new"
        q = msg.seq
        st.hw = max(st.hw, q)
        if msg.reliable:
            if q in st.got:
                status = "duplicate"
            else:
                if q < st.max_seen:
                    filled = True
                    c.late += 1
                    if any(a <= q <= b for a, b in st.lost):
                        notes.append(f"board {msg.board} boot {msg.boot}: seq {q} arrived after it was reported lost")
                elif q > st.max_seen + 1:
                    missing = tuple(_complement(st.max_seen + 1, q - 1, st.known.covered()))
                    if missing:
                        c.gaps += len(missing)
                        c.missing_seqs += sum(b - a + 1 for a, b in missing)
                        note = f"board {msg.board} boot {msg.boot}: seqs {_fmt(missing)} missing (waiting for a resend)"
                        notes.append(note)
                st.got.add(q)
                st.known.add(q)
                st.max_seen = max(st.max_seen, q)
        elif msg.kind == "gap":
            first, last = int(msg.fields["first"]), int(msg.fields["last"])
            lost = tuple(_complement(first, last, st.known.covered()))
            if lost:
                st.lost.extend(lost)
                for a, b in lost:
                    st.known.cover(a, b)
                c.lost_seqs += sum(b - a + 1 for a, b in lost)
                notes.append(
                    f"board {msg.board} boot {msg.boot}: board reports seqs {_fmt(lost)} lost (outbox overflow)"
                )
            else:
                status = "duplicate"
        if status == "new":
            c.new += 1
        else:
            c.duplicates += 1
        return Verdict(
            status,
            msg.board,
            msg.boot,
            msg.seq,
            missing=missing,
            lost=lost,
            reboot=reboot,
            reboot_lost=reboot_lost,
            filled=filled,
            should_ping=st.hw > st.known.level,
            notes=tuple(notes),
        )

    def _from_retired(self, msg: BoardMessage, st: _Boot, current: int) -> Verdict:
        c = self.counters
        conflict = (st.boot, current)
        if msg.reliable and msg.seq in st.got:
            c.duplicates += 1
            return Verdict("duplicate", msg.board, msg.boot, msg.seq, conflict=conflict)
        c.conflicts += 1
        note = (
            f"board {msg.board}: a {msg.kind} of boot {msg.boot} came after boot {current} started: "
            "two boots of this board seem alive"
        )
        if not msg.reliable:  # a heartbeat, a reply or a gap: nothing to journal, but the boot is alive
            c.stale += 1
            return Verdict("stale", msg.board, msg.boot, msg.seq, conflict=conflict, notes=(note,))
        q = msg.seq
        missing = tuple(_complement(st.max_seen + 1, q - 1, st.known.covered())) if q > st.max_seen + 1 else ()
        st.hw = max(st.hw, q)
        st.got.add(q)
        st.known.add(q)
        st.max_seen = max(st.max_seen, q)
        c.new += 1
        return Verdict("new", msg.board, msg.boot, msg.seq, missing=missing, conflict=conflict, notes=(note,))

    def reinstate(self, board: str, boot: int) -> bool:
        """Make a retired `boot` the board's current boot again, and retire the current one (no reboot: nothing is
        declared lost). For a person's review of two boots alive: the boot the board still sends from is its boot.
        False when `boot` is not a retired boot of the board."""
        old = self._old.get(board, {})
        st = old.pop(boot, None)
        if st is None:
            return False
        cur = self._current.get(board)
        if cur is not None:
            old[cur.boot] = cur
        self._current[board] = st
        return True

    def _boot(self, board: str, boot: int | None) -> _Boot | None:
        """The state of `boot` of `board` (None: the current one), current or retired."""
        st = self._current.get(board)
        if st is None or boot is None or st.boot == boot:
            return st
        return self._old.get(board, {}).get(boot)

    def settle(self, board: str) -> None:
        """After `restore`: the bridge journals each boot's events in order, so a seq below the highest journaled
        one that the journal does not show was journaled on a line that can no longer be read (damage). It was
        acknowledged then: it counts as received and processed, so the board is not asked for it again."""
        for st in [self._current.get(board), *self._old.get(board, {}).values()]:
            if st is not None and st.max_seen > st.done.level:
                for level in (st.got, st.known, st.done):
                    level.cover(1, st.max_seen)

    def processed(self, msg: BoardMessage) -> None:
        """`msg` (reliable, or a gap) is durable in the journal: it may now be acknowledged. Call it only then."""
        st = self._boot(msg.board, msg.boot)
        if st is None or st.boot != msg.boot:
            return
        if msg.reliable:
            if msg.seq in st.got:
                st.done.add(msg.seq)
        elif msg.kind == "gap":
            first, last = int(msg.fields["first"]), int(msg.fields["last"])
            for a, b in st.lost:
                if first <= a and b <= last:
                    st.done.cover(a, b)

    # -- output

    def ack_for(self, board: str, boot: int | None = None) -> tuple[int, int] | None:
        """(boot, seq) for the cumulative ack: every seq <= seq processed or recorded lost; None: nothing yet.
        `boot`: that boot's ack, current or retired (None: the current boot's)."""
        st = self._boot(board, boot)
        if st is None or st.done.level == 0:
            return None
        return (st.boot, st.done.level)

    def boot_of(self, board: str) -> int | None:
        st = self._current.get(board)
        return None if st is None else st.boot

    def missing(self, board: str) -> list[Range]:
        """Seq ranges of the current boot neither received nor declared lost, up to the high-water mark."""
        st = self._current.get(board)
        return [] if st is None else st.holes()

    def status(self) -> dict[str, Any]:
        boards = {b: self._status(st) for b, st in sorted(self._current.items())}
        return {"counters": self.counters.as_dict(), "boards": boards}

    def board_status(self, board: str) -> dict[str, Any] | None:
        """One board's part of `status()` (None for a board not heard from)."""
        st = self._current.get(board)
        return None if st is None else self._status(st)

    def forget(self, board: str) -> None:
        """Drop what is known of a board's delivery (its journal is read again: `restore`, then every record)."""
        self._current.pop(board, None)
        self._old.pop(board, None)

    @staticmethod
    def _status(st: _Boot) -> dict[str, Any]:
        return {
            "boot": st.boot,
            "received": st.known.level,
            "processed": st.done.level,
            "high_water": st.hw,
            "missing": [list(r) for r in st.holes()],
            "lost": [list(r) for r in st.lost],
        }
