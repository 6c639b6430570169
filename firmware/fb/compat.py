"""Portability seam: the clock, ticks arithmetic and heap locking, the same under MicroPython and CPython.

Ticks are taken modulo 2**30 everywhere (the MicroPython period on the RP2040/ESP32 ports), also under
CPython and the 64-bit unix port, so wrap bugs show up in tests. `set_clock(fn)` lets the simulator
replace the raw µs clock (fn returns any non-negative int; it is masked to 30 bits here).
`Uptime` unwraps ticks into a monotonic int of µs since it was created: call `now()` at least every
few minutes (the main loop does, every iteration).
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


class Uptime:
    """Monotonic µs since creation, unwrapped from 30-bit ticks.

    now() reads the clock and advances; at(ticks) converts a recent event's ticks (within ±2**29 µs of the
    last now()) into the same µs scale. Call now() at least every ~8 minutes.
    """

    def __init__(self):
        self._last = ticks_us()
        self._us = 0

    def now(self):
        t = ticks_us()
        self._us += ticks_diff(t, self._last)
        self._last = t
        return self._us

    def at(self, ticks):
        return self._us + ticks_diff(ticks, self._last)

    def now_ms(self):
        return self.now() // 1000
