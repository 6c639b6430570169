"""The limits of `flickboard web`: how much a request, a page and a client may take (docs/security.md).

Entries and wrong scoring keys are rate-limited with token buckets (`Buckets`), per client address and per board; the
settings are `WebConfig`'s defaults. Every limit here is a refusal that is counted (refusals.py), never a crash.
"""

from __future__ import annotations

import collections
import threading
import time

MAX_BODY = 4096  # bytes of a POST body; a valid request is well under MAX_INPUT (2048) anyway
MAX_STREAMS = 4_000  # live pages at once (a TV per board and a phone per player: a big hall is a few hundred)
STREAMS_PER_ADDRESS = 16  # live pages at once from one client address (a phone or a TV has one or two open)
CROWDED = 3_000  # past this many live pages, an address that has CROWDED_PER_ADDRESS open gets no more, so the last
CROWDED_PER_ADDRESS = 2  # MAX_STREAMS - CROWDED are kept for devices with a page or two (the room's TVs, phones)
MAX_QUEUED = 256  # events waiting for a slow page; beyond, its backlog is dropped and it gets the latest scoreboard
REQUEST_TIMEOUT = 30.0  # seconds a client may take to send a request's head, or its body, before it is dropped
LISTEN_BACKLOG = 2048  # connections waiting to be accepted (a hall's pages reconnecting at once after a restart)
CLIENT_RATE = (3.0, 30.0)  # entries a second, and at once, from one client address
BOARD_RATE = (2.0, 20.0)  # entries a second, and at once, for one board
KEY_RATE = (1 / 12, 5.0)  # wrong scoring keys from one client address: 5 at once, then one every 12 s
ALL_KEYS_RATE = (1.0, 60.0)  # wrong keys from all addresses together: 60 at once, then one a second
MAX_BUCKETS = 4096  # client addresses and boards whose rates are kept


class Buckets:
    """Token buckets by name (a client address, a board): `rate` tokens a second, at most `burst` saved up. At most
    MAX_BUCKETS names are kept; a full bucket is forgotten first, as it holds nothing a new one would not."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.lock = threading.Lock()
        self.levels: collections.OrderedDict[str, tuple[float, float]] = collections.OrderedDict()

    def wait(self, name: str) -> float:
        """The seconds until `name` has a token (0: it has one now); nothing is taken."""
        now = time.monotonic()
        with self.lock:
            level, at = self.levels.get(name, (self.burst, now))
        level = min(self.burst, level + (now - at) * self.rate)
        return 0.0 if level >= 1 else (1 - level) / self.rate

    def take(self, name: str) -> float:
        """0 when a token was taken; otherwise the seconds until the next one."""
        now = time.monotonic()
        with self.lock:
            level, at = self.levels.pop(name, (self.burst, now))
            level = min(self.burst, level + (now - at) * self.rate)
            if level >= 1:
                self.levels[name] = (level - 1, now)
                wait = 0.0
            else:
                self.levels[name] = (level, now)
                wait = (1 - level) / self.rate
            if len(self.levels) > MAX_BUCKETS:
                self._forget(now)
            return wait

    def _forget(self, now: float) -> None:
        for name, (level, at) in list(self.levels.items()):
            if level + (now - at) * self.rate >= self.burst:
                del self.levels[name]
        while len(self.levels) > MAX_BUCKETS:
            self.levels.popitem(last=False)
