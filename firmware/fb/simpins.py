"""Simulated board: the pin backend for bench tests and the simulator (same interface as fb.pins).

    board = SimBoard(ticks0=0, irq_delay_us=0)   # installs its clock with compat.set_clock (µs since sim boot)
    board.make_input(pin_no, pull, handler) / make_output(pin_no, value) / make_counter(pin_no, kind)
    board.at(t_us, pin_no, level, lost=False)    # schedule a level change
    board.beam(pin_no, start_us, dur_us, broken=1, lost=None)   # a break: level `broken` for dur_us
    strip = board.strip(hall_cfg); strip.at(t_us, seg, present)  # hall segment (direct pins or mux)
    board.hold_irq(start_us, end_us)   # soft IRQ calls wait until end_us (at most 8 of them; more are lost)
    board.run_until(t_us)              # fire the events up to t_us, each at its exact time
    board.advance(us)

Times are µs since the simulated boot; the tick clock seen by the firmware is (ticks0 + now) mod 2**30,
so a ticks0 just below 2**30 exercises the wrap. An edge fires the pin's IRQ handler "inside" the event:
the clock reads exactly the event time while the handler runs. Under MicroPython the handler runs inside
micropython.heap_lock(), like a hard IRQ: a handler that allocates raises MemoryError. Every edge also
bumps the pin's simulated hardware counters; `lost=True` skips the IRQ only (a lost interrupt), which
the firmware's reconciliation must report. `irq_delay_us` > 0 runs each handler that long after its edge instead,
as the ESP32's soft pin IRQs run when MicroPython's scheduler gets to them: the handler reads the clock and the pin
when it runs, not when the edge came (irq_is_soft() then says so, and the firmware takes the level from the edge's
parity). `b.later(t_us, pin_no)` runs a pin's handler at t_us by hand (a scheduler that ran late once).
"""

import heapq

from fb import compat
from fb.ring import EDGE_MASK

MUX_BASE = 1000  # virtual pin numbers for multiplexer channels: MUX_BASE + 16 * mux + channel


class SimPin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 1
    IRQ_RISING = 2

    def __init__(self, board, no, level=0):
        self.board = board
        self.no = no
        self.level = level
        self.handler = None
        self.trigger = 0
        self.counters = []
        self.source = None  # callable computing the level (a multiplexer output)
        self.irqs = 0  # IRQ handler calls

    def value(self, v=None):
        if v is None:
            if self.source is not None:
                return self.source()
            return self.level
        self.level = 1 if v else 0
        return None

    def on(self):
        self.level = 1

    def off(self):
        self.level = 0

    def irq(self, handler=None, trigger=3, hard=False):
        self.handler = handler
        self.trigger = trigger
        return self

    def drive(self, level, lost=False):
        """Set the input level from outside; on a change count it and (unless lost) run the IRQ."""
        level = 1 if level else 0
        if level == self.level:
            return
        self.level = level
        for c in self.counters:
            c.count = (c.count + 1) & EDGE_MASK
        edge = self.IRQ_RISING if level else self.IRQ_FALLING
        if lost or self.handler is None or not (self.trigger & edge):
            return
        b = self.board
        until = b.held_until()
        if b.irq_delay_us or until:
            if b.queued >= b.sched_depth:  # MicroPython's scheduler queue is full: the call is lost
                b.sched_lost += 1
                return
            b.queued += 1
            b.later(max(until, b.now + b.irq_delay_us), self.no)
            return
        self.run_irq()

    def run_irq(self):
        h = self.handler
        if h is None:  # (a late run after the handler was taken away)
            return
        self.irqs += 1
        if self.board.strict_irq:
            compat.heap_lock()
            try:
                h(self)
            finally:
                compat.heap_unlock()
        else:
            h(self)


class SimCounter:
    """A hardware edge counter on one pin: value() = edges since creation modulo 2**16."""

    def __init__(self):
        self.count = 0

    def value(self):
        return self.count


class SimMux:
    """74HC4067 model: the signal pin reads channel (select bits) of its 16 virtual input pins."""

    def __init__(self, board, select, index):
        self.board = board
        self.select = [board.pin(n) for n in select]
        self.base = MUX_BASE + 16 * index
        self.enable = None

    def read(self):
        if self.enable is not None and self.enable.level:
            return 1  # disabled (enable is active low): the signal floats up to its pull-up
        ch = 0
        bit = 1
        for p in self.select:
            if p.level:
                ch |= bit
            bit <<= 1
        return self.board.pin(self.base + ch).level


class SimStrip:
    """Drives a hall strip's segments, direct or through multiplexers, from the strip config."""

    def __init__(self, board, cfg):
        self.board = board
        self.active = 0 if cfg.get("active_low", True) else 1
        self.pins = []
        mux = cfg.get("mux")
        if cfg.get("pins"):
            self.pins = list(cfg["pins"])
        else:
            signals = mux["signal"]
            if isinstance(signals, int):
                signals = [signals]
            muxes = []
            for k, s in enumerate(signals):
                m = SimMux(board, mux["select"], k)
                if mux.get("enable") is not None:
                    m.enable = board.pin(mux["enable"])
                board.pin(s).source = m.read
                muxes.append(m)
            self.pins = [MUX_BASE + i for i in range(cfg["count"])]
        for n in self.pins:
            board.pin(n, 1 - self.active)  # all segments empty at boot

    def at(self, t_us, seg, present):
        self.board.at(t_us, self.pins[seg], self.active if present else 1 - self.active)

    def set(self, seg, present):
        self.board.pin(self.pins[seg]).drive(self.active if present else 1 - self.active)


class SimBoard:
    def __init__(self, ticks0=0, strict_irq=None, irq_delay_us=0, soft_irq=None):
        self.ticks0 = ticks0
        self.irq_delay_us = irq_delay_us
        self.soft_irq = bool(irq_delay_us) if soft_irq is None else soft_irq
        self.sched_depth = 8  # MICROPY_SCHEDULER_DEPTH: soft IRQ calls that can wait at once
        self.queued = 0  # soft IRQ calls waiting
        self.sched_lost = 0  # soft IRQ calls lost to a full queue
        self._holds = []  # (start, end): the scheduler does not run (a GC, a long blocking write)
        self.now = 0
        self.pins = {}
        self._events = []
        self._seq = 0
        self.strict_irq = compat.IS_MICROPYTHON if strict_irq is None else strict_irq
        compat.set_clock(self._clock, self.advance_ms)

    def _clock(self):
        return self.ticks0 + self.now

    def close(self):
        compat.set_clock(None)

    # -- backend interface (same as fb.pins) --
    def pin(self, no, level=None):
        p = self.pins.get(no)
        if p is None:
            p = SimPin(self, no, 0 if level is None else level)
            self.pins[no] = p
        elif level is not None:
            p.level = level
        return p

    def make_input(self, pin_no, pull=None, handler=None):
        p = self.pins.get(pin_no)
        if p is None:  # an undriven input rests at its pull
            p = self.pin(pin_no, 1 if pull == "up" else 0)
        if handler is not None:
            p.irq(handler, SimPin.IRQ_RISING | SimPin.IRQ_FALLING, hard=True)
        return p

    def irq_is_soft(self, pin_no):
        """Handlers that run late (irq_delay_us, or soft_irq=True) stand for the ESP32's soft IRQs."""
        return self.soft_irq

    def make_output(self, pin_no, value=0):
        return self.pin(pin_no, 1 if value else 0)

    def make_port(self, pin_nos, pins):
        from fb.pins import PinPort

        return PinPort(pins)

    def make_counter(self, pin_no, kind, pin=None):
        if not kind:
            return None
        c = SimCounter()
        self.pin(pin_no).counters.append(c)
        return c

    # -- timeline --
    def at(self, t_us, pin_no, level, lost=False):
        if t_us < self.now:
            raise ValueError("event in the past")
        self._seq += 1
        heapq.heappush(self._events, (t_us, self._seq, pin_no, level, lost))

    def hold_irq(self, start_us, end_us):
        """From start_us to end_us the scheduler runs no soft IRQ call (a garbage collection, a long UART write): the
        edges in between queue (at most sched_depth of them) and their handlers all run at end_us, in order."""
        self._holds.append((start_us, end_us))

    def held_until(self):
        for s, e in self._holds:
            if s <= self.now < e:
                return e
        return 0

    def later(self, t_us, pin_no):
        """Run pin_no's IRQ handler at t_us (a soft IRQ's late run)."""
        self._seq += 1
        heapq.heappush(self._events, (t_us, self._seq, pin_no, -1, False))

    def beam(self, pin_no, start_us, dur_us, broken=1, lost=None):
        """A beam break: `broken` level from start for dur_us. lost: "start"/"end"/"both" loses IRQs."""
        self.at(start_us, pin_no, broken, lost in ("start", "both"))
        self.at(start_us + dur_us, pin_no, 1 - broken, lost in ("end", "both"))

    def strip(self, cfg):
        return SimStrip(self, cfg)

    def pending(self):
        return len(self._events)

    def next_at(self):
        """When the next scheduled pin change is due (µs of simulated time), or None."""
        return self._events[0][0] if self._events else None

    def delay(self, us):
        """Let the clock run `us` and move everything scheduled (pin changes, late IRQ runs, scheduler holds) as much
        later: time passes, the scenario's future waits for it (a held simulation whose link is down)."""
        if us <= 0:
            return
        now = self.now
        self._events = [(t + us, n, no, level, lost) for t, n, no, level, lost in self._events]  # same order: a heap
        self._holds = [(s + us if s > now else s, e + us) for s, e in self._holds if e > now]
        self.now = now + us

    def run_until(self, t_us):
        ev = self._events
        while ev and ev[0][0] <= t_us:
            t, _, no, level, lost = heapq.heappop(ev)
            self.now = t
            if level < 0:
                self.queued -= 1
                self.pin(no).run_irq()
            else:
                self.pin(no).drive(level, lost)
        if t_us > self.now:
            self.now = t_us

    def advance(self, us):
        self.run_until(self.now + us)

    def advance_ms(self, ms):
        self.run_until(self.now + int(ms * 1000))
