"""People's names in a game and the one word a line uses for each (rules/names.py): any name people have, kept whole,
told apart in a line; a name that cannot work refused where it is given, with the reason."""

from __future__ import annotations

import pytest

from flickboard.rules.base import NotationError
from flickboard.rules.names import Names, clean, fold, name_problem
from flickboard.rules.pichenotte import Pichenotte

KEYWORDS = {"shot", "miss", "hit", "zones"}


def reserved(word: str) -> bool:
    return word.lower() in KEYWORDS or word.isdigit()


def test_a_name_goes_by_its_first_word_and_grows_only_to_be_told_apart() -> None:
    n = Names(["Ana Costa", "Ana Silva", "Zoé Lévesque", "Marie-Claire O'Neil", "Miss Piggy", "Ben"], reserved)
    assert [n.handle(x) for x in n.names] == ["AnaCosta", "AnaSilva", "Zoé", "Marie-Claire", "MissPiggy", "Ben"]


def test_a_sides_name_gives_way_to_its_players() -> None:
    n = Names(["Zoé Lévesque", "Ana Costa"], reserved, after=["Zoé Lévesque & Ana Costa"])
    assert n.handle("Zoé Lévesque") == "Zoé" and n.handle("Ana Costa") == "Ana"
    assert n.handle("Zoé Lévesque & Ana Costa") == "ZoéLévesque"


def test_a_word_names_by_handle_or_whole_name_whatever_the_case_and_accents() -> None:
    n = Names(["Zoé Lévesque", "Marie-Claire O'Neil"], reserved)
    assert n.find("zoe") == n.find("ZOÉ") == n.find("Zoé Lévesque") == "Zoé Lévesque"
    assert n.find("marie-claire") == "Marie-Claire O'Neil" and n.find("Marie") is None
    assert n.words("shot zoe levesque hit Marie-Claire O'Neil:ditch") == "shot Zoé hit Marie-Claire:ditch"
    assert n.words("shot Zoéx hit") == "shot Zoéx hit"  # part of a word is not a name


@pytest.mark.parametrize(
    ("names", "says"),
    [
        (["Ana", "ana"], "differ only in case"),
        (["Zoé Lévesque", "Zoe Levesque"], "differ only in case or accents"),
        (["Shot"], "'Shot' is a word of the notation; add a second name"),
        (["42"], "is a word of the notation"),
        (["Ana:B"], "no ':' in a name"),
        (["A" * 61], "too long"),
        (["Ana\x07"], "control character"),
        (["   "], "cannot be empty"),
    ],
)
def test_a_name_that_cannot_work_is_refused_with_the_reason(names: list[str], says: str) -> None:
    with pytest.raises(NotationError, match=says):
        Names(names, reserved)


def test_names_are_kept_as_typed_with_one_space_between_words() -> None:
    assert clean("  Ana   Costa ") == "Ana Costa"
    assert fold("Zoé LÉVESQUE") == "zoe levesque"
    assert name_problem("Marie-Claire O'Neil") is None and name_problem("Ana [2]") is not None


def test_a_pichenotte_match_of_people_with_such_names_plays_by_them() -> None:
    """R-1 seats in clockwise order; doubles sides named after their players (the default)."""
    g = Pichenotte.create("tournament-2019", ["Ana Costa", "Zoé Lévesque", "Ana Silva", "Ben O'Neil"])
    assert g.setup.sides == ("Ana Costa+Ana Silva", "Zoé Lévesque+Ben O'Neil")
    shot = g.parse("shot Ana Costa hit Zoé Lévesque:ditch")
    assert g.format(shot) == "shot AnaCosta hit Zoé:ditch"
    assert g.format(g.parse(g.format(shot))) == g.format(shot)
