"""The tournament's pages (host/displays/tournament_pages/) in headless Chromium (Playwright) against the real web
server run with `--tournament`, a live Mosquitto and a real bridge in-process where boards are involved
(tests/support/tournament_rig.py):

- the hall screen follows a Swiss round of 40 entrants as results come in (from a board by itself, and typed by the
  organiser in another command), with a board's live score, never clipped at 1280x720 and 1920x1080 (every element's
  box measured, each page of the standings);
- an entrant's phone shows the next match, its board and the board's TV;
- the organiser, with the scoring key, pairs a round, lets the next free boards take the next matches, enters a
  result, fixes a wrong one, approves a held board result and withdraws an entrant; without the key the page's data
  and acts are refused; bad input is one plain line and changes nothing;
- the score cards print (page.pdf), one A4 page per match, and each card's QR code, decoded from the browser's pixels,
  names its board's phone page; with another hall holding the event, the pages still work and say so.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import Browser, Page
from tournament_rig import (
    HALL_SIZES,
    NAMES,
    TournamentRig,
    answer,
    assert_readable,
    assert_whole,
    casual,
    click_act,
    entries,
    new_page,
    organiser,
    play,
    round_results,
    spoil_journals,
    swiss_event,
    until,
)
from web_rig import Chromium

from flickboard.cli.tournament.standings import stage_standings
from flickboard.config import parse_mqtt_url
from flickboard.displays.tournament_pages.cards import card_base
from flickboard.displays.tournament_pages.views import headline, ordinal
from flickboard.sim.broker import Broker
from flickboard.tournament import Director, columns, dumps, read
from flickboard.tournament import export as exports
from flickboard.tournament.hall import Hall

SHOWN = "() => [...document.querySelectorAll('#tablebox tr.r')].filter(r => !r.hidden).map(r => r.dataset.entrant)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Chromium() as chromium:  # Playwright's own Browser, for pages made here
        yield chromium.browser


def wins(page: Page, entrant: str) -> str:
    return str(page.evaluate("e => document.querySelector(`tr[data-entrant='${e}'] td.w`).textContent", entrant))


def test_the_hall_screen_follows_a_swiss_round_and_is_never_clipped(
    browser: Browser, broker: Broker, tmp_path: Path
) -> None:
    path = str(tmp_path / "open.jsonl")
    swiss_event(path, NAMES)
    with organiser(path) as d:
        d.pair_round("swiss")
        first = d.event.stages["swiss"].rounds[0]
        for i, mid in enumerate(first[:10]):  # ten boards; the other ten matches wait for one
            d.assign(mid, f"t{i + 1}")
    rig = TournamentRig(broker, tmp_path, path, boards=("t1",))
    try:
        # The board's match opens by itself (the web server runs the hall); its score is live on the hall screen.
        until(lambda: rig.hall.opens.get(first[0], {}).get("state") == "opened", "the match opened on t1")
        m1 = read(path).matches[first[0]]
        play(rig.bridge, "t1", list(m1.sides), seed=3, lines=6)
        page = new_page(browser, 1280, 720)
        page.goto(f"{rig.url}/hall")
        entries(page, rig.count())
        assert "round 1 of 5" in page.inner_text("#stage")
        page.wait_for_function(
            "() => document.querySelector(\"li[data-board='t1'] .bscore\").textContent.match(/\\d – \\d/)"
        )
        for what, kind in (("boards", "bm"), ("waiting", "wm")):  # what does not fit is counted, not cut
            shown = page.locator(f"#{what} li.{kind}").count()
            more = page.locator(f"#{what} li.more").all_inner_texts()
            assert shown + sum(int(t.split()[0][1:]) for t in more) == 10, (what, shown, more)
            assert more == [f"+{10 - shown} more {what}"] * (shown < 10), more
        assert page.inner_text("li[data-board='t2'] .bwho") == " v ".join(read(path).matches[first[1]].sides)
        heads = [t.strip() for t in page.locator("#tablebox thead th").all_inner_texts()]
        ev = read(path)
        cli = stage_standings(ev, ev.stages["swiss"], path)[2].split()  # the terminal's header line
        assert heads == cli == ["#", "Entrant", "P", "W", "L", "Buch", "MBuch", "20s", "Pts", "+/-", "SO"], heads
        # Results come in: the board's own (the hall takes it), then the organiser's for the rest of the round.
        doc = play(rig.bridge, "t1", list(m1.sides), seed=3, start=6)
        until(lambda: read(path).matches[first[0]].outcome is not None, "the board's result")
        winner = read(path).matches[first[0]].winner
        assert winner == doc["score"]["winner"]
        entries(page, rig.count())
        page.wait_for_function("() => !document.querySelector(\"li[data-board='t1']\")")  # t1 is free again
        assert wins(page, winner) == "1"
        round_results(path)
        ev = read(path)
        entries(page, ev.count)
        for mid in first:
            assert wins(page, ev.matches[mid].winner) == "1"
        assert sum(int(t) for t in page.locator("#tablebox td.w").all_text_contents()) == 20
        assert page.inner_text("#boards") == "none" and page.inner_text("#waiting") == "none"
        with organiser(path) as d:
            d.pair_round("swiss")
            for i, mid in enumerate(d.event.stages["swiss"].rounds[1][:10]):
                d.assign(mid, f"t{i + 1}")
        entries(page, rig.count())
        assert "round 2 of 5" in page.inner_text("#stage")
        page.close()
        # Never clipped: 40 entrants, ten boards, ten matches waiting, the long names, each page of the standings.
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall")
            entries(page, rig.count())
            pages = int(page.evaluate("() => document.body.dataset.pages"))
            assert w > 1280 or pages > 1, "40 entrants do not fit at 720 p: the standings go in pages"
            for n in range(1, pages + 1):
                page.goto(f"{rig.url}/hall?page={n}")
                entries(page, rig.count())
                assert page.evaluate("() => document.body.dataset.page") == str(n)
                assert_whole(page, f"the hall screen, page {n}")
                assert_readable(page, f"the hall screen, page {n}")
            shown = page.evaluate(
                "() => [...document.querySelectorAll('#tablebox tr.r')].filter(r => !r.hidden).length"
            )
            assert shown >= 1
            page.close()
        # Every entrant is on one page or another, once.
        page = new_page(browser, 1280, 720)
        seen: list[str] = []
        page.goto(f"{rig.url}/hall")
        entries(page, rig.count())
        for n in range(1, int(page.evaluate("() => document.body.dataset.pages")) + 1):
            page.goto(f"{rig.url}/hall?page={n}")
            entries(page, rig.count())
            seen += page.evaluate(SHOWN)
        assert sorted(seen) == sorted(NAMES)
        page.close()
    finally:
        rig.close()


def test_the_organiser_runs_a_round_from_the_page(browser: Browser, broker: Broker, tmp_path: Path) -> None:
    path = str(tmp_path / "open.jsonl")
    swiss_event(path, ["Ana", "Ben", "Cy", "Di", "Ed", "Flo"], rounds=3)
    rig = TournamentRig(broker, tmp_path, path, boards=("t1", "t2"))
    try:
        until(lambda: {"t1", "t2"} <= set(rig.web.hub.boards()), "the boards' scoreboards on the web server")
        # Without the key: the page asks for it, its data and its acts are refused, nothing changes.
        n0 = rig.count()
        page = new_page(browser, 1280, 900)
        page.goto(f"{rig.url}/organiser")
        page.wait_for_function("() => document.body.dataset.state === 'no-key'")
        assert page.is_visible("#keyform") and not page.is_visible("#pair")
        assert rig.http("GET", "/api/tournament/organiser", key=None)[0] == 401
        code, res = rig.http("POST", "/api/tournament/act", {"do": "pair"}, key=None)
        assert code == 401 and res["refused"] == "no organiser's key"
        code, res = rig.http("POST", "/api/tournament/act", {"do": "pair"}, key="ABCD-EFGH")
        assert code == 403 and res["refused"] == "wrong scoring key"
        # A scorer's key (the one for every board, as phones were given it) is not the organiser's: no data, no act,
        # no export; and in the browser, the page asks for the organiser's key.
        for act in ({"do": "pair"}, {"do": "withdraw", "entrant": "Ana"}):
            code, res = rig.http("POST", "/api/tournament/act", act, key=rig.web.key)
            assert code == 403 and res["refused"] == "not the organiser's key", res
            assert "organiser's key" in res["error"] and "\n" not in res["error"]
        for url in ("/api/tournament/organiser", "/api/tournament/export/archive.zip"):
            assert rig.http("GET", url, key=rig.web.key)[0] == 403
        page.fill("#key", rig.web.key)
        page.click("#keyform button")
        page.wait_for_function("() => document.body.dataset.state === 'no-key'")
        assert rig.web.refusals.counts["not the organiser's key"] >= 3
        code, res = rig.http("POST", "/api/tournament/act", {"do": "pair"}, origin=False)
        assert code == 403 and res["refused"] == "foreign Origin"
        assert rig.count() == n0
        # With the key (typed in the page's form): pair round 1.
        page.fill("#key", rig.web.organiser_key)
        page.click("#keyform button")
        page.wait_for_function("() => document.body.dataset.state === 'live'")
        assert page.get_attribute("body", "data-hall") == "here"
        said, ok = click_act(page, "#pair")
        assert ok and said == "paired round 1 of swiss: 3 matches", said
        ev = read(path)
        r1 = ev.stages["swiss"].rounds[0]
        assert len(r1) == 3
        entries(page, ev.count)
        # The next free boards take the next matches: t1 and t2 (seen on the broker), in the proposals' order.
        said, ok = click_act(page, "#nextfree")
        assert ok and said == f"assigned {r1[0]} on t1, {r1[1]} on t2", said
        ev = read(path)
        assert ev.matches[r1[0]].board == "t1" and ev.matches[r1[1]].board == "t2"
        said, ok = click_act(page, "#nextfree")
        assert not ok and said == "no free board: every board has a match to play"
        until(lambda: rig.hall.opens.get(r1[0], {}).get("state") == "opened", "the match opened on t1")
        until(lambda: rig.hall.opens.get(r1[1], {}).get("state") == "opened", "the match opened on t2")
        # An entrant's phone: the next match, its board and the board's TV.
        a, b = ev.matches[r1[1]].sides
        phone = new_page(browser, 390, 740, mobile=True)
        phone.goto(f"{rig.url}/entrant/{a}")
        phone.wait_for_function("m => document.body.dataset.next === m", arg=r1[1])
        assert phone.inner_text("#next .opponent") == b and phone.inner_text("#next .board") == "t2"
        assert phone.get_attribute("#next a.btn", "href") == "/tv/t2"
        assert "Score: 0 – 0" in phone.inner_text("#next")
        phone.goto(f"{rig.url}/entrant/{a.lower()}")  # typed in another case: sent on to their own page
        phone.wait_for_function("m => document.body.dataset.next === m", arg=r1[1])
        assert phone.url == f"{rig.url}/entrant/{a}" and phone.inner_text("#who") == a
        phone.close()
        # The third match on a board typed in its row; then its result, then fixed: the other side won.
        third = r1[2]
        x, y = ev.matches[third].sides
        row = f"tr[data-match='{third}']"
        page.fill(f"{row} input.board", "t3")
        said, ok = click_act(page, f"{row} button[data-do='assign']")
        assert ok and said == f"{third} ({x} v {y}) on board t3", said
        assert read(path).matches[third].board == "t3"
        page.select_option(f"{row} select.winner", x)
        page.fill(f"{row} input.points", "310-250")
        said, ok = click_act(page, f"{row} button[data-do='result']")
        assert ok and said == f"result: {third}: {x} wins ({x} 310 – 250 {y})", said
        page.select_option(f"{row} select.winner", y)
        page.fill(f"{row} input.points", "240-300")
        said, ok = click_act(page, f"{row} button[data-do='correct']")
        assert ok and said == f"corrected: {third}: {y} wins ({x} 240 – 300 {y})", said
        o = read(path).matches[third].outcome
        assert o is not None and o.winner == y and o.points == (240, 300) and o.replaced and o.source == "organiser"
        # Bad input: one plain line, nothing changed.
        n1 = rig.count()
        page.fill(f"{row} input.points", "a lot")
        said, ok = click_act(page, f"{row} button[data-do='correct']")
        assert not ok and said == "points: type two whole numbers, one per side, as 310-250"
        for doc, line in [
            ({"do": "result", "match": "swiss/R1-9", "winner": "Ana"}, "there is no match swiss/R1-9; did you mean"),
            ({"do": "assign", "match": third, "board": "t 3"}, "bad board id 't 3'"),
            ({"do": "assign", "match": third, "board": "t3"}, f"match {third} is not ready to play (done)"),
            ({"do": "withdraw", "entrant": "Benn"}, "no entrant named 'Benn'; did you mean 'Ben'?"),
            ({"do": "result", "match": r1[0], "winner": "Zed"}, f"the winner of {r1[0]} is"),
            ({"do": "pair"}, "round 1 of stage swiss still has matches to play"),
            ({"do": "launch"}, "unknown act 'launch'"),
        ]:
            code, res = rig.act(**doc)
            assert code == 400 and res["error"].startswith(line) and "\n" not in res["error"], (doc, res)
        assert rig.count() == n1
        # A held board result: the organiser typed t1's result first (wrongly); the board's differs and is held.
        m = read(path).matches[r1[0]]
        row = f"tr[data-match='{r1[0]}']"
        page.select_option(f"{row} select.winner", m.sides[1])
        page.fill(f"{row} input.points", "1-2")
        said, ok = click_act(page, f"{row} button[data-do='result']")
        assert ok, said
        final = play(rig.bridge, "t1", list(m.sides), seed=5)
        until(lambda: rig.hall.held, "the board's result held for the organiser")
        page.wait_for_function("() => document.body.dataset.held === '1'")
        held = f"section.held[data-match='{r1[0]}']"
        assert "The board says" in page.inner_text(held)
        said, ok = click_act(page, f"{held} button[data-do='approve']")
        assert ok and said.startswith(f"approved board t1's result for {r1[0]}"), said
        o = read(path).matches[r1[0]].outcome
        assert o is not None and o.source == "board" and o.evidence and o.evidence["journal"] == final["journal"]
        assert o.replaced, "appended as a correction of the organiser's result"
        until(lambda: not rig.hall.held, "the hold cleared")
        page.wait_for_function("() => document.body.dataset.held === '0'")
        # A held result dismissed: t2's board result against an organiser's result typed first.
        m = read(path).matches[r1[1]]
        rig.act(do="result", match=r1[1], winner=m.sides[0], points="5-4")
        play(rig.bridge, "t2", list(m.sides), seed=7)
        until(lambda: rig.hall.held, "t2's result held")
        page.wait_for_function("() => document.body.dataset.held === '1'")
        n2 = rig.count()
        said, ok = click_act(page, f"section.held[data-match='{r1[1]}'] button[data-do='dismiss']")
        assert ok and said.startswith(f"dismissed the board's result for {r1[1]}"), said
        page.wait_for_function("() => document.body.dataset.held === '0'")
        assert rig.count() == n2 and read(path).matches[r1[1]].outcome.points == (5, 4)  # type: ignore[union-attr]
        # Withdraw an entrant from the page.
        said, ok = click_act(page, "li[data-entrant='Flo'] button[data-do='withdraw']")
        assert ok and said.startswith("Flo withdrawn"), said
        assert read(path).entrants["Flo"].status == "withdrawn"
        page.close()
        assert not read(path).rejected
    finally:
        rig.close()


def test_score_cards_print_with_each_boards_qr_code(browser: Browser, broker: Broker, tmp_path: Path) -> None:
    path = str(tmp_path / "open.jsonl")
    swiss_event(path, ["Ana", "Ben", "Cy", "Di", "Ed", "Flo", "Gus"], rounds=3)
    with organiser(path) as d:
        d.pair_round("swiss")
        r1 = d.event.stages["swiss"].rounds[0]
        d.assign(r1[0], "t1")
        d.assign(r1[1], "court-7")
    # Another hall already runs for the event (flickboard tournament run): the pages work, and say so.
    other = Hall(path, parse_mqtt_url(broker.url), say=lambda _: None).start()
    rig = TournamentRig(broker, tmp_path, path, boards=())
    try:
        assert rig.pages.hall is None
        code, res = rig.http("GET", "/api/tournament/organiser")
        assert code == 200 and res["hall"]["state"] == "other" and "another hall" in res["hall"]["text"]
        assert any("not followed here" in line for line in rig.said)
        page = new_page(browser, 900, 1200)
        page.goto(f"{rig.url}/cards/swiss/1")
        cards = page.locator("section.scorecard")
        assert cards.count() == 3  # 7 entrants: three matches and a bye
        for i, mid in enumerate(r1):
            card = cards.nth(i)
            m = read(path).matches[mid]
            assert card.get_attribute("data-match") == mid
            assert [t.strip() for t in card.locator(".side").all_inner_texts()] == list(m.sides)
            assert card.locator("table.grid tbody tr").count() == 2  # one game, and the total
            if m.board is None:
                assert card.locator("svg").count() == 0 and "no board yet" in card.inner_text()
                continue
            png = card.locator("svg.qr").screenshot()
            found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
            assert [r.text for r in found] == [f"{rig.url}/enter/{m.board}"], found
        pdf = page.pdf(format="A4")
        assert pdf.startswith(b"%PDF")
        pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
        assert pages == 3, f"one A4 page per card, not {pages}"
        boxes = [[float(v) for v in b.split()] for b in re.findall(rb"/MediaBox\s*\[([^\]]+)\]", pdf)]
        assert boxes and all(abs(b[2] - 595.3) < 1.5 and abs(b[3] - 841.9) < 1.5 for b in boxes), boxes  # A4, in pt
        # Bad input: one plain line.
        for url, line in [
            ("/cards/swis/1", "no stage named 'swis'; did you mean 'swiss'?"),
            ("/cards/swiss/9", "stage swiss has no matches in round '9'"),
        ]:
            r = page.goto(rig.url + url)
            assert r is not None and r.status == 404 and page.inner_text("p.line") == line
        code, res = rig.http("GET", "/api/tournament/entrant/Anna")
        assert code == 404 and res["error"] == "no entrant named 'Anna'; did you mean 'Ana'?"
        page.close()
    finally:
        rig.close()
        other.stop()


def test_pools_then_a_double_elimination_on_the_hall_screen(browser: Browser, broker: Broker, tmp_path: Path) -> None:
    """Pools: a table per pool on the hall screen; then the top two of each in a double elimination: its bracket
    (winners, losers, grand final), never clipped at either size."""
    path = str(tmp_path / "open.jsonl")
    names = [f"Pool{i:02d}" for i in range(12)]
    with Director.create(path, "Pools Cup") as d:
        for i, n in enumerate(names):
            d.add_entrant(n, seed=i + 1)
        d.start_stage("pools", "pools", options={"pools": 3}, match="games:1")
        for k, m in enumerate(list(d.event.stages["pools"].matches.values())[:-2]):
            d.result(m.id, m.sides[k % 2], points=[300, 200] if k % 2 == 0 else [200, 300])
    rig = TournamentRig(broker, tmp_path, path, boards=())
    try:
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall")
            entries(page, rig.count())
            assert page.locator("#tablebox tr.poolhead").all_inner_texts() == ["Pool 1", "Pool 2", "Pool 3"]
            assert_whole(page, "the hall screen of three pools")
            page.close()
        with organiser(path) as d:
            for m in list(d.event.stages["pools"].matches.values())[-2:]:
                d.result(m.id, m.sides[0], points=[300, 250])
            d.start_stage("playoff", "double-elimination", options={"reset": True}, match="games:3",
                          intake={"from": "pools", "top": 2})  # fmt: skip
            first = next(m for m in d.event.stages["playoff"].matches.values() if m.state == "ready")
            d.result(first.id, first.sides[1], points=[500, 610], games=[1, 2])
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall")
            entries(page, rig.count())
            sections = page.locator(".bracket .section").all_inner_texts()
            assert [t.casefold() for t in sections] == ["winners' bracket", "losers' bracket", "grand final"]
            assert page.inner_text(f".bx[data-match='{first.id}'] .bs.won").startswith(first.sides[1])
            assert "double elimination" in page.inner_text("#stage")
            assert_whole(page, "the hall screen's bracket")
            page.close()
    finally:
        rig.close()


@pytest.mark.parametrize(
    ("host", "listen", "expected"),
    [
        ("192.168.1.20:8080", "0.0.0.0", "http://192.168.1.20:8080"),  # opened on the club's network: as it was
        ("clubpc:8080", "0.0.0.0", "http://clubpc:8080"),
        ("localhost:8080", "0.0.0.0", "http://clubpc:8080"),  # printed from the server's own screen: its address
        ("127.0.0.1:8080", "0.0.0.0", "http://clubpc:8080"),
        ("[::1]:8080", "0.0.0.0", "http://clubpc:8080"),
        ("127.0.0.1:8080", "127.0.0.1", "http://127.0.0.1:8080"),  # a server for this machine only: nothing better
    ],
)
def test_score_cards_point_phones_at_an_address_they_can_reach(host: str, listen: str, expected: str) -> None:
    assert card_base("http", host, listen, "http://clubpc:8080") == expected


def test_the_organiser_enters_a_shootout_result_as_its_twenties(broker: Broker, tmp_path: Path) -> None:
    """Three entrants in a circle (each beat one, all 200-100) stay level to the chain's end: the shoot-out (R-1-B)
    decides, and its matches' results are each side's twenties, typed on the organiser's page like points."""
    path = str(tmp_path / "so.jsonl")
    beats = {("Ana", "Ben"): "Ana", ("Ben", "Cat"): "Ben", ("Ana", "Cat"): "Cat"}
    with Director.create(path, "Tie night") as d:
        for name in ("Ana", "Ben", "Cat"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", rules="tournament-2019", match="games:1", tiebreaks=["h2h", "shootout"])
        for m in list(d.event.stages["rr"].matches.values()):
            w = beats[(min(m.sides), max(m.sides))]
            d.result(m.id, w, points=[200, 100] if w == m.sides[0] else [100, 200])
        first = d.shootout_matches("rr")[0]
        sides = d.event.matches[first].sides
    rig = TournamentRig(broker, tmp_path, path, boards=())
    try:
        status, res = rig.act(do="result", match=first, winner=sides[0], points="")
        assert status == 400 and "\n" not in res["error"] and "twenties" in res["error"]  # a shoot-out needs them
        status, res = rig.act(do="result", match=first, winner=sides[0], shootout="7-5")
        assert status == 200 and res["ok"], res
        assert read(path).matches[first].outcome.shootout == (7, 5)
    finally:
        rig.close()


KNOCKOUT = ["Ana Costa", "Ben Okafor", "Zoé Lévesque", "Marie-Claire O'Neil", "Jean-Christophe Vandenbroucke",
            "Léa Fournier"]  # fmt: skip


def test_the_hall_screen_reads_from_across_the_room(browser: Browser, broker: Broker, tmp_path: Path) -> None:
    """A knockout of 6 on a 1080p and a 720p TV: every text at least 3.5 % of the screen's height and nothing cut off,
    in every state the room sees (a board kept by a game in progress, a board's refusal with its reason, the bracket
    with its rounds named, the champion as the headline); the progress counts the matches to play (a bye is none);
    the QR code, read from the browser's pixels, opens the list of entrants."""
    path = str(tmp_path / "cup.jsonl")
    with Director.create(path, "Coupe du Printemps") as d:
        for i, n in enumerate(KNOCKOUT):
            d.add_entrant(n, seed=i + 1)
        d.start_stage("cup", "single-elimination", match="games:1")
        ready = [m.id for m in d.event.stages["cup"].matches.values() if m.state == "ready"]
    twice = next(mid for mid in ready if "Zoé Lévesque" in read(path).matches[mid].sides)  # seeds 3 and 6
    other = next(mid for mid in ready if mid != twice)
    rig = TournamentRig(broker, tmp_path, path, boards=("t1", "t2"))
    try:
        game, _ = casual(rig.bridge, "t1", ["Cy", "Dee"], seed=31, lines=6)
        spoil_journals(tmp_path / "journals", "t2")  # t2's bridge can start no journal: it refuses every match
        with organiser(path) as d:
            d.assign(other, "t1")  # t1 is in the middle of a casual game: the match waits
            d.assign(twice, "t2")  # refused by t2's bridge: back to waiting, with the reason
        until(lambda: rig.hall.busy and rig.hall.refusals, "the busy board and the refusal")
        until(lambda: read(path).matches[twice].board is None, "the refused match back to waiting")
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall")
            entries(page, rig.count())
            page.wait_for_function(  # the busy board and the refusal, both (a loaded machine may show one first)
                "() => document.body.dataset.notices === '2' && !!document.querySelector('#notices li.refused')"
                " && !!document.querySelector('#notices li.busy')",
                timeout=60_000,
            )
            assert page.inner_text("#stage") == "cup · single elimination · 0 of 5 matches played"  # 2 byes: no match
            busy = page.inner_text("#notices li.busy")
            assert busy == "board t1 has a game in progress: Cy 0 – Dee 0; finish it, or abandon it", busy
            refused = page.inner_text("#notices li.refused")
            assert refused.startswith("board t2 refused Zoé Lévesque v Léa Fournier: board t2: cannot start a journal")
            assert page.inner_text(f"li.bm[data-match='{other}'] .bscore") == "waits"
            assert page.locator(f"#waiting li[data-match='{twice}']").count() == 1
            heads = page.locator(".bracket .roundname").all_text_contents()
            assert heads[0] == "Quarter-finals", heads
            assert_whole(page, "the hall screen with a busy board and a refusal")
            assert_readable(page, "the hall screen with a busy board and a refusal")
            png = page.locator("#qr").screenshot()
            found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
            assert [r.text for r in found] == [f"{rig.url}/entrants"], found
            page.close()
        # Every page of the bracket names its rounds; then the organiser settles it and the champion is the headline.
        with organiser(path) as d:
            d.abandon("t1", game, "the casual game can wait")
        until(lambda: rig.hall.opens.get(other, {}).get("state") == "opened", "the match opened once abandoned")
        with organiser(path) as d:
            for _ in range(5):  # the refused match's result typed from its score card, then the rest
                m = next(m for m in d.event.stages["cup"].matches.values() if m.state == "ready")
                d.result(m.id, m.sides[0], points=[300, 180], games=[1, 0])
            assert d.event.champion(d.event.stages["cup"]) == "Ana Costa"
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall")
            entries(page, rig.count())
            assert page.inner_text("#champion") == "Champion: Ana Costa"
            assert page.inner_text("#stage") == "cup · single elimination · complete"
            names: list[str] = []
            for n in range(1, int(page.evaluate("() => document.body.dataset.pages")) + 1):
                page.goto(f"{rig.url}/hall?page={n}")
                entries(page, rig.count())
                names += [t for t in page.locator(".bracket .roundname").all_inner_texts() if t]
                assert_whole(page, f"the bracket, page {n}")
                assert_readable(page, f"the bracket, page {n}")
            assert names == ["Quarter-finals", "Semi-finals", "Final"], names
            page.close()
    finally:
        rig.close()


def test_the_organiser_sees_the_boards_starts_the_next_stage_and_exports(
    browser: Browser, broker: Broker, tmp_path: Path
) -> None:
    """The organiser's page, with the scoring key: a board kept by a game in progress says so with the reason, and its
    game is abandoned from the page (two taps); a board's refusal is listed with its reason and time, the match back to
    waiting; a match is taken off its board; a result's fields are labelled with the sides in the match's order; every
    stage's standings have the terminal's columns; the next stage starts from the standings; the exports download as
    `flickboard tournament export` writes them (and need the key)."""
    path = str(tmp_path / "open.jsonl")
    names = ["Ana Costa", "Ben", "Zoé Lévesque", "Marie-Claire O'Neil"]
    with Director.create(path, "Spring Open") as d:
        for n in names:
            d.add_entrant(n, club="Santa Fe" if "Zo" in n else None)
        d.start_stage("rr", "round-robin", match="games:1")
    rig = TournamentRig(broker, tmp_path, path, boards=("t1", "t2"))
    try:
        until(lambda: {"t1", "t2"} <= set(rig.web.hub.boards()), "the boards' scoreboards on the web server")
        game, _ = casual(rig.bridge, "t1", ["Cy", "Dee"], seed=41, lines=6)
        page = new_page(browser, 1280, 900)
        page.goto(f"{rig.url}/scorer?key={rig.web.organiser_key}")
        page.goto(f"{rig.url}/organiser")
        entries(page, rig.count())
        ev = read(path)
        twice = next(m.id for m in ev.matches.values() if set(m.sides) == {"Zoé Lévesque", "Marie-Claire O'Neil"})
        first = next(m.id for m in ev.matches.values() if "Ana Costa" in m.sides and "Ben" in m.sides)
        # A match put on t1 waits for the casual game there: the page says why, within seconds.
        row = f"tr[data-match='{first}']"
        page.fill(f"{row} input.board", "t1")
        said, ok = click_act(page, f"{row} button[data-do='assign']")
        reason = "board t1 has a game in progress: Cy 0 – Dee 0; finish it, or abandon it"
        who = " v ".join(ev.matches[first].sides)
        assert ok and said == f"{first} ({who}) on board t1; it waits: {reason}", said
        page.wait_for_function("() => document.body.dataset.busy === '1'", timeout=20_000)
        card = "section.busyboard[data-board='t1']"
        assert page.inner_text(f"{card} .reason") == reason
        assert first not in rig.hall.opens and rig.bridge.scoreboard("t1")["journal"] == game
        # Abandoned from the page: the first tap only arms the button; the second abandons; the match opens.
        before = int(page.evaluate("() => Number(document.body.dataset.acts || 0)"))
        page.click(f"{card} button[data-do='abandon']")
        assert page.inner_text(f"{card} button[data-do='abandon']") == "Tap again to confirm"
        assert int(page.evaluate("() => Number(document.body.dataset.acts || 0)")) == before
        said, ok = click_act(page, f"{card} button[data-do='abandon']")
        assert ok and said.startswith("the game on board t1 is abandoned"), said
        assert read(path).abandoned("t1") == {game}
        until(lambda: rig.hall.opens.get(first, {}).get("state") == "opened", "the match opened over the casual game")
        page.wait_for_function("() => document.body.dataset.busy === '0'")
        # The next free boards: t2, in the middle of a friendly game, is not free; once that game ends, it is.
        _, rest = casual(rig.bridge, "t2", ["Eve", "Fay"], seed=42, lines=5)
        until(lambda: rig.hall.in_the_way("t2"), "t2's friendly game seen by the hall")
        said, ok = click_act(page, "#nextfree")
        assert not ok and said == "no free board: a game in progress keeps t2; the others have a match to play", said
        for line in rest:
            assert rig.bridge.submit("t2", line).accepted, line
        until(lambda: not rig.hall.in_the_way("t2"), "t2's friendly game over")
        # A board that refuses a match (its bridge can start no journal for it): listed with its time and the bridge's
        # reason; the match waits for a board.
        spoil_journals(tmp_path / "journals", "t2")
        row = f"tr[data-match='{twice}']"
        page.fill(f"{row} input.board", "t2")
        said, ok = click_act(page, f"{row} button[data-do='assign']")
        assert ok, said
        page.wait_for_function("() => document.body.dataset.refusals === '1'", timeout=15_000)
        line = page.inner_text(f".refusals li[data-match='{twice}']")
        where = re.escape(str(tmp_path / "journals" / "t2"))
        assert re.match(
            rf"\d\d:\d\d:\d\d board t2 refused {re.escape(twice)}: board t2: cannot start a journal in {where}: ", line
        ), line
        page.wait_for_function(f"() => document.querySelector(\"{row} .res\").textContent === 'waiting for a board'")
        assert read(path).matches[twice].board is None
        # Taken off its board from the page: back to waiting.
        third = next(m.id for m in read(path).matches.values() if m.state == "ready" and not m.board and m.id != twice)
        with organiser(path) as d:
            d.assign(third, "t9")
        entries(page, rig.count())
        said, ok = click_act(page, f"tr[data-match='{third}'] button[data-do='unassign']")
        assert ok and said == f"{third} taken off board t9: back to waiting for a board", said
        assert read(path).matches[third].board is None
        # What the organiser is typing survives a redraw (another command acts meanwhile); then a result: the field is
        # labelled with the sides in the match's order, and the numbers go to them so.
        row = f"tr[data-match='{first}']"
        page.select_option(f"{row} select.winner", "Ben")
        page.fill(f"{row} input.points", "12-34")
        page.focus("#start input[name='stage']")  # (away from the row: only the kept values hold it)
        with organiser(path) as d:
            d.withdraw("Marie-Claire O'Neil", "called away")
        entries(page, rig.count())
        assert page.eval_on_selector(f"{row} select.winner", "s => s.value") == "Ben"
        assert page.eval_on_selector(f"{row} input.points", "i => i.value") == "12-34"
        for m in read(path).matches.values():
            if m.state != "ready":
                continue
            row = f"tr[data-match='{m.id}']"
            label = f"points: {m.sides[0]} – {m.sides[1]}"
            assert page.inner_text(f"{row} .nlabel") == label
            assert page.get_attribute(f"{row} input.points", "aria-label") == label
            w = min(m.sides, key=["Ana Costa", "Zoé Lévesque", "Ben"].index)  # no tie: Ana Costa, Zoé, Ben
            typed = "310-250" if w == m.sides[0] else "250-310"  # the winner's 310, in the label's order
            page.select_option(f"{row} select.winner", w)
            page.fill(f"{row} input.points", typed)
            said, ok = click_act(page, f"{row} button[data-do='result']")
            assert ok, said
            o = read(path).matches[m.id].outcome
            assert o is not None and o.winner == w and list(o.points or ()) == [int(x) for x in typed.split("-")]
        # The standings: the terminal's columns and cells.
        ev = read(path)
        entries(page, ev.count)
        cli = stage_standings(ev, ev.stages["rr"], path)
        heads = page.locator(".stagetable[data-stage='rr'] thead th").all_inner_texts()
        assert heads == cli[2].split(), (heads, cli[2])
        shown = [r.split("\t") for r in page.locator(".stagetable[data-stage='rr'] tbody tr").all_inner_texts()]
        table = ev.table(ev.stages["rr"])
        assert [[c.strip() for c in r] for r in shown] == columns.cells(ev, ev.stages["rr"], table)
        assert [r[1].strip() for r in shown] == [r.entrant if r.status == "active" else f"{r.entrant} [{r.status}]"
                                                  for r in table.rows]  # fmt: skip
        assert any("Marie-Claire O'Neil [withdrawn]" in x for x in cli)
        # The next stage, from the standings of the finished one.
        page.fill("#start input[name='stage']", "final")
        page.select_option("#format", "single-elimination")
        page.select_option("#from", "rr")
        page.fill("#start input[name='top']", "2")
        before = int(page.evaluate("() => Number(document.body.dataset.acts || 0)"))
        page.click("#start button[type='submit']")
        said = answer(page, before)
        assert said == "stage final started: single elimination, 2 entrants; 1 match ready for the boards", said
        ev = read(path)
        final = ev.stages["final"]
        assert final.intake == {"from": "rr", "top": 2}
        assert final.entrants == [r.entrant for r in ev.table(ev.stages["rr"]).rows][:2]
        # A stage that cannot start says why in one line, and nothing changes.
        n = rig.count()
        code, res = rig.act(do="start", stage="again", format="swiss")
        assert code == 400 and res["error"].startswith("a Swiss stage needs its number of rounds"), res
        code, res = rig.act(do="start", stage="more", format="pools", pools="2", **{"from": "rr", "top": "2"})
        assert code == 400 and res["error"].startswith("stage more cannot start: stage rr already sent"), res
        assert rig.count() == n
        # The exports: downloads from the page, the bytes `flickboard tournament export` writes; not without the key.
        entries(page, rig.count())
        ev = read(path)
        for name, made in (
            ("standings.csv", exports.standings_csv(ev).encode()),
            ("results.csv", exports.results_csv(ev).encode()),
            ("event.json", dumps(ev)),
        ):
            with page.expect_download() as dl:
                page.click(f"#exports a[href='/api/tournament/export/{name}']")
            got = Path(dl.value.path()).read_bytes()
            assert got == made, name
            assert dl.value.suggested_filename == f"spring-open-{name}"
        with page.expect_download() as dl:
            page.click("#exports a[href='/api/tournament/export/archive.zip']")
        with zipfile.ZipFile(dl.value.path()) as z:
            manifest = json.loads(z.read("manifest.json"))
            assert z.read("results.csv") == exports.results_csv(ev).encode()
            assert manifest["entries"] == ev.count and not manifest["missing"]
        assert rig.http("GET", "/api/tournament/export/results.csv", key=None)[0] == 401
        assert rig.http("GET", "/api/tournament/export/nothing.txt")[0] == 404
        page.close()
        assert not read(path).rejected
    finally:
        rig.close()


# Counts the page's alerts: each tone started (Web Audio) and each vibration asked for, as the phone would give them.
ALERT_PROBE = """
window.__alerts = { tones: 0, vibrations: [] };
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true,
  value(pattern) { window.__alerts.vibrations.push(pattern); return true; },
});
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__alerts.tones += 1; return start.apply(this, args); };
"""
PLAYERS = ["Ana Costa", "Ben Okafor", "Zoé Lévesque", "Marie-Claire O'Neil", "Anastasia Papadopoulou", "Cy"]


def says(page: Page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#headline').textContent === t", arg=text, timeout=15_000)


def test_players_find_their_page_and_it_tells_them_what_comes_next(
    browser: Browser, broker: Broker, tmp_path: Path
) -> None:
    """The entrants' list and its search (case and accents ignored, part of a name will do); /entrant/<name> in another
    case or without accents leads to the entrant's own page, a part shared by several to the choices; the entrant's
    page says what comes next in one sentence, from "waiting for a board" to "board t1 against Cy, now" (with a sound
    and a vibration when the match is put on a board), "Your tournament is over: 5th" and "You are the champion"."""
    path = str(tmp_path / "cup.jsonl")
    with Director.create(path, "Coupe du Printemps") as d:
        for i, n in enumerate(PLAYERS):
            d.add_entrant(n, seed=i + 1, club="Montréal" if i % 2 else "Santa Fe")
    rig = TournamentRig(broker, tmp_path, path, boards=())
    try:
        phone = new_page(browser, 390, 740, mobile=True)
        phone.goto(f"{rig.url}/entrant/Cy")
        says(phone, "You are registered: your first match shows here once the first stage starts")
        with organiser(path) as d:
            d.start_stage("cup", "single-elimination", match="games:1")
            st = d.event.stages["cup"]
        zoe = next(m for m in st.matches.values() if "Zoé Lévesque" in m.sides and m.state == "ready")
        assert zoe.sides == ["Zoé Lévesque", "Cy"]  # seeds 3 and 6
        # The list: every entrant, a search that ignores case and accents.
        phone.goto(f"{rig.url}/entrants")
        phone.wait_for_function("() => document.body.dataset.state === 'live'")
        assert phone.locator("#list li").count() == 6
        for typed, found in [
            ("zoe", ["Zoé Lévesque"]),
            ("ZOÉ LÉV", ["Zoé Lévesque"]),
            ("oneil", ["Marie-Claire O'Neil"]),
            ("marie claire", ["Marie-Claire O'Neil"]),
            ("ana", ["Ana Costa", "Anastasia Papadopoulou"]),
            ("montreal", ["Ben Okafor", "Cy", "Marie-Claire O'Neil"]),  # their club
            ("xyz", []),
        ]:
            phone.fill("#q", typed)
            phone.wait_for_function("n => document.body.dataset.shown === n", arg=str(len(found)))
            assert phone.locator("#list li[data-entrant]").evaluate_all("ls => ls.map(l => l.dataset.entrant)") == found
        phone.fill("#q", "zoe")
        phone.click("#list a")
        phone.wait_for_function("() => document.body.dataset.state === 'live'")
        assert phone.url == f"{rig.url}/entrant/Zo%C3%A9%20L%C3%A9vesque"
        says(phone, "Your next match: against Cy, waiting for a board")
        # Typed by hand: without the accents, in capitals, or a part several share.
        for typed in ("zoe levesque", "ZOE%20LEVESQUE", "Zo%C3%A9"):
            r = phone.goto(f"{rig.url}/entrant/{typed}")
            assert r is not None and phone.url == f"{rig.url}/entrant/Zo%C3%A9%20L%C3%A9vesque", typed
        phone.goto(f"{rig.url}/entrant/ana")
        phone.wait_for_function("() => document.body.dataset.state === 'unknown'")
        assert phone.inner_text("#conn") == "2 entrants match 'ana': pick yours"
        assert phone.locator("#choices a").all_inner_texts() == ["Ana Costa", "Anastasia Papadopoulou"]
        code, res = rig.http("GET", "/api/tournament/entrant/Zed")
        assert code == 404 and res["error"] == "no entrant named 'Zed'" and res["choices"] == []
        phone.close()
        # Alerts: Zoé's phone, alerts turned on; the organiser puts her match on t1: it beeps and vibrates once.
        phone = new_page(browser, 390, 740, mobile=True)
        phone.add_init_script(ALERT_PROBE)
        phone.goto(f"{rig.url}/entrant/Zo%C3%A9%20L%C3%A9vesque")
        says(phone, "Your next match: against Cy, waiting for a board")
        phone.click("#alerts")
        phone.wait_for_function("() => document.body.dataset.alerting === 'sound'")
        tones = phone.evaluate("() => window.__alerts.tones")
        assert tones >= 1  # the tone that says what to listen for
        with organiser(path) as d:
            d.assign(zoe.id, "t1")
        says(phone, "Your next match: board t1 against Cy, now")
        phone.wait_for_function("() => document.body.dataset.alerts === '1'")
        got = phone.evaluate("() => window.__alerts")
        assert got["vibrations"] == [[300, 150, 300, 150, 600]] and got["tones"] > tones, got
        assert phone.get_attribute("body", "data-alerted") == "sound vibration"
        polls = int(phone.evaluate("() => Number(document.body.dataset.polls)"))
        phone.wait_for_function("n => Number(document.body.dataset.polls) >= n + 2", arg=polls, timeout=20_000)
        # (two more reads of the page: the same match on the same board is no new alert)
        assert phone.evaluate("() => window.__alerts.vibrations.length") == 1
        # Cy wins: Zoé is out in the quarter-finals, 5th; Ana Costa wins everything: the champion.
        ana = new_page(browser, 390, 740, mobile=True)
        ana.goto(f"{rig.url}/entrant/Ana%20Costa")
        says(
            ana,
            "Your next match: against the winner of Marie-Claire O'Neil v Anastasia Papadopoulou, once it is decided",
        )
        with organiser(path) as d:
            d.result(zoe.id, "Cy", points=[150, 300])
            while d.event.champion(d.event.stages["cup"]) is None:
                m = next(m for m in d.event.stages["cup"].matches.values() if m.state == "ready")
                w = min(m.sides, key=PLAYERS.index)
                d.result(m.id, w, points=[300, 200] if w == m.sides[0] else [200, 300])
        says(phone, "Your tournament is over: 5th")
        says(ana, "You are the champion")
        for p in (phone, ana):
            assert p.evaluate("() => document.body.scrollWidth <= innerWidth"), "wider than the phone"
            p.close()
    finally:
        rig.close()


def test_each_headline_an_entrant_can_get(tmp_path: Path) -> None:
    """The sentences an entrant's page leads with, one per situation (views.headline), on a real event's fold: the
    board busy with another game, queued behind the match on its board, between two Swiss rounds, a stage over
    before the next starts, not qualified, withdrawn."""
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Open") as d:
        for name in ("Ana Costa", "Ben Okafor", "Zoé Lévesque", "Cy"):
            d.add_entrant(name)
        d.start_stage("swiss", "swiss", options={"rounds": 2}, match="games:1")
        d.pair_round("swiss")
        m1, m2 = d.event.stages["swiss"].rounds[0]
        d.assign(m1, "t1")
        d.assign(m2, "t1")  # after m1 on the same board
    ev = read(path)
    a, b = ev.matches[m1].sides
    c, e = ev.matches[m2].sides
    busy = {"t1": "board t1 has a game in progress: Cy 0 – Dee 0; finish it, or abandon it"}
    assert headline(ev, a, {}) == ("playing", f"Your next match: board t1 against {b}, now")
    assert headline(ev, a, busy) == ("busy", f"Your next match: board t1 against {b}, once the game there is over")
    assert headline(ev, c, {}) == ("queued", f"Your next match: board t1 against {e}, after the match there now")
    with Director.open(path) as d:
        d.result(m1, a, points=[300, 100])
        d.result(m2, c, points=[300, 200])
    ev = read(path)
    assert headline(ev, b, {}) == (
        "between",
        "No match for you right now: your next one shows here as soon as it is paired",
    )
    with Director.open(path) as d:
        d.pair_round("swiss")
        for mid in d.event.stages["swiss"].rounds[1]:
            m = d.event.matches[mid]
            d.result(mid, m.sides[0], points=[250, 200])
        d.withdraw(e, "stuck at work")
    ev = read(path)
    rank = dict((who, p) for p, who in ev.ranking(ev.stages["swiss"]))
    first = next(n for n, p in rank.items() if p == 1)
    assert headline(ev, first, {}) == (
        "finished",
        "Stage swiss is over: you finished 1st of 4. A next stage shows here once it starts",
    )
    assert headline(ev, e, {}) == ("out", "Your tournament is over: withdrawn (stuck at work)")
    with Director.open(path) as d:
        d.start_stage("final", "single-elimination", intake={"from": "swiss", "top": 2}, match="games:1")
    ev = read(path)
    out = next(n for n in ev.stages["swiss"].entrants if n not in ev.stages["final"].entrants and n != e)
    place = next(p for p, who, _ in ev.final_standings() if who == out)
    assert headline(ev, out, {}) == ("over", f"Your tournament is over: {ordinal(place or 0)}")
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"
    ]  # fmt: skip


def test_a_new_game_over_a_tournament_match_is_refused_from_a_phone_and_held_for_the_organiser(
    broker: Broker, tmp_path: Path
) -> None:
    """The hall opened a match on t1. A phone's `new` there is refused in one line; a `new` typed at the bridge (or
    sent by `flickboard enter`) is held for the organiser: the hall screen and the organiser's page say the match
    waits and why, never "ready" in silence; once that game is abandoned, the match is opened again."""
    path = str(tmp_path / "open.jsonl")
    swiss_event(path, ["Ana", "Ben", "Cy", "Di"], rounds=1)
    with organiser(path) as d:
        d.pair_round("swiss")
        mid = d.event.stages["swiss"].rounds[-1][0]
        d.assign(mid, "t1")
        players = sorted(d.event.entrants[s].players[0] for s in d.event.matches[mid].sides)
    rig = TournamentRig(broker, tmp_path, path, boards=("t1", "t2"))
    try:
        until(lambda: sorted(rig.bridge.scoreboard("t1")["score"]["players"]) == players, "the match opened on t1")
        opened = rig.bridge.scoreboard("t1")["journal"]
        # a phone (with the scoring key) asks for a new game there: refused, nothing sent
        status, res = rig.http("POST", "/api/t1/input", {"new": {"players": ["Cy", "Di"]}})
        assert status == 409 and res["refused"] == "board holds a tournament match", res
        assert f"holds the tournament match {mid}" in res["error"] and "\n" not in res["error"]
        assert rig.bridge.scoreboard("t1")["journal"] == opened
        # a scorer at the bridge's terminal types `new` over it anyway, and plays a shot
        new = {"rules": "tournament-2019", "players": ["Cy", "Di"], "match": "games:1"}
        assert rig.bridge.mqtt_input("t1", json.dumps({"id": "by-hand", "new": new}).encode())["ok"]
        assert rig.bridge.submit("t1", "shot zone").accepted
        held = until(lambda: rig.hall.busy, "the hall to hold the match for the organiser")
        assert held[0]["match"] == mid and "a new game was started on board t1" in held[0]["reason"]
        assert rig.hall.counts["displaced"] == 1
        assert any("held for the organiser" in s and mid in s for s in rig.said)
        status, view = rig.http("GET", "/api/tournament/hall")
        assert any(n["kind"] == "busy" and n["match"] == mid for n in view["notices"]), view["notices"]
        status, org = rig.http("GET", "/api/tournament/organiser")
        assert status == 200 and mid in json.dumps(org)
        # the organiser abandons the game typed over it: the match is opened on t1 again
        game = rig.bridge.scoreboard("t1")["journal"]
        status, res = rig.act(do="abandon", board="t1", journal=game)
        assert status == 200, res
        until(lambda: rig.bridge.scoreboard("t1")["journal"] not in (opened, game), "the match opened again")
        assert sorted(rig.bridge.scoreboard("t1")["score"]["players"]) == players
        until(lambda: not rig.hall.busy, "the hold lifted")
    finally:
        rig.close()
