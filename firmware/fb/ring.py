"""Pre-allocated event ring filled by pin interrupts, drained by the main loop (design principle 5).

Ring(size) holds `size` (a power of two) entries of (sensor index, level, ticks_us) in three
array.array columns. push() runs inside a hard IRQ: it allocates nothing (array stores, small-int
arithmetic, attribute stores into existing slots). When full it drops the NEWEST entry and counts it in
`overflow`. head/tail run modulo 2*size so they stay small ints forever.

EdgeIrq(ring, idx) is the IRQ handler for one input pin: call it as handler(pin). It reads the tick
clock first, then the pin level, pushes (idx, level, ticks) and counts the call in `edges` (modulo
2**16) for reconciliation with a hardware edge counter. Everything it needs is bound at init.
"""

from array import array

from fb.compat import const, ticks_us

EDGE_MASK = const(0xFFFF)


class Ring:
    def __init__(self, size=64):
        if size < 2 or size & (size - 1):
            raise ValueError("ring size must be a power of two")
        self.size = size
        self._mask = size - 1
        self._wrap = 2 * size - 1
        self.sensor = array("B", bytes(size))
        self.level = array("B", bytes(size))
        self.ticks = array("i", [0] * size)
        self.head = 0  # next write, modulo 2*size
        self.tail = 0  # next read, modulo 2*size
        self.overflow = 0  # entries dropped because the ring was full (wraps at 2**16)
        self.high_water = 0  # most entries ever waiting (main loop health)

    def push(self, sensor_idx, level, ticks):
        h = self.head
        n = (h - self.tail) & self._wrap
        if n >= self.size:
            self.overflow = (self.overflow + 1) & EDGE_MASK
            return False
        i = h & self._mask
        self.sensor[i] = sensor_idx
        self.level[i] = level
        self.ticks[i] = ticks
        self.head = (h + 1) & self._wrap
        if n >= self.high_water:
            self.high_water = n + 1
        return True

    def __len__(self):
        return (self.head - self.tail) & self._wrap

    def pop_into(self, out):
        """Move the oldest entry into out[0..2] (sensor, level, ticks); False when empty."""
        t = self.tail
        if t == self.head:
            return False
        i = t & self._mask
        out[0] = self.sensor[i]
        out[1] = self.level[i]
        out[2] = self.ticks[i]
        self.tail = (t + 1) & self._wrap
        return True

    def clear(self):
        self.tail = self.head


class EdgeIrq:
    """Allocation-free pin IRQ handler: handler(pin) stores (idx, pin.value(), ticks_us()) in the ring."""

    def __init__(self, ring, idx):
        self.idx = idx
        self.edges = 0  # IRQ calls seen, modulo 2**16
        self._push = ring.push
        self._ticks = ticks_us
        self.handler = self.on_edge  # bound once here; pass this to Pin.irq()

    def on_edge(self, pin):
        t = self._ticks()
        self._push(self.idx, pin.value(), t)
        self.edges = (self.edges + 1) & EDGE_MASK
