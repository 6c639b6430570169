"""Hand messages from a network thread to one worker that takes them in batches.

paho-mqtt calls back once per message, on its network thread, with no sign of where a burst ends. The inbox
queues each message; its worker takes everything queued (up to `max_batch`) and hands the lot to `handle` at once.
A lone message is a batch of one and goes straight through; under a flood the batches grow by themselves, so the
bridge pays one fsync, one ack and one scoreboard per board per batch instead of per message
(host/board/bridge/output.py).

Failure modes:
- `handle` raises: logged in one line, the batch is dropped (none of it was acknowledged, so the boards resend
  it), and the worker goes on.
- More than `max_queued` messages waiting (the bridge cannot keep up): further messages are dropped and counted
  in `dropped`; they were not acknowledged either, so the boards resend them.
- `stop()`: what is queued is handled before the worker ends.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger("flickboard.inbox")


class Inbox(Generic[T]):
    def __init__(
        self, handle: Callable[[list[T]], object], name: str, max_batch: int = 256, max_queued: int = 50_000
    ) -> None:
        self.handle = handle
        self.name = name
        self.max_batch = max_batch
        self.max_queued = max_queued
        self.received = 0
        self.batches = 0
        self.dropped = 0
        self._queue: collections.deque[T] = collections.deque()
        self._ready = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"inbox {self.name} already started")
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name=f"inbox {self.name}", daemon=True)
        self._thread.start()

    def put(self, item: T) -> bool:
        """Queue one message; False if it was dropped (the queue is full)."""
        with self._ready:
            if len(self._queue) >= self.max_queued:
                self.dropped += 1
                return False
            self._queue.append(item)
            self.received += 1
            self._ready.notify()
        return True

    def depth(self) -> int:
        """How many messages wait to be handled now."""
        with self._ready:
            return len(self._queue)

    def stop(self, timeout: float = 5.0) -> None:
        with self._ready:
            self._stopping = True
            self._ready.notify()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._stopping:
                    self._ready.wait()
                if not self._queue:
                    return
                n = min(len(self._queue), self.max_batch)
                batch = [self._queue.popleft() for _ in range(n)]
            self.batches += 1
            try:
                self.handle(batch)
            except Exception as e:  # never let the worker die: the boards resend what was not acked
                log.error("inbox %s: a batch of %d could not be handled: %s", self.name, len(batch), e)
