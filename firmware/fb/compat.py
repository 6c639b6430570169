"""Portability seam: the clock, ticks arithmetic and heap locking, the same under MicroPython and CPython.

Ticks are taken modulo 2**30 everywhere (the MicroPython period on the RP2040/ESP32 ports), also under
CPython and the 64-bit unix port, so wrap bugs show up in tests. `set_clock(fn)` lets the simulator
replace the raw µs clock (fn returns any non-negative int; it is masked to 30 bits here).
`Uptime` unwraps ticks into a monotonic count of µs: call `now()` at least every few minutes (the main loop
does, every iteration).
"""

import sys

IS_MICROPYTHON = sys.implementation.name == "micropython"

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore[misc]  # the stub's signature is generic
        return x


TICKS_PERIOD = const(0x40000000)  # 2**30
TICKS_MAX = const(0x3FFFFFFF)
TICKS_HALF = const(0x20000000)

if IS_MICROPYTHON:
    import time as _time

    import micropython

    _raw_us = _time.ticks_us
    _raw_ms = _time.ticks_ms
    _sleep_ms = _time.sleep_ms
    heap_lock = micropython.heap_lock
    heap_unlock = micropython.heap_unlock
    schedule = micropython.schedule
else:
    import time as _time

    def _raw_us():
        return _time.monotonic_ns() // 1000

    def _raw_ms():
        return _time.monotonic_ns() // 1000000

    def _sleep_ms(ms):
        _time.sleep(ms / 1000)

    def heap_lock():
        return 0

    def heap_unlock():
        return 0

    def schedule(fn, arg):
        fn(arg)
        return True


_clock = _raw_us  # replaced by set_clock (the simulator)
_sleeper = None  # when the clock is simulated, sleep_ms asks this to advance simulated time


def set_clock(fn_us, sleeper=None):
    """Use fn_us() as the raw µs clock (None restores the real one); sleeper(ms) replaces sleep_ms."""
    global _clock, _sleeper
    _clock = fn_us if fn_us is not None else _raw_us
    _sleeper = sleeper


def ticks_us():
    return _clock() & TICKS_MAX  # type: ignore[operator]  # stubs type ticks as opaque; they are ints


def ticks_us_source():
    """The quickest callable that returns ticks_us() as the clock is now, for an interrupt handler to bind once:
    MicroPython's own time.ticks_us (it already wraps at 2**30) while the real clock is in use, else ticks_us. A
    handler bound before a later set_clock keeps the clock it had."""
    if IS_MICROPYTHON and _clock is _raw_us:
        return _raw_us
    return ticks_us


def ticks_ms():
    if _clock is _raw_us:
        return _raw_ms() & TICKS_MAX  # type: ignore[operator]
    return (_clock() // 1000) & TICKS_MAX  # type: ignore[operator]


def ticks_diff(a, b):
    """Signed a - b for ticks values, correct across the 2**30 wrap (|a - b| < 2**29)."""
    return ((a - b + TICKS_HALF) & TICKS_MAX) - TICKS_HALF


def ticks_add(a, d):
    return (a + d) & TICKS_MAX


def sleep_ms(ms):
    if _sleeper is not None:
        _sleeper(ms)
    else:
        _sleep_ms(ms)


def busy_us(us):
    """Wait a few µs for hardware to settle (a multiplexer's output after its select lines change). Nothing to
    wait for with simulated pins (they settle at once) or under CPython."""
    if IS_MICROPYTHON and _sleeper is None:
        _time.sleep_us(us)


EPOCH_US = 256000000  # 256 s: how far the board's time scale moves on at once (a whole number of ms)


class Uptime:
    """Monotonic µs, unwrapped from 30-bit ticks, on a scale that stays a small int.

    On a 32-bit port an int above 2**30 lives on the heap: µs since boot pass that after 18 minutes, and every
    time computed in every pass would then be an allocation. So now() returns µs since `base`, the start of the
    current epoch, below 2**29: once it reaches 2 * EPOCH_US, base moves on by EPOCH_US and every listener (see
    listen) is told to move the times it keeps back by as much. `base + t` is µs since boot (the wire's `t`),
    `base_ms` the same in ms.

    now() reads the clock and advances; at(ticks) converts a recent event's ticks (within ±2**29 µs of the
    last now()) into the same scale. Call now() at least every ~8 minutes.
    """

    def __init__(self, start_us=0):
        self._last = ticks_us()
        self.base = 0
        self.base_ms = 0
        self._us = start_us
        self._listeners = []
        while self._us >= 2 * EPOCH_US:  # a start far from 0 (tests)
            self._us -= EPOCH_US
            self.base += EPOCH_US
            self.base_ms += EPOCH_US // 1000

    def listen(self, rebase):
        """rebase(delta_us) is called when the scale moves: subtract delta_us from every time kept."""
        self._listeners.append(rebase)

    def now(self):
        t = ticks_us()
        self._us += ticks_diff(t, self._last)
        self._last = t
        if self._us >= 2 * EPOCH_US:
            self._us -= EPOCH_US
            self.base += EPOCH_US
            self.base_ms += EPOCH_US // 1000
            for rebase in self._listeners:
                rebase(EPOCH_US)
        return self._us

    def at(self, ticks):
        return self._us + ticks_diff(ticks, self._last)

    def now_ms(self):
        """ms since boot (a small int for 12 days)."""
        return self.base_ms + self.now() // 1000
