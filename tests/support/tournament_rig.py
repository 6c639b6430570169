"""The tournament pages' test rig, all real parts: a Mosquitto, a bridge in-process following some boards with its MQTT
link, and `flickboard web --tournament FILE` in-process on a free port (which runs the event's hall). The browser is
web_rig's `Chromium` (the distribution's, driven by Playwright).

Run as a script, it writes the screenshots of docs/displays.md, "Tournament pages", from a 40-entrant Swiss evening
in its first round (one board playing live, one kept by a casual game, results coming in), then a double-elimination
playoff and its champion:

    .venv/bin/python tests/support/tournament_rig.py docs/img    # hall.png, hall-bracket.png, hall-champion.png,
                                                                  # entrants.png, entrant.png, organiser.png, cards.png
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page
from web_rig import Chromium

from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.core import journal
from flickboard.displays.tournament_pages.pages import TournamentPages
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.server import WebApp, start_web
from flickboard.sim.broker import Broker, mosquitto
from flickboard.sim.random_game import random_match
from flickboard.tournament import Director, read

# 40 entrants, as a club's open has them: names of two words and more, accents, apostrophes, a few long ones.
PEOPLE = {
    0: "Ana Costa",
    1: "Zoé Lévesque",
    2: "Marie-Claire O'Neil",
    3: "Ben Okafor",
    5: "Maximilienne-Bérénice Okonkwo-Fitzgerald",
    8: "Jean-Christophe Vandenbroucke",
    11: "Anastasia Papadopoulou",
    14: "Eve Laurent",
    17: "Gus Pereira",
    20: "Fay Nguyen",
    23: "Hal Berg",
    26: "Ivy Moreau",
    29: "Jon Silva",
    32: "Kim Tran",
    35: "Léa Fournier",
}
NAMES = [PEOPLE.get(i, f"Player {i + 1:02d}") for i in range(40)]


def until(pred: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def organiser(path: str) -> Director:
    """The tournament journal opened by another command (`flickboard tournament ...`), waiting while the hall holds
    it for one of its own acts."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return Director.open(path)
        except journal.JournalInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def swiss_event(path: str, names: list[str], rounds: int = 5, name: str = "Club Open 2026") -> None:
    """A Swiss stage of one-game matches (tournament-2019) with these entrants, seeded in this order."""
    with Director.create(path, name) as d:
        for i, n in enumerate(names):
            d.add_entrant(n, seed=i + 1, club="Santa Fe" if i % 3 == 0 else None)
        d.start_stage("swiss", "swiss", options={"rounds": rounds}, rules="tournament-2019", match="games:1")


def play(
    bridge: Any, board: str, players: list[str], seed: int, lines: int | None = None, start: int = 0
) -> dict[str, Any]:
    """A random legal match typed on the board as its scorer would (its lines from `start`, to `lines` when given)."""
    text = random_match(seed, "tournament-2019", players, match="games:1")
    todo = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
    for line in todo[start:lines]:
        out = bridge.submit(board, line)
        assert out.accepted, (line, out.message)
    doc: dict[str, Any] = bridge.scoreboard(board)
    return doc


def casual(bridge: Any, board: str, players: list[str], seed: int, lines: int) -> tuple[str, list[str]]:
    """A game opened by hand on the board (none of the tournament's) with its first `lines` shots typed: its journal,
    and the lines still to type to finish it."""
    new = {"rules": "tournament-2019", "players": players, "match": "games:1"}
    assert bridge.mqtt_input(board, json.dumps({"id": f"casual-{seed}", "new": new}).encode())["ok"]
    text = random_match(seed, "tournament-2019", players, match="games:1")
    todo = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
    for line in todo[:lines]:
        assert bridge.submit(board, line).accepted, line
    return str(bridge.scoreboard(board)["journal"]), todo[lines:]


def spoil_journals(folder: Path, board: str) -> None:
    """The board's journal folder on the bridge's disk turned into a file: the bridge can start no new game's journal
    for it (as with a disk that is full or gone read-only), so it refuses every `new` request for that board with the
    reason ("board t2: cannot start a journal in ...: File exists"). The game it keeps now stays open."""
    where = folder / board
    shutil.rmtree(where)
    where.write_text("not a folder: the bridge cannot start a journal here\n", encoding="utf-8")


def new_page(browser: Browser, width: int, height: int, mobile: bool = False) -> Page:
    """A page of its own (a fresh context) at this size; an error in the page's script fails the test."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile, reduced_motion="reduce")
    page = ctx.new_page()
    page.on("pageerror", lambda e: pytest.fail(f"the page failed: {e}"))
    return page


def entries(page: Page, n: int) -> None:
    """Wait until the page shows the tournament journal up to entry `n`."""
    page.wait_for_function("n => document.body.dataset.entries === n", arg=str(n), timeout=10_000)


def answer(page: Page, before: int) -> str:
    """The organiser page's answer to the act after the `before`th."""
    page.wait_for_function("n => Number(document.body.dataset.acts || 0) > n", arg=before, timeout=15_000)
    return page.inner_text("#answer")


def click_act(page: Page, selector: str) -> tuple[str, bool]:
    """Click a button of the organiser's page: its one-line answer, and whether it was done."""
    before = int(page.evaluate("() => Number(document.body.dataset.acts || 0)"))
    page.click(selector)
    said = answer(page, before)
    return said, "ok" in (page.get_attribute("#answer", "class") or "")


class TournamentRig:
    """A bridge following `boards` and `flickboard web --tournament path`; `said` is what the web server said."""

    def __init__(
        self, broker: Broker, tmp: Path, path: str, boards: tuple[str, ...] = ("t1", "t2"), lang: str | None = None
    ) -> None:
        """`lang`: the pages' language, as `flickboard web --lang` gives it."""
        self.broker = broker
        self.path = path
        self.said: list[str] = []
        self.running: Running | None = None
        if boards:
            self.running = start_bridge(
                BridgeConfig(
                    mqtt=parse_mqtt_url(broker.url),
                    boards=boards,
                    journals=str(tmp / "journals"),
                    client_id=f"tpages-{uuid.uuid4().hex[:8]}",
                    bridge_id="room-a",
                )
            )
            assert self.running.mqtt is not None and self.running.mqtt.wait_ready(10), "the bridge did not connect"
        cfg = WebConfig(parse_mqtt_url(broker.url), port=0, reconnect_max=1, lang=lang)
        self.web: WebApp = start_web(cfg, self.said.append, pages=[lambda app: TournamentPages(app, path)])
        self.url = f"http://127.0.0.1:{self.web.port}"
        until(lambda: self.web.hub.ready, "the web server's MQTT subscriptions")
        if self.pages.hall is not None:
            assert self.pages.hall.wait_ready(10)

    @property
    def bridge(self) -> Any:
        assert self.running is not None
        return self.running.bridge

    @property
    def pages(self) -> TournamentPages:
        """The tournament's pages plugged into the web server."""
        pages = self.web.plugged(TournamentPages)
        assert pages is not None
        return pages

    @property
    def hall(self) -> Any:
        assert self.pages.hall is not None
        return self.pages.hall

    def count(self) -> int:
        return read(self.path).count

    def http(self, method: str, path: str, doc: Any = None, key: str | None = "yes", origin: bool = True) -> Any:
        """(status, parsed JSON or text) of one request; a POST from this server's page with the key by default."""
        body = None if doc is None else json.dumps(doc).encode()
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if origin and method == "POST":
            req.add_header("Origin", self.url)
        if key is not None:
            mine = self.web.organiser_key if path.startswith("/api/tournament/") else self.web.key
            req.add_header("X-Flickboard-Key", mine if key == "yes" else key)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                status, raw, kind = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, raw, kind = e.code, e.read(), e.headers.get("Content-Type", "")
        return status, (json.loads(raw) if kind.startswith("application/json") else raw.decode())

    def act(self, **doc: Any) -> Any:
        return self.http("POST", "/api/tournament/act", doc)

    def close(self) -> None:
        self.web.stop()
        if self.running is not None:
            self.running.stop()


def round_results(path: str, skip: tuple[str, ...] = (), seed: int = 1) -> None:
    """Every undecided match of the Swiss stage's latest round gets a result from the organiser (another command
    on the same file): the first side wins on even pairs, the second on odd ones."""
    with organiser(path) as d:
        st = d.event.stages["swiss"]
        for i, mid in enumerate(st.rounds[-1]):
            m = d.event.matches[mid]
            if m.decided or mid in skip:
                continue
            w = (i + seed) % 2
            pts = [300 + 10 * i, 250] if w == 0 else [240, 310 + 10 * i]
            d.result(mid, m.sides[w], points=pts, games=[1, 0] if w == 0 else [0, 1], twenties=[i % 4, 2],
                     twenties_confirmed=True)  # fmt: skip


def won(d: Director, match: str) -> None:
    """A playoff result for the screenshots: the side with a person's name (not "Player NN") wins, 2 games to 1."""
    m = d.event.matches[match]
    w = 0 if not m.sides[0].startswith("Player ") or m.sides[1].startswith("Player ") else 1
    d.result(match, m.sides[w], points=[610, 480] if w == 0 else [480, 610], games=[2, 1] if w == 0 else [1, 2])


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/img")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir, mosquitto() as broker:
        tmp = Path(tmpdir)
        path = str(tmp / "open.jsonl")
        swiss_event(path, NAMES)
        with organiser(path) as d:
            d.pair_round("swiss")
            st = d.event.stages["swiss"]
            for i, mid in enumerate(st.rounds[0][:10]):
                d.assign(mid, f"t{i + 1}" if i != 1 else "t11")
        rig = TournamentRig(broker, tmp, path, boards=("t1", "t2"))
        try:
            with Chromium() as browser:
                first = read(path).stages["swiss"].rounds[0][0]
                until(lambda: rig.hall.opens.get(first, {}).get("state") == "opened", "the match opened on t1")
                m = read(path).matches[first]
                play(rig.bridge, "t1", list(m.sides), seed=3, lines=12)
                casual(rig.bridge, "t2", ["Cy", "Dee"], seed=5, lines=9)  # a friendly game, still being played
                waits = read(path).stages["swiss"].rounds[0][10]
                with organiser(path) as d:
                    d.assign(waits, "t2")
                until(lambda: rig.hall.busy, "t2 kept by its game")
                round_results(path, skip=tuple(read(path).stages["swiss"].rounds[0][:11]))
                n = rig.count()
                hall = browser.page(1280, 720)
                hall.goto(f"{rig.url}/hall")
                hall.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.notices === '1'")
                hall.wait("(document.querySelector('li[data-board=t1] .bscore') || {}).textContent.includes('–')")
                hall.screenshot(out / "hall.png")
                phone = browser.page(390, 700, mobile=True)
                phone.goto(f"{rig.url}/entrants")
                phone.wait("document.body.dataset.state === 'live'")
                phone.pw.fill("#q", "zoe")
                phone.wait("document.body.dataset.shown === '1'")
                phone.screenshot(out / "entrants.png")
                phone.goto(f"{rig.url}/entrant/{urllib.parse.quote(m.sides[0])}")
                phone.wait("document.body.dataset.state === 'live' && document.querySelector('#next .board')")
                phone.screenshot(out / "entrant.png", full_page=True)
                org = browser.page(1280, 900)
                org.goto(f"{rig.url}/scorer?key={rig.web.organiser_key}")
                org.goto(f"{rig.url}/organiser")
                org.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.busy === '1'")
                org.screenshot(out / "organiser.png")
                cards = browser.page(900, 1000)
                cards.goto(f"{rig.url}/cards/swiss/1")
                cards.screenshot(out / "cards.png")
                for p in ("hall", "entrants", "entrant", "organiser", "cards"):
                    print(f"wrote {out / p}.png")
                # The playoff: the top 8 after the Swiss rounds, in a double elimination.
                for r in range(2, 6):
                    with organiser(path) as d:
                        if r == 2:
                            for mid in d.event.stages["swiss"].rounds[0]:
                                mm = d.event.matches[mid]
                                if not mm.decided:
                                    d.result(mid, mm.sides[0], points=[280, 200])
                        d.pair_round("swiss")
                    round_results(path, seed=r)
                with organiser(path) as d:
                    d.start_stage("playoff", "double-elimination", options={"reset": True}, match="games:3",
                                  intake={"from": "swiss", "top": 8})  # fmt: skip
                    for mid in list(d.event.stages["playoff"].matches)[:6]:
                        mm = d.event.matches[mid]
                        if mm.state == "ready":
                            won(d, mm.id)
                n = rig.count()
                hall.goto(f"{rig.url}/hall")
                hall.wait(f"document.body.dataset.entries === '{n}' && document.querySelector('.bracket')")
                hall.screenshot(out / "hall-bracket.png")
                with organiser(path) as d:
                    while d.event.champion(d.event.stages["playoff"]) is None:
                        won(d, next(x.id for x in d.event.stages["playoff"].matches.values() if x.state == "ready"))
                n = rig.count()
                hall.goto(f"{rig.url}/hall")
                hall.wait(f"document.body.dataset.entries === '{n}' && !document.querySelector('#champion').hidden")
                hall.screenshot(out / "hall-champion.png")
                print(f"wrote {out / 'hall-bracket.png'}")
                print(f"wrote {out / 'hall-champion.png'}")
        finally:
            rig.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


# ---- a hall screen, checked as the room reads it --------------------------------------------------------------

HALL_SIZES = [(1280, 720), (1920, 1080)]
CLIPPED = (Path(__file__).resolve().parent / "clipped.js").read_text(encoding="utf-8")
TEXT_SIZES = (Path(__file__).resolve().parent / "text_sizes.js").read_text(encoding="utf-8")
# The hall screen is read from 5 m: no text smaller than 3.5 % of the screen's height (app.css, `body.hall`).
READABLE = 0.035


def assert_whole(page: Page, what: str) -> None:
    w, h = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    cut = page.evaluate(CLIPPED)
    img = Image.open(io.BytesIO(page.screenshot()))
    assert img.size == (w, h)
    assert len(img.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20, "a blank screenshot"
    assert not cut, f"{what} at {w}x{h}: " + "; ".join(cut[:6])


def assert_readable(page: Page, what: str) -> None:
    """Every text rendered on the screen, its type and its line boxes, at least READABLE of the screen's height."""
    h = page.viewport_size["height"]  # type: ignore[index]
    got = page.evaluate(TEXT_SIZES, READABLE * h)
    assert got["texts"] >= 5, f"{what}: only {got['texts']} texts on screen"
    assert not got["small"], f"{what} at height {h}: texts under {READABLE * h:.1f} px: " + "; ".join(got["small"][:6])


# Words of an element's text that the layout breaks across two lines (a name cut in the middle).
BROKEN_WORDS = """(el) => {
  const broken = [];
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const m of node.data.matchAll(/\\S+/g)) {
      const r = document.createRange();
      r.setStart(node, m.index);
      r.setEnd(node, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def assert_words_whole(page: Page, selector: str, what: str) -> None:
    """No word of the element's text is cut across lines (a name wraps between its words, never inside one)."""
    broken = page.locator(selector).evaluate(BROKEN_WORDS)
    assert not broken, f"{what}: words cut across lines: {broken}"
