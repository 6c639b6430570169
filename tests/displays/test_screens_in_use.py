"""The screens through a whole match as a club uses them, in a real Chromium against the real web server, a real
bridge and Mosquitto (tests/support/web_rig.py): the TV at 1920x1080 and 1280x720 tells each moment once, the
scorer's phone at 390x844 answers in the players' words and never traps the scorer, and the console reads as the
operator's. One browser for the module; each test its own broker, bridge and server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from web_rig import BOARD, Chromium, Page, Rig

from flickboard import i18n
from flickboard.displays.web.plain import plain

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots" / "in-use"

# Boxes overlapping in the page: [left, top, right, bottom] of both, or null.
OVERLAP = """([a, b]) => {
  const A = document.querySelector(a), B = [...document.querySelectorAll(b)];
  if (!A || A.hidden) return null;
  const r = A.getBoundingClientRect();
  for (const e of B) {
    const q = e.getBoundingClientRect();
    if (q.width && r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) return e.innerText;
  }
  return null;
}"""
# The element a real tap at the centre of `sel` lands on is `sel` itself (or inside it).
TAPPABLE = """sel => {
  const e = document.querySelector(sel);
  e.scrollIntoView({block: "center"});
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && (hit === e || e.contains(hit));
}"""


def open_page(browser: Chromium, rig: Rig, kind: str, width: int, height: int) -> Page:
    page = browser.page(width, height, mobile=kind == "enter")
    if kind in ("enter", "console"):
        page.goto(f"{rig.url}/scorer?key={rig.web.key}")
    page.goto(f"{rig.url}/{kind}/{BOARD}" if kind != "console" else f"{rig.url}/console")
    if kind != "console":
        n = rig.synced()["entries"]
        page.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.state === 'live'")
    return page


def submit(rig: Rig, *lines: str) -> dict[str, Any]:
    for line in lines:
        out = rig.bridge.submit(BOARD, line)
        assert out.accepted, (line, out.message)
    return rig.synced()


def synced(page: Page, rig: Rig) -> None:
    n = rig.synced()["entries"]
    page.wait(f"document.body.dataset.entries === '{n}'")


def to_the_zones(rig: Rig) -> dict[str, Any]:
    """Every puck of the game shot and left on the board: the zones are asked."""
    while (cur := rig.synced()["score"]["current"]) and cur["to_shoot"]:
        submit(rig, "shot zone" if cur["shot_kind"] == "free" else "shot hit")
    return rig.synced()


def zones(doc: dict[str, Any], high: str) -> list[str]:
    """The zones lines that end the game: the side `high` gets 25s, the other 5s."""
    return [
        f"zones {a['side']} " + " ".join(["25" if a["side"] == high else "5"] * a["pucks"])
        for a in doc["asks"]
        if a["kind"] == "zones"
    ]


def room_text(page: Page) -> str:
    return str(page.eval("document.body.innerText"))


def test_the_tv_tells_the_story_once(browser: Chromium, rig: Rig) -> None:
    """A games:1 match to its end on two TVs: one big card at a time, the newest (the match's end over the game's),
    never over a side's numbers; the questions and the ditch are not cards; an undone twenty leaves the "Last" row
    and its card; the score pair of a card never breaks; "1 game"."""
    rig.bridge.new_game(BOARD, "tournament-2019", ["Ana", "Ben"], "games:1", None)
    tvs = [open_page(browser, rig, "tv", w, h) for w, h in ((1920, 1080), (1280, 720))]
    for tv in tvs:
        assert "· 1 game ·" in tv.text("#match") and "1 games" not in room_text(tv)
    numbers = "#sides .total .n, #sides .twenties .n, #sides .stat .n, #sides .name"

    submit(rig, "shot zone", "shot hit", "shot hit Ana:in")  # Ana's puck knocked in: a twenty for her
    for tv in tvs:
        synced(tv, rig)
        tv.wait("!document.getElementById('toast').hidden")
        assert tv.text("#toast") == "TWENTY for Ana"
        assert tv.eval(f"({OVERLAP})(['#toast', '{numbers}'])") is None, "the card hides a number"
    rig.bridge.submit(BOARD, "undo")  # it was not a twenty after all
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('toast').hidden")
        assert "TWENTY" not in tv.text("#recent"), tv.text("#recent")

    # The hole sensor's twenty, struck by the scorer ("No twenty"): it leaves the row and its card goes.
    n = submit(rig, "begin Ana", "hit", "in @sensor")["entries"]
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('toast').innerText === 'TWENTY for Ana (provisional)'")
    submit(rig, f"correct {n} -", "end")
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('toast').hidden")
        assert "TWENTY" not in tv.text("#recent"), tv.text("#recent")
    # Another, confirmed: it stays, without "(provisional)".
    n = submit(rig, "begin Ben", "hit", "in @sensor")["entries"]
    submit(rig, f"confirm {n}", "end")
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.querySelector('#recent .moment.twenty') !== null")
        assert tv.text("#recent .moment.twenty") == "TWENTY for Ben", tv.text("#recent")

    submit(rig, "shot hit Ben:ditch")  # Ana's shot sends one of Ben's pucks into the ditch
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('recent').innerText.includes('ditch')")
        assert "Ben's puck into the ditch" in tv.text("#recent") and "(ditch)" not in room_text(tv)
        assert "ditch" not in tv.text("#toast"), "a ditch is not a big card"

    doc = to_the_zones(rig)
    for tv in tvs:
        synced(tv, rig)
        text = room_text(tv)
        assert "A question for the players" not in text
        assert text.count("counting the pucks") == 1, text
    submit(rig, *zones(doc, "Ana"))  # the game ends, and with it the match: two moments at once
    score = rig.synced()["score"]
    assert score["over"] and score["winner"] == "Ana"
    pair = "{}–{}".format(*score["games"][0]["points"])
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('toast').dataset.kind === 'match-over'")
        assert tv.text("#toast") == "MATCH OVER: Ana wins"
        assert tv.eval(f"({OVERLAP})(['#toast', '{numbers}'])") is None, "the card hides a number"
        assert "1 game won" in tv.text("#side0 .games")
        moments = tv.pw.locator("#recent .moment").all_inner_texts()
        assert moments[:2] == ["MATCH OVER: Ana wins", f"GAME 1 OVER: {pair}, won by Ana"], moments
    tvs[1].pw.wait_for_timeout(1000)  # nothing comes after it: the match's end stays (no game's card behind it)
    assert tvs[1].text("#toast") == "MATCH OVER: Ana wins"
    tvs[1].screenshot(SHOTS / "tv-match-over-1280x720.png")

    # A game's end alone: its card with the score pair on one line, at both sizes.
    rig.bridge.new_game(BOARD, "tournament-2019", ["Ana", "Ben"], "games:2", None)
    doc = to_the_zones(rig)
    submit(rig, *zones(doc, "Ben"))
    for tv in tvs:
        synced(tv, rig)
        tv.wait("document.getElementById('toast').dataset.kind === 'game-over'")
        assert re.fullmatch(r"GAME 1 OVER: \d+–\d+, won by Ben", tv.text("#toast")), tv.text("#toast")
        assert tv.eval("document.querySelector('#toast .nw').getClientRects().length") == 1
        assert tv.eval(f"({OVERLAP})(['#toast', '{numbers}'])") is None
    assert all(tv.errors == [] for tv in tvs)


def test_the_phone_never_traps_the_scorer(browser: Chromium, rig: Rig) -> None:
    """A refusal in one sentence of the players' words, the fix as a tap, below the control that sent it and never
    over it, closed with a tap; the notation only in the free line's help; the header's numbers say what they are;
    the zones keypad counts; a new match confirmed in words; an offline bridge said, nothing sent."""
    page = open_page(browser, rig, "enter", 390, 844)
    assert page.pw.get_attribute("#free-line", "placeholder") == "e.g. shot hit Ben:ditch"  # the match's own names
    submit(rig, "shot zone")  # Ana's free shot; Ben's contact shot is due
    synced(page, rig)

    page.type_text("#free-line", "shot hit Ana:dich")
    page.click("#free button[type='submit']")
    page.wait("document.getElementById('answer').dataset.ok === 'false'")
    said = page.text("#answer .said .text")
    assert said == "✗ Not understood: “shot hit Ana:dich”.", said
    assert "hit, miss" not in said and "prefix SIDE" in page.text("#answer .help")  # the notation: as help only
    assert page.eval(f"({OVERLAP})(['#answer', '#free-line, #free button[type=submit]'])") is None
    assert page.eval(f"({TAPPABLE})('#free button[type=submit]')") and page.eval(f"({TAPPABLE})('#free-line')")
    assert page.eval("getComputedStyle(document.getElementById('answer')).position") == "static"
    page.screenshot(SHOTS / "phone-refusal-390x844.png")
    fix = "#answer .fixes button"
    assert page.text(fix) == "Did you mean shot hit Ana: ditch?"
    n = len(rig.records())
    page.click(fix)
    page.wait("document.getElementById('answer').dataset.ok === 'true'")
    assert rig.records()[-1]["in"] == "shot hit Ana:ditch" and len(rig.records()) == n + 1
    assert page.eval("document.getElementById('free-line').value") == ""

    # A rule's refusal: its reason, no notation; closed with one tap.
    page.type_text("#free-line", "reviewed")
    page.click("#free button[type='submit']")
    page.wait("document.getElementById('answer').dataset.ok === 'false'")
    assert page.text("#answer .said .text").startswith("✗ Not taken: ")
    page.click("#answer button[data-act='answer-close']")
    page.wait("document.getElementById('answer').hidden")

    # The header: this game's banked points, labelled, beside the match total.
    submit(rig, "shot hit Ben:in")  # Ana knocks one of Ben's pucks in: 20 for Ben in this game
    synced(page, rig)
    assert page.text("#summary .score") == "Ana 0 – 20 Ben this game"
    assert page.text("#summary .where").startswith("match 0–0 · game 1")

    # The zones: the status line says so, the keypad adds up.
    to_the_zones(rig)
    synced(page, rig)
    assert page.text("#now") == "Every puck is shot: enter each side's zones below."
    card = ".zones[data-side='Ana']"
    for v in ("25", "10", "edge"):
        page.click(f"{card} button[data-act='zone-add'][data-value='{v}']")
    assert page.text(f"{card} .total") == "Ana: 50 so far"
    page.screenshot(SHOTS / "phone-zones-390x844.png")
    doc = rig.synced()
    submit(rig, *zones(doc, "Ana"))
    synced(page, rig)
    assert re.fullmatch(r"Game 1: Ana \d+ – \d+ Ben, won by Ana", page.text("#summary .lastgame"))

    # A player's name the notation cannot take: the refusal says why and leaves "Start a new match" free to tap.
    page.click("#newgame summary")
    page.eval("document.getElementById('new-p1').value = 'Cy:2'; document.getElementById('new-p2').value = 'Di'")
    page.click("#new-start")
    page.click("#new-start")
    page.wait("document.getElementById('answer').dataset.ok === 'false'")
    assert page.text("#answer .said .text") == "✗ Not started: 'Cy:2' cannot be a name: no ':' in a name."
    assert page.eval(f"({TAPPABLE})('#new-start')"), "the refusal covers Start a new match"
    assert page.eval(f"({OVERLAP})(['#answer', '#new-start, #new-form input'])") is None
    page.eval("document.getElementById('new-p1').value = 'Cy'")
    page.click("#new-start")
    page.click("#new-start")
    page.wait("document.getElementById('answer').dataset.ok === 'true'")
    assert page.text("#answer .said .text") == "✓ New match started: Cy – Di"
    page.wait("document.body.dataset.entries === '0'")
    assert page.pw.get_attribute("#free-line", "placeholder") == "e.g. shot hit Di:ditch"

    # The bridge stops: the page says so, and an Undo tapped now is not sent (it would land later, unasked).
    rig.stop_bridge()
    page.wait("document.body.dataset.state === 'scorer-offline'")
    page.click("#more button[data-line='undo']")
    page.click("#more button[data-line='undo']")
    page.wait("document.getElementById('answer').dataset.refused === 'offline'")
    assert "Nothing was sent: the scorer's computer (the bridge) is not running" in page.text("#answer")
    assert page.eval(f"({TAPPABLE})(\"#more button[data-line='undo']\")")
    assert page.eval("document.documentElement.scrollWidth") <= 390
    assert [e for e in page.errors if "status of 400" not in e] == []  # the refused name's answer: a 400


def test_the_console_reads_as_the_operators(browser: Chromium, rig: Rig) -> None:
    """Before the key, a sentence that says what to do; after it, the operator's own clock and every chip inside
    its card; the server's terminal names the console's requests as the console's."""
    submit(rig, "shot zone")
    rig.bridge.tick()  # the bridge's health document
    page = open_page(browser, rig, "console", 1280, 900)
    page.clear_cookies()
    page.goto(f"{rig.url}/console")
    page.wait("document.body.dataset.state === 'no-key'")
    page.wait("document.querySelector('#bridges .hint') !== null")
    assert page.text("#bridges") == (
        "Type the scoring key above (the operator's terminal shows it): the boards and their bridges follow."
    )
    said = [line for line in rig.said if "no scoring key" in line and "/api/console" in line]
    assert said and "console" in said[0].split("/api/console", 1)[1] and "phone" not in said[0], rig.said
    page.type_text("#key", rig.web.key)
    page.click("#keyform button[type=submit]")
    page.wait("document.body.dataset.boards === '1' && document.querySelector('section.bridge .facts') !== null")
    text = room_text(page)
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d+Z?|T\d{2}:\d{2}", text), text
    assert re.search(r"updated\t\d{1,2}:\d{2}:\d{2}", text), text
    outside = """() => [...document.querySelectorAll('section.card')].flatMap(card => {
             const c = card.getBoundingClientRect();
             return [...card.querySelectorAll('*')].filter(e => {
               const r = e.getBoundingClientRect();
               return r.width && (r.right > c.right + 0.5 || r.left < c.left - 0.5);
             }).map(e => e.innerText.slice(0, 40));
           })"""
    assert page.eval(outside) == []
    page.screenshot(SHOTS / "console-1280.png", full_page=True)
    page.pw.set_viewport_size({"width": 390, "height": 844})  # the operator's phone, away from the laptop
    assert page.eval(outside) == [], "a line or a chip runs out of its card"
    assert page.eval("document.documentElement.scrollWidth") <= 390
    assert [e for e in page.errors if "status of 401" not in e] == []  # the polls before the key: 401


def test_a_refusal_in_the_players_words_for_every_game() -> None:
    """The sentence and the fix the phone shows, beside the bridge's message (kept as it was: older pages read it)."""
    pich = {"game": "pichenotte", "rules": "tournament-2019", "players": ["Ana", "Ben"]}
    quebec = {"game": "pichenottes-quebec", "rules": "officiel", "players": ["Ana", "Ben"]}
    flico = {"game": "flicochet", "rules": "flicochet+double-jack", "players": ["Cy", "Di"]}
    refused = {"ok": False, "entry": 7, "message": "the rules' own words"}
    said = plain(pich, {"line": "Ben:dich"}, refused)
    assert said == {
        "say": "Not understood: “Ben:dich”.",
        "said": {"text": "Not understood: “{line}”.", "values": {"line": "Ben:dich"}},
        "fixes": [
            {
                "label": "Did you mean Ben: ditch?",
                "said": {"text": "Did you mean {line}?", "values": {"line": "Ben: ditch"}},
                "line": "Ben:ditch",
            }
        ],
    }
    # what a French page says of it (FB.T does the same with the same catalogue)
    assert i18n.say(said["said"]["text"], "fr", **said["said"]["values"]) == "Pas compris : « Ben:dich »."
    assert i18n.say(said["fixes"][0]["said"]["text"], "fr", line="Ben: ditch") == "Vouliez-vous dire Ben: ditch ?"
    assert plain(quebec, {"line": "shot rde"}, refused)["fixes"][0]["line"] == "shot red"
    assert plain(flico, {"line": "flik"}, refused)["fixes"][0]["line"] == "flick"
    zones_first = {**refused, "message": "first answer: enter the zones of Ana's 1 puck(s) on the board (zones Ana 15)"}
    assert (
        plain(pich, {"line": "hit"}, zones_first)["say"]
        == "Not taken: enter the zones of Ana's 1 puck on the board first."
    )
    assert plain(pich, {"line": "reviewed"}, {**refused, "message": "nothing needs review"})["say"] == (
        "Not taken: nothing needs review."
    )
    assert plain(pich, {"line": "shot hit"}, {"ok": True, "entry": 3, "message": "shot hit"}) == {}
    assert plain(None, {"line": "Ben:dich"}, refused) == {
        "say": "Not taken: the rules' own words.",
        "said": {"text": "Not taken: {reason}.", "values": {"reason": "the rules' own words"}},
        "fixes": [],
    }
