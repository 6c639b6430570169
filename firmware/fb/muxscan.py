"""The hall strip's 74HC4067s walked by an RP2040's PIO, their readings kept in RAM by DMA (fb.pins.make_mux_scanner,
which imports this module only on an RP2040; the module docstring of fb.pins says how it works)."""

import rp2
from machine import Pin
from micropython import const

# (Constants named with an underscore are folded into the code: no names in the heap.)
_PIO0_BASE = const(0x50200000)  # RP2040: PIO0; PIO1 at +0x100000; a state machine's RX FIFO is at +0x20 + 4 * sm
_DREQ_PIO0_RX0 = const(4)  # the DMA request of PIO0's state machine 0 RX FIFO (+ sm; PIO1's: + 8)


@rp2.asm_pio(
    out_init=[rp2.PIO.OUT_LOW] * 4,
    in_shiftdir=rp2.PIO.SHIFT_LEFT,
    fifo_join=rp2.PIO.JOIN_RX,
)
def _pio_mux_scan():
    # OSR: the loops to wait between two scans (put once). Y: the wait's counter. X: 15 - channel. One instruction
    # every 10 µs (100 kHz): the signals are read 20 µs after the select lines change.
    pull()  # type: ignore[name-defined]  # noqa: F821
    wrap_target()  # type: ignore[name-defined]  # noqa: F821
    mov(y, osr)  # type: ignore[name-defined]  # noqa: F821
    label("wait")  # type: ignore[name-defined]  # noqa: F821
    jmp(y_dec, "wait")  # type: ignore[name-defined]  # noqa: F821
    set(x, 15)  # type: ignore[name-defined,call-overload]  # noqa: F821
    label("ch")  # type: ignore[name-defined]  # noqa: F821
    mov(pins, invert(x))  # type: ignore[name-defined]  # noqa: F821  (select lines = 15 - X: channel 0 first)
    in_(x, 4)  # type: ignore[name-defined]  # noqa: F821
    in_(pins, 8)  # type: ignore[name-defined]  # noqa: F821
    push()  # type: ignore[name-defined]  # noqa: F821  (blocking: a reading is never dropped)
    jmp(x_dec, "ch")  # type: ignore[name-defined]  # noqa: F821
    wrap()  # type: ignore[name-defined]  # noqa: F821


_PIO_TICK_US = const(10)  # one instruction of _pio_mux_scan (the state machine runs at 100 kHz)
_SCAN_STEP_US = const(50)  # per channel: five instructions
_SETTLE_PIO_US = const(20)  # from the select lines' change to the signals' read: two instructions


class MuxScanner:
    """The 74HC4067s walked by a PIO state machine, their readings kept in RAM by DMA (see the module docstring).

    update() -> True when the readings differ from the last copy (then copied); reading(ch): the signal levels of
    channel ch in that copy, bit k = signal k. ready(): every channel has been read at least once."""

    def __init__(self, unit, select, signals, period_us):
        import uctypes

        block, sm = unit // 4, unit % 4
        self._buf = bytearray(b"\xff" * 128)  # (0xFF: no reading yet)
        addr = uctypes.addressof(self._buf)
        self._addr = addr + ((-addr) & 63)  # the DMA ring must be aligned to its size
        self.live = uctypes.bytearray_at(self._addr, 64)
        self.copy = bytearray(self.live)
        wait = (period_us - 16 * _SCAN_STEP_US) // _PIO_TICK_US - 3
        self._sm = rp2.StateMachine(
            unit, _pio_mux_scan, freq=1_000_000 // _PIO_TICK_US, out_base=Pin(select[0]), in_base=Pin(signals[0])
        )
        self._dma = rp2.DMA()
        self._ctrl = self._dma.pack_ctrl(
            size=2, inc_read=False, inc_write=True, ring_size=6, ring_sel=True,
            treq_sel=_DREQ_PIO0_RX0 + 8 * block + sm, irq_quiet=True,
        )
        self._rxf = _PIO0_BASE + 0x100000 * block + 0x20 + 4 * sm
        self._dma.config(read=self._rxf, write=self._addr, count=(1 << 30) - 1, ctrl=self._ctrl, trigger=True)
        self._sm.put(wait)
        self._sm.active(1)

    def ready(self):
        live = self.live
        for k in range(16):
            if live[4 * k + 3] or live[4 * k + 2] or (live[4 * k + 1] & 15) != 15 - k:
                return False
        return True

    def update(self):
        d = self._dma
        if not d.active():  # the transfer count ran out (after 7 days): go on round the same ring
            d.config(read=self._rxf, write=d.write,  # type: ignore[attr-defined,unused-ignore]
                     count=(1 << 30) - 1, ctrl=self._ctrl, trigger=True)
        if self.live == self.copy:
            return False
        self.copy[:] = self.live
        return True

    def reading(self, ch):
        return self.copy[4 * ch]


def make(select, signals, period_us, settle_us, units):
    """The scanner for these pins, or None (pins not neighbours, no free state machine or DMA channel, a settle
    longer than the program's 20 µs). units[0]: the next free state machine (fb.pins shares it with the counters)."""
    if len(select) != 4 or settle_us > _SETTLE_PIO_US:
        return None
    if list(select) != list(range(select[0], select[0] + 4)):
        return None
    if list(signals) != list(range(signals[0], signals[0] + len(signals))) or len(signals) > 8:
        return None
    key = (select[0], signals[0], len(signals), period_us)
    sc = _scanners.get(key)
    if sc is not None:  # an app built again in the same boot (a test, a bench): the same state machine and DMA
        return sc
    unit = units[0]
    try:
        sc = MuxScanner(unit, select, signals, period_us)
    except (ValueError, OSError):
        return None
    units[0] = unit + 1
    # Kept for the whole boot: the DMA writes into the scanner's buffer until the board resets, so the buffer must
    # never be collected, and a second state machine must never drive the same select lines.
    _scanners[key] = sc
    return sc


_scanners = {}  # type: dict
