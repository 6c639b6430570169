"""A DNS lookup that never blocks: one A-record query over UDP, driven by `poll(now_ms)` from the main loop.

Why: `socket.getaddrinfo` of a name blocks until the resolver gives up. On the rp2 port it loops inside lwIP and on
the ESP32 it waits in the network task, in both cases without returning to the main loop, and an unanswered query
costs seconds per DNS server: longer than the watchdog allows (8.3 s at most on the RP2040). This lookup sends
its own query and only checks for the answer when polled.

    q = Lookup("broker.club.lan", ("192.168.1.1", 53), now_ms)
    ip = q.poll(now_ms)     # None while waiting; then q.ip (a dotted IPv4 string) or q.error (a sentence)

Each try waits `try_ms` for an answer; `tries` tries in all, each with a new query id. An answer with another id,
from a resolver that is not the server asked, or that is malformed, is ignored (counted in `ignored`). NXDOMAIN and
other error codes end the lookup at once. Only IPv4 addresses (A records) are asked for: the boards' MQTT client
connects over IPv4. A name that is already a dotted IPv4 address needs no lookup (`is_ip`).
"""

import random
import socket

TYPE_A = 1
CLASS_IN = 1
RCODES = {1: "format error", 2: "server failure", 3: "no such name", 4: "not implemented", 5: "refused"}

_TMASK = 0x3FFFFFFF
_THALF = 0x20000000


def _diff(a, b):
    return ((a - b + _THALF) & _TMASK) - _THALF


def is_ip(name):
    """True for a dotted IPv4 address such as "192.168.1.10"."""
    parts = name.split(".")
    if len(parts) != 4:
        return False
    for p in parts:
        if not p or len(p) > 3 or not p.isdigit() or int(p) > 255:
            return False
    return True


def query(qid, name):
    """A standard query (recursion desired) for the A record of `name`."""
    q = bytearray((qid >> 8, qid & 0xFF, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    for label in name.rstrip(".").split("."):
        b = label.encode()
        if not 0 < len(b) < 64:
            raise ValueError("not a host name: " + name)
        q.append(len(b))
        q += b
    q += b"\x00\x00\x01\x00\x01"
    return bytes(q)


def _skip_name(msg, i):
    """The index just after a (possibly compressed) name starting at i."""
    while True:
        n = msg[i]
        if n == 0:
            return i + 1
        if n & 0xC0 == 0xC0:
            return i + 2
        i += n + 1


def answer(msg, qid):
    """(ip, None) from a response to query `qid`, (None, reason) for a definite failure, or (None, None) when the
    message is not an answer to it (another id, not a response, truncated garbage)."""
    if len(msg) < 12 or (msg[0] << 8 | msg[1]) != qid or not msg[2] & 0x80:
        return None, None
    rcode = msg[3] & 0x0F
    if rcode:
        return None, RCODES.get(rcode, "error code %d" % rcode)
    qd = msg[4] << 8 | msg[5]
    an = msg[6] << 8 | msg[7]
    try:
        i = 12
        for _ in range(qd):
            i = _skip_name(msg, i) + 4
        for _ in range(an):
            i = _skip_name(msg, i)
            rtype = msg[i] << 8 | msg[i + 1]
            rclass = msg[i + 2] << 8 | msg[i + 3]
            rdlen = msg[i + 8] << 8 | msg[i + 9]
            i += 10
            if rtype == TYPE_A and rclass == CLASS_IN and rdlen == 4 and i + 4 <= len(msg):
                return "%d.%d.%d.%d" % (msg[i], msg[i + 1], msg[i + 2], msg[i + 3]), None
            i += rdlen
    except IndexError:
        return None, None
    return None, "no IPv4 address for the name"


class Lookup:
    def __init__(self, name, server, now_ms, tries=3, try_ms=1000):
        self.name = name
        self.server = server  # (dotted ip, port)
        self.tries = tries
        self.try_ms = try_ms
        self.ip = None
        self.error = None
        self.ignored = 0
        self._n = 0
        self._qid = 0
        self._sent_at = 0
        self._sock = None
        try:
            self._to = socket.getaddrinfo(server[0], server[1])[0][-1]  # a literal address: no lookup
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setblocking(False)
            self._sock = s
            self._send(now_ms)
        except (OSError, ValueError, IndexError) as e:
            self._end(None, "cannot ask %s: %s" % (server[0], e))

    def _send(self, now_ms):
        self._n += 1
        self._qid = random.getrandbits(16)
        self._sent_at = now_ms
        self._sock.sendto(query(self._qid, self.name), self._to)  # type: ignore[union-attr]

    def _end(self, ip, error):
        self.ip = ip
        self.error = error
        s = self._sock
        self._sock = None
        if s is not None:
            try:
                s.close()
            except OSError:
                pass

    def done(self):
        return self._sock is None

    def poll(self, now_ms):
        """The address once known, else None (see `error` once `done()`)."""
        s = self._sock
        if s is None:
            return self.ip
        try:
            while True:
                msg, frm = s.recvfrom(512)
                if frm != self._to:
                    self.ignored += 1
                    continue
                ip, why = answer(msg, self._qid)
                if ip is not None or why is not None:
                    self._end(ip, None if ip else "%s: %s" % (self.name, why))
                    return ip
                self.ignored += 1
        except OSError:
            pass  # nothing (more) to read now
        if _diff(now_ms, self._sent_at) >= self.try_ms:
            if self._n >= self.tries:
                self._end(None, "%s: no answer from %s after %d tries" % (self.name, self.server[0], self._n))
                return None
            try:
                self._send(now_ms)
            except OSError as e:
                self._end(None, "%s: cannot ask %s: %s" % (self.name, self.server[0], e))
        return None

    def close(self):
        if self._sock is not None:
            self._end(None, "cancelled")
