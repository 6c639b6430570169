"""The tournament's pages in French (docs/translating.md, docs/tournament.md), in headless Chromium against the real web
server run with `--tournament`, a live Mosquitto and a real bridge (tests/support/tournament_rig.py), as a Québec club
runs its evening:

- `?lang=fr`: the hall screen (with a board's live score and its now line in words), an entrant's phone and the
  organiser's page say everything in French, names with an apostrophe and accents as they are ("Zoé D'Amours"), "de"
  elided before a vowel ("le gagnant d'Éloïse Aubin"), no English word of a known list; the hall screen is never
  clipped at its sizes in French either (French is longer), nor its text too small;
- a browser whose language is French (Accept-Language, navigator.languages), with no `?lang=`: French;
- `flickboard web --lang fr`: French in an English browser, and `?lang=en` still English; a tournament of Québec
  Pichenottes is French by itself;
- the organiser's acts are answered and refused in French, the score cards print in French.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from tournament_rig import (
    HALL_SIZES,
    TournamentRig,
    assert_readable,
    assert_whole,
    assert_words_whole,
    click_act,
    entries,
    new_page,
    organiser,
    play,
    until,
)
from web_rig import Chromium

from flickboard.sim.broker import Broker
from flickboard.tournament import Director, read

# Seeds 1 and 2 get a bye; the four others, each named with a vowel first, play the quarter-finals.
CUP = ["Zoé D'Amours", "Ben Okafor", "Éloïse Aubin", "Ivo Ortiz", "Ana Costa", "Yves Ouellet"]
# Words (and sentences) of the pages in English: none may show on a French page.
ENGLISH = [
    "On the boards",
    "Waiting for a board",
    "Standings",
    "Bracket",
    "LIVE",
    "none",
    "matches played",
    "single elimination",
    "Quarter-finals",
    "Semi-finals",
    "Final",
    "Your matches",
    "scan here",
    "to come",
    "to start",
    "waits",
    "Your next match",
    "against",
    "once it is decided",
    "the winner of",
    "Next match",
    "Results",
    "Place",
    "Entrants",
    "Organiser",
    "Pair the next round",
    "Boards",
    "Matches",
    "Assign",
    "Record",
    "Withdraw",
    "Start the next stage",
    "Export",
    "Score cards",
    "waiting for a board",
    "winner",
    "This server runs the hall",
    "to shoot",
    "twenty",
    "no match played yet",
    "not in the current stage",
    "Alert me",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Chromium() as chromium:  # Playwright's own Browser, for pages made here
        yield chromium.browser


def french_page(browser: Browser, width: int, height: int, mobile: bool = False) -> Page:
    """A page in a browser whose language is French (Québec): its Accept-Language and navigator.languages."""
    ctx = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=mobile, reduced_motion="reduce", locale="fr-CA"
    )
    page = ctx.new_page()
    page.on("pageerror", lambda e: pytest.fail(f"the page failed: {e}"))
    return page


def in_french(page: Page) -> None:
    """Wait until the page speaks French."""
    page.wait_for_function("() => document.documentElement.lang === 'fr'", timeout=10_000)


def no_english(page: Page, what: str) -> None:
    text = page.inner_text("body") + " " + page.title()
    found = [w for w in ENGLISH if re.search(rf"(?<![\w']){re.escape(w)}(?![\w'])", text)]
    assert not found, f"{what} in English: {found}\n{text}"


def cup(path: str, game: str = "pichenotte") -> None:
    with Director.create(path, "Coupe du Printemps") as d:
        for i, n in enumerate(CUP):
            d.add_entrant(n, seed=i + 1)
        if game == "pichenotte":
            d.start_stage("cup", "single-elimination", match="games:1")
        else:
            d.start_stage("cup", "single-elimination", game=game)


def test_the_hall_the_phone_and_the_organiser_in_french(browser: Browser, broker: Broker, tmp_path: Path) -> None:
    path = str(tmp_path / "cup.jsonl")
    cup(path)
    ready = [m for m in read(path).stages["cup"].matches.values() if m.state == "ready"]
    with organiser(path) as d:
        d.assign(ready[0].id, "t1")
    rig = TournamentRig(broker, tmp_path, path, boards=("t1",))
    try:
        until(lambda: rig.hall.opens.get(ready[0].id, {}).get("state") == "opened", "the match opened on t1")
        play(rig.bridge, "t1", list(ready[0].sides), seed=5, lines=3)
        # The hall screen, ?lang=fr: every word French, the board's score and what it plays now, in words.
        for w, h in HALL_SIZES:
            page = new_page(browser, w, h)
            page.goto(f"{rig.url}/hall?lang=fr")
            entries(page, rig.count())
            in_french(page)
            page.wait_for_function("() => !!document.querySelector(\"li[data-board='t1'] .bnow\")", timeout=15_000)
            now = page.inner_text("li[data-board='t1'] .bnow")
            assert now and "shoot" not in now, now
            assert page.inner_text("#live") == "EN DIRECT"
            assert page.inner_text("#stage") == "cup · élimination simple · 0 matchs joués sur 5"
            assert page.text_content("#sthead") == "Tableau · cup"
            heads = page.locator(".bracket .roundname").all_text_contents()
            assert heads[0] == "Quarts de finale", heads
            assert page.inner_text("#waiting li.wm") == " v ".join(ready[1].sides)
            assert "Zoé D'Amours" in page.inner_text(".bracket")  # her name as it is: the apostrophe, the accent
            assert page.locator("h2").all_text_contents()[:2] == ["Sur les jeux", "En attente d'un jeu"]
            no_english(page, f"the hall screen at {w}x{h}")
            assert_whole(page, "the hall screen in French")
            assert_readable(page, "the hall screen in French")
            page.close()
        # Zoé's phone, in a French browser (no ?lang=): her next match is the winner of a quarter-final, elided.
        phone = french_page(browser, 390, 740, mobile=True)
        phone.goto(f"{rig.url}/entrant/Zo%C3%A9%20D'Amours")
        in_french(phone)
        phone.wait_for_function("() => document.body.dataset.kind === 'pending'")
        assert phone.inner_text("#who") == "Zoé D'Amours"
        assert_words_whole(phone, "#who", "her name beside « Participants » on a 390 px phone")
        said = phone.inner_text("#headline")
        assert re.fullmatch(
            r"Votre prochain match : contre le gagnant d'(Éloïse Aubin|Ivo Ortiz|Ana Costa|Yves Ouellet) c\. "
            r"(Éloïse Aubin|Ivo Ortiz|Ana Costa|Yves Ouellet), dès que ce sera décidé",
            said,
        ), said
        assert phone.inner_text("#alerts") == "M'avertir quand mon match est sur un jeu"
        assert "aucun match joué encore" in phone.inner_text("#results")
        no_english(phone, "the entrant's page")
        # A player on the board: the page says where, in French.
        phone.goto(f"{rig.url}/entrant/{ready[0].sides[0]}")
        in_french(phone)
        phone.wait_for_function("() => document.body.dataset.kind === 'playing'")
        assert phone.inner_text("#headline") == f"Votre prochain match : jeu t1 contre {ready[0].sides[1]}, maintenant"
        assert "Télé du jeu" in phone.inner_text("#next")
        no_english(phone, "a playing entrant's page")
        # The list of entrants.
        phone.goto(f"{rig.url}/entrants")
        in_french(phone)
        phone.wait_for_function("() => document.body.dataset.state === 'live'")
        assert phone.inner_text("#count") == "6 participants"
        assert phone.get_attribute("#q", "placeholder") == "p. ex. zoe, costa"
        # The organiser's page, ?lang=fr: its words, its answers and its refusals.
        page = new_page(browser, 1280, 900)
        page.goto(f"{rig.url}/organiser?lang=fr")
        in_french(page)
        page.wait_for_function("() => document.body.dataset.state === 'no-key'")
        assert page.inner_text("#keyform h2") == "Clé de l'organisateur"
        page.fill("#key", rig.web.organiser_key)
        page.click("#keyform button")
        page.wait_for_function("() => document.body.dataset.state === 'live'")
        assert page.inner_text("#hallstate").startswith("Phase cup : 0 matchs joués sur 5. Ce serveur fait tourner")
        assert page.inner_text("#pair") == "Apparier la prochaine ronde"
        heads = page.locator("#matches th").all_inner_texts()
        assert heads == ["Match", "Participants", "État", "Agir"], heads
        no_english(page, "the organiser's page")
        waiting = ready[1]
        answer, ok = click_act(page, f"tr[data-match='{waiting.id}'] button[data-do='result']")  # no winner chosen
        assert not ok and answer == "dites quel gagnant", answer
        page.fill(f"tr[data-match='{waiting.id}'] input.board", "t9")
        answer, ok = click_act(page, f"tr[data-match='{waiting.id}'] button[data-do='assign']")
        assert ok and answer == f"{waiting.id} ({' v '.join(waiting.sides)}) sur le jeu t9", answer
        row = f"tr[data-match='{waiting.id}']"
        page.wait_for_function("r => document.querySelector(r + ' .res').textContent === 'sur t9'", arg=row)
        a, b = waiting.sides
        page.select_option(f"{row} select.winner", a)
        page.fill(f"{row} input.points", "120-300")  # numbers that contradict the winner: the event refuses them
        answer, ok = click_act(page, f"{row} button[data-do='result']")
        said = f"les points disent qu'{b} a gagné : {a} 120 – 300 {b} (dans l'ordre du match : {a}, puis {b})"  # elided
        assert not ok and answer == said, answer
        page.select_option(f"{row} select.winner", a)
        page.fill(f"{row} input.points", "300-120")
        answer, ok = click_act(page, f"{row} button[data-do='result']")
        assert ok and answer == f"résultat : {waiting.id} : {a} gagne ({a} 300 – 120 {b})", answer
        # The event's own refusals (host/tournament), inside the page's, said as the page says an answer (sayIt).
        for doc, french in [
            (
                {"do": "start", "stage": "poules", "format": "pools", "pools": 4},
                "la phase poules ne peut pas commencer : 4 poules demandent au moins 8 participants",
            ),
            (
                {"do": "assign", "match": waiting.id, "board": "t8"},
                f"le match {waiting.id} n'est pas prêt à jouer (joué)",
            ),
        ]:
            code, res = rig.act(**doc)
            assert code == 400 and res["said"], (doc, res)
            assert page.evaluate("s => FB.sayIt(s)", res["said"]) == french, res
        cards = page.locator("#cards a").first.get_attribute("href")
        assert cards is not None and cards.endswith("?lang=fr")
        page.goto(f"{rig.url}{cards}")
        text = page.inner_text("body")
        assert "Cartes de pointage" in page.title() and "Points A" in text and "Gagnant :" in text, text
        assert "Winner" not in text and "points" not in text.replace("Points", "")
        page.close()
    finally:
        rig.close()


def test_the_language_is_asked_for_the_browsers_or_the_tournaments_game(
    browser: Browser, broker: Broker, tmp_path: Path
) -> None:
    """`flickboard web --lang fr` makes the pages French in an English browser, `?lang=en` English again; a French
    browser alone makes them French; a tournament of Québec Pichenottes is French by itself, unless asked."""
    path = str(tmp_path / "cup.jsonl")
    cup(path)
    rig = TournamentRig(broker, tmp_path, path, boards=(), lang="fr")
    try:
        page = new_page(browser, 1280, 720)
        page.goto(f"{rig.url}/hall")
        entries(page, rig.count())
        in_french(page)
        page.wait_for_function("() => document.querySelector('#live').textContent === 'EN DIRECT'")
        no_english(page, "the hall with --lang fr")
        page.goto(f"{rig.url}/hall?lang=en")
        entries(page, rig.count())
        page.wait_for_function("() => document.querySelector('#sthead').textContent === 'Bracket · cup'")
        assert page.evaluate("() => document.documentElement.lang") == "en"
        assert "Quarter-finals" in page.locator(".bracket .roundname").all_text_contents()
        page.close()
    finally:
        rig.close()
    rig = TournamentRig(broker, tmp_path, path, boards=())
    try:
        page = new_page(browser, 1280, 720)  # English browser, no --lang: English
        page.goto(f"{rig.url}/hall")
        entries(page, rig.count())
        page.wait_for_function("() => document.querySelector('#live').textContent === 'LIVE'")
        assert page.inner_text("#stage") == "cup · single elimination · 0 of 5 matches played"
        page.close()
        page = french_page(browser, 1280, 720)  # a French browser: French
        page.goto(f"{rig.url}/hall")
        entries(page, rig.count())
        in_french(page)
        page.wait_for_function("() => document.querySelector('#live').textContent === 'EN DIRECT'")
        no_english(page, "the hall in a French browser")
        for w, h in HALL_SIZES:
            page.set_viewport_size({"width": w, "height": h})
            page.reload()
            entries(page, rig.count())
            in_french(page)
            assert_whole(page, "the hall in a French browser")
        page.close()
    finally:
        rig.close()
    quebec = str(tmp_path / "quebec.jsonl")
    cup(quebec, game="pichenottes-quebec")
    rig = TournamentRig(broker, tmp_path, quebec, boards=())
    try:
        page = new_page(browser, 390, 740, mobile=True)  # an English browser: Québec's own language first
        page.goto(f"{rig.url}/entrant/Ben%20Okafor")
        in_french(page)
        page.wait_for_function("() => document.body.dataset.kind === 'pending'")
        assert page.inner_text("#headline").startswith("Votre prochain match : contre le gagnant d")
        page.goto(f"{rig.url}/entrant/Ben%20Okafor?lang=en")
        page.wait_for_function("() => document.body.dataset.kind === 'pending'")
        page.wait_for_function("() => document.querySelector('#headline').textContent.startsWith('Your next match')")
        page.close()
    finally:
        rig.close()
