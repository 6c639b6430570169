"""The operator's pages of `flickboard web`: the console, and the scoring key handed to phones.

| path | what |
|---|---|
| `/console`, `GET /api/console` | the operator's console; its data (boards, each bridge and its health) needs the key |
| `/scorer?key=...`, `POST /api/key` | the scoring key, given once (operator's link, entry page's form): a cookie |
| `GET /api/scorer` | JSON: whether this browser holds the scoring key |
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from flickboard.displays.web.hub import Hub
from flickboard.displays.web.key import normal_key
from flickboard.displays.web.responses import error_doc, html_response, json_response, response
from flickboard.displays.web.site import Site


class OperatorPages:
    """The routes of the console and of the scoring key (`Pages`, site.py)."""

    def __init__(self, hub: Hub, ui: dict[str, bytes]) -> None:
        self.hub, self.ui = hub, ui

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def links(self, url: str) -> list[str]:
        return [f"  Console: {url}/console"]

    def routes(self, site: Site) -> list[Route]:
        get, post = ["GET"], ["POST"]
        hub = self.hub

        async def console(request: Request) -> Response:
            """The operator's console: the page itself is free (it has its own key form); its data needs the key."""
            return html_response(200, self.ui["console.html"])

        async def api_console(request: Request) -> Response:
            """The console's data, for the scoring key only: every board, and every bridge with its health."""
            refused = await site.key_ok(request, site.given_key(request))
            if refused is not None:
                return refused
            return json_response(200, {"boards": hub.boards(), "broker": hub.connected, "bridges": hub.bridges()})

        async def scorer_link(request: Request) -> Response:
            """The operator's link: the key in the query, kept in a cookie, then the boards."""
            query = (request.scope.get("query_string") or b"").decode("latin-1")
            refused = await site.key_ok(request, parse_qs(query).get("key", [""])[0])
            return refused or response(303, b"", "text/plain", {"Location": "/", **site.key_cookie()})

        async def api_scorer(request: Request) -> Response:
            """Whether this phone holds the key (a wrong one counts as a try)."""
            given = site.given_key(request)
            refused = await site.key_ok(request, given) if given else None
            return refused or json_response(200, {"scorer": bool(given)})

        async def post_key(request: Request) -> Response:
            """`{"key": "..."}` from the entry page's form: the key kept in a cookie, or refused."""
            refused = await site.origin_ok(request)
            if refused is not None:
                return refused
            doc = await site.json_object(request, '{"key": "..."}')
            if isinstance(doc, Response):
                return doc
            given = doc.get("key")
            if not isinstance(given, str):
                return json_response(400, error_doc('send {"key": "..."}'))
            return await site.key_ok(request, given) or json_response(200, {"ok": True}, site.key_cookie())

        return [
            Route("/console", console, methods=get),
            Route("/scorer", scorer_link, methods=get),
            Route("/api/scorer", api_scorer, methods=get),
            Route("/api/console", api_console, methods=get),
            Route("/api/key", post_key, methods=post),
        ]


def scorer_link(url: str, key: str) -> str:
    """The link that gives a phone the scoring key (for the operator's eyes only)."""
    return f"{url}/scorer?key={normal_key(key)}"
