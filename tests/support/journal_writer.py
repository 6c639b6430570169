"""Crash-test helper: ``journal_writer.py PATH COUNT``.

Opens the journal at PATH (creating it if missing) and appends COUNT entries in a
tight loop, printing "ack N" (and flushing) after each append() has returned.  The
test kills this process with SIGKILL at some point and checks every acked entry.
If open() had to set aside a torn tail it first prints "torn OFFSET LENGTH".
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # the repository

from flickboard.core.journal import Journal


def entry_for(n: int) -> dict[str, Any]:
    """The content of entry n; every third one spans many pages, so kills can tear it."""
    repeat = (n * 7919) % 12_000 if n % 3 == 0 else n % 10  # up to ~60 KB of UTF-8
    return {
        "src": "crash-test",
        "in": f"shot {n} é→✓",
        "at": "2026-11-22T10:00:00Z",
        "pad": "ab€" * repeat,
    }


def main(path: str, count: int) -> None:
    exists = os.path.exists(path)
    with Journal.open(path) if exists else Journal.create(path, {"test": "crash"}) as journal:
        if journal.torn is not None:
            print(f"torn {journal.torn.offset} {journal.torn.length}", flush=True)
        for _ in range(count):
            n = len(journal.records) + 1
            if journal.append(entry_for(n)) != n:
                raise SystemExit(f"append returned an unexpected n (wanted {n})")
            print(f"ack {n}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
