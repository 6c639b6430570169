"""A real headless Chromium for the web page tests, driven over the Chrome DevTools Protocol (CDP), and a PNG reader
to check its screenshots.

    with Chromium(tmp_path) as browser:
        page = browser.page()
        page.goto("http://127.0.0.1:8080/tv/t1")
        page.wait("document.body.dataset.state === 'live'")
        page.click("button[data-line='undo']")          # a mouse press and release at the button's centre
        png = page.screenshot(Path("build/screenshots/tv.png"))

Chromium comes from the distribution (`make test` installs the `chromium` package). Only the page's own events are
read: console errors and uncaught exceptions are collected in `page.errors`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import struct
import subprocess
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import websocket

from host import lifecycle

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-sync",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
]


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise AssertionError("Chromium is not installed: `make test` installs it (apt-get install chromium)")


class Chromium:
    def __init__(self, tmp: Path) -> None:
        self.profile = tmp / "chromium-profile"
        self.profile.mkdir(parents=True, exist_ok=True)
        self.log = tmp / "chromium.log"
        with self.log.open("wb") as log:
            self.proc = lifecycle.spawn(
                [find_chromium(), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.port = self._devtools_port()
        self.pages: list[Page] = []

    def _devtools_port(self) -> int:
        """Chromium writes the port it chose into DevToolsActivePort in its profile."""
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-800:]
                raise AssertionError(f"Chromium stopped as it started (exit {self.proc.returncode}): {tail}")
            try:
                first = marker.read_text().splitlines()[0]
                return int(first)
            except (OSError, IndexError, ValueError):
                time.sleep(0.05)
        raise AssertionError("Chromium did not open its DevTools port within 30 s")

    def page(self) -> Page:
        """A new tab."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(req, timeout=10) as r:
            target = json.loads(r.read())
        page = Page(target["webSocketDebuggerUrl"])
        self.pages.append(page)
        return page

    def close(self) -> None:
        for p in self.pages:
            p.close()
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab, over its DevTools WebSocket: commands are answered in order; events are kept."""

    def __init__(self, ws_url: str) -> None:
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise AssertionError(f"CDP {method}: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result
            if "method" in msg:
                self._event(msg)

    def _event(self, msg: dict[str, Any]) -> None:
        self.events.append(msg)
        method, params = msg["method"], msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            self.errors.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            text = entry.get("text", "")
            # EventSource reconnecting while the server restarts is expected; anything else is a page error
            if "EventSource" not in text and "ERR_CONNECTION_REFUSED" not in text:
                self.errors.append(f"{entry.get('source')}: {text} {entry.get('url', '')}".strip())

    def goto(self, url: str, timeout: float = 15) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise AssertionError(f"{url} did not load within {timeout:g} s")
            self.eval("1")  # pumps the events

    def eval(self, expr: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise AssertionError(f"{expr}: {res['exceptionDetails'].get('exception', {}).get('description')}")
        return res.get("result", {}).get("value")

    def wait(self, expr: str, timeout: float = 10) -> Any:
        """Wait until the expression is truthy in the page; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(expr)
            if value:
                return value
            if time.monotonic() > deadline:
                text = self.eval("document.body ? document.body.innerText.slice(0, 1500) : ''")
                raise AssertionError(f"timed out waiting for {expr!r}; the page says:\n{text}")
            time.sleep(0.05)

    def text(self, selector: str) -> str:
        value = self.eval(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")
        return str(value)

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the centre of the element, scrolled into view first."""
        box = self.wait(
            f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
                if (!e || e.disabled || e.offsetParent === null) return null;
                e.scrollIntoView({{block: "center"}});
                const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"""
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type_text(self, selector: str, text: str) -> None:
        self.click(selector)
        self.call("Input.insertText", text=text)

    def viewport(self, width: int, height: int, mobile: bool = False) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            w, h = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": w, "height": h, "scale": 1})
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return data

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser may already be gone
            self.ws.close()


# ---------------------------------------------------------------- PNG


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of pixels) of an 8-bit RGB or RGBA PNG, each pixel as 3 or 4 bytes; AssertionError when
    it is not one. Written here (zlib and the five PNG row filters) so the check needs no image library."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"PNG chunk {kind!r}: bad CRC"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    assert header is not None, "PNG without IHDR"
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG kind {header}"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    assert len(raw) == height * (stride + 1), "PNG data of the wrong size"
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
            else:
                assert f == 0, f"unknown PNG filter {f}"
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def png_colours(rows: list[bytes], bpp: int, limit: int = 64) -> int:
    """How many different pixel values the image has (counting stops at `limit`)."""
    seen: set[bytes] = set()
    for row in rows[:: max(1, len(rows) // 200)]:
        for i in range(0, len(row), bpp * 3):
            seen.add(row[i : i + bpp])
            if len(seen) >= limit:
                return limit
    return len(seen)
