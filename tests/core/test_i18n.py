"""The catalogues (host/i18n): the template holds every marked sentence of the code, each language's catalogue is
brought up to it, a sentence a catalogue lacks or gets wrong is said in English, and the language is chosen as
docs/translating.md says."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from flickboard import i18n
from flickboard.core import render, render_games
from flickboard.core.scoreboard import moment_text
from flickboard.i18n import catalogues
from flickboard.rules.quebec import Quebec
from flickboard.rules.text import Message


def _ids(path: Path) -> set[str]:
    with path.open("rb") as f:
        return {m.id for m in read_po(f) if m.id and isinstance(m.id, str)}


def test_the_template_holds_every_marked_sentence(tmp_path: Path) -> None:
    """Fails when someone marks a sentence (or changes one) without `make catalogues`."""
    fresh = _ids(catalogues.extract(tmp_path / "fresh.pot"))
    kept = _ids(catalogues.TEMPLATE)
    assert fresh - kept == set(), "sentences not in host/i18n/locale/flickboard.pot: run make catalogues"
    assert kept - fresh == set(), "sentences gone from the code still in the template: run make catalogues"


def test_every_catalogue_is_brought_up_to_the_template() -> None:
    template = _ids(catalogues.TEMPLATE)
    for lang in i18n.languages()[1:]:
        path = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "flickboard.po"
        assert _ids(path) >= template, f"{path}: run make catalogues"


def test_french_translates_every_sentence_with_its_fields() -> None:
    template = _ids(catalogues.TEMPLATE)
    fr = i18n.catalogue("fr")
    assert template - set(fr) == set(), "sentences French does not say yet"
    wrong = [t for t in template if i18n._fields(fr[t]) != i18n._fields(t)]
    assert wrong == []


@pytest.fixture
def broken_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A French catalogue that lacks one sentence, leaves one empty, and misspells a field in a third."""
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    po = locale / "fr" / "LC_MESSAGES" / "flickboard.po"
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgid "{player} to shoot"\nmsgstr "à {player} de jouer"', "")
    text = text.replace('msgstr "dames qui restent {n}"', 'msgstr ""')
    text = text.replace("casseur : {breaker}", "casseur : {casseur}")
    po.write_text(text, encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", locale)
    i18n.catalogue.cache_clear()
    i18n.languages.cache_clear()
    yield po
    i18n.catalogue.cache_clear()
    i18n.languages.cache_clear()


def test_a_sentence_the_catalogue_lacks_is_said_in_english(broken_french: Path) -> None:
    game = Quebec.create(None, ["Ann", "Bob"])
    doc = game.summary(game.start())
    status = render.status(doc, "fr")
    assert "Manche 1 (break: Ann), 0 shot(s) played" in status  # the misspelt field: English, not a KeyError
    assert "dames left  -" in status  # the empty one
    assert "pas encore de couleur" in status  # the others are French
    prompt = render.prompt_line(doc, "fr")
    assert prompt.startswith("Ann to shoot · qu'a empoché le coup ?")  # the missing one


def test_no_catalogue_at_all_is_english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.catalogue.cache_clear()
    i18n.languages.cache_clear()
    try:
        assert i18n.languages() == ("en",)
        assert i18n.choose(None, "pichenottes-quebec") == "en"
        assert i18n.say(Message("{player} to shoot", player="Ann"), "fr") == "Ann to shoot"
    finally:
        i18n.catalogue.cache_clear()
        i18n.languages.cache_clear()


def test_the_language_is_the_users_then_the_games_then_the_browsers() -> None:
    assert i18n.choose() == "en"
    assert i18n.choose(None, "pichenottes-quebec") == "fr"
    assert i18n.choose("en", "pichenottes-quebec") == "en"
    assert i18n.choose("fr", "pichenotte") == "fr"
    assert i18n.choose(None, "pichenotte", "fr-CA,fr;q=0.9,en;q=0.8") == "fr"
    assert i18n.choose(None, "pichenotte", "de-DE,de;q=0.9,en;q=0.8") == "en"
    assert i18n.choose(None, "pichenotte", "de;q=0.9,fr;q=0.5") == "fr"
    assert i18n.choose("xx", "pichenotte", "en-US") == "en"  # no catalogue for xx: the next choice
    assert i18n.known("fr_CA.UTF-8") == "fr" and i18n.known("FR") == "fr" and i18n.known("es") is None


def test_moments_cite_the_sheet_in_french_and_stay_english_otherwise() -> None:
    m = {"type": "turn-end", "stops": ["17.1", "17.6"], "next": "Bob"}
    assert moment_text(m, "fr") == (
        "fin du tour (règle 17.1 : « s'il entre une dame d'une autre couleur que la sienne »; "
        "règle 17.6 : « si deux dames de couleurs différentes entrent en même temps ») : au tour de Bob"
    )
    assert moment_text(m) == (
        "turn over (règle 17.1: a dame of the other colour went in; "
        "règle 17.6: two dames of different colours went in together): Bob plays"
    )
    shot = {"type": "shot", "number": 3, "player": "Ann", "pocketed": ["red@2", "c5"], "off": ["green"]}
    assert moment_text(shot, "fr") == "coup 3 : Ann empoche rouge@2 c5, par terre : verte"
    # Pichenotte's and Flicochet's moments too, for a French scorer (--lang fr); English by default.
    assert moment_text({"type": "penalty", "side": "Ana"}, "fr") == "PÉNALITÉ : Ana -20 (A-2)"
    assert moment_text({"type": "penalty", "side": "Ana"}) == "PENALTY: Ana -20 (A-2)"
    twenty = {"type": "twenty", "side": "Ben", "provisional": True}
    assert moment_text(twenty, "fr") == "VINGT pour Ben (à confirmer ou à corriger)"
    over = {"type": "game-over", "game": 2, "points": [40, 15], "winner": "Ana"}
    assert moment_text(over, "fr") == "PARTIE 2 TERMINÉE : 40-15, gagnée par Ana"
    assert moment_text({"type": "round-over", "round": 1, "points": [2, 0]}, "fr") == (
        "MANCHE 1 TERMINÉE : rouge 2, blanc 0"
    )


def test_notation_lines_in_the_sheets_words() -> None:
    assert render_games.notation_line("shot c5@2 red off green", "fr") == "coup compteuse 5@2 rouge par terre verte"
    assert render_games.notation_line("color green", "en") == "color green"
    game = Quebec.create(None, ["Ann", "Bob"])
    line = render_games.notation_line("shot c5@2 red off green", "fr")
    assert game.parse(line) == game.parse("shot c5@2 red off green")  # what the prompt shows reads back


def test_french_elides_de_and_que_before_a_vowel() -> None:
    """docs/translating.md, "Elision": a French sentence's "de {player}" is "d'Ana" when the name begins with a vowel
    (accented or not, either case), and stays "de Ben"; English is never touched."""
    touch = "did {player}'s shot touch one of {side}'s pucks?"
    assert i18n.say(Message(touch, player="Éloïse", side="Ana"), "fr") == (
        "le coup d'Éloïse a-t-il touché une rondelle d'Ana ?"
    )
    assert i18n.say(Message(touch, player="Ben", side="Hélène"), "fr") == (
        "le coup de Ben a-t-il touché une rondelle de Hélène ?"  # vowels only: no mute h
    )
    assert i18n.say(Message(touch, player="Éloïse", side="Ana"), "en") == (
        "did Éloïse's shot touch one of Ana's pucks?"
    )
    assert i18n.say(Message("{player} to shoot", player="Ana"), "fr") == "à Ana de jouer"  # "à" stays
    # a value that is itself a sentence is elided by what it begins with; a number never is
    assert (
        i18n.elide(
            "le coup de {player}, que {x}, De {y}, onde {z}, de {n}",
            "fr",
            {
                "player": "Ôscar",
                "x": "Yves",
                "y": "ivo",
                "z": "Ana",
                "n": 8,
            },
        )
        == "le coup d'{player}, qu'{x}, D'{y}, onde {z}, de {n}"
    )
    assert i18n.elide("the shot of {player}", "en", {"player": "Ana"}) == "the shot of {player}"


def test_the_elision_applies_to_a_sentence_inside_another() -> None:
    question = Message("did {player}'s shot touch one of {side}'s pucks?", player="Éloïse", side="Ana")
    refusal = Message("first answer: {question} ({answers})", question=question, answers="hit / miss")
    assert i18n.say(refusal, "fr") == (
        "répondez d'abord : le coup d'Éloïse a-t-il touché une rondelle d'Ana ? (hit / miss)"
    )
