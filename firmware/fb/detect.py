"""Detectors: turn captured edges and scanned levels into sensor events (main loop only, never in an IRQ).

Every detector reports through emit(kind, sensor, t_us, fields); t_us is µs since boot (compat.Uptime).
`fields` is one of the detector's own dicts, filled in place, so that an event allocates nothing until it is
encoded (a board out of memory keeps its events: fb.app); it is valid during the call only, and whoever keeps
it copies it.

BeamDetector(cfg, emit): the beam is "broken" when pin level XOR invert is 1 (a modulated IR receiver
with pull-up reads high when it sees no IR). Two filters, as ESPHome's delayed_on / delayed_off:
  - a break COUNTS only once the beam has stayed broken without interruption for min_pulse_us. Shorter
    breaks are glitches (.glitches); a run of two or more of them, each clear gap shorter than min_gap_us,
    is chatter (a loose wire, a flickering LED, a puck rattling at the rim): counted in .chatter and
    reported as `chatter` {"bursts", "edges"} at the first burst's start, at most once per CHATTER_EVERY_US
    per beam (bursts in between are added to the next report), never as a pass;
  - once a break counts, a clear shorter than min_gap_us is bounce and the break goes on; it ends once the
    beam has stayed clear for min_gap_us.
A break that counts spans from the first broken edge of its run (a leading bounce belongs to it) to its last
clear edge, and gives:
  - `pass` {"dur_us"} at t_us = break start;
  - if it reached stuck_ms: `stuck` {"after_ms"} at t_us = start + stuck_ms (raised by poll(now) while
    still broken, with no edge needed) and, when it ends, `clear` {"dur_us"} at the clear time; no pass;
  - with rebound_ms (the twenty hole): a break that starts within rebound_ms of the end of the beam's last pass is
    that puck bouncing back into the beam off a twenty already on the slide (hardware/mechanics.py,
    hole_rebound()): no second pass; it is counted in .notpass[0] (the `status` reply's `rebounds`);
  - with max_pass_ms (the ditch beams): a break longer than a puck takes to fall through the beam, and shorter than
    stuck_ms, is no puck (a shooter's fingers in the ditch): `clear` {"dur_us"} at its end instead of a pass, counted
    in .notpass[1] (`blocks`).
HallStrip(cfg, emit, backend): segments read directly or through 74HC4067 multiplexers (channel by channel:
all signal pins at each select setting), scanned by poll(now); each segment's occupancy must hold settle_ms
before it counts. A puck covers a run of one to three neighbouring segments (within one quadrant), and events
are per puck: a run that empties gives `shot_start` {"q", "seg"}; after a shot has started, a run that appears
within rest_window_ms gives `baseline_rest` {"q", "seg"}. `seg` is the run's middle segment (a puck lifted off
after its baseline_rest names the segment of that rest); `t` is when the change began. A run that grows,
shrinks or shifts by a segment is the same puck. Quadrant of segment i: i * quadrants // count + 1.
Reconciler(name, counter, irq, emit): compares the edges a beam's hardware counter counted with the edges its IRQ
handler saw. The two never count an edge at the same instant: a PIO or PCNT counts it at once, the handler runs
microseconds later (a hard IRQ) or whenever MicroPython's scheduler gets to it (the ESP32's soft IRQs), and the main
loop reads the two one after the other. So a difference is only taken for lost edges once both counts have stood
still for SETTLE_US (no edge is in flight then); it is then reported as `count` {"expected", "seen"}: the edges
counted by hardware and by the handler since the two last agreed. Lost edges are reported SETTLE_US after the beam
went still, so within the pass that lost them.
Sensors(cfgs, backend, emit, uptime, fault): wires the above to a backend (fb.pins or fb.simpins.SimBoard).
When edges were lost (a `count`, or the IRQ ring overflowed: then `fault(code, msg)` says how many), what a beam saw
after them is unknown, so it re-syncs to its live pin level: no pass is invented, and a break whose end was lost does
not become a false `stuck`. The pin is read before the ring is drained, and the beam re-syncs only if no IRQ came
between the two: an edge still waiting in the ring (the beam cleared while the board was sending the `count`) is
the detector's to see, not a lost one.
"""

from array import array

from fb.compat import busy_us
from fb.ring import EDGE_MASK, EdgeIrq, Ring

SELECT_SETTLE_US = 5  # after changing a 74HC4067's select lines, before reading its signal pin
SCAN_US = 10000  # how often the hall strips are scanned: a puck rests for hundreds of ms, settle_ms is 60
# A puck's sensors all go off within a few ms when it is flicked; their settled states can change a scan or two apart.
SAME_PUCK_US = 50000
CHATTER_EVERY_US = 1000000  # at most one `chatter` event per beam per second: a flickering beam cannot flood the outbox
# How long a beam's hardware count and IRQ count must both stand still before a difference between them counts as lost
# edges (Reconciler). Far longer than any IRQ's delay (µs for the RP2040's hard IRQs, one main-loop pass for the ESP32's
# soft ones) and than a main-loop pass; far shorter than the time between two pucks.
SETTLE_US = 20000


class BeamDetector:
    def __init__(self, cfg, emit):
        self.name = cfg["name"]
        self.inv = 1 if cfg.get("invert") else 0
        self.min_pulse = cfg.get("min_pulse_us", 200)
        self.min_gap = cfg.get("min_gap_us", 1000)
        stuck_ms = cfg.get("stuck_ms", 1500)
        self.stuck_us = stuck_ms * 1000
        self.rebound_us = cfg.get("rebound_ms", 0) * 1000
        self.max_pass_us = cfg.get("max_pass_ms", 0) * 1000
        self.emit = emit
        self.broken = False  # level of the latest edge
        self.start = None  # first broken edge of the current run (None: idle)
        self.seg = 0  # start of the run's current uninterrupted broken stretch
        self.end = None  # last clear edge of the run, while waiting min_gap for more
        self.counts = False  # the run has had a broken stretch of min_pulse_us: it is a break, not a glitch
        self.short = 0  # broken stretches of the run that ended before min_pulse_us
        self.stuck = False
        self.passes = 0
        # Breaks that are no pass: [0] within rebound_ms of a pass's end (the same puck bouncing), [1] longer than
        # max_pass_ms and shorter than stuck_ms (no puck: a hand), a `clear`. (One list: every attribute more makes
        # each beam's instance dict grow a size.)
        self.notpass = [0, 0]
        self._pass_end = None  # when the last pass ended (rebound_ms)
        self.glitches = 0
        self.chatter = 0  # runs of two or more glitches
        self.dups = 0  # edges that did not change the level (glitch faster than the IRQ, or lost edge)
        self._chat_bursts = 0  # chatter not reported yet
        self._chat_edges = 0
        self._chat_t = 0
        self._chat_next = 0  # when the next `chatter` event may go
        self._f_pass = {"dur_us": 0}
        self._f_stuck = {"after_ms": stuck_ms}
        self._f_clear = {"dur_us": 0}
        self._f_chatter = {"bursts": 0, "edges": 0}

    def begin(self, level, t_us):
        """Initial level at boot: a beam broken at boot is a break starting now (it may become stuck)."""
        self.broken = (level ^ self.inv) == 1
        self.start = t_us if self.broken else None
        self.seg = t_us
        self.end = None
        self.counts = False
        self.short = 0
        self.stuck = False

    def edge(self, level, t_us):
        b = (level ^ self.inv) == 1
        if b == self.broken:
            self.dups += 1
            return
        self.broken = b
        if b:
            if self.start is not None:
                if t_us - self.end < self.min_gap:
                    self.seg = t_us  # bounce, or the next glitch of a burst: the same run goes on
                    self.end = None
                    return
                self._finish()
            self.start = t_us
            self.seg = t_us
            self.end = None
            self.counts = False
            self.short = 0
        elif self.start is not None:
            if not self.counts:
                if t_us - self.seg >= self.min_pulse:
                    self.counts = True
                else:
                    self.short += 1
            self.end = t_us
            if self.min_gap <= 0:
                self._finish()

    def poll(self, now):
        s = self.start
        if s is not None:
            if self.broken:
                if not self.counts and now - self.seg >= self.min_pulse:
                    self.counts = True
                if self.counts and not self.stuck and now - s >= self.stuck_us:
                    self.stuck = True
                    self.emit("stuck", self.name, s + self.stuck_us, self._f_stuck)
            elif now - self.end >= self.min_gap:
                self._finish()
        if self._chat_bursts and now >= self._chat_next:
            f = self._f_chatter
            f["bursts"] = self._chat_bursts
            f["edges"] = self._chat_edges
            self.emit("chatter", self.name, self._chat_t, f)
            self._chat_bursts = 0
            self._chat_edges = 0
            self._chat_next = now + CHATTER_EVERY_US

    def _finish(self):
        s = self.start
        e = self.end
        if s is None or e is None:
            return
        dur = e - s
        self.start = None
        self.end = None
        if not self.counts:
            self.glitches += self.short
            if self.short >= 2:
                self.chatter += 1
                if not self._chat_bursts:
                    self._chat_t = s
                self._chat_bursts += 1
                self._chat_edges += 2 * self.short
            return
        if not self.stuck and dur >= self.stuck_us:  # stuck and cleared between two polls
            self.stuck = True
            self.emit("stuck", self.name, s + self.stuck_us, self._f_stuck)
        if self.stuck:
            self.stuck = False
            self._clear(e, dur)
        elif self.max_pass_us and dur > self.max_pass_us:
            self.notpass[1] += 1
            self._clear(e, dur)
        elif self.rebound_us and self._pass_end is not None and s - self._pass_end < self.rebound_us:
            self.notpass[0] += 1
            self._pass_end = None  # one rebound per pass: a later break is a puck again
        else:
            self._pass_end = e
            self.passes += 1
            f = self._f_pass
            f["dur_us"] = dur
            self.emit("pass", self.name, s, f)

    def _clear(self, t_us, dur):
        f = self._f_clear
        f["dur_us"] = dur
        self.emit("clear", self.name, t_us, f)

    def resync(self, level, now):
        """After lost edges: adopt the live level without inventing a pass (a `count` or `fault` event says why)."""
        b = (level ^ self.inv) == 1
        if b == self.broken:
            return
        if b:
            if self.start is not None:  # a break waiting for its min_gap is complete: report it
                self._finish()
            self.begin(level, now)
        else:
            if self.stuck:
                self._clear(now, now - self.start)
            self.begin(level, now)

    def rebase(self, d):
        """The time scale moved back by d µs (compat.Uptime): so do the times kept here."""
        if self.start is not None:
            self.start -= d
        self.seg -= d
        if self.end is not None:
            self.end -= d
        if self._pass_end is not None:
            self._pass_end -= d
        self._chat_t -= d
        self._chat_next -= d

    def state(self):
        return "stuck" if self.stuck else ("broken" if self.broken else "clear")


class HallStrip:
    def __init__(self, cfg, emit, backend):
        self.name = cfg["name"]
        self.emit = emit
        n = self.count = cfg["count"]
        self.quadrants = cfg.get("quadrants", 4)
        self.settle = cfg.get("settle_ms", 60) * 1000
        self.active = 0 if cfg.get("active_low", True) else 1
        pull = "up" if self.active == 0 else None
        self.direct = bool(cfg.get("pins"))  # one pin per sensor, else 74HC4067 multiplexers
        self.pins = []  # type: list
        self.select = []  # type: list
        self.signals = []  # type: list
        self._ch = -1
        self.scanner = None  # a PIO + DMA scanner (fb.pins.MuxScanner), or None: the CPU scans
        if self.direct:
            self.pins = [backend.make_input(p, pull) for p in cfg["pins"]]
            self.port = backend.make_port(cfg["pins"], self.pins)
        else:
            mux = cfg["mux"]
            if mux.get("enable") is not None:
                backend.make_output(mux["enable"], 0)  # 74HC4067 /E is active low
            sig = mux["signal"]
            if isinstance(sig, int):
                sig = [sig]
            if 16 * len(sig) < n:
                raise ValueError(self.name + ": " + str(n) + " segments need " + str((n + 15) // 16) + " mux signals")
            self.signals = [backend.make_input(p, pull) for p in sig]
            # On an RP2040 a PIO state machine and a DMA channel walk the multiplexers (fb.pins.make_mux_scanner);
            # elsewhere (the ESP32, the simulated board) the CPU does, below.
            make = getattr(backend, "make_mux_scanner", None)
            if make is not None:
                self.scanner = make(mux["select"], sig, SCAN_US, SELECT_SETTLE_US)
            if self.scanner is None:
                self.select = [backend.make_output(p, 0) for p in mux["select"]]
            self.port = backend.make_port(sig, self.signals)
            # Step k of a scan goes to channel gray(k) = k ^ (k >> 1) by writing one select line: (pin, level,
            # channel). Step 0 comes back from gray(15) = 8, where the last scan ended (and where none began: all
            # select lines are written low at start, which is channel 0 already).
            self._flips = []  # type: list
            for k in range(16 if self.scanner is None else 0):
                ch = k ^ (k >> 1)
                prev = (k - 1) % 16 ^ ((k - 1) % 16 >> 1)
                bit = 0
                while not (ch ^ prev) >> bit & 1:
                    bit += 1
                self._flips.append((self.select[bit], (ch >> bit) & 1, ch))
        self._width = len(self.pins) if self.direct else len(self.signals)  # bits in one reading of the port
        self._seen_at = [-1] * (1 if self.direct else 16)  # the port's last reading, per select setting
        self._settling = bytearray(1 if self.direct else 16)  # 1: a segment there has not settled yet
        self._settled = bytearray(len(self._settling))  # (all settled: compared with _settling, no allocation)
        self.stable = bytearray(n)  # debounced occupancy
        self.raw = bytearray(n)  # latest reading
        self.since = [0] * n  # when raw last changed
        self.scanned = False
        self.rest_window = cfg.get("rest_window_ms", 2500) * 1000
        self.shot_at = None  # when the latest shot started: an arrival within rest_window is a puck coming to rest
        # rested[i]: 1 + the segment its baseline_rest named, while a puck that came to rest covers segment i (its
        # leaving is its removal, not a shot); 0 elsewhere.
        self.rested = bytearray(n)
        # The most neighbouring sensors one puck turns on (hardware/hall_pairs.py gives it for the strip's design):
        # a wider run is pucks side by side.
        self.puck_max = cfg.get("puck_max", 3)
        self._runs = []  # the runs of the last change: (first, last, how many pucks it holds)
        self._left_t = None  # when the last puck left that was not a rested one's removal, and its sensors
        self._left_a = 0
        self._left_b = 0
        self._came_t = None  # when the last puck came to rest, its sensors and its segment
        self._came_a = 0
        self._came_b = 0
        self._came_seg = 0
        self._slot = -1  # the SCAN_US period of the last scan
        self._f = {"q": 0, "seg": 0}

    def quadrant(self, seg):
        return seg * self.quadrants // self.count + 1

    def _select(self, ch):
        """Point the multiplexers at channel ch, writing only the select lines that change."""
        old = self._ch
        if ch == old:
            return
        diff = ch ^ old if old >= 0 else 15
        bit = 0
        for p in self.select:
            if diff & (1 << bit):
                p.value((ch >> bit) & 1)
            bit += 1
        self._ch = ch
        busy_us(SELECT_SETTLE_US)

    def read(self, seg):
        """1 when a magnet is over segment seg (live level)."""
        if self.direct:
            return 1 if self.pins[seg].value() == self.active else 0
        if self.scanner is not None:  # the PIO's latest reading of that channel
            return 1 if (self.scanner.live[4 * (seg & 15)] >> (seg >> 4) & 1) == self.active else 0
        self._select(seg & 15)
        return 1 if self.signals[seg >> 4].value() == self.active else 0

    def poll(self, now):
        """Scan the strip once every SCAN_US (on the multiples of it): a change is dated to the scan that saw it,
        at most SCAN_US after it happened. Each select setting is one read of the port (every signal pin at once);
        only a reading that differs from the last one there, or a segment still settling, is looked at segment by
        segment. Through multiplexers the channels go in Gray-code order: one select line changes per step."""
        slot = now // SCAN_US
        if slot == self._slot:
            return
        sc = self.scanner
        if sc is not None and not self.scanned and not sc.ready():
            return  # the PIO has not read every channel yet (just after boot): on a later pass
        self._slot = slot
        first = not self.scanned
        self.scanned = True
        changed = False
        if self.direct:
            if self._look(0, 0, 1, self.port.read(), now, first):
                changed = True
        elif sc is not None:
            # The PIO and DMA keep the latest reading of every channel in RAM: one comparison says whether any
            # changed since the last scan; only then (or while a segment settles) are channels looked at.
            fresh = sc.update()
            if fresh or first or self._settling != self._settled:
                seen = self._seen_at
                settling = self._settling
                for ch in range(16):
                    vec = sc.reading(ch)
                    if (vec != seen[ch] or settling[ch] or first) and self._look(ch, ch, 16, vec, now, first):
                        changed = True
        else:
            # The hot loop of the strip, kept to a few calls a step: one select line written (the Gray code's next
            # step), the settle wait, one read of the port; segment by segment only where something changed.
            port = self.port  # (its read() called as a method: a bound method taken out would be an allocation)
            seen = self._seen_at
            settling = self._settling
            flips = self._flips
            wait = busy_us
            for k in range(16):
                pin, level, ch = flips[k]
                pin.value(level)
                wait(SELECT_SETTLE_US)
                vec = port.read()
                if (vec != seen[ch] or settling[ch] or first) and self._look(ch, ch, 16, vec, now, first):
                    changed = True
            self._ch = 8  # where the Gray code ends (the next scan's first step goes back to 0)
        if first:
            self._runs = self._counted(self.runs())
        elif changed:
            self._pucks(self.runs())

    def _counted(self, runs):
        """The runs with the pucks their width says they hold at least (a closure in poll would allocate its cell
        at every call)."""
        m = self.puck_max
        return [(a, b, 1 if b - a < m else 1 + (b - a) // m) for a, b in runs]

    def _look(self, slot, seg, step, vec, now, first):
        """The segments seg, seg + step, ... read as the bits of vec; True when one's settled occupancy changed."""
        if vec == self._seen_at[slot] and not self._settling[slot] and not first:
            return False
        self._seen_at[slot] = vec
        on = self.active
        raw = self.raw
        stable = self.stable
        n = self.count
        changed = False
        settling = 0
        bit = 1
        for _ in range(self._width):
            if seg >= n:
                break
            if self._seen(seg, 1 if (1 if vec & bit else 0) == on else 0, now, first):
                changed = True
            if raw[seg] != stable[seg]:
                settling = 1
            seg += step
            bit <<= 1
        self._settling[slot] = settling
        return changed

    def _seen(self, i, v, now, first):
        """Record one reading; True when the segment's settled occupancy changed."""
        if first:
            self.raw[i] = self.stable[i] = v
            self.since[i] = now
            return False
        if v != self.raw[i]:
            self.raw[i] = v
            self.since[i] = now
        if v != self.stable[i] and now - self.since[i] >= self.settle:
            self.stable[i] = v
            return True
        return False

    def runs(self):
        """The pucks on the strip: runs of neighbouring occupied segments, each within one quadrant, as
        (first, last). A puck's magnet switches one to three neighbouring sensors (or, centred over a sensor of an
        in-plane strip, the two either side of it alone: two runs; see _pucks)."""
        out = []
        start = -1
        for i in range(self.count):
            if self.stable[i]:
                if start >= 0 and self.quadrant(i) != self.quadrant(start):
                    out.append((start, i - 1))
                    start = -1
                if start < 0:
                    start = i
            elif start >= 0:
                out.append((start, i - 1))
                start = -1
        if start >= 0:
            out.append((start, self.count - 1))
        return out

    def _pucks(self, now_runs):
        """Events for the pucks that left and arrived since the last change, in time order.

        Each run of the last change carries how many pucks it holds (self._runs: (first, last, pucks)). One puck
        turns on at most puck_max neighbouring sensors (hardware/hall_pairs.py measures it on the field model), so
        a run wider than that holds two pucks or more: pucks side by side. Old and new runs that overlap are the same
        pucks (they wobble, and a run can split or merge as they settle), unless the new runs can hold fewer pucks
        than the old ones held: a run of pucks side by side that shrinks to puck_max or fewer sensors is down to one,
        and the one at the end that lost sensors left (a shot from beside a resting puck); when runs merge into one
        no wider than a puck, the old run that kept the least of its sensors left. A run that grows wider than its
        pucks can cover has gained one, at the end that grew."""
        since = self.since
        stable = self.stable
        rested = self.rested
        old = self._runs
        m = self.puck_max
        gone = []  # (t, first, last, anchor): a puck left; it covered first..last
        came = []  # (t, first, last): a puck arrived
        new = []
        i = j = 0
        no = len(old)
        nn = len(now_runs)
        while i < no or j < nn:
            # One group of overlapping old and new runs (each list is sorted and its runs disjoint).
            i0, j0 = i, j
            if j >= nn or (i < no and old[i][0] <= now_runs[j][0]):
                hi = old[i][1]
                i += 1
            else:
                hi = now_runs[j][1]
                j += 1
            while True:
                if i < no and old[i][0] <= hi:
                    if old[i][1] > hi:
                        hi = old[i][1]
                    i += 1
                elif j < nn and now_runs[j][0] <= hi:
                    if now_runs[j][1] > hi:
                        hi = now_runs[j][1]
                    j += 1
                else:
                    break
            if i == i0:  # new runs only: pucks arrived
                for a, b in now_runs[j0:j]:
                    came.append((_first(since, stable, a, b), a, b))
                    new.append((a, b, 1 if b - a < m else 1 + (b - a) // m))
                continue
            if j == j0:  # old runs only: pucks left
                for c, d, _k in old[i0:i]:
                    gone.append((_last(since, c, d), c, d, _take_anchor(rested, c, d)))
                continue
            pucks = 0
            for k in range(i0, i):
                pucks += old[k][2]
            oa = old[i0][0]
            ob = old[i - 1][1]
            na = now_runs[j0][0]
            nb = now_runs[j - 1][1]
            if j - j0 == 1:
                ks = [1 if nb - na < m else max(pucks, 1 + (nb - na) // m)]
            else:
                ks = [1 if b - a < m else 1 + (b - a) // m for a, b in now_runs[j0:j]]
                short = pucks - sum(ks)
                if short > 0:  # pucks side by side whose run split as they settled: the wide part holds them
                    for k in range(len(ks)):
                        a, b = now_runs[j0 + k]
                        if b - a >= m:
                            ks[k] += short
                            break
            held = sum(ks)
            if held < pucks:  # a puck left
                if i - i0 == 1:  # from the end that lost sensors
                    if ob - nb >= na - oa:
                        lo, hi = (nb + 1, ob) if nb < ob else (ob, ob)
                    else:
                        lo, hi = (oa, na - 1) if oa < na else (oa, oa)
                else:  # the old run that kept the least of its sensors
                    lo = hi = -1
                    best = 2.0
                    for c, d, _k in old[i0:i]:
                        kept = 0
                        for a, b in now_runs[j0:j]:
                            if a <= d and c <= b:
                                kept += min(b, d) - max(a, c) + 1
                        if kept / (d - c + 1) < best:
                            best = kept / (d - c + 1)
                            lo, hi = c, d
                gone.append((_last(since, lo, hi), lo, hi, _take_anchor(rested, lo, hi, na, nb)))
            elif held > pucks and i - i0 == 1 and j - j0 == 1:  # a puck joined at the end that grew
                if nb - ob >= oa - na:
                    came.append((_first(since, stable, ob + 1, nb), max(ob + 1, nb - m + 1), nb))
                else:
                    came.append((_first(since, stable, na, oa - 1), na, min(oa - 1, na + m - 1)))
            for k in range(j - j0):
                a, b = now_runs[j0 + k]
                if ks[k] == 1:  # one puck: a rested one stays rested, with its segment, across its new sensors
                    anchor = 0
                    for c, d, kc in old[i0:i]:
                        if c <= b and a <= d:
                            if kc > 1:  # of pucks side by side, the one on these sensors
                                c = max(a, c)
                                d = min(b, d)
                            for x in range(c, d + 1):
                                if rested[x]:
                                    anchor = rested[x]
                    if anchor:
                        for x in range(a, b + 1):
                            rested[x] = anchor
                new.append((a, b, ks[k]))
        for t, a, b, anchor in gone:
            # A puck leaving the baseline. The host tells a shot from the removal of a puck that came to rest here
            # (the same segment as its baseline_rest); a removal does not restart the rest window, so the next
            # player placing a puck is not taken for a puck coming to rest.
            # What leaves within SAME_PUCK_US of a puck that just left, one free segment or none from its sensors, is
            # that puck: its sensors settle a scan apart, and a puck centred over a sensor it leaves off lights the
            # two either side of it as two runs.
            lt = self._left_t
            if lt is not None and t - lt <= SAME_PUCK_US and a <= self._left_b + 2 and b >= self._left_a - 2:
                continue
            self._left_t = t
            self._left_a = a
            self._left_b = b
            if anchor:
                self._say("shot_start", t, anchor - 1)
            else:
                self.shot_at = t
                self._say("shot_start", t, (a + b) // 2)
        for t, a, b in came:
            # A puck arriving soon after a shot came to rest there; later, a player placed one to shoot. What arrives
            # within SAME_PUCK_US of a puck that came to rest, one free segment or none from it, is that puck.
            ct = self._came_t
            if ct is not None and t - ct <= SAME_PUCK_US and a <= self._came_b + 2 and b >= self._came_a - 2:
                for j in range(a, b + 1):
                    rested[j] = self._came_seg + 1
                continue
            if self.shot_at is not None and t - self.shot_at <= self.rest_window:
                seg = (a + b) // 2
                for j in range(a, b + 1):
                    rested[j] = seg + 1
                self._came_t = t
                self._came_a = a
                self._came_b = b
                self._came_seg = seg
                self._say("baseline_rest", t, seg)
        self._runs = new

    def rebase(self, d):
        since = self.since
        for i in range(self.count):
            since[i] -= d
        if self.shot_at is not None:
            self.shot_at -= d
        if self._left_t is not None:
            self._left_t -= d
        if self._came_t is not None:
            self._came_t -= d
        self._slot = -1

    def _say(self, kind, t_us, seg):
        f = self._f
        f["q"] = self.quadrant(seg)
        f["seg"] = seg
        self.emit(kind, self.name, t_us, f)

    def occupied(self):
        return [i for i in range(self.count) if self.stable[i]]


def _overlaps(a, b, runs):
    for r in runs:
        if r[0] <= b and a <= r[1]:
            return True
    return False


def _overlaps_n(a, b, runs):
    n = 0
    for r in runs:
        if r[0] <= b and a <= r[1]:
            n += 1
    return n


def _first(since, stable, a, b):
    """When the earliest occupied segment of a..b became so."""
    t = None
    for j in range(a, b + 1):
        if stable[j] and (t is None or since[j] < t):
            t = since[j]
    return since[a] if t is None else t


def _last(since, a, b):
    """When the latest of segments a..b last changed."""
    t = since[a]
    for j in range(a, b + 1):
        if since[j] > t:
            t = since[j]
    return t


def _take_anchor(rested, a, b, keep_a=0, keep_b=-1):
    """The rest (1 + its segment) a puck that covered a..b came to, 0 if none; its sensors are no longer rested. A rest
    whose segment lies in keep_a..keep_b is the puck still there (its mark spread to a neighbour's sensors while
    the two settled): not this puck's."""
    anchor = 0
    for j in range(a, b + 1):
        r = rested[j]
        if r:
            if not keep_a <= r - 1 <= keep_b:
                anchor = r
            rested[j] = 0
    return anchor


class Reconciler:
    """One beam's hardware edge count against its IRQ count. check(now) on every main-loop pass; True when it has just
    reported a `count` (the beam must then re-sync to its pin).

    Each check reads the handler's count, then the hardware's. They agree when each has counted as many edges as the
    other since they last agreed. When they differ, an edge may still be on its way to one of them, or be lost: it is
    taken for lost only once both counts have stood still for settle_us, and then reported once. (An edge in flight
    can also hide a loss for a moment; the loss shows at a later check.) At start, the counts to agree from are taken
    from two reads of each in a row that give the same values (an edge during the reads changes one of them); if
    three tries fail, from the first moment both stand still."""

    def __init__(self, name, counter, irq, emit, now=0, settle_us=SETTLE_US):
        self.name = name
        self.settle_us = settle_us
        self.counter = counter
        self.irq = irq
        self.emit = emit
        self.mismatches = 0
        self._f = {"expected": 0, "seen": 0}
        self._hw = 0  # the counts at the last check, and since when they have stood still
        self._seen = 0
        self._since = now
        self._hw0 = 0  # the counts when the two last agreed
        self._irq0 = 0
        self._synced = False
        for _ in range(3):
            seen = irq.edges
            hw = counter.value()
            if irq.edges == seen and counter.value() == hw:
                self._hw = self._hw0 = hw
                self._seen = self._irq0 = seen
                self._synced = True
                break

    def rebase(self, d):
        self._since -= d

    def check(self, now):
        """True when a discrepancy was just reported."""
        seen = self.irq.edges
        hw = self.counter.value()
        if hw != self._hw or seen != self._seen:
            self._hw = hw
            self._seen = seen
            self._since = now
        still = now - self._since >= self.settle_us
        if not self._synced:
            if still:
                self._hw0 = hw
                self._irq0 = seen
                self._synced = True
            return False
        dh = (hw - self._hw0) & EDGE_MASK
        ds = (seen - self._irq0) & EDGE_MASK
        if dh == ds:
            self._hw0 = hw
            self._irq0 = seen
            return False
        if not still:  # an edge may still be on its way to one of the two counts
            return False
        self.mismatches += 1
        self._hw0 = hw
        self._irq0 = seen
        f = self._f
        f["expected"] = dh
        f["seen"] = ds
        self.emit("count", self.name, now, f)
        return True


class Sensors:
    """All sensors of a profile on one backend: IRQ ring, beam detectors, hall strips, reconcilers.

    step() drains the ring into the detectors, polls them with the current time and reconciles counters;
    call it every main-loop pass. It returns the current µs since boot.
    """

    def __init__(self, cfgs, backend, emit, uptime, ring_size=64, fault=None):
        self.ring = Ring(ring_size)
        self.uptime = uptime
        self.fault = fault  # fault(code, msg): the app's reliable fault event
        self._overflow = 0  # ring.overflow when last looked at
        uptime.listen(self._rebase)
        self.beams = []  # type: list
        self.beam_pins = []  # type: list
        self.irqs = []  # type: list
        self.halls = []  # type: list
        self.recs = []  # (beam index, Reconciler)
        self.problems = []  # (sensor name, reason): a hardware counter the profile asks for and the port lacks
        self._buf = array("i", [0, 0, 0])
        # Beams to re-sync to their pins after lost edges, per beam: 0 no, 1 to read, 2 read this pass (level in
        # _level, IRQ count then in _edges_at). _resyncs: how many are not 0.
        self._resync = bytearray(0)
        self._level = bytearray(0)
        self._edges_at = []  # type: list
        self._resyncs = 0
        now = uptime.now()
        for cfg in cfgs:
            if cfg["kind"] == "beam":
                idx = len(self.beams)
                irq = EdgeIrq(self.ring, idx)
                pin = backend.make_input(cfg["pin"], cfg.get("pull"), irq.handler)
                level = pin.value()
                if backend.irq_is_soft(cfg["pin"]):
                    irq.soft(level)
                det = BeamDetector(cfg, emit)
                det.begin(level, now)
                self.beams.append(det)
                self.beam_pins.append(pin)
                self.irqs.append(irq)
                try:
                    counter = backend.make_counter(cfg["pin"], cfg.get("counter"), pin)
                except Exception as e:  # pins.NoCounter, or a port that refused the unit
                    counter = None
                    self.problems.append((cfg["name"], str(e)))
                if counter is not None:
                    self.recs.append((idx, Reconciler(cfg["name"], counter, irq, emit, now)))
            elif cfg["kind"] == "hall":
                self.halls.append(HallStrip(cfg, emit, backend))
        n = len(self.beams)
        self._resync = bytearray(n)
        self._level = bytearray(n)
        self._edges_at = [0] * n
        # Edges a fault has already told about, per beam: soft IRQ calls that ran late, and (on a beam without a
        # hardware counter, where nothing else would say it) edges the IRQ never saw apart. Looked at once a second.
        self._late = [0] * n
        self._dups = [0] * n  # -1: a beam with a hardware counter, whose `count` already reports such edges
        for idx, _rec in self.recs:
            self._dups[idx] = -1
        self._warn_next = now + CHATTER_EVERY_US

    def step(self):
        up = self.uptime
        now = up.now()
        buf = self._buf
        ring = self.ring
        beams = self.beams
        resyncs = self._resyncs
        if resyncs:
            self._read_pins()
        while ring.pop_into(buf):
            beams[buf[0]].edge(buf[1], up.at(buf[2]))
        if ring.overflow != self._overflow:
            self._overflowed(now)
        if resyncs:
            self._resync_beams(now)
        for det in beams:
            det.poll(now)
        for h in self.halls:
            h.poll(now)
        for idx, rec in self.recs:
            if rec.check(now):
                self._want_resync(idx)
        if now >= self._warn_next:
            self._warn_next = now + CHATTER_EVERY_US
            self._warn_edges()
        return now

    def _warn_edges(self):
        """A `fault` for edges a beam's interrupt took wrongly since the last one (at most one a second per beam):
        - `irq_late`: soft IRQ calls (ESP32) that ran after the pin had changed again. The level is still right (the
          edge's parity), but the times are when the calls ran: such a break's `dur_us` is too short, and one shorter
          than min_pulse_us after the delay is not a pass;
        - `irq_lost`: on a beam without a hardware counter, an IRQ call that read the level of the edge before it
          (two edges closer together than the interrupt could take: the one between was not seen apart)."""
        for i in range(len(self.beams)):
            late = self.irqs[i].late
            d = (late - self._late[i]) & EDGE_MASK
            name = self.beams[i].name
            if d and self.fault is not None:
                self.fault("irq_late", "%s: %d edges handled late (soft IRQs): their breaks' times are late" % (name, d))
            self._late[i] = late
            dups = self.beams[i].dups
            if self._dups[i] >= 0 and dups != self._dups[i]:
                if self.fault is not None:
                    self.fault("irq_lost", "%s: %d edges too close together for its IRQ" % (name, dups - self._dups[i]))
                self._dups[i] = dups

    def _want_resync(self, idx):
        if not self._resync[idx]:
            self._resyncs += 1
        self._resync[idx] = 1

    def _read_pins(self):
        """Before the ring is drained: the live level of each beam waiting to re-sync, and its IRQ count then."""
        want = self._resync
        irqs = self.irqs
        for i in range(len(want)):
            if want[i]:
                self._edges_at[i] = irqs[i].edges
                self._level[i] = self.beam_pins[i].value()
                want[i] = 2

    def _resync_beams(self, now):
        """After the ring is drained: a beam whose pin was read and whose IRQ ran no more since then has seen every
        edge its IRQ caught, so a live level that differs from its own is edges lost: it adopts it. One whose IRQ ran
        in between reads its pin again on the next pass."""
        want = self._resync
        irqs = self.irqs
        for i in range(len(want)):
            if want[i] == 2:
                if irqs[i].edges == self._edges_at[i]:
                    self.beams[i].resync(self._level[i], now)
                    if irqs[i].is_soft:  # a lost soft call shifted the parity: base it on the pin again
                        irqs[i].soft(self._level[i])
                    want[i] = 0
                    self._resyncs -= 1
                else:
                    want[i] = 1

    def _rebase(self, d):
        for det in self.beams:
            det.rebase(d)
        for h in self.halls:
            h.rebase(d)
        for _idx, rec in self.recs:
            rec.rebase(d)

    def _overflowed(self, now):
        """Edges were dropped because the ring was full: what each beam saw after them is unknown, so each adopts its
        live pin level (a break whose end was lost is not left standing as a false `stuck`), and a fault says so."""
        lost = (self.ring.overflow - self._overflow) & EDGE_MASK
        self._overflow = self.ring.overflow
        for idx in range(len(self.beams)):
            self._want_resync(idx)
        if self.fault is not None:
            self.fault("irq_overflow", "%d sensor edges lost: the main loop fell behind; beams re-read their pins" % lost)

    @property
    def dropped(self):
        return self.ring.overflow

    def live(self):
        """Live state per sensor, for selftest/status: {name: "clear"|"broken"|"stuck"|[occupied segs]}."""
        out = {}
        for det in self.beams:
            out[det.name] = det.state()
        for h in self.halls:
            out[h.name] = h.occupied()
        return out
