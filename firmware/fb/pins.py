"""Hardware seam: GPIO inputs with edge IRQs, outputs, and hardware edge counters (machine, rp2, esp32).

The simulated twin is fb.simpins.SimBoard, which offers the same three calls; detectors only see
this interface ("backend"):

    make_input(pin_no, pull, handler=None) -> pin   # handler(pin) on both edges; pull "up"|"down"|None
    make_output(pin_no, value=0) -> pin
    make_counter(pin_no, kind, pin=None) -> counter | None   # kind "pio"|"pcnt"|None; counter.value()

IRQs: both edges, hard=True where the port accepts it (RP2040: the handler runs in the interrupt, so
it must not allocate: see fb.ring.EdgeIrq). ESP32 pin IRQs are soft: they go through MicroPython's
scheduler queue (8 entries), so a burst of edges while the main loop is busy can lose IRQs.

Reconciliation: every beam with "counter" set also counts its edges in hardware, independently of the
CPU; the main loop compares that count with the IRQs the handler actually ran (fb.detect.Reconciler)
and reports a difference as a `count` event (expected = hardware edges, seen = IRQ edges).

* ESP32 ("pcnt"): one PCNT unit per beam (esp32.PCNT, MicroPython >= 1.24), counting both rising and
  falling edges (INCREMENT/INCREMENT), glitch filter off so it counts what the IRQ should have seen.
  The unit is 16-bit and returns to 0 when it passes `max`; value() is read every main-loop pass, far
  more often than 30000 edges, and unwrapped modulo that period. Falls back to two machine.Counter
  units (RISING + FALLING) where esp32.PCNT is missing.
* RP2040 ("pio"): one PIO state machine per beam runs a 6-instruction edge counter: it branches on the
  current level (jmp pin), waits for the opposite level, decrements X, and repeats; value() execs
  `mov(isr, x)` + `push()` and reads the FIFO, so the count is -X modulo 2**32. Eight state machines
  exist (two PIO blocks), enough for one or two hole beams and four ditch beams.
Counts are compared modulo 2**16 (fb.ring.EDGE_MASK).
"""

from fb.ring import EDGE_MASK

try:
    import machine
    from machine import Pin
except ImportError:  # CPython and hosts without GPIO: the module still imports
    machine = None  # type: ignore[assignment]
    Pin = None  # type: ignore[assignment,misc]

try:
    import rp2
except ImportError:
    rp2 = None  # type: ignore[assignment,unused-ignore]  # a module only in the rp2 stubs

try:
    import esp32
except ImportError:
    esp32 = None  # type: ignore[assignment,unused-ignore]  # a module only in the esp32 stubs

PCNT_MAX = 30000


def _pull(pull):
    if pull == "up":
        return Pin.PULL_UP
    if pull == "down":
        return Pin.PULL_DOWN
    return None


def make_input(pin_no, pull=None, handler=None):
    p = Pin(pin_no, Pin.IN, _pull(pull))
    if handler is not None:
        trig = Pin.IRQ_RISING | Pin.IRQ_FALLING
        try:
            p.irq(handler=handler, trigger=trig, hard=True)
        except (TypeError, ValueError):  # port without hard pin IRQs (ESP32): scheduled soft IRQ
            p.irq(handler=handler, trigger=trig)
    return p


def make_output(pin_no, value=0):
    return Pin(pin_no, Pin.OUT, value=value)


_next_unit = [0]


def make_counter(pin_no, kind, pin=None):
    """A hardware edge counter on pin_no for reconciliation, or None (kind None, or no support)."""
    if not kind or machine is None:
        return None
    unit = _next_unit[0]
    _next_unit[0] = unit + 1
    if pin is None:
        pin = Pin(pin_no, Pin.IN)
    if kind == "pio" and rp2 is not None:
        return PioCounter(unit, pin)
    if kind == "pcnt":
        if esp32 is not None and hasattr(esp32, "PCNT"):
            return PcntCounter(unit, pin)
        if hasattr(machine, "Counter"):
            return TwoCounter(2 * unit, pin)
    return None


class _Unwrap:
    """value(): edges since init modulo 2**16, from a raw hardware count with a known period."""

    def __init__(self, period):
        self._period = period
        self._last = self._raw()
        self._acc = 0

    def _raw(self):
        raise NotImplementedError

    def value(self):
        raw = self._raw()
        self._acc = (self._acc + (raw - self._last) % self._period) & EDGE_MASK
        self._last = raw
        return self._acc


class PcntCounter(_Unwrap):
    def __init__(self, unit, pin):
        P = esp32.PCNT
        self._u = P(unit, pin=pin, rising=P.INCREMENT, falling=P.INCREMENT, max=PCNT_MAX)
        if hasattr(self._u, "start"):  # some versions run the unit from init
            self._u.start()
        _Unwrap.__init__(self, PCNT_MAX)

    def _raw(self):
        return self._u.value()


class TwoCounter(_Unwrap):
    def __init__(self, unit, pin):
        C = machine.Counter  # type: ignore[attr-defined,unused-ignore]  # ESP32 only; guarded by hasattr above
        self._r = C(unit, pin, edge=C.RISING)
        self._f = C(unit + 1, pin, edge=C.FALLING)
        _Unwrap.__init__(self, 1 << 32)

    def _raw(self):
        return self._r.value() + self._f.value()


if rp2 is not None:

    @rp2.asm_pio()
    def _pio_edges():
        label("top")  # type: ignore[name-defined]  # noqa: F821  (PIO assembler names)
        jmp(pin, "high")  # type: ignore[name-defined]  # noqa: F821
        wait(1, pin, 0)  # type: ignore[name-defined]  # noqa: F821
        jmp(x_dec, "high")  # type: ignore[name-defined]  # noqa: F821
        label("high")  # type: ignore[name-defined]  # noqa: F821
        wait(0, pin, 0)  # type: ignore[name-defined]  # noqa: F821
        jmp(x_dec, "top")  # type: ignore[name-defined]  # noqa: F821
        # X == 0 falls through and wraps to "top" as well


class PioCounter(_Unwrap):
    def __init__(self, unit, pin):
        self._sm = rp2.StateMachine(unit, _pio_edges, in_base=pin, jmp_pin=pin)
        self._sm.active(1)
        _Unwrap.__init__(self, 1 << 32)

    def _raw(self):
        sm = self._sm
        sm.exec("mov(isr, x)")
        sm.exec("push(noblock)")
        return (-sm.get()) & 0xFFFFFFFF
