"""The tournament's pages in `flickboard web` (`TournamentPages`, plugged in with `--tournament FILE`): the event
file read for them, the hall run for it, and their routes.

| path | what |
|---|---|
| `/hall` | the room's big screen (`?page=N` pins one page of the standings), from `/api/tournament/hall` every 2 s |
| `/entrant/<name>` | a player's phone: their next match and where, their results, their place |
| `/organiser` | the organiser's page; its data and acts (`/api/tournament/organiser`, `POST .../act`) need the key |
| `/cards/<stage>/<round>` | printable score cards with a QR code to each board's phone page (cards.py) |
| `/static/t/<file>` | their scripts |

The event is read lock-free, and again only when the file changed (`EventFile`). Every act goes through the
tournament's `Director` (a short lock per act, so the hall and the `flickboard tournament` commands may act on the
same file). The server runs the `Hall` for the event in-process: the boards open their assigned matches and report
their results, and its held results are the organiser's to approve or dismiss. If another hall holds the file
(`flickboard tournament run`), the pages work the same and the organiser's page says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from flickboard.core import journal
from flickboard.displays.tournament_pages import acts
from flickboard.displays.tournament_pages.cards import card_base, cards_page, line_page
from flickboard.displays.tournament_pages.views import entrant_problem, entrant_view, hall_view, near, organiser_view
from flickboard.displays.web.config import WebError
from flickboard.displays.web.responses import error_doc, html_response, json_response, load_files, response
from flickboard.displays.web.server import WebApp
from flickboard.displays.web.site import Site
from flickboard.tournament import ActError, Director, read
from flickboard.tournament.event import Event
from flickboard.tournament.hall import Hall, HallError

PAGES = ("hall.html", "entrant.html", "organiser.html")
STATIC = {"hall.js": "text/javascript", "entrant.js": "text/javascript", "organiser.js": "text/javascript"}
LOCK_WAIT = 10.0  # seconds an act waits for another command holding the tournament journal


class EventFile:
    """The tournament journal, folded lock-free and again only when the file changed (its size or time)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._key: tuple[int, int] | None = None
        self._event: Event | None = None
        self._lock = threading.Lock()

    def get(self) -> Event:
        with self._lock:
            st = os.stat(self.path)
            key = (st.st_size, st.st_mtime_ns)
            if key != self._key or self._event is None:
                self._event = read(self.path)
                self._key = key
            return self._event


class TournamentPages:
    """The event file, the hall run for it, and the routes of its pages; `act(doc)` takes one organiser's act."""

    def __init__(self, web: WebApp, path: str) -> None:
        self.web = web
        self.path = path
        self.file = EventFile(path)
        self.hall: Hall | None = None
        self.hall_problem: str | None = None
        try:
            self.file.get()
        except (OSError, journal.JournalError) as e:
            raise WebError(f"--tournament {path}: {getattr(e, 'strerror', None) or e}") from None
        self.ui = load_files("flickboard.displays.tournament_pages", (*PAGES, *STATIC))

    # -- the hall

    def start(self) -> None:
        cfg = self.web.cfg
        hall = Hall(
            self.path, cfg.mqtt, ca_file=cfg.ca_file, boards=cfg.boards, say=lambda t: self.web.say(f"tournament: {t}")
        )
        try:
            self.hall = hall.start()
        except HallError as e:
            self.hall_problem = str(e)
            self.web.say(f"the tournament's boards are not followed here: {e}")

    def stop(self) -> None:
        if self.hall is not None:
            self.hall.stop()

    def hall_state(self) -> dict[str, Any]:
        if self.hall is not None:
            return {"state": "here", "text": "This server runs the hall: boards open their matches and report results"}
        if self.hall_problem and "another hall" in self.hall_problem:
            return {
                "state": "other",
                "text": f"Results from the boards come from the other process: {self.hall_problem}",
            }
        return {"state": "none", "text": f"The boards' results are not followed here: {self.hall_problem}"}

    def held(self) -> list[dict[str, Any]]:
        if self.hall is None:
            return []
        return self.hall.held

    @contextlib.contextmanager
    def director(self) -> Iterator[Director]:
        """The tournament journal locked for one act (through the hall when it runs here)."""
        if self.hall is not None:
            with self.hall.director() as d:
                yield d
            return
        try:
            d = Director.open(self.path, wait=LOCK_WAIT)
        except journal.JournalInUse:
            raise ActError(f"the tournament journal {self.path} is held by another command") from None
        try:
            yield d
        finally:
            d.close()

    def links(self, url: str) -> list[str]:
        return [f"  Hall: {url}/hall  Organiser: {url}/organiser  Entrants: {url}/entrant/<name>"]

    def scoreboard(self, board: str) -> dict[str, Any] | None:
        text = self.web.hub.scoreboard(board)
        if text is None:
            return None
        with contextlib.suppress(ValueError):
            doc = json.loads(text)
            return doc if isinstance(doc, dict) else None
        return None

    # -- one act, as the organiser's page sends it

    def act(self, doc: dict[str, Any]) -> str:
        """Take one organiser's act (acts.py); the line that says what was done (ActError: what was refused, and
        nothing changed)."""
        acts.check(doc)
        with self.director() as d:
            return acts.take(d, doc, self.hall, self.web.hub.boards())

    # -- the routes

    def routes(self, site: Site) -> list[Route]:
        get, post = ["GET"], ["POST"]

        async def page(request: Request) -> Response:
            kind = request.url.path.split("/")[1]
            return html_response(200, self.ui[f"{kind}.html"])

        async def static(request: Request) -> Response:
            name = request.path_params["name"]
            if name not in STATIC:
                return site.not_found(request)
            return response(200, self.ui[name], f"{STATIC[name]}; charset=utf-8")

        def view_of_hall() -> dict[str, Any]:
            return hall_view(self.file.get(), self.scoreboard)

        async def api_hall(request: Request) -> Response:  # (a fold of a long journal: not in the event loop)
            return json_response(200, await asyncio.to_thread(view_of_hall))

        async def api_entrant(request: Request) -> Response:
            ev = await asyncio.to_thread(self.file.get)
            name = request.path_params["name"]
            problem = entrant_problem(ev, name)
            if problem:
                return json_response(404, error_doc(problem))
            return json_response(200, entrant_view(ev, name, self.scoreboard))

        async def api_organiser(request: Request) -> Response:
            refused = await site.key_ok(request, site.given_key(request))
            if refused is not None:
                return refused
            seen = list(self.web.hub.boards())
            ev = await asyncio.to_thread(self.file.get)
            return json_response(200, organiser_view(ev, self.held(), self.hall_state(), seen))

        async def post_act(request: Request) -> Response:
            refused = await site.origin_ok(request) or await site.key_ok(request, site.given_key(request))
            if refused is not None:
                return refused
            doc = await site.json_object(request, '{"do": ..., ...}')
            if isinstance(doc, Response):
                return doc
            try:
                said = await asyncio.to_thread(self.act, doc)
            except (ActError, journal.JournalError) as e:
                return json_response(400, error_doc(str(e).splitlines()[0] if str(e) else type(e).__name__))
            self.web.say(f"organiser: {said}")
            return json_response(200, {"ok": True, "message": said})

        async def cards(request: Request) -> Response:
            ev = await asyncio.to_thread(self.file.get)
            stage, rnd = request.path_params["stage"], request.path_params["round"]
            st = ev.stages.get(stage)
            if st is None:
                return line_page(404, f"no stage named {stage[:60]!r}{near(stage, ev.stages)}")
            ms = [m for m in st.matches.values() if str(m.round) == rnd and m.state != "bye" and m.state != "void"]
            if not ms:
                return line_page(404, f"stage {stage} has no matches in round {rnd[:10]!r}")
            base = card_base(request.url.scheme, request.headers.get("host", ""), self.web.cfg.host, self.web.url)
            return html_response(200, cards_page(ev, st, rnd, ms, base))

        return [
            Route("/hall", page, methods=get),
            Route("/entrant/{name}", page, methods=get),
            Route("/organiser", page, methods=get),
            Route("/cards/{stage}/{round}", cards, methods=get),
            Route("/static/t/{name}", static, methods=get),
            Route("/api/tournament/hall", api_hall, methods=get),
            Route("/api/tournament/entrant/{name}", api_entrant, methods=get),
            Route("/api/tournament/organiser", api_organiser, methods=get),
            Route("/api/tournament/act", post_act, methods=post),
        ]
