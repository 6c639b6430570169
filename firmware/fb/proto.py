"""Wire protocol v1 (docs/protocol.md): encode board messages, decode host commands, dispatch them.

Pure: no clock, no I/O. Every time is passed in (`t_us`, µs since boot, unwrapped: compat.Uptime).
Output is byte-exact on CPython and MicroPython: JSON is written here with a fixed key order (the
envelope v,b,bt,s,t,m first, then the other keys sorted), no spaces, ASCII only, integers only.
A serial frame is  FB1|<json>|<crc32 of the json, 8 lowercase hex digits>  (the link adds "\\n").
"""

import json

try:
    from binascii import crc32 as _crc32
except ImportError:  # a port built without binascii.crc32
    _crc32 = None  # type: ignore[assignment]

VERSION = 1
PREFIX = "FB1|"
MAX_LINE = 512  # longest host -> board line, in bytes, prefix and CRC included

EVENT_FIELDS = {
    "pass": ("dur_us",),
    "stuck": ("after_ms",),
    "clear": ("dur_us",),
    "shot_start": ("q", "seg"),
    "baseline_rest": ("q", "seg"),
    "count": ("expected", "seen"),
    "chatter": ("bursts", "edges"),
}
COMMANDS = ("ack", "ping", "status", "selftest", "watch", "config_get", "config_set", "reboot")
WATCH_MAX_S = 3600  # a `watch` stream stops by itself after at most an hour

_HEX = "0123456789abcdef"


def crc32(data):
    """CRC-32 (IEEE, as zlib/binascii) of bytes or an ASCII str; pure-Python fallback when binascii lacks it."""
    if _crc32 is not None:
        try:
            return _crc32(data) & 0xFFFFFFFF  # MicroPython reads a str's bytes in place: no copy
        except TypeError:  # CPython wants bytes
            return _crc32(data.encode()) & 0xFFFFFFFF
    if isinstance(data, str):
        data = data.encode()
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0xEDB88320 & -(c & 1))
    return c ^ 0xFFFFFFFF


def _crc_hex(text):
    return "%08x" % crc32(text.encode())


def frame(payload):
    """Serial frame for one JSON payload (without the trailing newline). Built in one step: on the board every
    intermediate string is an allocation, and allocations fragment the heap."""
    return "FB1|%s|%08x" % (payload, crc32(payload))


def _plain(s):
    """True when s needs no escaping in JSON (printable ASCII, no quote or backslash); allocates nothing."""
    for ch in s:
        if not " " <= ch <= "~" or ch == '"' or ch == "\\":
            return False
    return True


def _qs(s):
    """JSON string literal, ASCII only (\\uXXXX for the rest, surrogate pairs above U+FFFF)."""
    if _plain(s):
        return '"%s"' % s
    out = '"'
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out += '\\"'
        elif ch == "\\":
            out += "\\\\"
        elif 0x20 <= o < 0x7F:
            out += ch
        elif ch == "\n":
            out += "\\n"
        elif ch == "\r":
            out += "\\r"
        elif ch == "\t":
            out += "\\t"
        elif o > 0xFFFF:
            o -= 0x10000
            out += _u4(0xD800 | (o >> 10)) + _u4(0xDC00 | (o & 0x3FF))
        else:
            out += _u4(o)
    return out + '"'


def _u4(o):
    return "\\u" + _HEX[(o >> 12) & 15] + _HEX[(o >> 8) & 15] + _HEX[(o >> 4) & 15] + _HEX[o & 15]


def dumps(v):
    """Canonical JSON: sorted keys, no spaces, ASCII; ints, bools, None, str, list/tuple, dict only."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _qs(v)
    if isinstance(v, float):
        if v == v and v not in (float("inf"), float("-inf")) and v == int(v):
            return str(int(v))
        raise ValueError("floats are not used on the wire")
    if isinstance(v, (list, tuple)):
        return "[" + ",".join([dumps(x) for x in v]) + "]"
    if isinstance(v, dict):
        keys = sorted(v)
        return "{" + ",".join([_qs(str(k)) + ":" + dumps(v[k]) for k in keys]) + "}"
    raise ValueError("cannot encode " + type(v).__name__)


class Encoder:
    """Builds board -> host messages. `seq` is the last reliable sequence number assigned (0: none yet).

    Reliable kinds (hello, events, gap, fault) take the next seq and belong in the outbox:
        line = enc.event(...); outbox.add(enc.seq, line)
    heartbeat, reply and gap take no seq: their s is the high-water mark (the last seq assigned).
    (gap is still re-sent until acked: the outbox keeps it beside the ring.)
    Methods return the serial frame (no newline); `last_json` keeps the bare payload (the MQTT body).
    """

    def __init__(self, board_id, boot_id, seq=0):
        self.board_id = board_id
        self.boot_id = boot_id
        self.seq = seq
        self.base = 0  # added to every time given (compat.Uptime.base): the wire's `t` is µs since boot
        self.last_json = ""
        self._head = '{"v":' + str(VERSION) + ',"b":' + _qs(board_id) + ',"bt":' + str(boot_id) + ',"s":'
        # Sensor events are most of the traffic: one format per kind (keys sorted, "n" among them), made when the
        # kind is first sent, so an event is one string built in one step.
        self._events = {}
        self._quoted = {}  # sensor name -> its JSON string literal

    def _line(self, s, t_us, kind, body):
        parts = [self._head, str(s), ',"t":', str(t_us + self.base), ',"m":', _qs(kind)]
        if body:
            for k in sorted(body):
                parts.append(",")
                parts.append(_qs(k))
                parts.append(":")
                parts.append(dumps(body[k]))
        parts.append("}")
        j = "".join(parts)
        self.last_json = j
        return frame(j)

    def _reliable(self, t_us, kind, body):
        line = self._line(self.seq + 1, t_us, kind, body)  # raises before the seq is used up
        self.seq += 1
        return line

    def event(self, kind, sensor, t_us, fields):
        """A detector event: emit(kind, sensor, t_us, fields) -> one line. Unknown kinds raise ValueError."""
        names = EVENT_FIELDS.get(kind)
        if names is None:
            raise ValueError("unknown event kind " + str(kind))
        return self.values(kind, sensor, t_us, fields[names[0]], fields[names[1]] if len(names) > 1 else 0)

    def values(self, kind, sensor, t_us, a, b=0):
        """The same, with the fields' values in EVENT_FIELDS order (a, b): nothing to build before encoding."""
        spec = self._events.get(kind)
        if spec is None:
            names = EVENT_FIELDS.get(kind)
            if names is None:
                raise ValueError("unknown event kind " + str(kind))
            keys = sorted(names + ("n",))
            fmt = self._head.replace("%", "%%") + '%d,"t":%d,"m":"' + kind + '"'
            slots = []
            for k in keys:
                fmt += ',"' + k + ('":%s' if k == "n" else '":%d')
                slots.append(-1 if k == "n" else names.index(k))
            spec = self._events[kind] = (slots, fmt + "}")
        slots, fmt = spec
        vals = [self.seq + 1, t_us + self.base]
        for i in slots:
            if i < 0:
                q = self._quoted.get(sensor)
                if q is None:
                    q = _qs(sensor)
                    if len(self._quoted) < 32:
                        self._quoted[sensor] = q
                vals.append(q)
            else:
                v = b if i else a
                if not _is_int(v):
                    raise ValueError("event field " + EVENT_FIELDS[kind][i] + " must be an integer")
                vals.append(v)
        j = fmt % tuple(vals)
        self.last_json = j
        self.seq += 1
        return frame(j)

    def hello(self, t_us, fw, profile, sensors, reset):
        """sensors: list of sensor configs (dicts with name, kind; hall also count) from fb.config."""
        sn = []
        for s in sensors:
            d = {"n": s["name"], "k": s["kind"]}
            if s["kind"] == "hall":
                d["c"] = s["count"]
            sn.append(d)
        return self._reliable(t_us, "hello", {"fw": fw, "prof": profile, "sn": sn, "rst": reset})

    def gap(self, first, last, t_us=0):
        """Lost seqs first..last (inclusive). Takes no seq of its own: s = the high-water mark."""
        return self._line(self.seq, t_us, "gap", {"first": first, "last": last, "lost": last - first + 1})

    def fault(self, t_us, code, msg, sensor=None):
        body = {"code": code, "msg": msg}
        if sensor is not None:
            body["n"] = sensor
        return self._reliable(t_us, "fault", body)

    def heartbeat(self, t_us, up_ms, heap, depth, dropped, reconnects, rssi=None, extra=None):
        ints = _is_int(up_ms) and _is_int(heap) and _is_int(depth) and _is_int(dropped) and _is_int(reconnects)
        if extra or not ints:
            body = {"up": up_ms, "heap": heap, "q": depth, "drop": dropped, "rc": reconnects, "rssi": rssi}
            if extra:
                for k in extra:
                    body[k] = extra[k]
            return self._line(self.seq, t_us, "heartbeat", body)
        j = self._head + '%d,"t":%d,"m":"heartbeat","drop":%d,"heap":%d,"q":%d,"rc":%d,"rssi":%s,"up":%d}' % (
            self.seq, t_us + self.base, dropped, heap, depth, reconnects, "null" if rssi is None else str(int(rssi)), up_ms
        )  # the usual heartbeat in one step, as events are
        self.last_json = j
        return frame(j)

    def reply(self, t_us, cmd, req_id, ok=True, data=None, err=None, msg=None):
        body = {"c": cmd, "id": req_id, "ok": ok}
        if ok:
            if data is not None:
                body["d"] = data
        else:
            body["err"] = err
            body["msg"] = msg
        return self._line(self.seq, t_us, "reply", body)

    def error(self, t_us, bad):
        """Reply for a decode error tuple (code, msg, cmd, id) from decode()."""
        return self.reply(t_us, bad[2], bad[3], False, None, bad[0], bad[1])


# ---- host -> board ---------------------------------------------------------------------------------


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _clip(s, n=40):
    s = str(s)
    return s if len(s) <= n else s[:n] + "..."


def decode(line):
    """Decode one host line (no newline). Never raises.

    Returns (cmd, None) with cmd a dict {"c": name, "id": ..., ...validated fields}, or
    (None, (err_code, message, cmd_name_or_None, id_or_None)).
    """
    try:
        return _decode(line)
    except Exception as e:  # the last net: nothing a host sends may crash the board
        return None, ("internal", "decoder failed: " + _clip(repr(e)), None, None)


def _decode(line):
    if isinstance(line, (bytes, bytearray)):
        if len(line) > MAX_LINE:
            return None, ("oversize", "line longer than " + str(MAX_LINE) + " bytes", None, None)
        try:
            line = bytes(line).decode()
        except Exception:
            return None, ("frame", "line is not UTF-8", None, None)
    if len(line) > MAX_LINE or len(line.encode()) > MAX_LINE:
        return None, ("oversize", "line longer than " + str(MAX_LINE) + " bytes", None, None)
    if line.endswith("\r"):
        line = line[:-1]
    if not line.startswith(PREFIX):
        return None, ("frame", "no FB1| prefix: " + _clip(line), None, None)
    body = line[len(PREFIX) :]
    if body and body[-1] != "}":
        bar = body.rfind("|")
        if bar < 0 or len(body) - bar != 9:
            return None, ("frame", "incomplete line: it must end with } or |<crc32>", None, None)
        want = body[bar + 1 :]
        body = body[:bar]
        if want != _crc_hex(body):
            return None, ("crc", "CRC mismatch: line garbled in transit", None, None)
    try:
        obj = json.loads(body)
    except Exception:
        return None, ("json", "not valid JSON (half or garbled line)", None, None)
    if not isinstance(obj, dict):
        return None, ("schema", "a command is a JSON object", None, None)
    rid = obj.get("id")
    if rid is not None and not (
        (_is_int(rid) and 0 <= rid <= 0x7FFFFFFF) or (isinstance(rid, str) and 0 < len(rid) <= 32)
    ):
        return None, ("schema", "id must be an int 0..2147483647 or a string of 1..32 characters", None, None)
    c = obj.get("c")
    if not isinstance(c, str):
        return None, ("schema", 'missing command name "c"', None, rid)
    if c not in COMMANDS:
        return None, ("unknown", "unknown command " + _clip(c, 24), _clip(c, 24), rid)
    v = obj.get("v", VERSION)
    if v != VERSION or not _is_int(v):
        return None, ("version", "protocol version " + _clip(v, 12) + " not supported (board speaks 1)", c, rid)
    cmd = {"c": c, "id": rid}
    if c == "ack":
        bt = obj.get("bt")
        s = obj.get("s")
        if not (type(bt) is int and bt >= 0):
            return None, ("schema", "ack needs bt (boot id, int >= 0)", c, rid)
        if not (type(s) is int and s >= 0):
            return None, ("schema", "ack needs s (last seq received, int >= 0)", c, rid)
        cmd["bt"] = bt
        cmd["s"] = s
    elif c == "watch":
        secs = obj.get("s", 600)
        if not (type(secs) is int and 0 <= secs <= WATCH_MAX_S):
            return None, ("schema", "watch s must be whole seconds, 0 (stop) to " + str(WATCH_MAX_S), c, rid)
        cmd["s"] = secs
    elif c == "config_get":
        k = obj.get("k")
        if k is not None and not isinstance(k, str):
            return None, ("schema", "config_get k must be a dotted key string", c, rid)
        cmd["k"] = k
    elif c == "config_set":
        k = obj.get("k")
        if not isinstance(k, str) or not k:
            return None, ("schema", "config_set needs k (a dotted key string)", c, rid)
        if "val" not in obj:
            return None, ("schema", "config_set needs val", c, rid)
        val = obj["val"]
        if isinstance(val, float):
            return None, ("schema", "numbers are integers", c, rid)
        cmd["k"] = k
        cmd["val"] = val
    return cmd, None


class Dispatcher:
    """Runs decoded host commands. handle(line, t_us) -> list of lines to send (replies, resends).

    outbox: fb.outbox.Outbox; config: fb.config.Config; status(): dict for `status`;
    selftest(): {sensor name: live state} for `selftest`; watch(seconds, id): start (or, with 0, stop) the stream of
    `watch` replies, one each time a sensor's state changes (fb.app). After a `reboot` reply has been written,
    `reboot_requested` is True: the main loop flushes the link, then resets the board.
    """

    def __init__(self, encoder, outbox=None, config=None, status=None, selftest=None, watch=None):
        self.enc = encoder
        self.watch = watch
        self.outbox = outbox
        self.config = config
        self.status = status
        self.selftest = selftest
        self.reboot_requested = False
        self.errors = 0  # bad host lines answered with an error reply (nothing is silent)
        self.stale_acks = 0

    def handle(self, line, t_us):
        cmd, bad = decode(line)
        if bad is not None:
            self.errors += 1
            return [self.enc.error(t_us, bad)]
        try:
            return self._run(cmd, t_us)
        except Exception as e:
            self.errors += 1
            return [self.enc.reply(t_us, cmd["c"], cmd["id"], False, None, "internal", _clip(repr(e), 80))]

    def _run(self, cmd, t_us):
        c = cmd["c"]
        rid = cmd["id"]
        enc = self.enc
        if c == "ack":
            if self.outbox is not None and self.outbox.ack(cmd["bt"], cmd["s"]) < 0:
                self.stale_acks += 1
            return []
        if c == "ping":
            out = [enc.reply(t_us, c, rid, True, {"q": self._depth()})]
            if self.outbox is not None:
                for ln in self.outbox.pending():
                    out.append(ln)
            return out
        if c == "status":
            d = self.status() if self.status is not None else {}
            if self.outbox is not None:
                d["q"] = self.outbox.depth()
                d["drop"] = self.outbox.dropped
            d["bad_cmds"] = self.errors
            return [enc.reply(t_us, c, rid, True, d)]
        if c == "selftest":
            if self.selftest is None:
                return [enc.reply(t_us, c, rid, False, None, "unavailable", "no self-test on this build")]
            return [enc.reply(t_us, c, rid, True, {"sensors": self.selftest()})]
        if c == "watch":
            if self.watch is None or self.selftest is None:
                return [enc.reply(t_us, c, rid, False, None, "unavailable", "no watch on this build")]
            self.watch(cmd["s"], rid)
            return [enc.reply(t_us, c, rid, True, {"s": cmd["s"], "sensors": self.selftest()})]
        if c == "config_get" or c == "config_set":
            if self.config is None:
                return [enc.reply(t_us, c, rid, False, None, "unavailable", "no configuration loaded")]
            if c == "config_get":
                ok, val = self.config.get(cmd["k"])
                if not ok:
                    self.errors += 1
                    return [enc.reply(t_us, c, rid, False, None, "key", val)]
                return [enc.reply(t_us, c, rid, True, {"k": cmd["k"], "val": val})]
            ok, msg = self.config.set(cmd["k"], cmd["val"])
            if not ok:
                self.errors += 1
                return [enc.reply(t_us, c, rid, False, None, "invalid", msg)]
            return [enc.reply(t_us, c, rid, True, {"k": cmd["k"], "val": self.config.get(cmd["k"])[1]})]
        if c == "reboot":
            self.reboot_requested = True
            return [enc.reply(t_us, c, rid, True)]
        return [enc.reply(t_us, c, rid, False, None, "unknown", "unknown command")]

    def _depth(self):
        return self.outbox.depth() if self.outbox is not None else 0
