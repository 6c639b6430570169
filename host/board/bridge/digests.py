"""The content checks of journaled board events: a CRC of each event's kind, fields and time, kept by boot and seq,
so that a resend (same content) is told from another event that takes the same sequence number (a hold: holds.py)."""

from __future__ import annotations

import array
import zlib
from typing import Any

from flickboard.jsontext import canonical

MAX_DIGESTS = 1 << 20  # content checks held per boot (4 bytes each); beyond, the oldest half is let go


def digest(kind: str, fields: dict[str, Any], t_us: int) -> int:
    """A check of one board event's content (its kind, fields and time), to tell a resend from another event that
    takes the same sequence number. Never 0 (0 means: not known)."""
    return zlib.crc32(canonical([kind, fields, t_us]).encode("utf-8")) or 1


class Digests:
    """The content checks of one boot's journaled events, by seq: 4 bytes each, dense from `start` (the bridge
    journals a boot's events in order). Bounded by MAX_DIGESTS: the oldest half goes when it is full."""

    def __init__(self) -> None:
        self.start = 1
        self.sums = array.array("I")

    def put(self, seq: int, digest: int) -> None:
        i = seq - self.start
        if 0 <= i < len(self.sums):
            self.sums[i] = digest
            return
        if i < 0 or i - len(self.sums) > 4096:  # far outside: start again from here
            self.start, self.sums = seq, array.array("I")
            i = 0
        self.sums.extend([0] * (i - len(self.sums)))
        self.sums.append(digest)
        if len(self.sums) > MAX_DIGESTS:
            half = len(self.sums) // 2
            del self.sums[:half]
            self.start += half

    def get(self, seq: int) -> int:
        i = seq - self.start
        return self.sums[i] if 0 <= i < len(self.sums) else 0
