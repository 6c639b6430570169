"""The web pages' test rig, all real parts: a Mosquitto (host/sim/broker.py), a bridge in-process with its MQTT link
(`start_bridge`), `flickboard web` in-process (`start_web`) on a free port, and a real headless Chromium driven by
Playwright (`Chromium`, `Page`; its screenshots are read with Pillow).

Run as a script, it writes the screenshots of docs/displays.md from a realistic mid-game state:

    .venv/bin/python tests/support/web_rig.py docs/img   # tv.png, enter.png, console.png, enter-refusal.png,
                                                         # tv-match-over.png, tv-quebec.png, tv-flicochet.png
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import ConsoleMessage, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page as PwPage

from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.server import WebApp, start_web
from flickboard.sim.broker import Broker, free_port, mosquitto

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
from fb import proto

from flickboard.sim.random_game import random_match

BOARD = "t1"
CHROMIUM = "/usr/bin/chromium"  # the distribution's (`make test` installs it); Playwright downloads no browser here


class Chromium:
    """A real headless Chromium (the distribution's, driven by Playwright's sync API). Each `page()` is a tab of its
    own browser context (its own cookies), so a TV and a phone in one test are two devices.

        with Chromium() as browser:
            page = browser.page(1280, 720)
            page.goto("http://127.0.0.1:8080/tv/t1")
            page.wait("document.body.dataset.state === 'live'")
            page.click("button[data-line='undo']")        # a real mouse click, scrolled into view first
    """

    def __init__(self, _tmp: Path | None = None) -> None:
        if not Path(CHROMIUM).exists():
            raise AssertionError(
                f"Chromium is not installed at {CHROMIUM}: `make test` installs it (apt-get install chromium)"
            )
        self.pw: Playwright = sync_playwright().start()
        try:
            self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except Exception:
            self.pw.stop()
            raise
        self.pages: list[Page] = []

    def page(self, width: int = 1280, height: int = 720, mobile: bool = False, locale: str | None = None) -> Page:
        """A new tab in a new browser context: a viewport of width x height, as a phone when `mobile`; `locale`: the
        browser's language (navigator.language and Accept-Language), Chromium's own when None."""
        ctx = self.browser.new_context(
            viewport={"width": width, "height": height},
            device_scale_factor=1,
            is_mobile=mobile,
            reduced_motion="reduce",
            **({"locale": locale} if locale else {}),
        )
        ctx.set_default_timeout(10_000)
        page = Page(ctx.new_page())
        self.pages.append(page)
        return page

    def close(self) -> None:
        for p in self.pages:
            p.close()
        with contextlib.suppress(PlaywrightError):
            self.browser.close()
        self.pw.stop()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab: Playwright's page (`pw`) and the page's own errors (console errors and uncaught exceptions) in
    `errors`. EventSource reconnecting while the server restarts is expected, not an error."""

    def __init__(self, page: PwPage) -> None:
        self.pw = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._console)

    def _console(self, msg: ConsoleMessage) -> None:
        if msg.type == "error" and "EventSource" not in msg.text and "ERR_CONNECTION_REFUSED" not in msg.text:
            self.errors.append(msg.text)

    def goto(self, url: str) -> None:
        self.pw.goto(url, wait_until="load", timeout=15_000)

    def eval(self, expr: str) -> Any:
        return self.pw.evaluate(expr)

    def wait(self, expr: str, timeout: float = 10) -> Any:
        """Wait until the expression is truthy in the page; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.pw.evaluate(expr)
            if value:
                return value
            if time.monotonic() > deadline:
                text = self.pw.evaluate("document.body ? document.body.innerText.slice(0, 1500) : ''")
                raise AssertionError(f"timed out waiting for {expr!r}; the page says:\n{text}")
            time.sleep(0.05)

    def text(self, selector: str) -> str:
        return str(self.pw.evaluate("s => (document.querySelector(s) || {}).innerText || ''", selector))

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the element, once it is visible and enabled."""
        self.pw.click(selector)

    def type_text(self, selector: str, text: str) -> None:
        self.pw.click(selector)
        self.pw.keyboard.insert_text(text)

    def clear_cookies(self) -> None:
        self.pw.context.clear_cookies()

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        path.parent.mkdir(parents=True, exist_ok=True)
        return self.pw.screenshot(path=str(path), full_page=full_page)

    def close(self) -> None:
        with contextlib.suppress(PlaywrightError):
            self.pw.context.close()


def check_png(data: bytes, width: int, height: int | None = None) -> None:
    """A screenshot of that size (Pillow reads it) that is not one flat colour."""
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "PNG", img.format
        w, h = img.size
        assert w == width and (height is None or h == height), (w, h)
        colours = img.convert("RGB").getcolors(maxcolors=9)  # None: more than 9
        assert colours is None, "the screenshot is (nearly) one flat colour"


class Rig:
    def __init__(
        self, broker: Broker, tmp: Path, players: tuple[str, ...] = ("Ana", "Ben"), timeout: float = 5
    ) -> None:
        self.broker = broker
        self.tmp = tmp
        self.said: list[str] = []
        self.running: Running | None = None
        self.start_bridge(players)
        self.web: WebApp = start_web(
            WebConfig(parse_mqtt_url(broker.url), port=0, answer_timeout=timeout, reconnect_max=1), self.said.append
        )
        self.url = f"http://127.0.0.1:{self.web.port}"
        self.wait(lambda: self.web.hub.ready, "the web server's MQTT subscriptions")

    def start_bridge(self, players: tuple[str, ...] = ("Ana", "Ben")) -> Running:
        cfg = BridgeConfig(
            mqtt=parse_mqtt_url(self.broker.url),
            boards=(BOARD,),
            journals=str(self.tmp / "journals"),
            players=players,
            client_id=f"web-test-{uuid.uuid4().hex[:8]}",
        )
        self.running = start_bridge(cfg)
        assert self.running.mqtt is not None and self.running.mqtt.wait_ready(10), "the bridge did not connect"
        return self.running

    def stop_bridge(self) -> None:
        """The bridge stops as on Ctrl-C: it says `offline` on flickboard/bridge/status."""
        if self.running is not None:
            self.running.stop()
            self.running = None

    @property
    def bridge(self) -> Any:
        assert self.running is not None
        return self.running.bridge

    def records(self) -> list[dict[str, Any]]:
        recs: list[dict[str, Any]] = self.bridge.games[BOARD].session.journal.records
        return recs

    def wait(self, pred: Any, what: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.02)

    def web_doc(self) -> dict[str, Any] | None:
        """The scoreboard the web server holds for the board (what its pages are sent)."""
        text = self.web.hub.scoreboard(BOARD)
        return None if text is None else dict(json.loads(text))

    def synced(self) -> dict[str, Any]:
        """Wait until the web server holds the bridge's latest scoreboard; that scoreboard."""
        n = len(self.records())
        self.wait(lambda: (self.web_doc() or {}).get("entries") == n, f"the scoreboard with {n} entries")
        doc = self.web_doc()
        assert doc is not None
        return doc

    def http(self, method: str, path: str, body: bytes | None = None, ctype: str = "application/json") -> Any:
        """(status, parsed JSON or text) of one request to the web server."""
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", ctype)
        if method == "POST":  # as the entry page sends it: from this server's own page, with the scoring key
            req.add_header("Origin", self.url)
            req.add_header("X-Flickboard-Key", self.web.key)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                status, raw, kind = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, raw, kind = e.code, e.read(), e.headers.get("Content-Type", "")
        return status, (json.loads(raw) if kind.startswith("application/json") else raw.decode())

    def close(self) -> None:
        self.web.stop()
        self.stop_bridge()


def mid_game(rig: Rig, seed: int = 4) -> None:
    """Two games played, the third under way, and a shot open with a provisional twenty from the hole sensor."""
    text = random_match(seed, "tournament-2019", ["Ana", "Ben"], match="games:8")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
    bridge = rig.bridge
    i = 0
    while len(bridge.scoreboard(BOARD)["score"]["games"]) < 2:
        assert bridge.submit(BOARD, lines[i]).accepted, lines[i]
        i += 1
    for line in lines[i : i + 9]:
        assert bridge.submit(BOARD, line).accepted, line
    cur = bridge.scoreboard(BOARD)["score"]["current"]
    for line in (f"begin {cur['to_shoot']}", "in @sensor"):
        out = bridge.submit(BOARD, line)
        assert out.accepted, (line, out.message)


QUEBEC_MID_GAME = [
    "shot",  # manche 1: Ana breaks, nothing goes in
    "color red",  # Ben chooses (règle 10)
    "shot red",  # his fond
    "shot c5",  # a compteuse, to bury
    "shot red red red red red red red red red red red",  # the c5 is buried, and every red is in
    "shot none",  # the manche is his: 12 green dames left and his c5, 17-0 (règle 12)
    "shot",  # manche 2: Ben breaks
    "color green",  # Ana chooses
    "shot green",  # her fond
    "shot c10",  # her compteuse, still to bury
]
FLICOCHET_MID_GAME = [
    *["flick"] * 12,
    "order 1 R W R",
    "order 2 W R",
    "flick",
    "flick",
    "off red",
    "flick",
    "jack off 2",
]


def other_game(rig: Rig, game: str) -> None:
    """A Québec Pichenottes partie (manche 1, a compteuse won by Ben, Ana's still to bury) or a Flicochet game with
    two jacks (round 2: a red disc knocked off, jack 2 off the table), started on the board as the entry page does."""
    if game == "quebec":
        rig.bridge.new_game(BOARD, "officiel", ["Ana", "Ben"], None, "31")
        lines = QUEBEC_MID_GAME
    else:
        rig.bridge.new_game(BOARD, "flicochet+double-jack", ["Cy", "Di"], None, None)
        lines = FLICOCHET_MID_GAME
    for line in lines:
        out = rig.bridge.submit(BOARD, line)
        assert out.accepted, (line, out.message)


def tv_screenshot(rig: Rig, browser: Chromium, path: Path) -> Path:
    """The TV page at 1280x720, once it shows the board's latest scoreboard."""
    n = rig.synced()["entries"]
    page = browser.page(1280, 720)
    page.goto(f"{rig.url}/tv/{BOARD}")
    page.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.state === 'live'")
    page.screenshot(path)
    assert not page.errors, page.errors
    page.close()
    return path


class Board:
    """The board's own lines, from the firmware's encoder, into the bridge as its USB port would give them."""

    def __init__(self, rig: Rig, boot: int = 9) -> None:
        self.rig = rig
        self.enc = proto.Encoder(BOARD, boot, 0)

    def event(self, kind: str, sensor: str, **fields: int) -> None:
        line = self.enc.event(kind, sensor, 1000 * (self.enc.seq + 1), fields)
        self.rig.bridge.serial_line("/dev/ttyFB", line, lambda _: None)


def screenshots(rig: Rig, browser: Chromium, out: Path) -> list[Path]:
    """The docs' screenshots of a board mid-game with a ditch pass nobody has attributed yet: the TV at 1280x720, the
    scorer's phone (390 px wide, full height) and the operator's console."""
    Board(rig).event("pass", "ditch1", dur_us=5000)
    rig.bridge.tick()  # the bridge's health document, for the console
    tv = tv_screenshot(rig, browser, out / "tv.png")
    n = rig.synced()["entries"]
    phone = browser.page(390, 844, mobile=True)
    phone.goto(f"{rig.url}/scorer?key={rig.web.key}")  # the scorer's phone holds the key
    phone.goto(f"{rig.url}/enter/{BOARD}")
    phone.wait(f"document.body.dataset.entries === '{n}' && document.querySelector('#new-rules').options.length")
    phone.screenshot(out / "enter.png", full_page=True)
    assert not phone.errors, phone.errors
    phone.close()
    console = browser.page(1280, 900)
    console.goto(f"{rig.url}/scorer?key={rig.web.key}")
    console.goto(f"{rig.url}/console")
    console.wait("document.body.dataset.boards === '1' && document.querySelector('section.bridge .facts') !== null")
    console.screenshot(out / "console.png", full_page=True)
    assert not console.errors, console.errors
    console.close()
    return [tv, out / "enter.png", out / "console.png"]


def refusal_screenshot(rig: Rig, browser: Chromium, path: Path) -> Path:
    """The phone (390x844) after a typo on the free line: the refusal below it, with the fix to tap."""
    n = rig.synced()["entries"]
    phone = browser.page(390, 844, mobile=True)
    phone.goto(f"{rig.url}/scorer?key={rig.web.key}")
    phone.goto(f"{rig.url}/enter/{BOARD}")
    phone.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.state === 'live'")
    phone.type_text("#free-line", "Ben:dich")
    phone.click("#free button[type='submit']")
    phone.wait("document.getElementById('answer').dataset.ok === 'false'")
    phone.eval("document.getElementById('answer').scrollIntoView({block: 'end'})")
    phone.screenshot(path)
    assert not phone.errors, phone.errors
    phone.close()
    return path


def match_over_screenshot(rig: Rig, browser: Chromium, path: Path) -> Path:
    """The TV (1280x720) as a one-game match ends: the match's card, below the panels."""
    rig.bridge.new_game(BOARD, "tournament-2019", ["Ana", "Ben"], "games:1", None)
    tv = browser.page(1280, 720)
    tv.goto(f"{rig.url}/tv/{BOARD}")
    tv.wait("document.body.dataset.entries === '0' && document.body.dataset.state === 'live'")
    while (cur := rig.bridge.scoreboard(BOARD)["score"]["current"]) and cur["to_shoot"]:
        rig.bridge.submit(BOARD, "shot zone" if cur["shot_kind"] == "free" else "shot hit")
    for a in rig.bridge.scoreboard(BOARD)["asks"]:
        value = "25" if a["side"] == "Ana" else "5"
        rig.bridge.submit(BOARD, f"zones {a['side']} " + " ".join([value] * a["pucks"]))
    tv.wait("document.getElementById('toast').dataset.kind === 'match-over'")
    tv.screenshot(path)
    assert not tv.errors, tv.errors
    tv.close()
    return path


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/img")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, mosquitto() as broker:
        rig = Rig(broker, Path(tmp))
        try:
            rig.bridge.board_state(BOARD, True)  # as if a board had said hello: the link shows online
            mid_game(rig)
            with Chromium() as browser:
                for p in screenshots(rig, browser, out):
                    print(f"wrote {p}")
                print(f"wrote {refusal_screenshot(rig, browser, out / 'enter-refusal.png')}")
                print(f"wrote {match_over_screenshot(rig, browser, out / 'tv-match-over.png')}")
                for game in ("quebec", "flicochet"):
                    other_game(rig, game)
                    print(f"wrote {tv_screenshot(rig, browser, out / f'tv-{game}.png')}")
        finally:
            rig.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


class WebProcess:
    """`flickboard web` as the operator runs it: its own process (`python -m flickboard.displays.web`), its terminal
    read. `key` and `link` are what the terminal showed; `errors` is every line it wrote on stderr so far."""

    def __init__(self, broker: Broker, *args: str, env: dict[str, str] | None = None, mqtt: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        url = mqtt or broker.url
        cmd = [sys.executable, "-m", "flickboard.displays.web", "--mqtt", url, "--port", str(self.port), *args]
        root = Path(__file__).resolve().parents[2]
        full_env = {**os.environ, "PYTHONPATH": str(root)}
        full_env.pop("FLICKBOARD_WEB_KEY", None)  # the operator's own setting, if any, is not this test's
        full_env.pop("FLICKBOARD_ORGANISER_KEY", None)
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            cmd, cwd=root, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.out: list[str] = []
        self.errors: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._err = threading.Thread(target=self._read, args=(self.proc.stderr, self.errors), daemon=True)
        self._err.start()
        while not any(line.lstrip().startswith("Scorers' link") for line in self.out):
            line = self.proc.stdout.readline()
            assert line, f"flickboard web stopped: {self.out} {self.errors}"
            self.out.append(line.rstrip("\n"))
        self._out = threading.Thread(target=self._read, args=(self.proc.stdout, self.out), daemon=True)
        self._out.start()
        said = {line.strip().split(":", 1)[0]: line.strip().split(": ", 1)[1] for line in self.out[1:]}
        self.key = said["Scoring key"].split(" ")[0]
        self.organiser_key = said["Organiser's key"].split(" ")[0]
        self.link = said["Scorers' link (for phones, not the TV)"]

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def memory_peak(self) -> int:
        """The most memory (resident set, bytes) the process has held since it started: VmHWM."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM in /proc/PID/status")

    def said(self, fragment: str) -> list[str]:
        return [line for line in self.errors if fragment in line]

    def wait_said(self, fragment: str, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.said(fragment)
            if found:
                return found[0]
            time.sleep(0.02)
        raise AssertionError(f"flickboard web did not say {fragment!r}; it said: {self.errors}")

    def stop(self) -> str:
        """SIGTERM, as a service manager stops it; everything it wrote on stdout."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._out.join(5)
        self._err.join(5)
        return "\n".join(self.out)
