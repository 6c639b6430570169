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
HallStrip (fb.strip, imported only by a profile with a strip): the baseline strip's pucks.
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

from fb.ring import EDGE_MASK, EdgeIrq, Ring

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
                from fb.strip import HallStrip  # (a board without a strip never loads its code)

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
