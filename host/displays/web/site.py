"""The HTTP side of `flickboard web` (`Site`): Starlette's routes, behind one guard that checks every request's Host
first and turns any failure into one line on the terminal and a one-line answer (never a traceback).

Pages plug in as `Pages`: each gives its routes, is started and stopped with the server, and says its links on the
operator's terminal. A page's handlers ask the site who may ask: `board_ok`, `origin_ok`, `key_ok` (with
`given_key`), `rate_ok`, `json_object` or `body` for a POST, `refuse` and `not_found`; each answers None when the
request may go on, or the response that refuses it (counted in refusals.py, said once per kind). They answer with
responses.py. Who may do what: docs/displays.md, "Who can score".
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import html
import ipaddress
import json
import math
import socket
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from flickboard import i18n
from flickboard.config import is_board_id
from flickboard.displays.web import limits
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.key import KEY_COOKIE, KEY_HEADER, KEY_MAX_AGE, ORGANISER_COOKIE, Grant, Keys, normal_key
from flickboard.displays.web.limits import Buckets
from flickboard.displays.web.refusals import Refusals, printable
from flickboard.displays.web.responses import error_doc, html_response, json_response


class Pages(Protocol):
    """A set of pages served by `flickboard web`: the server's own (board_pages.py, operator_pages.py) and those
    plugged in (the tournament's). Routes come in the order the pages are given; the first that matches answers."""

    def routes(self, site: Site) -> list[Route]: ...

    def start(self) -> None:
        """When the server starts (before it answers)."""

    def stop(self) -> None:
        """When the server stops."""

    def links(self, url: str) -> list[str]:
        """What the operator's terminal says about these pages at start: one line each."""


class Site:
    """The HTTP application: the pages' routes behind the guard. It holds what the guard checks: the names this server
    answers for, the scoring key and the rates, and counts every refusal in `refusals`."""

    def __init__(
        self, cfg: WebConfig, keys: Keys, refusals: Refusals, say: Callable[[str], None], pages: Sequence[Pages]
    ) -> None:
        self.cfg = cfg
        self.keys = keys
        self.refusals = refusals
        self.say = say
        self.names = own_names(cfg)
        self.key_tries = Buckets(*cfg.key_rate)  # wrong keys, per address
        self.all_key_tries = Buckets(*cfg.all_keys_rate)  # wrong keys, from every address together
        self.known: collections.OrderedDict[str, None] = collections.OrderedDict()  # addresses that gave a right key
        self._known_lock = threading.Lock()
        self.client_rate = Buckets(*cfg.client_rate)
        self.board_rate = Buckets(*cfg.board_rate)
        routes = [route for p in pages for route in p.routes(self)]
        handlers = {HTTPException: self._http_error, Exception: self._crashed}
        self.app = Starlette(routes=routes, exception_handlers=handlers)
        self.app.router.redirect_slashes = False  # `/tv/t1/` is no page, as it never was

    def host_problem(self, host: str | None, local: str) -> str | None:
        """Why a request's Host is not one this server answers for; None when it is: one of its names (localhost,
        the machine's names, --host, --allowed-host), or the very address the request came in on."""
        if not host:
            return "no Host header: send the name or address of this server"
        try:  # a host name or address and a port, nothing else (`evil@localhost` is not localhost)
            name = urlsplit(f"//{host}").hostname if not any(c in host for c in "@/?#\\ ") else None
            urlsplit(f"//{host}").port  # noqa: B018 (a bad port raises)
        except ValueError:
            name = None
        if name is None:
            return f"bad Host header {host[:80]!r}"
        name = name.rstrip(".")
        if name in self.names:
            return None
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(name) == ipaddress.ip_address(local.split("%")[0]):
                return None
        return (
            f"this server does not answer for the name {name[:80]!r}: open it by its own name or address "
            "(a name of your own: --allowed-host)"
        )

    # -- the guard, around everything

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        started = False
        close = scope.get("method") == "POST"  # an entry's connection is not kept (as before: one per request)

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if close and not any(k.lower() == b"connection" for k, _ in message.get("headers", [])):
                    message = {**message, "headers": [*message.get("headers", []), (b"Connection", b"close")]}
            await send(message)

        try:
            request = Request(scope, receive)
            host = request.headers.get("host")
            server = scope.get("server") or ("", 0)
            problem = self.host_problem(host, str(server[0]))
            if problem is not None:
                refusal = await self.refuse(request, 421 if host else 400, "unknown Host", problem)
                await refusal(scope, receive, sending)
                return
            await self.app(scope, receive, sending)
        except (ClientDisconnect, ConnectionError, TimeoutError):
            return  # the browser went away: nothing to tell anyone
        except Exception as e:
            what = f"{scope.get('method')} {_target(scope)[:80]} failed: {type(e).__name__}: {e}"
            self.say(printable(what))
            if not started:
                with contextlib.suppress(Exception):
                    await json_response(500, error_doc("internal error in flickboard web; see its terminal"))(
                        scope, receive, send
                    )

    async def _http_error(self, request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        if code in (404, 405):  # no such path, or not with this method: no such page either way
            return self.not_found(request)
        return json_response(code, error_doc(str(getattr(exc, "detail", "bad request"))))

    async def _crashed(self, request: Request, exc: Exception) -> Response:
        return json_response(500, error_doc("internal error in flickboard web; see its terminal"))

    def not_found(self, request: Request, what: str = "no such page") -> Response:
        if request.url.path.startswith("/api/"):
            return json_response(404, error_doc(what))
        return html_response(
            404, f"<!doctype html><title>Not found</title><p>{html.escape(what)}. <a href='/'>Boards</a></p>"
        )

    # -- who may ask

    async def refuse(
        self, request: Request, code: int, kind: str, text: str, extra: dict[str, str] | None = None
    ) -> Response:
        """Refuse the request: counted, the first of its kind said on the terminal, one line to the client."""
        scope = request.scope
        self.refusals.add(kind, f"{request.method} {_target(scope)[:60]} from {_client(request)}: {text}")
        if request.method == "POST":  # closing on unread bytes would reset the connection
            await self._drain(request)
        headers = {**(extra or {}), "Connection": "close"}
        if request.url.path.startswith("/api/") or request.method != "GET":
            sentence = i18n.said(text)  # a Message (a tournament's board refusal): for the page to say in its language
            said_too = {"said": sentence} if sentence else {}
            return json_response(code, {**error_doc(text), "refused": kind, **said_too}, headers)
        said = html.escape(text, quote=False)
        return html_response(
            code, f"<!doctype html><title>Refused</title><p>{said}</p><p><a href='/'>Boards</a></p>", headers
        )

    @staticmethod
    async def _drain(request: Request) -> None:
        if request.scope.get("flickboard.body_read"):
            return
        with contextlib.suppress(ValueError):
            length = int(request.headers.get("content-length") or 0)
            if 0 < length <= 16 * limits.MAX_BODY:
                request.scope["flickboard.body_read"] = True
                with contextlib.suppress(ClientDisconnect, TimeoutError):
                    async with asyncio.timeout(limits.REQUEST_TIMEOUT):
                        async for _ in request.stream():
                            pass

    async def origin_ok(self, request: Request) -> Response | None:
        """A request that changes something comes from this server's own page: its Origin is this server."""
        origin = request.headers.get("origin")
        host = (request.headers.get("host") or "").lower()
        if origin is None:
            problem = "no Origin header: entries are taken from this server's own page (other programs: send Origin)"
        elif origin == "null":
            problem = "Origin null (a sandboxed or local file page): entries are taken from this server's own page"
        elif _netloc(origin) != host:
            problem = f"entries from another site's page are refused (Origin {origin[:80]})"
        else:
            return None
        return await self.refuse(request, 403, "foreign Origin", problem)

    @staticmethod
    def given_key(request: Request, organiser: bool = False) -> str | None:
        """The key a request gives: its X-Flickboard-Key header, else its cookie (the organiser's, or the scorer's)."""
        given = request.headers.get(KEY_HEADER)
        cookie = ORGANISER_COOKIE if organiser else KEY_COOKIE
        if given is None:
            for part in (request.headers.get("cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == cookie:
                    given = value
        return given

    async def key_ok(
        self, request: Request, given: str | None, *, board: str | None = None, need: str = "any"
    ) -> Response | None:
        """None when the key may do what is asked (`need`: "score" `board`, "organiser", "console", or "any" key of
        this server's); a refusal (401, 403) or throttled (429) otherwise. A device that sent too many wrong keys is
        refused for a while whatever it sends, so guessing goes no faster; and past a budget of wrong keys from every
        address together, only devices that gave a right key before are heard, so many addresses buy no more
        guesses."""
        grant = await self.grant(request, given, organiser=need == "organiser")
        if isinstance(grant, Response):
            return grant
        if need == "score" and board is not None and not grant.scores(board):
            if grant.organiser:
                said = "the organiser's key scores no board: use a scoring key for this board"
            else:
                said = f"this is {grant.who}: it does not score board {board}; ask the organiser for that board's key"
            return await self.refuse(request, 403, "key for other boards", said)
        if need == "organiser" and not grant.organiser:
            said = (
                f"this is {grant.who}: the organiser's page needs the organiser's key (on the terminal of "
                "flickboard web)"
            )
            return await self.refuse(request, 403, "not the organiser's key", said)
        if need == "console" and not (grant.organiser or grant.boards is None):
            said = f"this is {grant.who}: the console needs the organiser's key or the scoring key for every board"
            return await self.refuse(request, 403, "not the organiser's key", said)
        return None

    async def grant(self, request: Request, given: str | None, organiser: bool = False) -> Grant | Response:
        """What the given key may do, or the refusal: none given (401), a wrong one (403), too many wrong ones (429)."""
        client = _client(request)
        whose = "the organiser's key" if organiser else "the scoring key"
        if not given:
            if organiser:
                return await self.refuse(
                    request, 401, "no organiser's key", "the organiser's page needs the organiser's key: it is on "
                    "the terminal of flickboard web"
                )  # fmt: skip
            return await self.refuse(request, 401, "no scoring key", _who_needs_the_key(request))
        wait = self.key_tries.wait(client)
        if wait > 0:
            secs = max(1, math.ceil(wait))
            return await self.refuse(
                request,
                429,
                "wrong keys throttled",
                f"too many wrong {'keys' if organiser else 'scoring keys'} from this device: try again in {secs} s",
                {"Retry-After": str(secs)},
            )
        known = client in self.known
        wait = 0.0 if known else self.all_key_tries.wait("*")
        if wait > 0:
            secs = max(1, math.ceil(wait))
            return await self.refuse(
                request,
                429,
                "wrong keys from many devices",
                f"too many wrong keys on this server from many devices just now: try again in {secs} s",
                {"Retry-After": str(secs)},
            )
        grant = self.keys.grant(given)
        if grant is not None:
            with self._known_lock:
                self.known[client] = None
                self.known.move_to_end(client)
                while len(self.known) > limits.MAX_BUCKETS:
                    self.known.popitem(last=False)
            return grant
        self.key_tries.take(client)
        self.all_key_tries.take("*")
        # a cookie with an old key (the server restarted without --key-file) is cleared: the next page asks anew
        cookie = ORGANISER_COOKIE if organiser else KEY_COOKIE
        forget = {} if request.headers.get(KEY_HEADER) else {"Set-Cookie": f"{cookie}=; Path=/; Max-Age=0"}
        return await self.refuse(
            request,
            403,
            "wrong scoring key",
            f"wrong key: ask the organiser for {whose}" if organiser else
            "wrong scoring key: ask the organiser for the one on their screen",
            forget,
        )  # fmt: skip

    async def rate_ok(self, request: Request, board: str) -> Response | None:
        wait = self.client_rate.take(_client(request))
        who = "this device"
        if wait == 0:
            wait = self.board_rate.take(board)
            who = f"board {board}"
        if wait == 0:
            return None
        secs = max(1, math.ceil(wait))
        return await self.refuse(
            request,
            429,
            "too many entries",
            f"too many entries for {who} at once: wait {secs} s and send it again (nothing was sent)",
            {"Retry-After": str(secs)},
        )

    @staticmethod
    def key_cookie(given: str, grant: Grant) -> dict[str, str]:
        """The cookie that keeps a right key in this browser: the organiser's, or the scorer's."""
        name = ORGANISER_COOKIE if grant.organiser else KEY_COOKIE
        return {"Set-Cookie": f"{name}={normal_key(given)}; Path=/; Max-Age={KEY_MAX_AGE}; HttpOnly; SameSite=Strict"}

    def board_ok(self, request: Request, board: str) -> Response | None:
        """None when the board may be shown: a valid id, followed by this server; a 404 otherwise."""
        boards = self.cfg.boards
        if not is_board_id(board):
            return self.not_found(request, f"bad board id {board[:40]!r} (1-32 of A-Z a-z 0-9 _ -)")
        if boards is not None and board not in boards:
            return self.not_found(request, f"board {board} is not one this server follows")
        return None

    # -- a POST's body

    async def json_object(self, request: Request, shape: str) -> dict[str, Any] | Response:
        """The POST body as a JSON object, or the refusal to answer (`shape`: what to send, for its message)."""
        body = await self.body(request)
        if isinstance(body, Response):
            return body
        try:
            doc = json.loads(body)
        except (UnicodeDecodeError, ValueError, RecursionError):
            doc = None
        return doc if isinstance(doc, dict) else json_response(400, error_doc(f"send {shape}"))

    async def body(self, request: Request) -> bytes | Response:
        """The POST body, JSON of at most MAX_BODY bytes; or the refusal to answer."""
        length_text = request.headers.get("content-length")
        if length_text is None:
            return json_response(411, error_doc("send the request with a Content-Length"))
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length < 0:
            return json_response(400, error_doc("bad Content-Length"))
        if length > limits.MAX_BODY:
            await self._drain(request)  # so the client gets this answer rather than a reset connection
            return json_response(413, error_doc(f"request of {length} bytes, longer than {limits.MAX_BODY}"))
        ctype = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        request.scope["flickboard.body_read"] = True
        try:
            async with asyncio.timeout(limits.REQUEST_TIMEOUT):
                body = await request.body()
        except TimeoutError:
            return json_response(408, error_doc(f"the request's body did not come within {limits.REQUEST_TIMEOUT:g} s"))
        if ctype != "application/json":
            return json_response(415, error_doc('send JSON (Content-Type: application/json): {"line": "..."}'))
        return body


# Who asks without the key, by the path it asks on: the console is the operator's, every other page a scorer's phone.
NO_KEY = {
    "/api/console": "the console shows the operator's details: type the organiser's key (or the scoring key for every "
    "board) the operator's terminal shows",
}
NO_KEY_PHONE = "to score, give this phone the scoring key: the organiser's screen shows it"


def _who_needs_the_key(request: Request) -> str:
    return NO_KEY.get(request.url.path, NO_KEY_PHONE)


def own_names(cfg: WebConfig) -> frozenset[str]:
    """The host names this server answers for, in lower case."""
    names = {"localhost", "localhost.localdomain", *(h.lower().rstrip(".") for h in cfg.allowed_hosts)}
    with contextlib.suppress(OSError):
        short = socket.gethostname().lower()
        names |= {short, f"{short}.local", socket.getfqdn().lower()}
    if cfg.host not in ("", "0.0.0.0", "::"):
        names.add(cfg.host.lower().strip("[]"))
    return frozenset(n for n in names if n)


def _netloc(url: str) -> str | None:
    """The host:port of a URL in lower case; None when it is not a URL."""
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return None


def _target(scope: Scope) -> str:
    """The request's path and query as the client wrote them (for the operator's terminal: see `printable`)."""
    raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
    query = scope.get("query_string") or b""
    text = raw.decode("latin-1")
    return f"{text}?{query.decode('latin-1')}" if query else text


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"
