"""Pre-allocated event ring filled by pin interrupts, drained by the main loop (an IRQ allocates nothing).

Ring(size) holds `size` (a power of two) entries of (sensor index, level, ticks_us). Everything lives in one
array.array of 32-bit words, `Ring.m`: a header of HEADER words (head, tail, overflow, high water, then the
geometry: mask, wrap, size), then two words per entry (sensor index * 2 + level, ticks). One array is what lets
the interrupt handler below reach all of it with one pointer. push() and the handler allocate nothing (stores
into the array, small-int arithmetic). When full they drop the NEWEST entry and count it in `overflow` (modulo
2**16). head/tail run modulo 2*size so they stay small ints forever.

EdgeIrq(ring, idx) is the IRQ handler for one input pin: pass `irq.handler` to Pin.irq(). Each call reads the tick
clock first, then the level, pushes (idx, level, ticks) and counts the call in `edges` (modulo 2**16) for
reconciliation with a hardware edge counter. Where does the level come from:
  - a hard IRQ (RP2040) runs microseconds after its edge: it reads the pin (two edges closer together than that
    reach it as one call, and the hardware counter reports them);
  - a soft IRQ (the ESP32: its Pin.irq has no `hard`, MicroPython 1.24-1.28; the handler runs when the scheduler
    gets to it, through a queue of 8) may run after the pin has changed again: a break that ended before its two
    queued calls ran would read "clear" twice. So after `soft(level)` the level is the edge's parity: each call is
    one edge, and the beam alternates. The call still reads the pin: when it differs, the edge is handled late (the
    pin has moved on), and `late` counts it (modulo 2**16), for a fault the app reports. A lost call (the queue was
    full) shifts the parity: the hardware counter reports it (`count`) and `soft(level)` re-bases it on the live pin.

On MicroPython's ARM (the RP2040) and x86 ports the handler is a viper function (native machine code), compiled once
when this module is imported: an edge then costs about a quarter of the cycles of the same code as bytecode
(docs/performance.md, "the firmware on the rp2 port"). It is compiled from source at import, by the board's own
compiler, because mpy-cross can only emit native code for a named architecture, and the same .mpy also runs on the
unix port in the tests. On Xtensa (the ESP32) it is not used: the viper emitter for Xtensa has never run this handler
(there is no ESP32 to run it on here; mpy-cross -march=xtensawin compiles it, tests/firmware/test_fw_soft_irq.py), and
the ESP32's soft IRQs gain nothing from it, since their calls wait in the scheduler's queue anyway. There, on any port
without a native emitter, and under CPython, `EdgeIrq.on_edge` (plain Python, same behaviour) is the handler;
`HANDLER` says which one is in use. The clock is bound when the handler is made (fb.compat.ticks_us_source): the
board's own time.ticks_us, or the simulator's clock if fb.compat.set_clock was called before.
"""

from array import array

from fb import compat
from fb.compat import const

EDGE_MASK = const(0xFFFF)

HEAD = const(0)
TAIL = const(1)
OVERFLOW = const(2)
HIGH_WATER = const(3)
MASK = const(4)
WRAP = const(5)
SIZE = const(6)
HEADER = const(8)  # words before the entries (word 7 is spare)

# The handler, compiled on MicroPython at import. Closed over: m (Ring.m), c (EdgeIrq._c: edges, sensor index, soft,
# parity base, late) and clock. MicroPython passes a closure's values and its arguments on the stack while there are
# at most five of them (here four); more would make it allocate at each call, which a hard IRQ cannot. The word
# offsets are the constants above.
_VIPER = """
def make(m, c, clock):
    @micropython.viper
    def handler(pin):
        t = int(clock())
        v = int(pin.value())
        p = ptr32(m)
        q = ptr32(c)
        if q[2]:
            w = (q[3] ^ q[0]) & 1
            if (1 if v else 0) != w:
                q[4] = (q[4] + 1) & 0xFFFF
            v = w
        h = p[0]
        n = (h - p[1]) & p[5]
        if n < p[6]:
            j = 8 + 2 * (h & p[4])
            p[j] = (q[1] << 1) | (1 if v else 0)
            p[j + 1] = t
            p[0] = (h + 1) & p[5]
            if n >= p[3]:
                p[3] = n + 1
        else:
            p[2] = (p[2] + 1) & 0xFFFF
        q[0] = (q[0] + 1) & 0xFFFF
    return handler
"""

# sys.implementation._mpy's bits 10-15 name the native architecture (py/persistentcode.h: 1 x86, 2 x64, 3 armv6,
# 4 armv6m, 5 armv7m, 6 armv7em, 7 armv7emsp, 8 armv7emdp, 9 xtensa, 10 xtensawin, 11 rv32imc). The viper handler is
# used where it has run: the x86/x64 unix port in the tests, ARMv6-M on the emulated Pico.
VIPER_ARCHS = (1, 2, 3, 4, 5, 6, 7, 8)


def _arch():
    try:
        import sys

        return (sys.implementation._mpy >> 10) & 63  # type: ignore[attr-defined,unused-ignore]
    except Exception:
        return 0


def _compile(source):
    """The handler maker compiled from source on MicroPython; None under CPython or without a native emitter."""
    if not compat.IS_MICROPYTHON or _arch() not in VIPER_ARCHS:
        return None
    scope = {}  # type: dict
    try:
        exec(source, scope)
    except Exception:  # a port built without a native emitter (SyntaxError), or no room to compile it now
        return None
    return scope["make"]


_make_viper = _compile(_VIPER)
del _VIPER, _compile  # the source text goes: only the compiled maker stays in RAM
HANDLER = "python" if _make_viper is None else "viper"


class Ring:
    def __init__(self, size=64):
        if size < 2 or size & (size - 1):
            raise ValueError("ring size must be a power of two")
        self.size = size
        m = array("i", bytes(4 * (HEADER + 2 * size)))
        m[MASK] = size - 1
        m[WRAP] = 2 * size - 1
        m[SIZE] = size
        self.m = m

    @property
    def head(self):
        """The next write, modulo 2*size."""
        return self.m[HEAD]

    @property
    def tail(self):
        """The next read, modulo 2*size."""
        return self.m[TAIL]

    @property
    def overflow(self):
        """Entries dropped because the ring was full (wraps at 2**16)."""
        return self.m[OVERFLOW]

    @property
    def high_water(self):
        """The most entries ever waiting (main loop health)."""
        return self.m[HIGH_WATER]

    def push(self, sensor_idx, level, ticks):
        m = self.m
        h = m[HEAD]
        n = (h - m[TAIL]) & m[WRAP]
        if n >= self.size:
            m[OVERFLOW] = (m[OVERFLOW] + 1) & EDGE_MASK
            return False
        j = HEADER + 2 * (h & m[MASK])
        m[j] = (sensor_idx << 1) | (1 if level else 0)
        m[j + 1] = ticks
        m[HEAD] = (h + 1) & m[WRAP]
        if n >= m[HIGH_WATER]:
            m[HIGH_WATER] = n + 1
        return True

    def __len__(self):
        m = self.m
        return (m[HEAD] - m[TAIL]) & m[WRAP]

    def pop_into(self, out):
        """Move the oldest entry into out[0..2] (sensor, level, ticks); False when empty."""
        m = self.m
        t = m[TAIL]
        if t == m[HEAD]:
            return False
        j = HEADER + 2 * (t & m[MASK])
        e = m[j]
        out[0] = e >> 1
        out[1] = e & 1
        out[2] = m[j + 1]
        m[TAIL] = (t + 1) & m[WRAP]
        return True

    def clear(self):
        m = self.m
        m[TAIL] = m[HEAD]


class EdgeIrq:
    """Allocation-free pin IRQ handler: handler(pin) stores (idx, level, ticks_us()) in the ring; the level is the pin's
    (hard IRQs) or, after soft(level), the edge's parity (soft IRQs)."""

    def __init__(self, ring, idx):
        self.idx = idx
        self._ring = ring
        # IRQ calls seen (modulo 2**16), the sensor index, 1 when soft (level from parity), the parity base, late calls
        self._c = array("i", [0, idx, 0, 0, 0])
        self._clock = compat.ticks_us_source()
        if _make_viper is not None:
            self.handler = _make_viper(ring.m, self._c, self._clock)
        else:
            self.handler = self.on_edge  # bound once here; pass this to Pin.irq()

    @property
    def edges(self):
        """IRQ calls seen, modulo 2**16."""
        return self._c[0]

    @property
    def late(self):
        """Soft calls that found the pin already changed again (their edge was handled late), modulo 2**16."""
        return self._c[4]

    @property
    def is_soft(self):
        return self._c[2] == 1

    def soft(self, level):
        """From now on the level is the edge's parity: the next call is the edge away from `level` (the pin's level
        now, with no call waiting: at start, or after the ring was drained and the IRQ count stood still)."""
        c = self._c
        c[3] = ((1 if level else 0) ^ 1 ^ c[0]) & 1
        c[2] = 1

    def on_edge(self, pin):
        t = self._clock()
        v = pin.value()
        c = self._c
        if c[2]:
            w = (c[3] ^ c[0]) & 1
            if (1 if v else 0) != w:
                c[4] = (c[4] + 1) & EDGE_MASK
            v = w
        self._ring.push(self.idx, v, t)
        c[0] = (c[0] + 1) & EDGE_MASK
