"""The pages in the players' language (host/i18n, common.js `FB.T`): a Québec partie on the TV and the phone in
French, from the same catalogues as the terminal, in a real Chromium against a real bridge and Mosquitto
(tests/support/web_rig.py); English on request (`?lang=en`); a Pichenotte match stays English unless the browser or
the user picks French."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_rig import BOARD, Chromium, Page, Rig, check_png

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"


def open_page(browser: Chromium, rig: Rig, kind: str, size: tuple[int, int], query: str = "", **kw: str) -> Page:
    page = browser.page(*size, mobile=kind == "enter", **kw)
    if kind == "enter":
        page.goto(f"{rig.url}/scorer?key={rig.web.key}")
    page.goto(f"{rig.url}/{kind}/{BOARD}{query}")
    n = rig.synced()["entries"]
    page.wait(f"document.body.dataset.entries === '{n}' && document.body.dataset.state === 'live'")
    return page


def tap_line(page: Page, rig: Rig, selector: str, line: str) -> None:
    n = len(rig.records())
    page.click(selector)
    page.wait(f"document.body.dataset.entries === '{n + 1}'")
    assert rig.records()[-1]["in"] == line


def test_a_quebec_partie_in_french_on_the_tv_and_the_phone(browser: Chromium, rig: Rig) -> None:
    rig.bridge.board_state(BOARD, True)
    rig.bridge.new_game(BOARD, "officiel", ["Ana", "Ben"], None, "31")
    rig.bridge.submit(BOARD, "shot none")  # Ana breaks, nothing goes in: Ben chooses his colour (règle 10)
    tv = open_page(browser, rig, "tv", (1920, 1080))
    tv.wait("document.documentElement.lang === 'fr'")
    assert "Pichenottes du Québec · officiel · partie en 31 · manche 1 · coup 2" in tv.text("#match")
    assert tv.text("#side0 .colour") == "pas encore de couleur" and "points sur 31" in tv.text("#side0 .total")
    assert tv.text("#flags") == "Ben choisit sa couleur avant de jouer"
    phone = open_page(browser, rig, "enter", (390, 844))
    phone.wait("document.documentElement.lang === 'fr'")
    assert phone.text("#questions .qtext") == "Ben choisit sa couleur avant de jouer (règle 10)"
    # the page's own words too (its HTML): the undo button, the free line's label and its placeholder
    assert phone.text("#more button[data-line='undo']") == "Annuler la dernière entrée"
    assert phone.text("label[for='free-line']") == "Toute entrée (notation)"
    assert phone.eval("document.getElementById('free-line').placeholder").startswith("ex. ")
    assert phone.eval("document.title") == "Flickboard pointage"
    assert tv.text("#live") == "EN DIRECT"
    assert phone.text("#questions button[data-line='color red']") == "Rouge"
    tap_line(phone, rig, "#questions button[data-line='color red']", "color red")
    tv.wait("document.querySelector('#side1 .colour').innerText === 'ROUGE'")
    assert tv.text("#side0 .colour") == "VERTE" and "à Ben de jouer" in tv.text("#turn")
    assert "casse d'Ana" in tv.text("#turn")
    phone.wait("document.querySelector('.qshot h2') !== null")
    assert phone.text(".qshot h2") == "Coup de Ben : qu'est-ce qui est entré dans une poche ?"
    assert phone.text(".qshot .pieces:not(.off) button[data-piece='red']") == "rouge"
    assert phone.text("#shot-send") == "Envoyer le coup"
    for piece in ["red", "c5", "red"]:  # a fond, a compteuse, a red to bury it: Ben's c5 is good (règle 11)
        phone.click(f".qshot .pieces:not(.off) button[data-piece='{piece}']")
        tap_line(phone, rig, "#shot-send", f"shot {piece}")
    tv.wait("document.querySelector('#side1 .comp.won') !== null")
    assert tv.text("#side1 .comp.won") == "c5 gagnée" and "dames qui restent" in tv.text("#side1 .dames")
    assert "COMPTEUSE 5 pour Ben" in tv.text("#recent")
    assert "Ben rejoue" in tv.text("#turn")
    assert "manche 1 · en 31 · Ana verte / Ben rouge · dames qui restent" in phone.text("#summary")
    assert "Ben rejoue : touchez ce que le coup a empoché, puis Envoyer." in phone.text("#now")
    # typed in the sheet's words, refused in them: the bridge's answer carries its sentence (`say`)
    phone.type_text("#free-line", "coup bleu")
    tap_line(phone, rig, "#free button[type='submit']", "coup bleu")
    phone.wait("document.getElementById('answer').dataset.ok === 'false'")
    assert "Pas pris : « bleu » n'est ni une pièce ni un joueur" in phone.text("#answer")
    assert "ni une pièce (verte, rouge, compteuse 5, compteuse 10, chien)" in phone.text("#answer")  # the help
    phone.eval("document.getElementById('free-line').value = ''")  # the refused line stays, to be fixed
    phone.type_text("#free-line", "coup aucune")  # and accepted in them
    tap_line(phone, rig, "#free button[type='submit']", "coup aucune")
    tv.wait("document.getElementById('turn').innerText.includes('à Ana de jouer')")
    check_png(tv.screenshot(SHOTS / "tv-quebec-fr.png"), 1920, 1080)
    check_png(phone.screenshot(SHOTS / "enter-quebec-fr.png", full_page=True), 390)
    page_text = tv.text("body") + phone.text("body")
    for english in ("to shoot", "no colour yet", "dames left", "points of"):
        assert english not in page_text, english
    assert tv.errors == [] and phone.errors == []
    # The same partie in English when asked for.
    en = open_page(browser, rig, "tv", (1280, 720), "?lang=en")
    assert "Québec Pichenottes · officiel · partie to 31" in en.text("#match")
    assert "Ana to shoot" in en.text("#turn")
    assert en.eval("document.documentElement.lang") == "en"
    for p in (tv, phone, en):
        p.close()


def test_a_pichenotte_match_in_french_for_a_french_browser_english_otherwise(browser: Chromium, rig: Rig) -> None:
    """Pichenotte has no language of its own: a French browser (or ?lang=fr) gets the moments, the room's now line, a
    refusal and its fix in French; an English browser gets the same match in English. The notation stays English."""
    rig.bridge.board_state(BOARD, True)
    en = open_page(browser, rig, "tv", (1280, 720))
    assert "Ana to shoot" in en.text("#turn") and en.eval("document.documentElement.lang") == "en"
    tv = open_page(browser, rig, "tv", (1280, 720), locale="fr-CA")  # a French browser
    tv.wait("document.documentElement.lang === 'fr'")
    assert "à Ana de jouer" in tv.text("#turn") and "coup libre" in tv.text("#turn")
    phone = open_page(browser, rig, "enter", (390, 844), locale="fr-CA")
    phone.wait("document.documentElement.lang === 'fr'")
    # a typo on the free line: refused in French, and its fix is a French button that sends the notation's line
    phone.type_text("#free-line", "shot zoen")
    tap_line(phone, rig, "#free button[type='submit']", "shot zoen")
    phone.wait("document.getElementById('answer').dataset.ok === 'false'")
    # the engine's own sentence (a Message), said in French
    assert "Pas pris : « zoen » n'est ni un mot de coup ni un joueur ; vouliez-vous dire « zone » ?" in phone.text(
        "#answer"
    )
    assert phone.text("#answer button[data-fix='yes']") == "Vouliez-vous dire shot zone ?"
    tap_line(phone, rig, "#answer button[data-fix='yes']", "shot zone")
    # a moment on the TV, in the room's language
    assert rig.bridge.submit(BOARD, "shot call in").accepted
    tv.wait("document.getElementById('recent').innerText.includes('VINGT pour Ben')")
    en.wait("document.getElementById('recent').innerText.includes('TWENTY for Ben')")
    # the play waits for the scorer: the room's now line (the scoreboard's now_sentence) in French
    assert rig.bridge.submit(BOARD, "shot").accepted  # Ana's free shot: did it reach the zone?
    tv.wait("document.getElementById('flags').innerText !== ''")
    assert tv.text("#flags") == "On attend le marqueur : le coup libre a-t-il atteint la zone ?"
    en.wait("document.getElementById('flags').innerText !== ''")
    assert en.text("#flags") == "Waiting for the scorer: did the free shot reach the zone?"
    phone.wait("document.getElementById('now').innerText.startsWith('Ana joue')")  # the phone's now line
    assert phone.text("#now") == "Ana joue · coup libre : s'arrêter dans la zone 10"
    assert phone.text("#questions .qtext") == (
        "Le coup libre d'Ana s'est-il arrêté dans la zone 10 ou en dedans (ou y a-t-il poussé une autre rondelle "
        "d'Ana) ?"
    )
    assert phone.text("#questions button[data-line='zone']") == "Oui, dans la zone"
    # an engine's refusal on the phone: its sentence and the question inside it in French, "d'Ana" elided by the
    # page's T as by the terminal (the bridge's answer carries the sentence, the page says it)
    phone.eval("document.getElementById('free-line').value = ''")
    phone.type_text("#free-line", "shot hit")
    tap_line(phone, rig, "#free button[type='submit']", "shot hit")
    phone.wait("document.getElementById('answer').dataset.ok === 'false'")
    assert "Pas pris : répondez d'abord : le coup libre d'Ana s'est-il arrêté dans la zone 10" in phone.text("#answer")
    for english in ("TWENTY", "Waiting", "to shoot", "Not understood", "Did you mean", "first answer", "de Ana"):
        assert english not in tv.text("body") + phone.text("#answer") + phone.text("#now"), english
    assert tv.errors == [] and phone.errors == [] and en.errors == []
    for p in (tv, phone, en):
        p.close()
    asked = open_page(browser, rig, "tv", (1280, 720), "?lang=fr")
    asked.wait("document.documentElement.lang === 'fr'")
    assert asked.text("#flags") == "On attend le marqueur : le coup libre a-t-il atteint la zone ?"
    asked.close()


def test_the_messages_a_page_reads(rig: Rig) -> None:
    status, doc = rig.http("GET", "/api/messages")
    assert status == 200 and doc["asked"] is None and doc["browser"] is None
    assert doc["games"] == {"pichenottes-quebec": "fr"}
    assert doc["messages"]["fr"]["{player} to shoot"] == "à {player} de jouer"
    status, doc = rig.http("GET", "/api/messages?lang=fr&browser=de-DE,en")
    assert doc["asked"] == "fr"
    status, doc = rig.http("GET", "/api/messages?lang=xx&browser=de-DE,fr-CA")
    assert doc["asked"] is None and doc["browser"] == "fr"


def test_the_console_in_french_for_a_french_operator(browser: Chromium, rig: Rig) -> None:
    rig.bridge.board_state(BOARD, True)
    rig.bridge.new_game(BOARD, "officiel", ["Ana", "Ben"], None, "31")
    rig.bridge.tick()  # the bridge's health document
    console = browser.page(1280, 900, locale="fr-CA")
    console.goto(f"{rig.url}/scorer?key={rig.web.key}")
    console.goto(f"{rig.url}/console")
    console.wait("document.body.dataset.boards === '1' && document.querySelector('section.bridge .facts') !== null")
    console.wait("document.getElementById('live').innerText === 'EN DIRECT'")
    assert "en marche" in console.text("section.bridge h2")
    assert "pointage" in console.text("section.board .facts") and "Ana 0 – Ben 0" in console.text("section.board")
    assert console.text("section.board a.btn") == "Télé"
    assert console.errors == []
    console.close()


def test_flickboard_web_lang_picks_the_pages_language() -> None:
    from flickboard.cli.main import build_parser
    from flickboard.displays.web.board_pages import messages_doc
    from flickboard.displays.web.command import web_config
    from flickboard.displays.web.config import WebError

    parse = build_parser("web").parse_args
    assert web_config(parse(["web", "--mqtt", "mqtt://127.0.0.1:1883", "--lang", "fr"])).lang == "fr"
    assert web_config(parse(["web", "--mqtt", "mqtt://127.0.0.1:1883"])).lang is None
    with pytest.raises(WebError, match="--lang xx: there is no catalogue for it; the languages are en, fr"):
        web_config(parse(["web", "--mqtt", "mqtt://127.0.0.1:1883", "--lang", "xx"]))
    assert messages_doc("fr", "de-DE", None)["asked"] == "fr"  # what a page reads when no ?lang= says otherwise
