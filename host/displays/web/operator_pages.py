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

    def __init__(self, hub: Hub, ui: dict[str, bytes], organiser_page: bool = False) -> None:
        self.hub, self.ui = hub, ui
        self.organiser_page = organiser_page  # a tournament's pages are plugged in: the organiser's link goes there

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
            given = site.given_key(request, organiser=True) or site.given_key(request)
            refused = await site.key_ok(request, given, need="console")
            if refused is not None:
                return refused
            return json_response(200, {"boards": hub.boards(), "broker": hub.connected, "bridges": hub.bridges()})

        async def scorer_link(request: Request) -> Response:
            """The operator's link: the key in the query, kept in a cookie, then the boards."""
            query = (request.scope.get("query_string") or b"").decode("latin-1")
            given = parse_qs(query).get("key", [""])[0]
            grant = await site.grant(request, given)
            if isinstance(grant, Response):
                return grant
            where = "/organiser" if grant.organiser and self.organiser_page else "/"
            if grant.boards is not None and len(grant.boards) == 1:
                where = f"/enter/{next(iter(grant.boards))}"
            return response(303, b"", "text/plain", {"Location": where, **site.key_cookie(given, grant)})

        async def api_scorer(request: Request) -> Response:
            """Whether this phone holds a scoring key, and the boards it scores (a wrong one counts as a try)."""
            given = site.given_key(request)
            if not given:
                return json_response(200, {"scorer": False})
            grant = await site.grant(request, given)
            if isinstance(grant, Response):
                return grant
            boards = None if grant.boards is None else sorted(grant.boards)
            return json_response(200, {"scorer": not grant.organiser, "boards": boards, "key": grant.who})

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
            grant = await site.grant(request, given, organiser=doc.get("organiser") is True)
            if isinstance(grant, Response):
                return grant
            boards = None if grant.boards is None else sorted(grant.boards)
            said = {"ok": True, "organiser": grant.organiser, "boards": boards, "key": grant.who}
            return json_response(200, said, site.key_cookie(given, grant))

        return [
            Route("/console", console, methods=get),
            Route("/scorer", scorer_link, methods=get),
            Route("/api/scorer", api_scorer, methods=get),
            Route("/api/console", api_console, methods=get),
            Route("/api/key", post_key, methods=post),
        ]


def scorer_link(url: str, key: str) -> str:
    """The link that gives a browser a key: a phone its scoring key, the organiser's their own (for their eyes only)."""
    return f"{url}/scorer?key={normal_key(key)}"
