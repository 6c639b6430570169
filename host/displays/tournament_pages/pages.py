"""The tournament's pages in `flickboard web` (`TournamentPages`, plugged in with `--tournament FILE`): the event
file read for them, the hall run for it, and their routes.

| path | what |
|---|---|
| `/hall` | the room's big screen (`?page=N` pins one page of the standings), from `/api/tournament/hall` every 2 s |
| `/entrants` | every entrant, with a search that ignores case and accents, each a link to their page |
| `/entrant/<name>` | a player's phone: what comes next for them, their match and where, their results, their place; a
  name in another case or without its accents is sent on to the entrant's own page (303), a part of one shows the
  choices |
| `/organiser` | the organiser's page; its data, its acts (`/api/tournament/organiser`, `POST .../act`) and the exports
  (`/api/tournament/export/<file>`: standings.csv, results.csv, event.json, archive.zip) need the key |
| `/cards/<stage>/<round>` | printable score cards with a QR code to each board's phone page (cards.py) |
| `/static/t/<file>` | their scripts |

The event is read lock-free, and again only when the file changed (`EventFile`). Every act goes through the
tournament's `Director` (a short lock per act, so the hall and the `flickboard tournament` commands may act on the
same file). The server runs the `Hall` for the event in-process, on the server's own MQTT connection (one program,
one connection, one broker user: a second login under the same user would push the first off): the boards open their
assigned matches and report their results, and its held results are the organiser's to approve or dismiss; what it
says about the boards (a game in progress that keeps a match waiting, a board that refused a match) is on the
organiser's page and the hall screen. If another hall holds the file (`flickboard tournament run`), the pages work
the same and the organiser's page says so (that hall's notices are on its own terminal).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from flickboard import i18n
from flickboard.core import journal
from flickboard.displays.tournament_pages import acts
from flickboard.displays.tournament_pages.cards import card_base, cards_page, line_page, qr_data_uri
from flickboard.displays.tournament_pages.views import (
    entrant_view,
    entrants_view,
    find_entrants,
    game_of,
    hall_view,
    near,
    organiser_view,
    with_said,
)
from flickboard.displays.web.config import WebError
from flickboard.displays.web.responses import error_doc, html_response, json_response, load_files, response
from flickboard.displays.web.server import WebApp
from flickboard.displays.web.site import Site
from flickboard.rules.text import N_, Message, message_of
from flickboard.tournament import ActError, Director, dumps, read
from flickboard.tournament import export as exports
from flickboard.tournament.event import Event
from flickboard.tournament.hall import Hall, HallError

PAGES = ("hall.html", "entrant.html", "entrants.html", "organiser.html")
JS = "text/javascript"
STATIC = {"hall.js": JS, "entrant.js": JS, "entrants.js": JS, "organiser.js": JS}
EXPORTS = {
    "standings.csv": "text/csv",
    "results.csv": "text/csv",
    "event.json": "application/json",
    "archive.zip": "application/zip",
}
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
        hall = Hall(  # on the server's own MQTT connection: one program, one connection, one broker user
            self.path,
            cfg.mqtt,
            ca_file=cfg.ca_file,
            boards=cfg.boards,
            say=lambda t: self.web.say(f"tournament: {t}"),
            link=self.web.hub,
        )
        self.web.hub.checks.append(self.new_over_a_match)
        try:
            self.hall = hall.start()
        except HallError as e:
            self.hall_problem = str(e)
            self.web.say(f"the tournament's boards are not followed here: {e}")

    def stop(self) -> None:
        if self.hall is not None:
            self.hall.stop()

    def new_over_a_match(self, board: str, req: dict[str, Any]) -> str | None:
        """Why a `new` from a phone may not start a game on this board: the board holds one of the tournament's
        matches, not decided yet (a game started over it would leave the match "ready" while another is played).
        The organiser takes the match off the board first (unassign), or it is played."""
        if "new" not in req:
            return None
        with contextlib.suppress(OSError, journal.JournalError):
            ev = self.file.get()
            for m in ev.matches.values():
                if m.board == board and not m.decided and m.known:
                    said = N_(
                        "board {board} holds the tournament match {match} ({who}): a new game cannot be started "
                        "there; the organiser takes the match off the board first"
                    )
                    return Message(said, board=board, match=m.id, who=" v ".join(m.sides))
        return None

    def hall_state(self) -> dict[str, Any]:
        if self.hall is not None:
            said = N_("This server runs the hall: boards open their matches and report results")
            return {"state": "here", "text": Message(said)}
        if self.hall_problem and "another hall" in self.hall_problem:
            said = N_("Results from the boards come from the other process: {problem}")
            return {"state": "other", "text": Message(said, problem=self.hall_problem)}
        said = N_("The boards' results are not followed here: {problem}")
        return {"state": "none", "text": Message(said, problem=self.hall_problem)}

    def held(self) -> list[dict[str, Any]]:
        if self.hall is None:
            return []
        return self.hall.held

    def busy(self) -> list[dict[str, Any]]:
        """The boards whose game in progress keeps a match waiting (the hall run here; none otherwise)."""
        return [] if self.hall is None else self.hall.busy

    def refusals(self) -> list[dict[str, Any]]:
        """The boards' latest refusals of a match (the hall run here; none otherwise)."""
        return [] if self.hall is None else self.hall.refusals

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
            raise ActError(
                Message("the tournament journal {path} is held by another command", path=self.path)
            ) from None
        try:
            yield d
        finally:
            d.close()

    def links(self, url: str) -> list[str]:
        return [f"  Hall: {url}/hall  Organiser: {url}/organiser  Entrants: {url}/entrants"]

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
            return acts.take(d, doc, self.hall, self.web.hub.boards(), self.scoreboard)

    def export(self, name: str) -> bytes:
        """One of EXPORTS, made from the event file as `flickboard tournament export` makes it."""
        if name == "archive.zip":
            with open(self.path, "rb") as f:
                data = f.read()
            with tempfile.TemporaryDirectory(prefix="flickboard-export-") as tmp:
                out = os.path.join(tmp, "archive.zip")
                exports.write_archive(out, data, os.path.dirname(os.path.abspath(self.path)))
                with open(out, "rb") as f:
                    return f.read()
        ev = self.file.get()
        if name == "event.json":
            return dumps(ev)
        text = exports.standings_csv(ev) if name == "standings.csv" else exports.results_csv(ev)
        return text.encode("utf-8")

    def missing(self, ev: Event) -> list[str]:
        """The game journals the results name as evidence that are not on this machine (the archive leaves them
        out, and its manifest says so)."""
        base = os.path.dirname(os.path.abspath(self.path))
        return [p for p in exports.evidence(ev) if exports.resolve(p, base) is None]

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

        qrs: dict[str, str] = {}

        def view_of_hall(base: str) -> dict[str, Any]:
            view = hall_view(self.file.get(), self.scoreboard, self.busy(), self.refusals())
            view["entrants_url"] = f"{base}/entrants"
            if base not in qrs:
                qrs.clear()  # (one address at a time: the one the screen reached the server by)
                qrs[base] = qr_data_uri(view["entrants_url"])
            view["qr"] = qrs[base]
            return view

        def base_of(request: Request) -> str:
            return card_base(request.url.scheme, request.headers.get("host", ""), self.web.cfg.host, self.web.url)

        async def api_hall(request: Request) -> Response:  # (a fold of a long journal: not in the event loop)
            return json_response(200, with_said(await asyncio.to_thread(view_of_hall, base_of(request))))

        async def entrant_page(request: Request) -> Response:
            name = request.path_params["name"]
            ev = await asyncio.to_thread(self.file.get)
            found = find_entrants(ev, name)
            if len(found) == 1 and found[0] != name:  # another case, no accents, one word: their own page
                where = "/entrant/" + urllib.parse.quote(found[0], safe="")
                return response(303, b"", "text/plain; charset=utf-8", {"Location": where})
            return html_response(200, self.ui["entrant.html"])

        async def api_entrants(request: Request) -> Response:
            return json_response(200, with_said(entrants_view(await asyncio.to_thread(self.file.get))))

        # The views are made in a worker thread: they fold the journal when it changed, and they ask the hall, which
        # may be busy appending for a while (it waits for a journal another command holds): never in the event loop.
        def view_of_entrant(name: str) -> tuple[int, dict[str, Any]]:
            ev = self.file.get()
            found = find_entrants(ev, name)
            if len(found) != 1:
                if found:
                    said = Message("{n} entrants match '{name}': pick yours", n=len(found), name=name[:60])
                else:
                    said = Message("no entrant named '{name}'{near}", name=name[:60], near=near(name, ev.entrants))
                return 404, {**error_doc(said), "error_said": i18n.said(said), "game": game_of(ev), "choices": found}
            busy = {b["board"]: b["reason"] for b in self.busy()}
            return 200, entrant_view(ev, found[0], self.scoreboard, busy)

        async def api_entrant(request: Request) -> Response:
            code, doc = await asyncio.to_thread(view_of_entrant, request.path_params["name"])
            return json_response(code, with_said(doc))

        def view_of_organiser(seen: list[str]) -> dict[str, Any]:
            ev = self.file.get()
            held, busy, refusals = self.held(), self.busy(), self.refusals()
            return organiser_view(ev, held, self.hall_state(), seen, busy, refusals, self.missing(ev))

        async def api_organiser(request: Request) -> Response:
            refused = await site.key_ok(request, site.given_key(request, organiser=True), need="organiser")
            if refused is not None:
                return refused
            seen = list(self.web.hub.boards())
            return json_response(200, with_said(await asyncio.to_thread(view_of_organiser, seen)))

        async def api_export(request: Request) -> Response:
            refused = await site.key_ok(request, site.given_key(request, organiser=True), need="organiser")
            if refused is not None:
                return refused
            name = request.path_params["name"]
            if name not in EXPORTS:
                return json_response(404, error_doc(f"no export named {name[:40]!r}: one of {', '.join(EXPORTS)}"))
            try:
                body = await asyncio.to_thread(self.export, name)
            except (OSError, journal.JournalError) as e:
                said = f"the export could not be made: {getattr(e, 'strerror', None) or e}"
                return json_response(500, error_doc(said))
            slug = re.sub(r"[^A-Za-z0-9]+", "-", self.file.get().name).strip("-").lower() or "tournament"
            disposition = f'attachment; filename="{slug}-{name}"'
            return response(200, body, EXPORTS[name], {"Content-Disposition": disposition})

        async def post_act(request: Request) -> Response:
            refused = await site.origin_ok(request) or await site.key_ok(
                request, site.given_key(request, organiser=True), need="organiser"
            )
            if refused is not None:
                return refused
            doc = await site.json_object(request, '{"do": ..., ...}')
            if isinstance(doc, Response):
                return doc
            try:
                said = await asyncio.to_thread(self.act, doc)
            except (ActError, journal.JournalError) as e:
                why = message_of(e)
                line = why.splitlines()[0] if why else type(e).__name__
                return json_response(400, {**error_doc(line), "said": i18n.said(why) if line == why else None})
            self.web.say(f"organiser: {said}")
            return json_response(200, {"ok": True, "message": said, "said": i18n.said(said)})

        async def cards(request: Request) -> Response:
            ev = await asyncio.to_thread(self.file.get)
            stage, rnd = request.path_params["stage"], request.path_params["round"]
            # the page's language, as a board page chooses it: ?lang=, --lang, the tournament's game's, the browser's
            asked = request.query_params.get("lang") or self.web.cfg.lang
            lang = i18n.choose(asked, game_of(ev), request.headers.get("accept-language"))
            st = ev.stages.get(stage)
            if st is None:
                said = Message("no stage named '{stage}'{near}", stage=stage[:60], near=near(stage, ev.stages))
                return line_page(404, said, lang)
            ms = [m for m in st.matches.values() if str(m.round) == rnd and m.state != "bye" and m.state != "void"]
            if not ms:
                return line_page(
                    404, Message("stage {stage} has no matches in round '{round}'", stage=stage, round=rnd[:10]), lang
                )
            return html_response(200, cards_page(ev, st, rnd, ms, base_of(request), lang))

        return [
            Route("/hall", page, methods=get),
            Route("/entrants", page, methods=get),
            Route("/entrant/{name}", entrant_page, methods=get),
            Route("/organiser", page, methods=get),
            Route("/cards/{stage}/{round}", cards, methods=get),
            Route("/static/t/{name}", static, methods=get),
            Route("/api/tournament/hall", api_hall, methods=get),
            Route("/api/tournament/entrants", api_entrants, methods=get),
            Route("/api/tournament/entrant/{name}", api_entrant, methods=get),
            Route("/api/tournament/organiser", api_organiser, methods=get),
            Route("/api/tournament/export/{name}", api_export, methods=get),
            Route("/api/tournament/act", post_act, methods=post),
        ]
