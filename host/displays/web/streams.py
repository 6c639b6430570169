"""The live pages' Server-Sent Events: one bounded queue per open page (`Stream`), filled by the hub from paho's
thread and emptied by the page's response (`EventStream`) in the server's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from flickboard.displays.web import limits

PING_EVERY = 15.0  # seconds between SSE comments on a quiet stream (proxies and browsers close idle ones)
RESYNC = b"\0resync"  # in a page's queue: it fell behind, its backlog was dropped; send the status and scoreboard
PING = b": ping\n\n"  # a comment, on a quiet stream (proxies and browsers close idle ones)
STATUS = b"event: status\n"  # how a status event starts on the wire


def sse(event: str, data: str) -> bytes:
    """One Server-Sent Event, as it goes on the wire (made once per update, whatever the number of pages)."""
    return f"event: {event}\ndata: {data}\n\n".encode()


def _status_in(chunk: bytes) -> bytes | None:
    """The status event a stream's opening (or resync) says, as `sse` would make it."""
    at = chunk.find(b"\n\n" + STATUS)
    start = 0 if chunk.startswith(STATUS) else (at + 2 if at >= 0 else -1)
    end = chunk.find(b"\n\n", start) if start >= 0 else -1
    return chunk[start : end + 2] if end >= 0 else None


class Stream:
    """What waits to be sent on one open event stream, in the server's event loop: whole events, as bytes. The hub
    hands them over from paho's thread with `loop.call_soon_threadsafe`; everything here runs in the loop."""

    def __init__(self, board: str, address: str = "") -> None:
        self.board = board
        self.address = address  # the client's address (the per-address limit)
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(limits.MAX_QUEUED)
        self.closed = False
        self.resyncs = 0  # times this page fell MAX_QUEUED events behind
        self.sent_at = time.monotonic()  # when something last went out (the pinger's clock)

    def push(self, chunk: bytes) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(chunk)
        except asyncio.QueueFull:  # a page that cannot keep up: not a backlog, the latest scoreboard when it can
            self._drain()
            self.resyncs += 1
            self.queue.put_nowait(RESYNC)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._drain()
            self.queue.put_nowait(None)

    def _drain(self) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()


class StreamSource(Protocol):
    """Where a page's stream comes from (the hub): what it says first, and who is told when the page goes."""

    def stream_start(self, board: str) -> str: ...

    def close_stream(self, s: Stream) -> None: ...


class EventStream(Response):
    """`text/event-stream` for one page: `retry`, `status` and the latest `scoreboard` at once, then what the hub
    hands to its queue (the hub's `: ping` too, after PING_EVERY of quiet). Ends when the page goes (its connection
    closes: noticed at once) or the server stops."""

    def __init__(self, hub: StreamSource, stream: Stream, first: str) -> None:
        super().__init__(status_code=200)
        self.hub, self.stream, self.first = hub, stream, first
        head = {
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # behind nginx: do not buffer the stream
            "Server": "flickboard-web",
            "Connection": "close",
        }
        self.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream = self.stream
        watcher = asyncio.create_task(self._watch(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": self.first.encode(), "more_body": True})
            said = _status_in(self.first.encode())
            while (chunk := await stream.queue.get()) is not None:  # None: the page went, or the server stops
                if chunk == RESYNC:
                    chunk = self.hub.stream_start(stream.board).encode()
                    said = _status_in(chunk)
                elif chunk.startswith(STATUS):
                    if chunk == said:  # the same status again (a bridge re-announcing itself): nothing to tell
                        continue
                    said = chunk
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                stream.sent_at = time.monotonic()
            if not watcher.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            self.hub.close_stream(stream)

    async def _watch(self, receive: Receive) -> None:
        """The page never sends anything on its stream: the next message is its disconnection."""
        with contextlib.suppress(Exception):
            while (await receive())["type"] != "http.disconnect":
                pass
        self.stream.close()
