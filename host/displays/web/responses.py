"""How `flickboard web` answers: every response with the server's headers (`response`, `json_response`,
`html_response`), the one-line error every refusal carries (`error_doc`), and the pages' files read at start
(`load_files`). Pages plugged into the server (site.py, `Pages`) answer with these too."""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from typing import Any

from starlette.responses import Response

from flickboard.displays.web.config import WebError

# The server's own pages and their CSS and scripts (web/ui/), served at `/static/<name>`.
PAGES = ("index.html", "tv.html", "enter.html", "console.html")
JS = "text/javascript"
STATIC = {"app.css": "text/css", "common.js": JS, "tv.js": JS, "enter.js": JS, "console.js": JS}
# The pages load nothing from anywhere else: no CDN, no fonts, no inline code; and no other site may put them in a
# frame (a scorer's phone tricked into tapping a hidden page: clickjacking). X-Frame-Options says it to old browsers.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; "
    "frame-ancestors 'none'"
)


def error_doc(text: str) -> dict[str, Any]:
    """The body of every refusal and failure: `{"ok": false, "error": text}`."""
    return {"ok": False, "error": text}


def load_files(package: str, names: Iterable[str]) -> dict[str, bytes]:
    """The files `names` of the package's `ui/` folder, read once at start; a missing one is one sentence (WebError),
    not a traceback later."""
    files: dict[str, bytes] = {}
    base = resources.files(package).joinpath("ui")
    for name in names:
        try:
            files[name] = base.joinpath(name).read_bytes()
        except OSError:
            raise WebError(f"the web page file {name} ({package}) is missing from this installation") from None
    return files


def response(code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> Response:
    """A whole response with this server's headers (names as written here: the wire keeps them)."""
    head = {
        "Content-Type": ctype,
        "Content-Length": str(len(body)),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": CSP,
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Server": "flickboard-web",
        **(extra or {}),
    }
    r = Response(body, status_code=code)
    r.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head.items()]
    return r


def json_response(code: int, doc: Any, extra: dict[str, str] | None = None) -> Response:
    return response(code, json.dumps(doc).encode(), "application/json", extra)


def html_response(code: int, page: bytes | str, extra: dict[str, str] | None = None) -> Response:
    body = page.encode() if isinstance(page, str) else page
    return response(code, body, "text/html; charset=utf-8", extra)
