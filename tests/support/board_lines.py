"""Board lines for the tests that speak to the firmware as a host does: one line read and checked (prefix, JSON,
CRC-32), one host command framed, and the stand-in for the hardware module a test may fake (the rest of the
firmware runs as it is)."""

from __future__ import annotations

import json
import zlib
from typing import Any


def parse(line: str) -> dict[str, Any]:
    """One protocol line, checked the way a host must: prefix, JSON, CRC-32 of the JSON text."""
    assert line.startswith("FB1|"), line
    body, _, crc = line[4:].rpartition("|")
    assert f"{zlib.crc32(body.encode()):08x}" == crc, f"bad CRC on {line!r}"
    doc: dict[str, Any] = json.loads(body)
    return doc


def frame(obj: dict[str, Any]) -> str:
    body = json.dumps(obj, separators=(",", ":"))
    return f"FB1|{body}|{zlib.crc32(body.encode()):08x}\n"


STAND_IN_MACHINE = """
# A stand-in for the hardware module (pins, watchdog, PWM, reset): the only part a test may fake.
PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5
log = []

def reset_cause():
    return WDT_RESET

def reset():
    log.append("reset")
    raise SystemExit(0)

class Pin:
    IN, OUT, PULL_UP, PULL_DOWN, IRQ_RISING, IRQ_FALLING = 0, 1, 1, 2, 1, 2
    def __init__(self, no, mode=-1, pull=-1, value=0):
        self.no = no
        self.v = value or 0
    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v
    def irq(self, handler=None, trigger=3, hard=False):
        log.append("irq %s" % self.no)

class WDT:
    def __init__(self, timeout):
        log.append("wdt %d" % timeout)
        self.fed = 0
    def feed(self):
        if "fed" not in log:
            log.append("fed")

class PWM:
    def __init__(self, pin):
        self.pin = pin
    def freq(self, f):
        log.append("pwm %s %d" % (self.pin.no, f))
    def duty_u16(self, d):
        pass
"""
