"""`flickboard web` running (`WebApp`, `start_web`): the hub connected to the broker, and uvicorn serving the site in
a thread of its own with its own asyncio loop.

    app = start_web(WebConfig(parse_mqtt_url(url)))    # in-process (tests); app.url, app.stop()
    app = start_web(cfg, pages=[lambda app: TournamentPages(app, path)])   # with pages plugged in (site.py, Pages)

An open page costs a queue and a coroutine, not a thread, so a hall's TVs and phones (up to MAX_STREAMS) fit. uvicorn's
own log lines become one line each on the operator's terminal; a malformed request is a refusal like the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from flickboard.displays.web import limits
from flickboard.displays.web.board_pages import BoardPages
from flickboard.displays.web.config import WebConfig, WebError
from flickboard.displays.web.hub import Hub
from flickboard.displays.web.key import Keys, new_key, normal_key
from flickboard.displays.web.operator_pages import OperatorPages, scorer_link
from flickboard.displays.web.refusals import Refusals, printable
from flickboard.displays.web.responses import PAGES, STATIC, load_files
from flickboard.displays.web.site import Pages, Site

PagesMaker = Callable[["WebApp"], Pages]  # pages to plug in, made once the server has its hub and its port
P = TypeVar("P")


class _Protocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol, with a deadline on a request's head: a client that connects and sends nothing, or
    its headers a byte at a time, is dropped after REQUEST_TIMEOUT (as the stdlib server's 30 s did), so silent
    connections cannot hold the server's file descriptors. An open event stream sends, it does not wait: no
    deadline then."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(limits.REQUEST_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class _SayLog(logging.Handler):
    """uvicorn's own log lines, as one line each on the operator's terminal (never a traceback): a malformed request
    is a refusal like the others, counted; anything else is said."""

    def __init__(self, web: WebApp) -> None:
        super().__init__(logging.WARNING)
        self.web = web

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                err = record.exc_info[1]
                text += f" ({type(err).__name__}: {err})"
            if "Invalid HTTP request" in text:
                self.web.refusals.add("bad HTTP request", f"{text} (the HTTP parser refused it)")
            else:
                self.web.say(printable(f"HTTP server: {text}"))


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here (so a port in use is one line at start, and port 0 is known at once)."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    infos.sort(key=lambda i: i[0] != socket.AF_INET)  # IPv4 first, as the stdlib server did
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(limits.LISTEN_BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _raise_file_limit(wanted: int) -> None:
    """One open page is one file descriptor: raise the soft limit towards `wanted` (never above the hard one)."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class WebApp:
    """A running `flickboard web`: the hub connected (in the background) and uvicorn serving the Starlette site in
    a thread of its own, with its own event loop."""

    def __init__(self, cfg: WebConfig, say: Callable[[str], None], pages: Sequence[PagesMaker] = ()) -> None:
        self.cfg = cfg
        self.say = say
        self.ui = load_files("flickboard.displays.web", (*PAGES, *STATIC))
        self.refusals = Refusals(say)
        self.key = cfg.key or new_key()  # as the operator wrote it, or ABCD-EFGH: scores every board
        self.organiser_key = cfg.organiser_key or new_key()  # the organiser's page and the console; scores nothing
        while normal_key(self.organiser_key) == normal_key(self.key) and cfg.organiser_key is None:
            self.organiser_key = new_key()
        self.keys = Keys(self.key, self.organiser_key, cfg.scorer_keys)  # WebError: said in one line
        self.hub = Hub(cfg, say, self.refusals)
        try:
            self.sock = _listen(cfg.host, cfg.port)
        except OSError as e:
            raise WebError(f"cannot listen on {cfg.host}:{cfg.port}: {e.strerror or e}") from None
        self.port = int(self.sock.getsockname()[1])
        try:
            self.pages: list[Pages] = [make(self) for make in pages]  # plugged in: their routes come first
        except WebError:
            self.sock.close()
            raise
        own: list[Pages] = [BoardPages(cfg, self.hub, self.ui), OperatorPages(self.hub, self.ui, bool(self.pages))]
        self.site = Site(cfg, self.keys, self.refusals, say, [*self.pages, *own])
        self.links = [line for p in [*own, *self.pages] for line in p.links(self.url)]
        config = uvicorn.Config(
            self.site,
            http=_Protocol,
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=False,  # a client's X-Forwarded-For must not change its address (the rate limits)
            server_header=False,
            timeout_graceful_shutdown=2,
            backlog=limits.LISTEN_BACKLOG,
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.log = _SayLog(self)
        self._stopped = False
        self._thread = threading.Thread(target=self._serve, name="flickboard-web", daemon=True)

    @property
    def url(self) -> str:
        host = self.cfg.host
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostname()
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def organiser_link(self) -> str:
        """The link that logs a browser in as the organiser (for the organiser's eyes only)."""
        return scorer_link(self.url, self.organiser_key)

    @property
    def scorer_link(self) -> str:
        """The link that gives a phone the scoring key (for the operator's eyes only)."""
        return scorer_link(self.url, self.key)

    def plugged(self, kind: type[P]) -> P | None:
        """The plugged-in pages of this kind, if any."""
        return next((p for p in self.pages if isinstance(p, kind)), None)

    def _serve(self) -> None:
        loop = self.loop
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(self._loop_error)
        try:
            loop.run_until_complete(self.server.serve(sockets=[self.sock]))
        except (Exception, SystemExit) as e:  # the thread's end: said in one line, whatever it was
            self.say(printable(f"the HTTP server stopped: {type(e).__name__}: {e}"))
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        err = context.get("exception")
        if isinstance(err, ConnectionError | TimeoutError | asyncio.CancelledError):
            return
        detail = f"{type(err).__name__}: {err}" if err is not None else str(context.get("message", "?"))
        if isinstance(err, OSError) and err.errno in (errno.EMFILE, errno.ENFILE):  # asyncio retries every second
            self.refusals.add(
                "out of open files",
                f"a connection could not be accepted: {detail} (raise the open-file limit: ulimit -n, LimitNOFILE=)",
            )
            return
        self.say(printable(f"HTTP server: {detail}"))

    def start(self) -> None:
        _raise_file_limit(limits.MAX_STREAMS + 1024)
        self.hub.loop = self.loop
        try:
            self.hub.start()
        except WebError:
            self.sock.close()
            raise
        for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi"):  # all to "uvicorn", and no further
            logging.getLogger(name).propagate = True
        logging.getLogger("uvicorn").propagate = False
        logging.getLogger("uvicorn").addHandler(self.log)
        self._thread.start()
        for p in self.pages:
            p.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise WebError(f"the HTTP server on {self.cfg.host}:{self.port} did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for p in self.pages:
            p.stop()
        self.hub.stop()  # closes the event streams, in the loop: their responses end
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(10)
        with contextlib.suppress(OSError):
            self.sock.close()
        logging.getLogger("uvicorn").removeHandler(self.log)
        if self.refusals.counts:
            self.say(self.refusals.summary())


def start_web(cfg: WebConfig, say: Callable[[str], None] | None = None, pages: Sequence[PagesMaker] = ()) -> WebApp:
    """`flickboard web` started in the background, with `pages` plugged in. Raises WebError (one line)."""
    app = WebApp(cfg, say or (lambda text: print(f"flickboard web: {text}", file=sys.stderr, flush=True)), pages)
    app.start()
    return app
