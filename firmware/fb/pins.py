"""Hardware seam: GPIO inputs with edge IRQs, outputs, and hardware edge counters (machine, rp2, esp32).

The simulated twin is fb.simpins.SimBoard, which offers the same three calls; detectors only see
this interface ("backend"):

    make_input(pin_no, pull, handler=None) -> pin   # handler(pin) on both edges; pull "up"|"down"|None
    irq_is_soft(pin_no) -> bool                      # the handler runs later, through the scheduler (ESP32)
    make_output(pin_no, value=0) -> pin
    make_counter(pin_no, kind, pin=None) -> counter | None   # kind "pio"|"pcnt"|None; counter.value()
                                                     # raises NoCounter(reason) when the port cannot give one
    make_port(pin_nos, pins) -> port                 # port.read(): bit k = level of pin_nos[k], all at once
    make_mux_scanner(select, signals, period_us, settle_us) -> scanner | None   # RP2040 only: PIO + DMA (below)

Ports: the hall strip reads its multiplexers' signal pins (or its direct pins) as one number per select
setting. On the RP2040 that is one read of the SIO GPIO input register, shifted and masked when the pins are
neighbours (the shipped profile: GP11-GP18); elsewhere each pin is read in turn (PinPort).

IRQs: both edges, hard=True where the port accepts it (RP2040: the handler runs in the interrupt, so
it must not allocate: see fb.ring.EdgeIrq). ESP32 pin IRQs are soft (its Pin.irq has no `hard`, MicroPython
1.24-1.28): they go through MicroPython's scheduler queue (8 entries), so a burst of edges while the main loop is busy
can lose IRQs, and a handler runs after its edge, sometimes after the next one: the beam then takes its level from
the edge's parity (fb.ring.EdgeIrq.soft), not from the pin.

Reconciliation: every beam with "counter" set also counts its edges in hardware, independently of the
CPU; the main loop compares that count with the IRQs the handler actually ran (fb.detect.Reconciler)
and reports a difference as a `count` event (expected = hardware edges, seen = IRQ edges).

* ESP32 ("pcnt"): one PCNT unit per beam (esp32.PCNT, MicroPython 1.26 or newer), counting both rising and
  falling edges (INCREMENT/INCREMENT), glitch filter off so it counts what the IRQ should have seen.
  The unit is 16-bit and returns to 0 when it reaches `max`; value() is read every main-loop pass, far
  more often than 30000 edges, and unwrapped modulo that period. There is no fallback: machine.Counter,
  also new in 1.26, is a thin layer over esp32.PCNT.
* RP2040 ("pio"): one PIO state machine per beam runs a 6-instruction edge counter: it branches on the
  current level (jmp pin), waits for the opposite level, decrements X, and repeats; value() execs
  `mov(isr, x)` + `push()` (encoded once) and reads the FIFO's low 16 bits into a buffer, so the count is -X
  modulo 2**16 and nothing is allocated. Eight state machines
  exist (two PIO blocks), enough for one or two hole beams and four ditch beams.
Counts are compared modulo 2**16 (fb.ring.EDGE_MASK).

Multiplexer scan without the CPU (RP2040, make_mux_scanner): a PIO state machine walks the 74HC4067s' 16 channels
every period_us (1 instruction per 10 µs): it writes the 4 select lines (its OUT pins), reads the signal
pins (its IN pins) 20 µs later and pushes one word per channel, (channel tag << 8) | signal levels. A DMA channel paced by that
state machine's RX FIFO writes the words round a 64-byte ring in RAM (ring_size 6: word k is always channel k), so
the 16 latest readings are always in memory, and nothing runs on the CPU. The strip compares the ring with its own
copy once per scan (one memcmp) and looks at channels only when that differs: the firmware is handed only changes.
It needs the select lines on 4 neighbouring GPIOs and the signals on neighbouring GPIOs (the pico_w profile: GP7-10,
GP11-18), a free state machine and a free DMA channel; otherwise it returns None and the strip is scanned by the CPU,
as on the ESP32 (which has no PIO: it keeps the CPU scan).
A profile that asks for a counter the port cannot give gets NoCounter with the reason; the app reports it as a
`fault` (code `counter`) after `hello`, and the beam runs without the check: never silently.
"""

from array import array

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

SIO_GPIO_IN = 0xD0000004  # RP2040: the levels of GPIO0-29, one bit each (below 2**30: a small int)


class NoCounter(Exception):
    """The board cannot count this beam's edges in hardware; str() says why and what to do."""


def _pull(pull):
    if pull == "up":
        return Pin.PULL_UP
    if pull == "down":
        return Pin.PULL_DOWN
    return None


_soft = []  # type: list  # pins whose IRQ is soft (the port refused hard=True)


def make_input(pin_no, pull=None, handler=None):
    p = Pin(pin_no, Pin.IN, _pull(pull))
    if handler is not None:
        trig = Pin.IRQ_RISING | Pin.IRQ_FALLING
        try:
            p.irq(handler=handler, trigger=trig, hard=True)
        except (TypeError, ValueError):  # port without hard pin IRQs (ESP32): scheduled soft IRQ
            p.irq(handler=handler, trigger=trig)
            _soft.append(pin_no)
    return p


def irq_is_soft(pin_no):
    """True when pin_no's IRQ handler runs through the scheduler (later than its edge), not in the interrupt."""
    return pin_no in _soft


def make_output(pin_no, value=0):
    return Pin(pin_no, Pin.OUT, value=value)


def start_carriers(d):
    """The IR LEDs' carriers for the modulated receivers, a PWM each: the profile's ir_carrier (38 kHz), and
    ir_carrier2 when it has one (the second hole beam's 56 kHz LED: no cross-talk in the tube, hardware/README.md).
    Here, not in fb.app: the app's own module stays as small as the heap wants it."""
    for k in ("ir_carrier", "ir_carrier2"):
        ir = d.get(k)
        if ir:
            pwm = machine.PWM(Pin(ir["pin"]))
            pwm.freq(ir["freq_hz"])
            pwm.duty_u16(ir["duty_u16"])


class PinPort:
    """read(): the levels of several input pins as one number, bit k for pins[k], reading each pin in turn."""

    def __init__(self, pins):
        self.pins = pins

    def read(self):
        v = 0
        bit = 1
        for p in self.pins:
            if p.value():
                v |= bit
            bit <<= 1
        return v


class Rp2Port:
    """read() from one load of the RP2040's GPIO input register: neighbouring pins are a shift and a mask."""

    def __init__(self, pin_nos):
        self.first = pin_nos[0]
        self.mask = (1 << len(pin_nos)) - 1
        self.bits = [1 << n for n in pin_nos]
        self.nearby = list(pin_nos) == list(range(pin_nos[0], pin_nos[0] + len(pin_nos)))
        self._mem = machine.mem32  # type: ignore[attr-defined,unused-ignore]

    def read(self):
        reg = self._mem[SIO_GPIO_IN]
        if self.nearby:
            return (reg >> self.first) & self.mask
        v = 0
        bit = 1
        for b in self.bits:
            if reg & b:
                v |= bit
            bit <<= 1
        return v


def make_port(pin_nos, pins):
    """A port over input pins already made with make_input (their pulls are set)."""
    if rp2 is not None and machine is not None and hasattr(machine, "mem32"):
        return Rp2Port(pin_nos)
    return PinPort(pins)


_next_unit = [0]


def make_counter(pin_no, kind, pin=None):
    """A hardware edge counter on pin_no for reconciliation; None when the profile asks for none."""
    if not kind:
        return None
    if kind == "pio":
        if rp2 is None:
            raise NoCounter("a PIO edge counter needs an RP2040 board")
    elif kind == "pcnt":
        if esp32 is None or not hasattr(esp32, "PCNT"):
            raise NoCounter("this MicroPython has no esp32.PCNT (it needs 1.26 or newer): update it from micropython.org")
    else:
        raise NoCounter("unknown counter kind " + str(kind))
    unit = _next_unit[0]
    try:
        p = Pin(pin_no, Pin.IN) if pin is None else pin
        c = PioCounter(unit, p) if kind == "pio" else PcntCounter(unit, p)
    except (ValueError, OSError) as e:  # every unit taken (on the Pico W the Wi-Fi driver uses a PIO block)
        raise NoCounter("no free " + kind.upper() + " unit for an edge counter (" + str(e) + ")") from None
    _next_unit[0] = unit + 1
    return c


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
        # Encoded once: exec() of a text instruction assembles it on every call (about 7 ms on the RP2040).
        self._mov = rp2.asm_pio_encode("mov(isr, x)", 0)
        self._push = rp2.asm_pio_encode("push(noblock)", 0)
        # The count's low 16 bits, read into a buffer: the whole 32-bit word would be a heap-allocated int on a
        # 32-bit port (small ints stop at 2**30), an allocation every main-loop pass.
        self._buf = array("H", [0])
        self._sm.active(1)
        _Unwrap.__init__(self, 1 << 16)

    def _raw(self):
        sm = self._sm
        sm.exec(self._mov)
        sm.exec(self._push)
        sm.get(self._buf)
        return (0x10000 - self._buf[0]) & 0xFFFF  # X counts down from 0


def make_mux_scanner(select, signals, period_us, settle_us):
    """A PIO + DMA scanner for multiplexers on these pins (fb.muxscan.make), or None: the strip then scans with the
    CPU. Only an RP2040 loads the scanner's code."""
    if rp2 is None or not hasattr(rp2, "DMA"):
        return None
    try:
        from fb.muxscan import make
    except ImportError:
        return None
    return make(select, signals, period_us, settle_us, _next_unit)
