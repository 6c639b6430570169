"""The board's main loop: sensors -> protocol encoder -> outbox -> links (USB serial, MQTT).

One pass of `App.step()`:
  1. `Sensors.step()` drains the IRQ ring into the detectors; each detector event is encoded with the next
     sequence number, kept in the outbox until the host acknowledges it, and written to the links.
  2. Host commands from either link go through the one `Dispatcher` (acks trim the outbox).
  3. The MQTT link gets every outbox line it has not had yet, as fast as its QoS 1 window allows; after an
     outbox overflow it also gets the `gap` line once. The serial host drives resends with `ping`.
  4. A heartbeat every `heartbeat_ms`; the status LED shows the state; the watchdog is fed (only here, so a
     stuck loop resets the board).
Out of memory: a MemoryError never ends the loop (a watchdog reset would lose the outbox, whose events the host
has not acknowledged). A detector event that cannot be encoded waits, as it came, in a small pre-allocated queue
(PENDING) and is encoded on a later pass, in order and with its own time; only when that queue is full is an
event lost, and counted. A pass that fails elsewhere is dropped after a collection, and the watchdog is fed. Once
a pass succeeds again a `memory` fault says how often this happened and what was lost (usually nothing).
`run(profile)` builds this from the board's files; the simulator and the tests build `App` directly with a
simulated pin backend, so the same code runs everywhere (docs/firmware.md).
"""

import gc

from fb import VERSION, compat, proto
from fb.detect import Sensors
from fb.outbox import Outbox
from fb.ring import HEAD, TAIL

PENDING = 8  # detector events that can wait for memory to encode them
# The longest rest between two main-loop passes on the board while no edge waits (App.loop): an idle Pico spends a
# fifth of its CPU instead of three fifths (docs/performance.md, figure 7); a host's command waits at most this long.
REST_MS = 5

LED_PATTERNS = {  # (period ms, on ms): the status LED per state
    "ok": (2000, 60),  # a short blink every 2 s: running, links fine
    "offline": (500, 250),  # fast even blink: the MQTT link is down (serial may still work)
    "fault": (1000, 800),  # mostly on: a sensor is stuck or edges were lost
}


def _payload(line):
    """The bare JSON of a framed serial line (MQTT carries JSON without the serial frame)."""
    return line[len(proto.PREFIX) : line.rindex("|")]


class App:
    def __init__(self, config, backend, boot_id, reset_cause="unknown", serial=None, mqtt=None, uptime=None):
        d = config.data
        self.config = config
        self.uptime = uptime if uptime is not None else compat.Uptime()
        self.enc = proto.Encoder(d["board_id"], boot_id)
        self.outbox = Outbox(d["outbox_size"], boot_id, self._encode_gap)
        self.serial = serial
        self.mqtt = mqtt
        self.mqtt_sent = 0  # highest seq handed to the MQTT client
        self.mqtt_gap = None  # the gap range last published on MQTT
        self.faults = 0
        self.state = "ok"
        self.beat_ms = d["heartbeat_ms"]
        self.next_beat = 0
        self.wdt = None
        self.led = None
        self.memory_errors = 0  # MemoryErrors caught since boot
        self.lost = 0  # detector events lost because they could not be encoded, nor wait
        self._reported = 0  # memory_errors + lost when the last `memory` fault was sent (both only grow)
        # Each waiting event: kind, sensor, time, and its field values in proto.EVENT_FIELDS order.
        self._pk = [""] * PENDING
        self._ps = [""] * PENDING
        self._pt = [0] * PENDING
        self._pa = [0] * PENDING
        self._pb = [0] * PENDING
        self._pend_head = 0
        self._pend_n = 0
        self.sensors = Sensors(d["sensors"], backend, self._emit, self.uptime, fault=self.fault)
        self.uptime.listen(self._rebase)
        self.enc.base = self.uptime.base
        self.dispatcher = proto.Dispatcher(self.enc, self.outbox, config, self._status, self.sensors.live, self.watch)
        self._via_mqtt = False  # while a command from MQTT runs
        self.watching = None  # the `watch` stream (fb.watch.Stream, imported when first asked for), or None
        if mqtt is not None:
            mqtt.on_command = self._mqtt_command
        self._reliable(self.enc.hello(self.uptime.now(), VERSION, d["profile"], d["sensors"], reset_cause))
        for name, why in self.sensors.problems:
            self.fault("counter", name + ": " + why + "; lost interrupts on this beam go unnoticed", name)

    # -- output

    def _encode_gap(self, first, last):
        return self.enc.gap(first, last, self.uptime.now())

    def _reliable(self, line):
        self.outbox.add(self.enc.seq, line)
        if self.serial is not None:
            self.serial.send(line)

    def _emit(self, kind, sensor, t_us, fields):
        if kind in ("stuck", "count"):
            self.state = "fault"
        elif kind == "clear":
            self.state = "ok"
        if not self._pend_n:
            try:
                self._reliable(self.enc.event(kind, sensor, t_us, fields))
                return
            except MemoryError:
                self.memory_errors += 1
        if self._pend_n == PENDING:
            self.lost += 1
            return
        i = (self._pend_head + self._pend_n) % PENDING  # stores into existing slots: no allocation
        names = proto.EVENT_FIELDS[kind]
        self._pk[i] = kind
        self._ps[i] = sensor
        self._pt[i] = t_us
        self._pa[i] = fields[names[0]]  # the detector reuses its dict: keep the values
        self._pb[i] = fields[names[1]] if len(names) > 1 else 0
        self._pend_n += 1

    def _rebase(self, d):
        """The time scale moved (compat.Uptime): times kept here move with it; the wire's `t` stays µs since boot."""
        self.enc.base = self.uptime.base
        self.next_beat -= d // 1000
        if self.watching is not None:
            self.watching.rebase(d // 1000)
        for i in range(PENDING):
            self._pt[i] -= d

    def _encode_pending(self):
        """Encode the events that waited for memory, oldest first; stop at the first that still cannot be."""
        while self._pend_n:
            i = self._pend_head
            self._reliable(self.enc.values(self._pk[i], self._ps[i], self._pt[i], self._pa[i], self._pb[i]))
            self._pend_head = (i + 1) % PENDING  # (a MemoryError above: the event is tried again next pass)
            self._pend_n -= 1

    def fault(self, code, msg, sensor=None):
        """A fault event (e.g. a config.json override that was refused): reliable, like sensor events."""
        self.faults += 1
        self._reliable(self.enc.fault(self.uptime.now(), code, msg, sensor))

    def _send(self, line, via_mqtt):
        if via_mqtt:
            self.mqtt.publish(_payload(line), 1)
        elif self.serial is not None:
            self.serial.send(line)

    def _status(self):
        s = {"up": self.uptime.now_ms(), "heap": gc.mem_free() if hasattr(gc, "mem_free") else 0,
             "ring_drop": self.sensors.dropped, "faults": self.faults, "state": self.state,
             "mem_err": self.memory_errors, "lost": self.lost,
             "rebounds": sum(b.notpass[0] for b in self.sensors.beams),
             "blocks": sum(b.notpass[1] for b in self.sensors.beams)}
        if self.serial is not None:
            s["usb_skip"] = self.serial.skipped
            s["usb_cut"] = self.serial.cut
        if self.mqtt is not None:
            m = self.mqtt.stats()
            s["rc"] = m.get("reconnects", 0)
            s["rssi"] = self.mqtt.rssi()
            for k in ("wifi", "state", "errors", "busy", "last_error", "wifi_errors", "wifi_last_error", "wifi_pm"):
                if k in m:
                    s["mqtt_" + k if k in ("state", "errors", "busy") else k] = m[k]
        return s

    # -- input

    def _mqtt_command(self, payload):
        """A command from .../cmd: bare JSON (MQTT frames and checksums it), so frame it like a serial line."""
        try:
            line = proto.frame(payload.decode())
        except UnicodeError:
            line = payload  # not text: the decoder answers with an error reply
        self._via_mqtt = True
        try:
            out_lines = self.dispatcher.handle(line, self.uptime.now())
        finally:
            self._via_mqtt = False
        for out in out_lines:
            self._send(out, True)

    def watch(self, seconds, rid):
        """`watch` (fb.watch): a bench tool, so its code is loaded only when a host first asks for it."""
        if not seconds:
            self.watching = None
            return
        from fb.watch import Stream

        self.watching = Stream(self, seconds, rid, self._via_mqtt)

    def _feed_mqtt(self, now_ms):
        m = self.mqtt
        if not m.poll(now_ms):
            self.state = "offline" if self.state == "ok" else self.state
            return
        if self.state == "offline":
            self.state = "ok"
        gap = self.outbox.gap()
        if gap is not None and gap != self.mqtt_gap and m.publish(_payload(self.outbox.gap_line()), 1) is not None:
            self.mqtt_gap = gap
        for seq, line in self.outbox.after(self.mqtt_sent):
            if m.publish(_payload(line), 1) is None:
                break  # the QoS 1 window is full: the rest go on a later pass
            self.mqtt_sent = seq

    # -- the loop

    def step(self):
        if self._pend_n:
            self._encode_pending()
        now = self.sensors.step()
        if self.serial is not None:
            self.serial.service(self.dispatcher, now)
        now_ms = now // 1000
        if self.mqtt is not None:
            self._feed_mqtt(compat.ticks_ms())  # the MQTT client keeps its own wrapping ms
        if now_ms >= self.next_beat:
            self.next_beat = now_ms + self.beat_ms
            self._heartbeat(now)
        if self.watching is not None and self.watching.step(now_ms, now):
            self.watching = None
        if self.led is not None:
            period, on = LED_PATTERNS[self.state]
            self.led.value(1 if now_ms % period < on else 0)
        if self.wdt is not None:
            self.wdt.feed()
        if self.memory_errors + self.lost != self._reported and not self._pend_n:  # (no tuple: an idle pass
            seen = self.memory_errors + self.lost  # allocates nothing)
            self.fault("memory", "out of memory %d times since boot (free heap now %d bytes); events lost: %d"
                       % (self.memory_errors, gc.mem_free() if hasattr(gc, "mem_free") else 0, self.lost))
            self._reported = seen
        return now

    def _heartbeat(self, now):
        st = self._status()
        line = self.enc.heartbeat(
            now, st["up"], st["heap"], self.outbox.depth(), self.outbox.dropped + self.sensors.dropped,
            st.get("rc", 0), st.get("rssi"),
        )
        if self.serial is not None:
            self.serial.send(line)
        if self.mqtt is not None and self.mqtt.client.is_connected():
            self.mqtt.publish(_payload(line), 0)

    def loop(self, idle_ms=1, rest_ms=None):
        """Run until a `reboot` command; the caller resets the board. After each pass the loop sleeps idle_ms; the
        board (run) lets it rest up to rest_ms while nothing waits: it looks at the interrupt ring every ms and runs
        the next pass as soon as an edge is there. An idle pass costs most of a ms on a Pico (docs/performance.md,
        figure 7), and nothing else needs one sooner: a beam's edges carry their own times, the strip is scanned
        by the PIO, and a command from the host waits a few ms at most."""
        ring = self.sensors.ring.m
        rest = idle_ms if rest_ms is None else rest_ms
        while not self.dispatcher.reboot_requested:
            try:
                self.step()
            except MemoryError:
                self.memory_errors += 1
                gc.collect()
                if self.wdt is not None:
                    self.wdt.feed()
            compat.sleep_ms(idle_ms)
            k = idle_ms
            while k < rest and ring[HEAD] == ring[TAIL] and not self._pend_n:
                compat.sleep_ms(1)
                k += 1


def _reset_cause():
    """Why the board started, in the words of docs/protocol.md. A port names only the causes it can tell apart (the
    rp2 port: PWRON_RESET and WDT_RESET; machine.reset() is a watchdog reset there)."""
    try:
        import machine

        cause = machine.reset_cause()
    except (ImportError, AttributeError):
        return "unknown"
    for name, word in (("PWRON_RESET", "power"), ("HARD_RESET", "hard"), ("WDT_RESET", "watchdog"),
                       ("DEEPSLEEP_RESET", "deepsleep"), ("SOFT_RESET", "soft")):
        if getattr(machine, name, None) == cause:
            return word
    return "unknown"


watchdog = None  # the machine.WDT once run() started it: main.py keeps feeding it after a crash or a Ctrl-C


def run(profile, root="/"):
    """The board: load the configuration, wire the real pins and links, loop; reset on `reboot`.
    Files live under `root`: profiles/<name>.json, config.json and the boot counter boot_id."""
    import machine

    from fb import config, pins
    from fb.serial_link import SerialLink

    cfg, problems = config.load(root + "profiles", profile.get("profile") if profile else None, root + "config.json")
    d = cfg.data
    mqtt = None
    if d["has_wifi"] and d["mqtt"]["host"] and d["mqtt"]["tls"]:
        # The MQTT client has no TLS: connecting anyway would send the broker password in clear text to a board
        # owner who asked for TLS. Say so (a fault event, on USB) and stay off MQTT instead.
        problems.append("mqtt.tls is true but this firmware has no TLS: the board does not connect to the broker; "
                        "set mqtt.tls to false and use the boards' password listener (docs/security.md)")
    elif d["has_wifi"] and d["mqtt"]["host"]:
        try:
            from fb.mqtt_link import Link
        except ImportError as e:  # a MicroPython without network support (a plain Pico's firmware on a Pico W)
            problems.append("mqtt is set but this MicroPython has no network support (%s): the board stays on USB "
                            "serial; put the Pico W firmware (RPI_PICO_W) on it" % (e,))
        else:
            m = d["mqtt"]
            mqtt = Link(d["board_id"], m["host"], m["port"], d["wifi"]["ssid"], d["wifi"]["password"],
                        m["user"], m["password"])
    pins.start_carriers(d)
    app = App(cfg, pins, config.next_boot_id(root + "boot_id"), _reset_cause(), SerialLink(), mqtt)
    for p in problems:
        app.fault("config", p)
    if d.get("led") is not None:
        app.led = machine.Pin(d["led"], machine.Pin.OUT)
    global watchdog
    app.wdt = watchdog = machine.WDT(timeout=d["watchdog_ms"])  # fed only by App.step
    # Loading the configuration and building the app leave garbage all over the heap: collected now, the loop's
    # short-lived allocations (call frames of more than a few words among them) find room at once, and a pass
    # takes a third less time on the rp2 port (docs/performance.md).
    gc.collect()
    app.loop(1, REST_MS)
    compat.sleep_ms(200)  # let the reboot reply leave
    machine.reset()
