"""What `flickboard web` refuses is counted by kind and said on the operator's terminal, never to the bridge."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable


class Refusals:
    """Every request or message refused, counted by kind. The first of each kind is said in one line with its
    reason; the next ones are counted, and the counts are said at most once a minute and when the server stops."""

    def __init__(self, say: Callable[[str], None], every: float = 60.0) -> None:
        self.say = say
        self.every = every
        self.counts: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self._told = 0  # refusals when the counts were last said
        self._told_at = time.monotonic()

    def add(self, kind: str, text: str) -> None:
        with self.lock:
            self.counts[kind] += 1
            first = self.counts[kind] == 1
            total = sum(self.counts.values())
            due = not first and total > self._told and time.monotonic() - self._told_at >= self.every
            if first or due:
                self._told, self._told_at = total, time.monotonic()
        if first:
            self.say(f"refused ({kind}): {printable(text)} [first of its kind; the next ones are counted]")
        elif due:
            self.say(self.summary())

    def summary(self) -> str:
        with self.lock:
            counts = ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items()))
        return f"refused so far: {counts or 'nothing'}"


def printable(text: str) -> str:
    """`text` safe for the operator's terminal: what a client or a topic put in it cannot move the cursor, change
    colours or start a new line (each control character becomes `?`)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)
