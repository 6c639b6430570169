"""The printable score cards (`/cards/<stage>/<round>`): one A4 card per match with the entrants, the board, the
format, a grid per game for the players' own scores (S-2), and a QR code to the board's phone page."""

from __future__ import annotations

import contextlib
import html

import segno
from starlette.responses import Response

from flickboard import i18n
from flickboard.displays.tournament_pages.views import side_name
from flickboard.displays.web.responses import html_response
from flickboard.rules.text import N_
from flickboard.tournament.event import Event, Match, Stage


def line_page(code: int, text: str, lang: str = i18n.SOURCE) -> Response:
    """A page that says one line (a score card link that names nothing), in `lang`."""
    _ = i18n.translator(lang)
    said = html.escape(_(text), quote=False)
    title, hall = html.escape(_("Score cards")), html.escape(_("Hall"))
    page = f"<!doctype html><html lang='{lang}'><title>{title}</title><p class='line'>{said}</p>"
    return html_response(code, page + f"<p><a href='/hall'>{hall}</a>")


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


def format_said(st: Stage, lang: str = i18n.SOURCE) -> str:
    _ = i18n.translator(lang)
    m = st.match
    if m and m.startswith("games:"):
        n = m.split(":", 1)[1]
        return _("1 game") if n == "1" else _("{n} games", n=n)
    return _("to {target}", target=m) if m else _("the rule set's match")


LOOPBACK = ("localhost", "127.", "[::1]", "::1")
CARD_WORDS: tuple[str, ...] = (
    N_("Board"),
    N_("Format"),
    N_("Game"),
    N_("A points"),
    N_("A twenties"),
    N_("B points"),
    N_("B twenties"),
    N_("Total"),
    N_("Winner:"),
    N_("Signed A:"),
)
NOTE = N_(
    "S-2: each player keeps their own card, so the referees can check the scores. Scan the code to score on the "
    "board's phone page."
)
CARD_WORDS += (NOTE,)


def card_base(scheme: str, host: str, listen: str, server_url: str) -> str:
    """Where the score cards' QR codes point: the address the organiser's browser used, as the phones in the room
    reach the same server; but a card printed from this machine's own `localhost` would send every phone to itself,
    so when the server listens on the network its own address (the one it printed) is used instead."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if name.startswith(LOOPBACK) and not listen.startswith(LOOPBACK):
        return server_url
    return f"{scheme}://{host}"


def cards_page(ev: Event, st: Stage, rnd: str, ms: list[Match], base: str, lang: str = i18n.SOURCE) -> str:
    """The cards of round `rnd`'s matches, in `lang` (the page's language: `?lang=`, `--lang`, the browser's)."""
    esc = html.escape
    say = i18n.translator(lang)

    def _(text: str, **values: str) -> str:  # a sentence said in `lang`, as HTML
        return esc(say(text, **values))

    w = {word: _(word) for word in CARD_WORDS}  # the card's own words, said in `lang`
    cards = []
    for m in ms:
        sides = [side_name(s) or say(N_("(to be decided)")) for s in m.sides]
        players = [
            ", ".join(ev.entrants[s].players) if s in ev.entrants and len(ev.entrants[s].players) > 1 else ""
            for s in m.sides
        ]
        if m.board:
            link = f"{base}/enter/{m.board}"
            qr = f'<figure class="qrbox">{qr_svg(link)}<figcaption>{esc(link)}</figcaption></figure>'
            board = esc(m.board)
        else:
            qr = '<figure class="qrbox none"><figcaption>' + _("no board yet: assign one, then print again")
            qr += "</figcaption></figure>"
            board = "________"
        rows = "".join(f"<tr><th>{g}</th><td></td><td></td><td></td><td></td></tr>" for g in range(1, games_of(st) + 1))
        where = _("{stage} · round {round} · match {match}", stage=st.name, round=rnd, match=m.label)
        cards.append(
            f"""<section class="scorecard" data-match="{esc(m.id)}" data-board="{esc(m.board or "")}">
<header><h1>{esc(ev.name)}</h1><p>{where}</p></header>
<div class="cardtop">
<table class="who"><tr><th>{w["Board"]}</th><td class="board">{board}</td></tr>
<tr><th>{w["Format"]}</th><td>{esc(format_said(st, lang))} · {esc(st.rules)}</td></tr>
<tr><th>A</th><td class="side">{esc(sides[0])} <small>{esc(players[0])}</small></td></tr>
<tr><th>B</th><td class="side">{esc(sides[1])} <small>{esc(players[1])}</small></td></tr></table>
{qr}</div>
<table class="grid"><thead><tr><th>{w["Game"]}</th><th>{w["A points"]}</th><th>{w["A twenties"]}</th>
<th>{w["B points"]}</th><th>{w["B twenties"]}</th></tr></thead>
<tbody>{rows}<tr class="total"><th>{w["Total"]}</th><td></td><td></td><td></td><td></td></tr></tbody></table>
<p class="sign">{w["Winner:"]} ____________________ &nbsp; {w["Signed A:"]} __________ &nbsp; B: __________</p>
<p class="note">{w[NOTE]}</p>
</section>"""
        )
    title = _("Score cards: {stage} round {round}", stage=st.name, round=rnd)
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css"><title>{title}</title></head>
<body class="cards" data-cards="{len(ms)}">
{"".join(cards)}
</body></html>
"""
