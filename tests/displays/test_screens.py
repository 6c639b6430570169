"""The screens as the people in the room use them, in headless Chromium (Playwright) against the real web server, a
real bridge and Mosquitto (tests/support/web_rig.py):

- the TV speaks to spectators: names, what each side has banked in the game, whose shot, the last moments, the
  board's state in one sentence; never the scorer's notation or a queue count; nothing clipped at 1280x720,
  1920x1080 and 3840x2160 (every element's box measured in the browser; screenshots read back with Pillow);
- the phone asks each question once, with a one-tap answer per choice and only the buttons that apply now.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect
from web_rig import BOARD, Board, Chromium, Rig, mid_game, other_game

from flickboard.board.bridge import messages as bridge_messages
from flickboard.cli.bridge import start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url

TV_SIZES = [(1280, 720), (1920, 1080), (3840, 2160)]
# What the room must never read: quoted entry words, SIDE:fact, sensor marks, the scorer's verbs, queue counts.
NOTATION = re.compile(r"'[\w ]+'|\b\w+:(ditch|in|edge|base|off|hand)\b|@sensor|\breviewed\b|\bdismiss\b|board events")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Chromium() as chromium:  # Playwright's own Browser, for pages made here
        yield chromium.browser


def tv(browser: Browser, rig: Rig, width: int, height: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height}, reduced_motion="reduce")
    page.on("pageerror", lambda e: pytest.fail(f"the TV page failed: {e}"))
    page.goto(f"{rig.url}/tv/{BOARD}")
    synced(page, rig)
    return page


def phone(browser: Browser, rig: Rig) -> Page:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.on("pageerror", lambda e: pytest.fail(f"the phone page failed: {e}"))
    page.goto(f"{rig.url}/scorer?key={rig.web.key}")  # the scorer opens the operator's link once
    page.goto(f"{rig.url}/enter/{BOARD}")
    synced(page, rig)
    return page


def synced(page: Page, rig: Rig) -> None:
    n = rig.synced()["entries"]
    page.wait_for_function("n => document.body.dataset.entries === n", arg=str(n), timeout=10_000)


CLIPPED = (Path(__file__).resolve().parents[1] / "support" / "clipped.js").read_text(encoding="utf-8")


def assert_whole(page: Page, what: str, shots: Path) -> None:
    w, h = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    cut = page.evaluate(CLIPPED)
    png = page.screenshot(path=str(shots / f"{what}-{w}x{h}.png"))
    img = Image.open(io.BytesIO(png))
    assert img.size == (w, h)
    assert len(img.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20, "a blank screenshot"
    assert not cut, f"{what} at {w}x{h}: " + "; ".join(cut[:6])


def room_text(page: Page) -> str:
    shown = "() => [...document.body.querySelectorAll('body > *:not(script)')].map(e => e.innerText).join('\\n')"
    return str(page.evaluate(shown))


def test_the_tv_never_clips_and_never_speaks_notation(browser: Browser, rig: Rig, tmp_path: Path) -> None:
    """The worst case a room sees: two games played, a provisional twenty, a ditch pass nobody attributed, a question
    on the state line and the last moments, at the three TV sizes; then doubles, Québec Pichenottes and Flicochet."""
    rig.bridge.board_state(BOARD, True)
    mid_game(rig)  # a shot open with a provisional twenty from the hole sensor
    Board(rig).event("pass", "ditch1", dur_us=5000)  # and a puck into the ditch: whose?
    doc = rig.synced()
    assert [a["kind"] for a in doc["asks"]][:2] == ["ditch", "twenty"]
    for w, h in TV_SIZES:
        page = tv(browser, rig, w, h)
        assert page.inner_text(".state") == doc["now"] == "Waiting for the scorer: whose puck went into the ditch?"
        assert not NOTATION.search(room_text(page)), room_text(page)
        assert_whole(page, "tv-question", tmp_path)
        page.close()

    # Doubles: team names and both players on each side, a few shots in.
    rig.bridge.new_game(BOARD, "tournament-2019", ["Ana", "Cy", "Ben", "Di"], None, None)
    for line in ("shot zone", "shot hit", "shot hit Ana:in", "penalty Ben"):
        assert rig.bridge.submit(BOARD, line).accepted, line
    for w, h in TV_SIZES:
        page = tv(browser, rig, w, h)
        assert page.inner_text("#side0 .name") == "Ana+Ben" and page.inner_text("#side1 .name") == "Cy+Di"
        assert not NOTATION.search(room_text(page))
        assert_whole(page, "tv-doubles", tmp_path)
        page.close()
    for game in ("quebec", "flicochet"):
        other_game(rig, game)
        for w, h in TV_SIZES:
            page = tv(browser, rig, w, h)
            assert not NOTATION.search(room_text(page))
            assert_whole(page, f"tv-{game}", tmp_path)
            page.close()


def test_the_tv_shows_what_is_banked_whose_shot_and_the_last_moments(browser: Browser, rig: Rig) -> None:
    """During a game the biggest number is what a side has banked (twenties less penalties, A-2), beside the match
    total; the last moments stay on screen after their card fades, and after a reload."""
    page = tv(browser, rig, 1920, 1080)
    assert page.inner_text("#turn").startswith("Ana to shoot")
    for line in ("shot zone", "shot hit", "shot hit Ana:in"):  # Ana's free shot; Ben hits; Ana hits and sinks one
        assert rig.bridge.submit(BOARD, line).accepted, line
    synced(page, rig)
    assert page.inner_text("#side0 .total .n") == "20" and "this game" in page.inner_text("#side0 .total")
    assert "match 0" in page.inner_text("#side0 .games")
    assert rig.bridge.submit(BOARD, "penalty Ana").accepted  # touched a moving puck: -20
    synced(page, rig)
    assert page.inner_text("#side0 .total .n") == "0"
    assert "penalty −20" in page.inner_text("#side0")
    page.wait_for_function("() => document.querySelectorAll('#recent .moment').length >= 2")
    moments = page.locator("#recent .moment").all_inner_texts()
    assert moments[0].startswith("PENALTY") and any(m.startswith("TWENTY for Ana") for m in moments)
    page.reload()
    synced(page, rig)
    assert page.locator("#recent .moment").all_inner_texts() == moments
    assert not NOTATION.search(room_text(page))
    page.close()


def tap(page: Page, rig: Rig, label: str) -> dict[str, Any]:
    """Tap the button with these words; the answer bar says it was taken; the page follows the new scoreboard."""
    before = rig.synced()["entries"]
    page.get_by_role("button", name=label, exact=True).click()
    page.wait_for_function("() => document.getElementById('answer').dataset.ok === 'true'", timeout=10_000)
    rig.wait(lambda: len(rig.records()) > before, "the tapped entry in the journal")
    synced(page, rig)
    return rig.synced()


def test_the_phone_answers_the_sensors_questions_in_one_tap_each_once(
    browser: Browser, rig: Rig, tmp_path: Path
) -> None:
    rig.bridge.board_state(BOARD, True)
    board = Board(rig)
    page = phone(browser, rig)
    board.event("shot_start", "baseline", q=1, seg=1)  # Ana's free shot begins
    board.event("pass", "ditch1", dur_us=5000)  # a puck into the ditch: whose? (only hers is on the board)
    synced(page, rig)
    cards = page.locator("#questions .card")
    assert cards.count() == 1 and cards.first.get_attribute("data-kind") == "ditch"
    assert page.locator("#questions button").all_inner_texts() == [
        "Ana's shooting puck",
        "No puck went in (the sensor was wrong)",
    ]
    text = cards.first.inner_text()
    page.screenshot(path=str(tmp_path / "phone-ditch.png"), full_page=True)
    assert room_text(page).count("went into the ditch") == 1, "the question is asked once"
    assert "ditch" not in page.inner_text("#now")
    assert not page.locator("#shot").is_visible() or "Hit" not in page.inner_text("#shot")
    doc = tap(page, rig, "Ana's shooting puck")
    assert doc["asks"] == [] and page.locator("#questions .card").count() == 0
    assert doc["open_shot"]["facts"] == ["ditch"]
    assert text  # the card had words

    board.event("shot_start", "baseline", q=3, seg=9)  # Ben's shot: Ana's is over (no puck of hers on the board)
    board.event("pass", "hole", dur_us=900)  # a provisional twenty for Ben
    synced(page, rig)
    assert page.locator("#questions .card").count() == 1
    assert page.locator("#questions button").all_inner_texts() == ["Yes, a twenty", "No twenty"]
    doc = tap(page, rig, "Yes, a twenty")
    assert doc["score"]["current"]["provisional_twenties"] == [] and doc["score"]["current"]["twenties"] == [0, 1]


def test_the_phone_shows_only_the_buttons_that_apply(browser: Browser, rig: Rig) -> None:
    page = phone(browser, rig)
    shot = page.locator("#shot-buttons button")
    assert shot.all_inner_texts()[:2] == ["In the 10 zone", "Short"]  # a free shot first
    tap(page, rig, "In the 10 zone")
    assert shot.all_inner_texts()[:2] == ["Hit", "Miss"]  # Ben's contact shot
    while (cur := rig.synced()["score"]["current"]) and cur["to_shoot"]:
        tap(page, rig, "In the 10 zone" if cur["shot_kind"] == "free" else "Hit")
    # Every puck is shot: the zones keypad per side, nothing else to tap about shots.
    assert not page.locator("#shot").is_visible()
    zones = page.locator("#questions .card.zones")
    doc = rig.synced()
    expected = [a["side"] for a in doc["asks"] if a["kind"] == "zones"]
    assert zones.count() == len(expected) >= 1
    for side in expected:
        card = page.locator(f"#questions .card.zones[data-side='{side}']")
        pucks = next(a["pucks"] for a in doc["asks"] if a["side"] == side)
        five = card.locator("button.val[data-value='5']")
        for k in range(pucks):
            five.click()
            chips = "([s, k]) => document.querySelectorAll(`.zones[data-side='${s}'] .chip:not(.empty)`).length === k"
            page.wait_for_function(chips, arg=[side, k + 1])
        assert five.is_disabled()  # one value per puck, no more
        tap(page, rig, f"Send {side}'s zones")
    assert not [a for a in rig.synced()["asks"] if a["kind"] == "zones"]


def test_the_console_shows_the_operator_what_the_tv_leaves_out(browser: Browser, rig: Rig, tmp_path: Path) -> None:
    rig.bridge.board_state(BOARD, True)
    board = Board(rig)
    board.event("shot_start", "baseline", q=1, seg=1)
    board.event("pass", "ditch1", dur_us=5000)
    rig.bridge.tick()  # the bridge's run loop publishes its health document (the rig runs no loop)
    doc = rig.synced()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.on("pageerror", lambda e: pytest.fail(f"the console failed: {e}"))
    page.goto(f"{rig.url}/console")
    page.wait_for_function("() => document.body.dataset.state === 'no-key'")
    assert page.locator("#keyform").is_visible() and page.locator("section.board").count() == 0
    page.fill("#key", rig.web.key)
    page.click("#keyform button[type=submit]")
    page.wait_for_function("() => document.body.dataset.boards === '1'", timeout=10_000)
    card = page.locator(f"section.board[data-board='{BOARD}']")
    text = card.inner_text()
    # The operator's words, in full: the check with its notation, the lines that answer the question, the link.
    assert doc["checks"][0] in text
    assert card.locator(".asks code").all_inner_texts() == ["ditch", "reviewed"]
    assert "online" in text and "boot 9" in text
    bridge = page.locator(f"section.bridge[data-bridge='{doc['bridge']}']")
    expect(bridge).to_contain_text("board messages", timeout=10_000)  # its health document, read every 2 s
    assert "running" in bridge.inner_text() and "board messages" in bridge.inner_text()
    assert f"keeps\t{BOARD}" in bridge.inner_text()
    page.screenshot(path=str(tmp_path / "console.png"), full_page=True)
    ctx.close()


def test_each_tv_follows_the_bridge_that_keeps_its_board(browser: Browser, rig: Rig, tmp_path: Path) -> None:
    """Two bridges on one broker, a board each: when the second stops, only its board's screens say the scorer is
    offline (before, every bridge shared one status topic and one stopping darkened every board)."""
    other = start_bridge(
        BridgeConfig(
            mqtt=parse_mqtt_url(rig.broker.url),
            boards=("t2",),
            journals=str(tmp_path / "other"),
            players=("Cy", "Di"),
            client_id="web-test-hall-b",
            bridge_id="hall-b",
        )
    )
    try:
        assert other.mqtt is not None and other.mqtt.wait_ready(10)
        other.bridge.submit("t2", "shot zone")
        rig.wait(lambda: rig.web.hub.scoreboard("t2") is not None, "board t2's scoreboard")
        mine = tv(browser, rig, 1280, 720)
        theirs = browser.new_page(viewport={"width": 1280, "height": 720})
        theirs.goto(f"{rig.url}/tv/t2")
        for page in (mine, theirs):
            page.wait_for_function("() => document.body.dataset.state === 'live'", timeout=10_000)
        other.stop()  # a clean stop: hall-b says offline on its own status topic
        theirs.wait_for_function("() => document.body.dataset.state === 'scorer-offline'", timeout=10_000)
        assert "SCORER OFFLINE" in theirs.inner_text("#alerts")
        assert mine.evaluate("() => document.body.dataset.state") == "live"
        assert rig.http("GET", "/api/boards")[1]["bridges"] == {rig.bridge.bridge_id: True, "hall-b": False}
    finally:
        other.stop()


def test_a_board_sending_only_repeats_is_said_on_every_screen(
    browser: Browser, rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restarted board reusing its boot id: everything it sends is a duplicate and nothing counts, while its link
    is up. The TV and the phone say so in words (the bridge flags it after a while: here at once)."""
    monkeypatch.setattr(bridge_messages, "ONLY_DUPLICATES_AFTER", 0.0)
    rig.bridge.board_state(BOARD, True)
    board = Board(rig)
    line = board.enc.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1})
    for _ in range(4):  # the same event again and again, as a board restarted with the same boot id resends it
        rig.bridge.serial_line("/dev/ttyFB", line, lambda _: None)
    rig.wait(lambda: bool((rig.web_doc() or {}).get("board_link", {}).get("only_duplicates")), "the repeats flag")
    page = tv(browser, rig, 1280, 720)
    page.wait_for_function("() => document.body.dataset.state === 'repeats'", timeout=10_000)
    assert "were all repeats of ones already counted" in page.inner_text("#alerts")
    assert page.inner_text(".state") == "The board's messages are not counting (all repeats): waiting for the scorer"
    assert page.inner_text("#live") == "NOT LIVE"
    scorer = phone(browser, rig)
    assert "were all repeats" in scorer.inner_text("#alerts")
