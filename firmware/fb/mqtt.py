"""A small non-blocking MQTT 3.1.1 client for the Flickboard firmware.

Why our own: `umqtt.simple` blocks the caller on connect, on publish and while waiting for PUBACK, and it
has no reconnect; no pip-installable MicroPython client is available to this project. The main loop of the
board also runs the sensor detectors, so the client must never hold it for more than a few milliseconds.

How it runs
-----------
Nothing happens in the background. The application calls `client.poll(now_ms)` from its main loop (every
few ms, and at least a few times per second). `now_ms` is `time.ticks_ms()` on MicroPython (wrap-around is
handled with modulo-2**30 ticks arithmetic) or any monotonic millisecond count under CPython. Every call does a
bounded amount of work with a non-blocking socket and `select.poll(0)`:

* connecting is a state machine: WAIT (backoff) -> TCP (non-blocking `connect`, EINPROGRESS, wait for
  POLLOUT) -> MQTT (CONNECT sent, wait for CONNACK) -> UP;
* reads are incremental: bytes go into one pre-allocated buffer of `max_packet + 5` bytes and whole packets
  are parsed out of it; a packet split over many TCP segments simply waits for its remaining bytes;
* writes go into one pre-allocated output buffer; `send` may take part of it, the rest goes on the next poll.

No call blocks. `connect_blocking_ms`, for a port whose `connect` cannot be non-blocking, bounds a blocking
`connect` by that timeout; it is off by default.

Messages and topics
-------------------
* CONNECT carries the client id, the clean-session flag, the keepalive, optional user/password and a last
  will (`will_topic`, default message `offline`, QoS 1, RETAINED). On every accepted CONNACK the client
  publishes the birth message (`online`, QoS 1, retained) on the same topic, so the retained status topic
  always tells the truth: `online` while connected, `offline` as soon as the broker notices we are gone.
* `publish(topic, payload, qos=0|1, retain)`. QoS 1 messages get a packet id and stay in the in-flight window
  (`max_inflight`) until their PUBACK arrives. They are accepted even while disconnected (as long as the window
  has room) and sent once the connection is up. After a reconnect every un-acknowledged message is sent again,
  in order, with the DUP flag (`auto_resend=True`); with `auto_resend=False` the application takes them back
  with `take_unacked()` and republishes them itself. `unacked()` / `inflight()` report them at any time.
  QoS 0 messages are written only while connected and are otherwise refused (`publish` returns None and
  `dropped` counts them).
* `subscribe(topic, qos)` records the subscription; it is (re)sent after EVERY successful connect, so a broker
  that lost its sessions (restart without persistence, clean session) still delivers our commands.
* Incoming PUBLISH (QoS 0 and 1) is handed to `on_message(topic, payload, retained)`; for QoS 1 the PUBACK is
  sent after the callback returns (at-least-once). An exception raised by the callback is caught and counted.

Failure modes and what the client does
--------------------------------------
Every failure closes the socket, increments `errors`, stores a human-readable `last_error`, calls
`on_disconnect(reason)` and schedules the next attempt with exponential backoff and jitter: the n-th
consecutive failure waits a random time in [d/2, d] with d = min(backoff_max_ms, backoff_min_ms * 2**n).
The counter n goes back to zero only after a connection stayed up for `stable_ms`, so a broker that accepts
and then immediately kicks us (e.g. two boards using the same client id) cannot cause a tight loop. The
client never raises out of `poll()` for network errors and never reboots the board; `reconnects` counts the
successful connections after the first one.

* Wi-Fi down: handled by `fb.mqtt_link`, which stops polling the client, calls `client.drop("wifi down")`
  and resumes once the station has an address again. Without that layer, the socket calls fail (or the
  connection goes silent) and one of the cases below applies.
* DNS. The broker's name is looked up once, and the address is kept across reconnects. It is looked up again
  only when it stops working: after STALE_AFTER (3) failed TCP connects in a row to it (the broker may have
  moved). On the boards the lookup is `fb.dns`, which sends its own query to the DNS server the Wi-Fi link got
  from DHCP (`dns_server`) and checks for the answer on each poll, so it never holds the main loop or the
  watchdog: `socket.getaddrinfo` would block inside lwIP until the resolver gave up, seconds per DNS server.
  A lookup with no answer (3 tries of 1 s) or a refusal counts as a failed attempt ("DNS: ...") and backs off;
  while it fails, the last address that reached the broker is tried instead. A broker given as an IP address
  needs no lookup at all. Without `dns_server` (the unix port, CPython) the host's own resolver answers
  through `getaddrinfo`.
* Broker down (connection refused, host unreachable): the non-blocking connect reports POLLERR/POLLHUP or the
  connect call fails; counted and retried with backoff. A TCP connect with no answer at all is abandoned after
  `connect_timeout_ms`.
* Broker restarting: the connection is closed (EOF on read or EPIPE/ECONNRESET on write); reconnect with
  backoff, resubscribe, send the birth message again and resend every un-acknowledged QoS 1 publish with DUP.
  Subscribers may therefore see duplicates (QoS 1 is at-least-once) but nothing is lost from the window.
* Broker accepts TCP but never answers CONNECT (overloaded, or a process that is stopped while the kernel
  still completes handshakes): CONNACK timeout after `connect_timeout_ms`, then backoff.
* Broker refuses CONNECT: CONNACK return code 1 (unacceptable protocol version), 2 (identifier rejected),
  3 (server unavailable), 4 (bad user name or password) or 5 (not authorised). Each is stored in
  `last_connack`, reported as `last_error` ("refused: 4 bad user name or password") and retried with the same
  bounded backoff; a wrong password therefore costs one short attempt per `backoff_max_ms`, not a crash and
  not a reboot loop.
* Keepalive / half-open socket: a Wi-Fi access point that reboots, or a broker host that vanishes, leaves a
  TCP connection that looks healthy but carries nothing. With keepalive K seconds, the client sends PINGREQ
  when it has received nothing for K/2 (or sent nothing for K/2, so the broker's own 1.5 K timer never
  fires), and declares the connection dead when nothing at all has arrived for K seconds (or a PINGREQ stays
  unanswered for K). A dead connection is therefore noticed at most about K after the broker's last byte,
  well within 1.5 K. Keepalive 0 disables pings and this check.
* Writes that make no progress (peer window closed, half-open socket) for K (or `connect_timeout_ms` when
  K is 0): the connection is declared dead.
* PUBACK never arrives: the message stays in the window. If the oldest sent message has not been
  acknowledged within `ack_timeout_ms` (default 2 K), the connection is considered broken and is recycled,
  which resends the message with DUP (MQTT 3.1.1 only allows resending on a new connection). If the window is
  full, `publish(..., qos=1)` returns None; nothing is dropped silently.
* Oversized incoming packet (remaining length > `max_packet`): its bytes are skipped without being stored and
  `oversized` is counted; for a QoS 1 PUBLISH whose topic and packet id fit in the buffer the PUBACK is still
  sent so the broker does not redeliver it forever. Outgoing packets larger than the output buffer are refused.
* Malformed input (remaining length over 4 bytes, a packet too short for its type, a CONNACK when
  connected, a packet type a broker never sends...): protocol error, reconnect. PINGRESP is the one packet
  with an empty body (remaining length 0); a DISCONNECT from the broker closes the connection like EOF. A topic that is not UTF-8, or an exception raised by
  `on_message`, is counted in `errors` and does not affect the connection (a QoS 1 message is still acked).
* Incoming QoS 2 cannot happen (we subscribe with QoS <= 1); if it does, it is counted and ignored.
* Anything unexpected raised inside the client (a bug, MemoryError) is caught by `poll()`, counted and
  reported as "client error: ...", and the connection is recycled like any other failure.
* Port differences: where a failed non-blocking connect shows up as "writable" rather than POLLERR/POLLHUP
  (some lwIP builds), the CONNECT write or the next read fails instead; same outcome, one poll later.

Counters, for the heartbeat: `errors`, `busy` (socket calls the stack said to retry), `reconnects`, `connects`, `oversized`, `dropped`, `resent`, `lookups`,
`last_error`, `last_connack`; `stats()` returns them as a dict.
"""

import errno
import random
import select
import socket
import sys

from fb import dns

# Millisecond ticks arithmetic modulo 2**30 (the MicroPython ticks period, also used by fb.compat under
# CPython). It is also right for an unbounded monotonic count as long as the intervals are < 2**29 ms.
_TMASK = 0x3FFFFFFF
_THALF = 0x20000000


def _diff(a, b):
    return ((a - b + _THALF) & _TMASK) - _THALF


def _add(a, b):
    return (a + b) & _TMASK


def _bits(n):
    return random.getrandbits(n)


# What a socket error means, by kind (docs/firmware.md, "When the network stack says no"):
BUSY = 1  # nothing can move now: try again on a later poll (the keepalive and write-stall timers bound the wait)
PROGRESS = 2  # a non-blocking connect goes on: wait for POLLOUT (connect_timeout_ms bounds it); busy on send/recv
AWAY = 3  # the route is gone for now (Wi-Fi out of range): busy on a connection that is up, a failure at connect
NOT_YET = 4  # the socket is not connected: busy while the CONNECT handshake runs, the connection lost once it is up
# Anything else (ECONNRESET, ECONNABORTED, EPIPE, ECONNREFUSED, EBADF...) is a failure: close, back off, reconnect.
#
# The numbers differ by stack, so the table is chosen by port:
# - rp2 (the Pico W) raises MicroPython's own errno numbers (py/mperrno.h: Linux's) from its lwIP socket layer
#   (extmod/modlwip.c), and its Wi-Fi driver's -110 (a negative ETIMEDOUT), which mqtt_as also takes for "busy";
# - esp32 raises ESP-IDF's (newlib's sys/errno.h) as lwIP sets them (ports/esp32/modsocket.c), except EINPROGRESS,
#   which it turns into MicroPython's 115; 115 is also newlib's ENETDOWN, which therefore reads as "in progress"
#   (a Wi-Fi that is down is fb.mqtt_link's to notice);
# - the unix port and CPython: the host's own (errno module under CPython; Linux's under MicroPython).
# "errno name kind ..." per stack, parsed once for the port the client runs on (strings cost the heap far less than
# tables of tuples would).
_LINUX = (
    "11 EAGAIN 1 12 ENOMEM 1 105 ENOBUFS 1 110 ETIMEDOUT 1 115 EINPROGRESS 2 114 EALREADY 2 113 EHOSTUNREACH 3 "
    "101 ENETUNREACH 3 112 EHOSTDOWN 3 100 ENETDOWN 3 107 ENOTCONN 4 104 ECONNRESET 0 103 ECONNABORTED 0 "
    "111 ECONNREFUSED 0 32 EPIPE 0 9 EBADF 0"
)
_ESP32 = (
    "11 EAGAIN 1 12 ENOMEM 1 105 ENOBUFS 1 116 ETIMEDOUT 1 115 EINPROGRESS 2 119 EINPROGRESS 2 120 EALREADY 2 "
    "118 EHOSTUNREACH 3 114 ENETUNREACH 3 117 EHOSTDOWN 3 128 ENOTCONN 4 104 ECONNRESET 0 113 ECONNABORTED 0 "
    "111 ECONNREFUSED 0 32 EPIPE 0 9 EBADF 0"
)
_RP2 = _LINUX + " -110 ETIMEDOUT 1"


def _rows(platform, micropython):
    """The stack's table as text: MicroPython's by port; under CPython the host's own numbers (Linux, macOS...)."""
    if micropython:
        return _ESP32 if platform == "esp32" else (_RP2 if platform == "rp2" else _LINUX)
    w = _LINUX.split()
    out = []
    for i in range(0, len(w), 3):
        n = getattr(errno, w[i + 1], None)
        if n is not None:
            out.append("%d %s %s" % (n, w[i + 1], w[i + 2]))
    return " ".join(out)


def errno_table(platform, micropython):
    """{errno: kind} for a port (sys.platform) and interpreter."""
    w = _rows(platform, micropython).split()
    t = {}
    for i in range(0, len(w), 3):
        t[int(w[i])] = int(w[i + 2])
    return t


def errno_name(n, platform=None, micropython=None):
    """The name of errno n in the running port's table (or the one named), or None: for reports, never on a busy path."""
    if platform is None:
        platform, micropython = sys.platform, sys.implementation.name == "micropython"
    w = _rows(platform, micropython).split()
    for i in range(0, len(w), 3):
        if int(w[i]) == n:
            return w[i + 1]
    return None


STACK = [sys.platform, sys.implementation.name == "micropython"]  # whose table ERRNOS is (tests set another)
ERRNOS = errno_table(STACK[0], STACK[1])

WAIT = 0
TCP = 1
MQTT = 2
UP = 3
STOPPED = 4
DNS = 5
STATE_NAMES = ("wait", "tcp", "mqtt", "up", "stopped", "dns")
# Failed TCP connects in a row to a looked-up address before the name is looked up again (the broker may have moved).
STALE_AFTER = 3

CONNACK_TEXT = {
    1: "unacceptable protocol version",
    2: "identifier rejected",
    3: "server unavailable",
    4: "bad user name or password",
    5: "not authorised",
}


def _b(x):
    if isinstance(x, str):
        return x.encode()
    return bytes(x)


def _no_delay(s):
    """Send each small packet at once (TCP_NODELAY): otherwise a PUBLISH written while the previous one is not yet
    acknowledged by TCP waits for the broker's delayed acknowledgement, tens of ms (Nagle's algorithm). The unix
    port has no constants for it: the Linux values are used there."""
    try:
        s.setsockopt(getattr(socket, "IPPROTO_TCP", 6), getattr(socket, "TCP_NODELAY", 1), 1)
    except (OSError, AttributeError, TypeError, ValueError):
        pass


def _errno(e):
    try:
        return e.args[0] if isinstance(e.args[0], int) else -1
    except (AttributeError, IndexError):
        return -1


def _kind(n):
    return ERRNOS.get(n, -1)


def _say(n):
    """The errno as the reports show it: its number and, when the stack's table knows it, its name."""
    name = errno_name(n, STACK[0], STACK[1])
    return str(n) if name is None else "%d %s" % (n, name)


def _rl_bytes(n):
    """Encode an MQTT remaining length."""
    out = bytearray()
    while True:
        d = n & 0x7F
        n >>= 7
        if n:
            out.append(d | 0x80)
        else:
            out.append(d)
            return out


def _str(s):
    return bytes((len(s) >> 8, len(s) & 0xFF)) + s


class MQTTClient:
    def __init__(
        self,
        client_id,
        server,
        port=1883,
        user=None,
        password=None,
        keepalive=60,
        clean_session=True,
        will_topic=None,
        will_msg=b"offline",
        birth_msg=b"online",
        on_message=None,
        on_connect=None,
        on_disconnect=None,
        max_packet=2048,
        max_inflight=16,
        out_size=0,
        backoff_min_ms=1000,
        backoff_max_ms=60000,
        stable_ms=10000,
        connect_timeout_ms=5000,
        ack_timeout_ms=0,
        auto_resend=True,
        connect_blocking_ms=0,
        dns_server=None,
    ):
        self.client_id = _b(client_id)
        self.server = server
        self.port = port
        self.user = None if user is None else _b(user)
        self.password = None if password is None else _b(password)
        self.keepalive = keepalive
        self.clean_session = clean_session
        self.will_topic = None if will_topic is None else _b(will_topic)
        self.will_msg = _b(will_msg)
        self.birth_msg = None if birth_msg is None else _b(birth_msg)
        self.on_message = on_message
        self.on_connect = on_connect
        self.on_disconnect = on_disconnect
        self.max_packet = max_packet
        self.max_inflight = max_inflight
        self.backoff_min_ms = backoff_min_ms
        self.backoff_max_ms = backoff_max_ms
        self.stable_ms = stable_ms
        self.connect_timeout_ms = connect_timeout_ms
        ka_ms = keepalive * 1000
        self.ack_timeout_ms = ack_timeout_ms or (2 * ka_ms if ka_ms else 30000)
        self.auto_resend = auto_resend
        self.connect_blocking_ms = connect_blocking_ms
        self.dns_server = dns_server  # () -> (ip, port) | ip | None: where to send lookups; None: getaddrinfo
        # buffers, allocated once
        self._rbuf = bytearray(max_packet + 5)
        self._rmv = memoryview(self._rbuf)
        self._rlen = 0
        self._skip = 0
        self._obuf = bytearray(out_size or (max_packet + 64))
        self._omv = memoryview(self._obuf)
        self._olen = 0
        # connection
        self._sock = None
        self._poller = None
        self._pmask = 0
        self._addr = None  # (family, sockaddr) of the broker, kept across reconnects
        self._known = None  # the last address a connection reached, used while a new lookup fails
        self._tcp_fails = 0  # failed TCP connects in a row to _addr
        self._lookup = None
        self.lookups = 0
        self.state = WAIT
        self._next_at = None  # None: first attempt right away
        self._deadline = 0
        self._attempt = 0
        self._up_at = 0
        self._last_rx = 0
        self._last_tx = 0
        self._last_progress = 0
        self._ping_at = None
        # publish / subscribe bookkeeping
        self._pid = 0
        self._inflight = []  # [pid, topic, payload, retain, sends, sent_at, queued]
        self._lost = []  # auto_resend=False: sent, un-acked, connection lost -> take_unacked()
        self._internal = {}  # pid -> "birth" | "sub" (not reported to the application)
        self._now = 0
        self._subs = []  # [(topic bytes, qos)]
        # counters
        self.errors = 0
        self.busy = 0  # sends and receives the network stack said to try again later (ERRNOS: BUSY, PROGRESS...)
        self.reconnects = 0
        self.connects = 0
        self.oversized = 0
        self.dropped = 0
        self.resent = 0
        self.last_error = ""
        self.last_connack = None
        self.backoff_ms = 0

    # ------------------------------------------------------------------ public API

    def is_connected(self):
        return self.state == UP

    def state_name(self):
        return STATE_NAMES[self.state]

    def inflight(self):
        """Number of QoS 1 publishes not yet acknowledged by the broker (sent or waiting to be sent)."""
        return len(self._inflight)

    def unacked(self):
        """[(pid, topic, payload, retain)] of the QoS 1 publishes still waiting for PUBACK, oldest first
        (with auto_resend=False, first those whose connection was lost)."""
        return [(e[0], e[1], e[2], e[3]) for e in self._lost + self._inflight]

    def take_unacked(self):
        """Remove and return every un-acknowledged publish, for an application that resends them itself
        (`publish(topic, payload, 1, retain, dup=True)`)."""
        out = self.unacked()
        self._inflight = []
        self._lost = []
        return out

    def subscribe(self, topic, qos=1):
        """Record a subscription; it is sent now if connected and again after every reconnect."""
        t = _b(topic)
        qos = 1 if qos else 0
        for i, s in enumerate(self._subs):
            if s[0] == t:
                self._subs[i] = (t, qos)
                break
        else:
            self._subs.append((t, qos))
        if self.state == UP:
            self._send_subscribe([(t, qos)])

    def publish(self, topic, payload, qos=0, retain=False, dup=False):
        """Queue a publish. Returns the packet id (QoS 1), 0 (QoS 0 written) or None when refused
        (QoS 1: window full or packet too big; QoS 0: not connected, output buffer full or too big)."""
        t = _b(topic)
        p = _b(payload)
        size = self._publish_size(t, p, qos)
        if size > len(self._obuf):
            self.dropped += 1
            return None
        if qos:
            if len(self._inflight) >= self.max_inflight:
                return None
            pid = self._next_pid()
            self._inflight.append([pid, t, p, bool(retain), 1 if dup else 0, 0, True])
            if self.state == UP:
                self._pump(self._now)
                self._flush(self._now)
            return pid
        if self.state != UP:
            self.dropped += 1
            return None
        if len(self._obuf) - self._olen < size:
            self._flush(self._now)
            if len(self._obuf) - self._olen < size:
                self.dropped += 1
                return None
        self._write_publish(t, p, 0, retain, False, 0)
        self._flush(self._now)
        return 0

    def drop(self, reason, now_ms):
        """Close the connection now (e.g. Wi-Fi lost) and schedule a reconnect with backoff."""
        if self.state in (TCP, MQTT, UP, DNS):
            self._fail(reason, now_ms)

    def retry_now(self, now_ms):
        """Skip the current backoff wait (e.g. Wi-Fi just came back)."""
        if self.state == WAIT:
            self._next_at = now_ms

    def disconnect(self, now_ms=0):
        """Clean DISCONNECT (the broker discards the will) and stop reconnecting until `start()`."""
        if self.state == UP:
            if not self._put(b"\xe0\x00"):
                self._flush(now_ms)
                self._put(b"\xe0\x00")
            self._flush(now_ms)
        self._close()
        self.state = STOPPED

    def start(self, now_ms):
        if self.state == STOPPED:
            self.state = WAIT
            self._next_at = now_ms

    def stats(self):
        return {
            "state": STATE_NAMES[self.state],
            "errors": self.errors,
            "busy": self.busy,
            "reconnects": self.reconnects,
            "connects": self.connects,
            "inflight": len(self._inflight),
            "oversized": self.oversized,
            "dropped": self.dropped,
            "resent": self.resent,
            "lookups": self.lookups,
            "backoff_ms": self.backoff_ms,
            "last_error": self.last_error,
            "last_connack": self.last_connack,
        }

    def poll(self, now_ms):
        """Drive the client; call often from the main loop. Never raises for network errors."""
        self._now = now_ms
        st = self.state
        if st == STOPPED:
            return st
        if st == WAIT:
            if self._next_at is None or _diff(now_ms, self._next_at) >= 0:
                self._begin(now_ms)
            return self.state
        if st == DNS:
            self._resolved(now_ms)
            return self.state
        try:
            self._io(now_ms)
        except OSError as e:
            self._fail("socket error %d" % _errno(e), now_ms)
        except Exception as e:  # never let a surprise escape into the main loop: recycle the connection
            self._fail("client error: %r" % (e,), now_ms)
        return self.state

    # ------------------------------------------------------------------ connection state machine

    def _begin(self, now):
        if self._addr is None and not self._resolve(now):
            return
        self._connect(now)

    def _resolve(self, now):
        """Find the broker's address: True when it is known now. A name is looked up without blocking (fb.dns)
        when the link says which DNS server to ask; the answer arrives through _resolved()."""
        server = self.dns_server() if self.dns_server is not None else None
        if server is not None and not dns.is_ip(self.server):
            self.lookups += 1
            self._lookup = dns.Lookup(self.server, server if isinstance(server, tuple) else (server, 53), now)
            self.state = DNS
            self._resolved(now)
            return False
        try:  # a literal address needs no lookup; elsewhere (unix port, CPython) the host's resolver answers
            ai = socket.getaddrinfo(self.server, self.port, 0, socket.SOCK_STREAM)
            self._addr = (ai[0][0], ai[0][-1]) if ai else None
        except (OSError, IndexError) as e:
            self._addr = None
            self._fail("DNS failure for %s: %s" % (self.server, e), now)
            return False
        if self._addr is None:
            self._fail("DNS failure for %s" % self.server, now)
            return False
        return True

    def _resolved(self, now):
        q = self._lookup
        if q is None:
            return
        ip = q.poll(now)
        if ip is None and not q.done():
            return
        self._lookup = None
        if ip is not None:
            ai = socket.getaddrinfo(ip, self.port)  # a literal: no lookup
            self._addr = (socket.AF_INET, ai[0][-1])
        elif self._known is not None:
            self._addr = self._known  # keep trying the last address that worked
            self.last_error = "DNS: %s; trying the last known address" % q.error
        else:
            self.state = WAIT
            self._fail("DNS: %s" % q.error, now)
            return
        self._connect(now)

    def _connect(self, now):
        addr = self._addr
        if addr is None:
            return
        try:
            s = socket.socket(addr[0], socket.SOCK_STREAM)
        except OSError as e:
            self._fail("socket(): %d" % _errno(e), now)
            return
        _no_delay(s)
        self._sock = s
        self._rlen = 0
        self._skip = 0
        self._olen = 0
        self._ping_at = None
        self.state = TCP
        self._deadline = _add(now, self.connect_timeout_ms)
        try:
            if self.connect_blocking_ms:
                s.settimeout(self.connect_blocking_ms / 1000)
                s.connect(addr[1])
                s.setblocking(False)
                self._tcp_up(now)
            else:
                s.setblocking(False)
                s.connect(addr[1])
                self._tcp_up(now)  # loopback may connect at once
        except OSError as e:
            n = _errno(e)
            if _kind(n) != PROGRESS and n != getattr(errno, "EAGAIN", 11):
                self._fail("connect: " + _say(n), now)
                return
        self._poller = select.poll()
        self._pmask = 0
        self._set_mask()

    def _tcp_up(self, now):
        self.state = MQTT
        self._tcp_fails = 0
        self._known = self._addr
        self._deadline = _add(now, self.connect_timeout_ms)
        self._last_progress = now
        self._write_connect()

    def _set_mask(self):
        m = select.POLLIN
        if self.state == TCP or self._olen:
            m |= select.POLLOUT
        if m != self._pmask and self._poller is not None:
            if self._pmask:
                self._poller.modify(self._sock, m)
            else:
                self._poller.register(self._sock, m)
            self._pmask = m

    def _io(self, now):
        p = self._poller
        if p is None:
            return
        self._set_mask()
        ev = p.poll(0)
        flags = 0
        for e in ev:
            flags |= e[1]
        st = self.state
        if st == TCP:
            if flags & (select.POLLERR | select.POLLHUP):
                self._fail("connect refused or unreachable", now)
                return
            if flags & select.POLLOUT:
                self._tcp_up(now)
                flags &= ~select.POLLIN  # nothing can be there yet
            elif _diff(now, self._deadline) >= 0:
                self._fail("TCP connect timeout", now)
                return
            else:
                return
        if flags & select.POLLIN or flags & (select.POLLERR | select.POLLHUP):
            if not self._read(now):
                return
        if self.state == UP:
            self._pump(now)
        if self._olen:
            self._flush(now)
            if self.state not in (MQTT, UP):
                return
        self._timers(now)

    def _timers(self, now):
        if self.state == MQTT:
            if _diff(now, self._deadline) >= 0:
                self._fail("no CONNACK within %d ms" % self.connect_timeout_ms, now)
            return
        if self.state != UP:
            return
        ka = self.keepalive * 1000
        if self._olen and _diff(now, self._last_progress) >= (ka or self.connect_timeout_ms):
            self._fail("write stalled", now)
            return
        if ka:
            if _diff(now, self._last_rx) >= ka:
                self._fail("keepalive timeout: nothing from broker for %d ms" % ka, now)
                return
            if self._ping_at is not None and _diff(now, self._ping_at) >= ka:
                self._fail("keepalive timeout: no PINGRESP", now)
                return
            if self._ping_at is None and (
                _diff(now, self._last_rx) >= ka // 2 or _diff(now, self._last_tx) >= ka // 2
            ):
                if self._put(b"\xc0\x00"):
                    self._ping_at = now
                    self._flush(now)
        for e in self._inflight:
            if not e[6]:
                if _diff(now, e[5]) >= self.ack_timeout_ms:
                    self._fail("PUBACK timeout for packet %d" % e[0], now)
                return  # only the oldest sent one matters

    def _fail(self, reason, now):
        was_up = self.state == UP
        was_tcp = self.state == TCP
        self._close()
        self.errors += 1
        self.last_error = reason
        if was_up and _diff(now, self._up_at) >= self.stable_ms:
            self._attempt = 0
        n = self._attempt
        if n > 16:
            n = 16
        d = self.backoff_min_ms << n
        if d > self.backoff_max_ms:
            d = self.backoff_max_ms
        half = d // 2
        d = half + (_bits(16) * (d - half + 1) >> 16)
        self._attempt += 1
        self.backoff_ms = d
        self._next_at = _add(now, d)
        self.state = WAIT
        if was_tcp:
            self._tcp_fails += 1
            if self._tcp_fails >= STALE_AFTER and self._addr is not None:
                self._addr = None  # look the name up again: the broker may have moved
                self._tcp_fails = 0
        if self.auto_resend:
            for e in self._inflight:
                e[6] = True  # resend, with DUP, on the next connection
        else:
            self._lost += [e for e in self._inflight if not e[6]]
            self._inflight = [e for e in self._inflight if e[6]]
        self._internal = {}
        if self.on_disconnect:
            try:
                self.on_disconnect(reason)
            except Exception:
                self.errors += 1

    def _close(self):
        if self._lookup is not None:
            self._lookup.close()
            self._lookup = None
        s = self._sock
        self._sock = None
        if s is not None:
            if self._poller is not None and self._pmask:
                try:
                    self._poller.unregister(s)
                except (OSError, KeyError, ValueError):
                    pass
            try:
                s.close()
            except OSError:
                pass
        self._poller = None
        self._pmask = 0
        self._olen = 0
        self._rlen = 0
        self._skip = 0
        self._ping_at = None

    def _on_connack(self, rc, now):
        if self.state != MQTT:
            self._fail("unexpected CONNACK", now)
            return
        if rc:
            self.last_connack = rc
            self._fail("refused: %d %s" % (rc, CONNACK_TEXT.get(rc, "unknown")), now)
            return
        self.last_connack = 0
        self.state = UP
        self._up_at = now
        self._last_rx = now
        self._last_tx = now
        self.connects += 1
        if self.connects > 1:
            self.reconnects += 1
        if self.will_topic is not None and self.birth_msg is not None:
            pid = self._next_pid()
            self._internal[pid] = "birth"
            self._write_publish(self.will_topic, self.birth_msg, 1, True, False, pid)
        if self._subs:
            self._send_subscribe(self._subs)
        if self.on_connect:
            try:
                self.on_connect()
            except Exception:
                self.errors += 1
        self._pump(now)

    # ------------------------------------------------------------------ output

    def _next_pid(self):
        busy = [e[0] for e in self._inflight]
        while True:
            self._pid = self._pid + 1 if self._pid < 65535 else 1
            if self._pid not in busy and self._pid not in self._internal:
                return self._pid

    def _put(self, data):
        n = len(data)
        o = self._olen
        if o + n > len(self._obuf):
            return False
        self._omv[o : o + n] = data
        self._olen = o + n
        return True

    def _packet(self, first, body):
        """Write one packet made of a first byte and a body (bytes)."""
        return self._put(bytes((first,)) + _rl_bytes(len(body)) + body)

    def _write_connect(self):
        flags = 0x02 if self.clean_session else 0
        payload = _str(self.client_id)
        if self.will_topic is not None:
            flags |= 0x04 | (1 << 3) | 0x20  # will, will QoS 1, will retain
            payload += _str(self.will_topic) + _str(self.will_msg)
        if self.user is not None:
            flags |= 0x80
            payload += _str(self.user)
            if self.password is not None:
                flags |= 0x40
                payload += _str(self.password)
        ka = self.keepalive
        vh = b"\x00\x04MQTT\x04" + bytes((flags, ka >> 8, ka & 0xFF))
        self._packet(0x10, vh + payload)

    def _send_subscribe(self, subs):
        pid = self._next_pid()
        self._internal[pid] = "sub"
        body = bytearray((pid >> 8, pid & 0xFF))
        for t, q in subs:
            body += _str(t)
            body.append(q)
        if not self._packet(0x82, bytes(body)):
            self._flush(self._now)
            self._packet(0x82, bytes(body))

    def _publish_size(self, t, p, qos):
        rl = 2 + len(t) + len(p) + (2 if qos else 0)
        return 1 + len(_rl_bytes(rl)) + rl

    def _write_publish(self, t, p, qos, retain, dup, pid):
        rl = 2 + len(t) + len(p) + (2 if qos else 0)
        first = 0x30 | (qos << 1) | (1 if retain else 0) | (0x08 if dup else 0)
        head = bytes((first,)) + _rl_bytes(rl) + _str(t)
        if qos:
            head += bytes((pid >> 8, pid & 0xFF))
        if len(self._obuf) - self._olen < len(head) + len(p):
            return False
        self._put(head)
        self._put(p)
        return True

    def _pump(self, now):
        """Write queued QoS 1 publishes, in order, while the output buffer has room."""
        for e in self._inflight:
            if not e[6]:
                continue
            dup = e[4] > 0
            if not self._write_publish(e[1], e[2], 1, e[3], dup, e[0]):
                break
            if dup:
                self.resent += 1
            e[4] += 1
            e[5] = now
            e[6] = False

    def _busy(self, n):
        """True when a send or receive that raised errno n should simply be tried again later (module top: the kinds).
        Each wait is bounded: by the keepalive (nothing received for K), the write-stall timer, or connect_timeout_ms
        while the CONNECT handshake runs."""
        k = _kind(n)
        if k == BUSY or k == PROGRESS:
            return True
        if k == AWAY:
            return self.state == UP
        if k == NOT_YET:
            return self.state == MQTT
        return False

    def _flush(self, now):
        s = self._sock
        while self._olen and s is not None:
            try:
                n = s.send(self._omv[: self._olen])
            except OSError as e:
                if self._busy(_errno(e)):
                    self.busy += 1
                    return
                self._fail("send: " + _say(_errno(e)), now)
                return
            if not n:
                return
            rest = self._olen - n
            if rest:
                self._omv[:rest] = self._omv[n : self._olen]
            self._olen = rest
            self._last_tx = now
            self._last_progress = now

    # ------------------------------------------------------------------ input

    def _recv_into(self, mv):
        s = self._sock
        if s is None:
            return 0
        f = getattr(s, "recv_into", None)  # CPython; MicroPython sockets have readinto
        if f is None:
            return s.readinto(mv)
        return f(mv)

    def _read(self, now):
        """Read once and parse every complete packet. False when the connection was closed."""
        room = len(self._rbuf) - self._rlen
        if room <= 0:  # cannot happen: a packet never exceeds the buffer
            self._fail("receive buffer stuck", now)
            return False
        try:
            n = self._recv_into(self._rmv[self._rlen :])
        except OSError as e:
            if self._busy(_errno(e)):
                self.busy += 1
                return True
            self._fail("recv: " + _say(_errno(e)), now)
            return False
        if n is None:
            return True
        if n == 0:
            self._fail("connection closed by broker", now)
            return False
        self._rlen += n
        self._last_rx = now
        return self._parse(now)

    def _consume(self, n):
        rest = self._rlen - n
        if rest > 0:
            self._rmv[:rest] = self._rmv[n : self._rlen]
        self._rlen = rest if rest > 0 else 0

    def _parse(self, now):
        b = self._rbuf
        while self.state in (MQTT, UP):
            if self._skip:
                n = self._skip if self._skip < self._rlen else self._rlen
                self._consume(n)
                self._skip -= n
                if self._skip:
                    return True
                continue
            if self._rlen < 2:
                return True
            rl = 0
            mult = 1
            i = 1
            while True:
                if i >= self._rlen:
                    return True
                c = b[i]
                rl += (c & 0x7F) * mult
                mult <<= 7
                i += 1
                if not c & 0x80:
                    break
                if i > 4:
                    self._fail("malformed remaining length", now)
                    return False
            total = i + rl
            if rl > self.max_packet:
                if (b[0] >> 4) == 3 and b[0] & 0x06:
                    if self._rlen < i + 2:
                        return True
                    need = i + 2 + ((b[i] << 8) | b[i + 1]) + 2
                    if need <= len(b):
                        if self._rlen < need:
                            return True
                        self._puback((b[need - 2] << 8) | b[need - 1])
                self.oversized += 1
                self._skip = total
                continue
            if self._rlen < total:
                return True
            self._handle(b[0], i, total, now)
            self._consume(total)
        return False

    def _puback(self, pid):
        if not self._put(bytes((0x40, 2, pid >> 8, pid & 0xFF))):
            self._flush(self._now)
            self._put(bytes((0x40, 2, pid >> 8, pid & 0xFF)))

    def _handle(self, first, i, total, now):
        """One whole packet from the broker: fixed header b[0], body b[i:total]. Of what a broker may send to a
        client that publishes and subscribes with QoS <= 1, PINGRESP (and a DISCONNECT) carry no body and every
        other packet has at least two bytes; anything else is a protocol error."""
        b = self._rbuf
        kind = first >> 4
        size = total - i
        if kind == 13:  # PINGRESP: remaining length 0
            if size:
                self._fail("malformed PINGRESP (remaining length %d)" % size, now)
            else:
                self._ping_at = None
        elif kind == 14:  # DISCONNECT: MQTT 3.1.1 brokers never send it; a closed connection all the same
            self._fail("broker sent DISCONNECT", now)
        elif kind not in (2, 3, 4, 9, 11):
            self._fail("unexpected packet type %d from the broker" % kind, now)
        elif size < 2:
            self._fail("malformed packet type %d (remaining length %d)" % (kind, size), now)
        elif kind == 2:  # CONNACK
            self._on_connack(b[i + 1], now)
        elif kind == 3:  # PUBLISH
            qos = (first >> 1) & 3
            tl = (b[i] << 8) | b[i + 1]
            t0 = i + 2
            p0 = t0 + tl + (2 if qos else 0)
            if p0 > total:
                self._fail("malformed PUBLISH", now)
                return
            if qos == 2:
                self.errors += 1
                self.last_error = "QoS 2 PUBLISH ignored"
                return
            payload = bytes(self._rmv[p0:total])
            try:
                topic = bytes(self._rmv[t0 : t0 + tl]).decode()
                if self.on_message:
                    self.on_message(topic, payload, bool(first & 1))
            except Exception as ex:  # a bad topic or a failing callback never breaks the connection
                self.errors += 1
                self.last_error = "on_message: %r" % (ex,)
            if qos == 1:
                self._puback((b[t0 + tl] << 8) | b[t0 + tl + 1])
        elif kind == 4:  # PUBACK
            pid = (b[i] << 8) | b[i + 1]
            if pid in self._internal:
                del self._internal[pid]
            else:
                for k, e in enumerate(self._inflight):
                    if e[0] == pid:
                        del self._inflight[k]
                        break
        else:  # SUBACK (9), UNSUBACK (11)
            pid = (b[i] << 8) | b[i + 1]
            self._internal.pop(pid, None)
            for k in range(i + 2, total):
                if b[k] == 0x80:
                    self.errors += 1
                    self.last_error = "subscription refused"
