"""Québec Pichenottes in the sheet's own words (seed 003, "Règlements officiels du jeu de Pichenottes"): a scorer
types `coup`, `rien`, `aucune`, `faute`, `dame rouge`, `compteuse 5`, `par terre`, `couleur`, `poche`, `annule`,
`corrige` and gets the same inputs as the English notation; the rules cited quote the sheet word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from flickboard.rules.base import Correct, NotationError, Undo
from flickboard.rules.quebec import Quebec, notation, sheet

GAME = Quebec.create(None, ["Ann", "Bob"])


@pytest.mark.parametrize(
    ("french", "english"),
    [
        ("coup rien", "shot none"),
        ("coup aucune", "shot none"),
        ("coup aucun", "shot none"),
        ("tir rien", "shot none"),
        ("coup Bob rien", "shot Bob none"),
        ("faute", "foul"),
        ("faute Ann", "foul Ann"),
        ("coup verte rouge", "shot green red"),
        ("coup dame rouge dame verte", "shot red green"),
        ("coup dames vertes", "shot green"),
        ("coup compteuse 5 verte", "shot c5 green"),
        ("coup compteuse 10@3 rouge@1", "shot c10@3 red@1"),
        ("coup rouge par terre verte chien", "shot red off green chien"),
        ("coup hors chien", "shot off chien"),
        ("coup chien", "shot chien"),
        ("couleur rouge", "color red"),
        ("couleur verte", "color green"),
        ("poche 2", "pocket 2"),
        ("COUP RIEN", "shot none"),
    ],
)
def test_the_sheets_words_read_as_the_notation(french: str, english: str) -> None:
    assert GAME.parse(french) == GAME.parse(english)


def test_undo_and_correct_in_french() -> None:
    assert GAME.parse("annule") == Undo()
    assert GAME.parse("corrige 3 coup rien") == Correct(3, "coup rien")
    assert GAME.parse("corrige 3 -") == Correct(3, None)


def test_a_french_partie_scores_as_the_english_one() -> None:
    """The same manche in both notations: the same state, the same shot log (règle 10, 11, 17.1)."""
    french = ["coup rouge", "coup compteuse 5 rouge", "coup verte", "coup rien", "faute", "coup aucune"]
    english = ["shot red", "shot c5 red", "shot green", "shot none", "foul", "shot none"]

    def play(lines: list[str]) -> object:
        st = GAME.start()
        for line in lines:
            parsed = GAME.parse(line)
            assert parsed is not None
            st = GAME.apply(st, parsed).state  # type: ignore[arg-type]
        return st

    assert play(french) == play(english)


def test_the_sheets_words_are_not_names() -> None:
    """A word of the notation cannot be a player's name on its own: `Rien` would make `coup Rien` read two ways."""
    with pytest.raises(NotationError):
        notation.parse(GAME.setup, "coup rien rien")  # 'rien' stands alone
    assert {"faute", "rien", "aucune", "coup", "compteuse", "dame"} <= GAME.keywords


def test_refusals_name_the_french_words_in_french() -> None:
    from flickboard import i18n

    with pytest.raises(NotationError) as e:
        GAME.parse("coup bleu")
    said = i18n.say(e.value.args[0], "fr")
    assert "« bleu » n'est ni une pièce" in said and "compteuse 5" in said
    assert str(e.value).startswith("'bleu' is not a piece")  # the English sentence is still the error's own


SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "003_121fce31963b6915.txt"


def test_the_rules_are_quoted_word_for_word() -> None:
    """Every rule the program cites quotes the sheet as it is written (only the line breaks of the sheet differ)."""
    # The seed sheets sit beside the checkout (../shared/seeds), as the firmware images the emulated Pico runs do:
    # without the sheet there is nothing to check the quotes against, and that is a failure, not a pass.
    assert SEED.exists(), f"the Règlements officiels are not at {SEED}: put the shared seeds beside this checkout"
    text = " ".join(SEED.read_text(encoding="utf-8").split())
    for rule, quote in sheet.QUOTES.items():
        assert quote in text, rule
    assert set(sheet.GLOSSES) == set(sheet.QUOTES)


def test_a_citation_quotes_the_sheet_in_french_and_glosses_it_otherwise() -> None:
    from flickboard import i18n

    assert (
        sheet.cite("17.1", "fr", i18n.say) == "règle 17.1 : « s'il entre une dame d'une autre couleur que la sienne »"
    )
    assert sheet.cite("17.1", "en", i18n.say) == "règle 17.1: a dame of the other colour went in"
    assert sheet.cite("11 (two colours: good, turn over)", "fr").startswith("règle 11 : « la compteuse devra")


@pytest.mark.parametrize("game", ["pichenotte", "flicochet"])
def test_annule_and_corrige_in_every_game(game: str) -> None:
    from flickboard.rules import games

    g = games.create(game, ["Ana", "Ben"])
    assert g.parse("annule") == g.parse("undo") == Undo()
    assert g.parse("corrige 2 -") == Correct(2, None)
