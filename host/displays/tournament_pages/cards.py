"""The printable score cards (`/cards/<stage>/<round>`): one A4 card per match with the entrants, the board, the
format, a grid per game for the players' own scores (S-2), and a QR code to the board's phone page."""

from __future__ import annotations

import contextlib
import html

import segno
from starlette.responses import Response

from flickboard.displays.tournament_pages.views import side_name
from flickboard.displays.web.responses import html_response
from flickboard.tournament.event import Event, Match, Stage


def line_page(code: int, text: str) -> Response:
    """A page that says one line (a score card link that names nothing)."""
    said = html.escape(text, quote=False)
    return html_response(
        code, f"<!doctype html><title>Score cards</title><p class='line'>{said}</p><p><a href='/hall'>Hall</a>"
    )


def qr_svg(url: str) -> str:
    """The QR code of `url` as an inline SVG element (segno; no style attributes, so the pages' CSP holds)."""
    qr = segno.make(url, error="m", micro=False)
    return str(qr.svg_inline(scale=4, border=4, omitsize=True, title=url, svgclass="qr"))


def qr_data_uri(url: str) -> str:
    """The QR code of `url` as an SVG `data:` URI for an <img> (the pages' CSP takes images only as data), dark on
    white with its quiet zone, as every phone's reader expects it, even on a dark screen."""
    qr = segno.make(url, error="m", micro=False)
    return str(qr.svg_data_uri(scale=8, border=4, dark="#000", light="#fff", title=url))


def games_of(st: Stage) -> int:
    """The rows of a card's grid: a Pichenotte match of N games has N; a match to a target, as many as fit (6)."""
    if st.match and st.match.startswith("games:"):
        with contextlib.suppress(ValueError):
            return max(1, min(12, int(st.match.split(":", 1)[1])))
    return 6


def format_said(st: Stage) -> str:
    m = st.match
    if m and m.startswith("games:"):
        n = m.split(":", 1)[1]
        return f"{n} game" if n == "1" else f"{n} games"
    return f"to {m}" if m else "the rule set's match"


LOOPBACK = ("localhost", "127.", "[::1]", "::1")


def card_base(scheme: str, host: str, listen: str, server_url: str) -> str:
    """Where the score cards' QR codes point: the address the organiser's browser used, as the phones in the room
    reach the same server; but a card printed from this machine's own `localhost` would send every phone to itself,
    so when the server listens on the network its own address (the one it printed) is used instead."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if name.startswith(LOOPBACK) and not listen.startswith(LOOPBACK):
        return server_url
    return f"{scheme}://{host}"


def cards_page(ev: Event, st: Stage, rnd: str, ms: list[Match], base: str) -> str:
    esc = html.escape
    cards = []
    for m in ms:
        sides = [side_name(s) or "(to be decided)" for s in m.sides]
        players = [
            ", ".join(ev.entrants[s].players) if s in ev.entrants and len(ev.entrants[s].players) > 1 else ""
            for s in m.sides
        ]
        if m.board:
            link = f"{base}/enter/{m.board}"
            qr = f'<figure class="qrbox">{qr_svg(link)}<figcaption>{esc(link)}</figcaption></figure>'
            board = esc(m.board)
        else:
            qr = '<figure class="qrbox none"><figcaption>no board yet: assign one, then print again'
            qr += "</figcaption></figure>"
            board = "________"
        rows = "".join(f"<tr><th>{g}</th><td></td><td></td><td></td><td></td></tr>" for g in range(1, games_of(st) + 1))
        cards.append(
            f"""<section class="scorecard" data-match="{esc(m.id)}" data-board="{esc(m.board or "")}">
<header><h1>{esc(ev.name)}</h1><p>{esc(st.name)} · round {esc(rnd)} · match {esc(m.label)}</p></header>
<div class="cardtop">
<table class="who"><tr><th>Board</th><td class="board">{board}</td></tr>
<tr><th>Format</th><td>{esc(format_said(st))} · {esc(st.rules)}</td></tr>
<tr><th>A</th><td class="side">{esc(sides[0])} <small>{esc(players[0])}</small></td></tr>
<tr><th>B</th><td class="side">{esc(sides[1])} <small>{esc(players[1])}</small></td></tr></table>
{qr}</div>
<table class="grid"><thead><tr><th>Game</th><th>A points</th><th>A twenties</th>
<th>B points</th><th>B twenties</th></tr></thead>
<tbody>{rows}<tr class="total"><th>Total</th><td></td><td></td><td></td><td></td></tr></tbody></table>
<p class="sign">Winner: ____________________ &nbsp; Signed A: __________ &nbsp; B: __________</p>
<p class="note">S-2: each player keeps their own card, so the referees can check the scores. Scan the code to score on
the board's phone page.</p>
</section>"""
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css"><title>Score cards: {esc(st.name)} round {esc(rnd)}</title></head>
<body class="cards" data-cards="{len(ms)}">
{"".join(cards)}
</body></html>
"""
