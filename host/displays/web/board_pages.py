"""The board pages of `flickboard web`: the index of boards, each board's TV scoreboard and phone entry page, their
CSS and scripts, and the JSON they read and post.

| path | what |
|---|---|
| `/` | the boards seen on the broker, with links |
| `/tv/<board>`, `/enter/<board>` | the TV scoreboard, the phone entry page |
| `/static/<file>` | their CSS and scripts |
| `/api/boards`, `/api/rules` | JSON: the boards seen; every game's rule sets (and Pichenotte's zone values) |
| `/api/messages` | JSON: the pages' sentences in the languages they may speak (`?lang=`, the browser's, a game's) |
| `/api/<board>/scoreboard` | JSON: the latest scoreboard document (404 until one was seen) |
| `/api/<board>/stream` | `text/event-stream`: `status` and the latest `scoreboard`, then each new one, `moment`s |
| `POST /api/<board>/input` | `{"line": ...}` or `{"new": {...}}`: checked, sent with an id, the bridge's answer |

Reading needs nothing; an entry must come from this server's own page (Origin) with the scoring key, and is
rate-limited per client and per board (site.py).
"""

from __future__ import annotations

import contextlib
import html
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from flickboard import i18n
from flickboard.core.entries import RequestError, read_request
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.hub import Hub
from flickboard.displays.web.plain import plain, plain_request
from flickboard.displays.web.responses import STATIC, error_doc, html_response, json_response, response
from flickboard.displays.web.site import Site
from flickboard.displays.web.streams import EventStream
from flickboard.rules import games
from flickboard.rules.pichenotte import RULE_SETS, rule_set
from flickboard.rules.pichenotte.engine import ZONE_VALUES


class BoardPages:
    """The routes of the board pages (`Pages`, site.py)."""

    def __init__(self, cfg: WebConfig, hub: Hub, ui: dict[str, bytes]) -> None:
        self.cfg, self.hub, self.ui = cfg, hub, ui

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def links(self, url: str) -> list[str]:
        lines = []
        for b in self.cfg.boards or ("<board>",):
            lines += [f"  TV: {url}/tv/{b}", f"  Entry: {url}/enter/{b}"]
        return lines

    def routes(self, site: Site) -> list[Route]:
        get, post = ["GET"], ["POST"]
        hub = self.hub

        async def index(request: Request) -> Response:
            return html_response(200, self.index_page())

        async def page(request: Request) -> Response:
            board = request.path_params["board"]
            kind = request.url.path.split("/")[1]  # tv or enter
            return site.board_ok(request, board) or html_response(200, self.ui[f"{kind}.html"])

        async def static(request: Request) -> Response:
            name = request.path_params["name"]
            if name not in STATIC:
                return site.not_found(request)
            return response(200, self.ui[name], f"{STATIC[name]}; charset=utf-8")

        async def api_boards(request: Request) -> Response:
            return json_response(200, {"boards": hub.boards(), **hub.status()})

        async def api_rules(request: Request) -> Response:
            return json_response(200, rules_info())

        async def api_messages(request: Request) -> Response:
            q = request.query_params
            return json_response(
                200,
                messages_doc(q.get("lang") or self.cfg.lang, request.headers.get("accept-language"), q.get("browser")),
            )

        async def api_scoreboard(request: Request) -> Response:
            board = request.path_params["board"]
            bad = site.board_ok(request, board)
            if bad is not None:
                return bad
            doc = hub.scoreboard(board)
            if doc is None:
                return json_response(404, error_doc(f"no scoreboard for board {board} yet: is a bridge following it?"))
            return response(200, doc.encode(), "application/json")

        async def api_stream(request: Request) -> Response:
            board = request.path_params["board"]
            bad = site.board_ok(request, board)
            if bad is not None:
                return bad
            client = request.client.host if request.client is not None else "?"
            opened = hub.open_stream(board, client)
            if isinstance(opened, str):
                if hub.closing:
                    return json_response(503, error_doc(opened), {"Connection": "close"})
                kind, code = ("too many pages", 503) if "on this server" in opened else ("too many pages here", 429)
                return await site.refuse(request, code, kind, opened, {"Retry-After": "10"})
            stream, _doc = opened
            return EventStream(hub, stream, "retry: 2000\n\n" + hub.stream_start(board))

        async def post_input(request: Request) -> Response:
            board = request.path_params["board"]
            refused = (
                await site.origin_ok(request)
                or await site.key_ok(request, site.given_key(request), board=board, need="score")
                or await site.rate_ok(request, board)
                or site.board_ok(request, board)
            )
            if refused is not None:
                return refused
            body = await site.body(request)
            if isinstance(body, Response):
                return body
            try:
                checked = read_request(body, with_id=False)
            except RequestError as e:
                sent: Any = None
                with contextlib.suppress(ValueError, RecursionError):
                    sent = json.loads(body)
                said = plain_request(sent, str(e)) if isinstance(sent, dict) else {}
                return json_response(400, {**error_doc(str(e)), **said})
            req = {"line": checked.line} if checked.line is not None else {"new": checked.new}
            for check in hub.checks:
                why = check(board, req)
                if why is not None:
                    return await site.refuse(request, 409, "board holds a tournament match", why)
            code, res = await hub.send_async(board, req)
            if code == 200:  # the bridge's answer, and beside it the same said for the scorer (plain.py)
                res.update(plain(self.score(board), req, res))
            return json_response(code, res)

        return [
            Route("/", index, methods=get),
            Route("/tv/{board}", page, methods=get),
            Route("/enter/{board}", page, methods=get),
            Route("/static/{name}", static, methods=get),
            Route("/api/boards", api_boards, methods=get),
            Route("/api/rules", api_rules, methods=get),
            Route("/api/messages", api_messages, methods=get),
            Route("/api/{board}/scoreboard", api_scoreboard, methods=get),
            Route("/api/{board}/stream", api_stream, methods=get),
            Route("/api/{board}/input", post_input, methods=post),
        ]

    def score(self, board: str) -> dict[str, Any] | None:
        """The board's latest `score` (the scoreboard's summary document), or None."""
        text = self.hub.scoreboard(board)
        try:
            doc = json.loads(text) if text is not None else None
        except ValueError:
            return None
        return doc.get("score") if isinstance(doc, dict) and isinstance(doc.get("score"), dict) else None

    def index_page(self) -> bytes:
        boards = self.hub.boards()
        status = self.hub.status()
        rows = []
        for b, row in boards.items():
            sides, totals = row["sides"], row["totals"]
            score = " - ".join(f"{s} {t}" for s, t in zip(sides, totals, strict=False)) or "?"
            state = {True: "board online", False: "board offline", None: "scored by hand"}.get(row["online"], "")
            if row["over"]:
                state = "match over" if row["game"] == "pichenotte" else "game over"
            rows.append(
                f'<li><span class="bid">{html.escape(b)}</span> <span class="bscore">{html.escape(score)}</span> '
                f'<span class="bstate">{html.escape(state)}</span> '
                f'<a class="btn" href="/tv/{b}">TV</a> <a class="btn" href="/enter/{b}">Enter</a></li>'
            )
        if not rows:
            rows.append(f"<li class='none'>No scoreboard seen yet on {html.escape(str(self.cfg.mqtt))}.</li>")
        if not status["broker"]:
            conn = f"not connected to the broker {self.cfg.mqtt}: trying again"
        else:
            bridges = status["bridges"]
            said = [f"bridge {b} " + ("running" if up else "OFFLINE") for b, up in sorted(bridges.items())]
            conn = (
                "; ".join(said)
                if said
                else "no bridge has reported on this broker yet: start flickboard bridge for the boards"
            )
        page = self.ui["index.html"].decode()
        page = page.replace("<!--BOARDS-->", "\n".join(rows)).replace("<!--STATUS-->", html.escape(conn))
        return page.encode()


def rules_info() -> dict[str, Any]:
    """Every game's rule sets as the pages need them (rules/games.py): the game each belongs to, and for
    Pichenotte the zone values for the end of a game and the free-shot zone. Flicochet's layers combine
    (`flicochet+double-jack+school`); the combinations listed are the seed's own ones."""
    sets: list[dict[str, Any]] = []
    for name in RULE_SETS:
        o = rule_set(name)
        allowed = ZONE_VALUES if o.post_values else ZONE_VALUES[:4]
        values: list[int | str] = [*(v for v in allowed if v), 0, "edge"]  # 0: out of bounds; edge: 15
        sets.append(
            {
                "name": name,
                "game": "pichenotte",
                "summary": o.summary,
                "zone_values": values,
                "free_shot_zone": o.free_shot_zone,
            }
        )
    for game in ("pichenottes-quebec", "flicochet"):
        for name, summary in games.rule_sets(game):
            if "..." in name:  # `flicochet+A+B...`: a pattern, not a rule set
                continue
            sets.append({"name": name, "game": game, "summary": summary, "zone_values": [], "free_shot_zone": None})
    info = [
        {
            "name": name,
            "title": game.title,
            "default": game.default_rules,
            "players": game.players_said(game.default_rules),
            "counts": list(game.players),
        }
        for name, game in games.GAMES.items()
    ]
    return {"rules": sets, "games": info, "default": "tournament-2019"}


def messages_doc(asked: str | None, accept: str | None, browser: str | None) -> dict[str, Any]:
    """What a page needs to speak (common.js `FB.T`): the language the user asked for (`?lang=`, `flickboard web
    --lang`), the browser's first language there is a catalogue for (Accept-Language, else `navigator.languages`),
    each game's own language, the catalogues of those languages ({English sentence: translation}) and the words each
    elides before a vowel (i18n.ELISIONS). A page picks as i18n.choose does: asked, else the game's, else the
    browser's, else English."""
    first = next((i18n.known(x) for x in [*i18n.accepted(accept), *(browser or "").split(",")] if i18n.known(x)), None)
    wanted = {i18n.known(asked), first, *i18n.GAME_LANGUAGES.values()} - {None, i18n.SOURCE}
    return {
        "asked": i18n.known(asked),
        "browser": first,
        "games": dict(i18n.GAME_LANGUAGES),
        "messages": {lang: i18n.catalogue(lang) for lang in sorted(x for x in wanted if x)},
        "elisions": {lang: list(i18n.ELISIONS.get(lang, ())) for lang in sorted(x for x in wanted if x)},
    }
