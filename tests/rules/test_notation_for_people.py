"""A near miss gets a suggestion (issue 20, 5): a letter left out, doubled, swapped or mistyped in a word of the
notation (docs/transcript.md) or in a player's name is answered with the word meant, in every game; a word near
nothing keeps the plain reason and the examples. The entry is still refused: a suggestion never enters anything."""

from __future__ import annotations

import pytest

from flickboard.rules import games
from flickboard.rules.base import Illegal, NotationError, near_miss

CASES = [
    ("tournament-2019", ["Ana", "Ben"], "shot zon", "'zon' is not a word of a shot or a player; did you mean 'zone'?"),
    ("tournament-2019", ["Ana", "Ben"], "shot hti", "did you mean 'hit'?"),
    ("tournament-2019", ["Ana", "Ben"], "shot Anna hit", "'Anna' is not a player: Ana, Ben; did you mean 'Ana'?"),
    ("tournament-2019", ["Ana", "Ben"], "shoot hit", "did you mean 'shot'?"),
    ("tournament-2019", ["Ana", "Ben"], "penalty Bne", "did you mean 'Ben'?"),
    ("tournament-2019", ["Ana", "Ben"], "shot in Ben:ditc", "did you mean 'ditch'?"),
    ("tournament-2019", ["Ana", "Ben"], "Anaa 15 10", "did you mean 'Ana'?"),
    ("officiel", ["Ana", "Ben"], "shto", "'shto' is not a word of the notation; did you mean 'shot'?"),
    ("officiel", ["Ana", "Ben"], "shot chein", "did you mean 'chien'?"),
    ("officiel", ["Ana", "Ben"], "foul Bn", "did you mean 'Ben'?"),
    ("flicochet", ["Ana", "Ben", "Cy"], "flik Ana", "did you mean 'flick'?"),
    ("flicochet", ["Ana", "Ben", "Cy"], "flick Bne", "did you mean 'Ben'?"),
]


@pytest.mark.parametrize(("rules", "players", "line", "said"), CASES, ids=[c[2] for c in CASES])
def test_a_near_miss_is_answered_with_the_word_meant(rules: str, players: list[str], line: str, said: str) -> None:
    game = games.create(games.find_rules(rules), players, rules=rules)
    with pytest.raises(NotationError) as e:
        game.parse(line)
    assert said in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("rules", "players", "line"),
    [
        ("tournament-2019", ["Ana", "Ben"], "xyzzy"),
        ("officiel", ["Ana", "Ben"], "qqq"),
        ("flicochet", ["A", "B"], "zz"),
    ],
)
def test_a_word_near_nothing_keeps_the_plain_reason(rules: str, players: list[str], line: str) -> None:
    game = games.create(games.find_rules(rules), players, rules=rules)
    with pytest.raises(NotationError) as e:
        game.parse(line)
    assert "did you mean" not in str(e.value) and "is not a word of the notation" in str(e.value)


def test_near_miss_takes_one_clear_candidate_or_none() -> None:
    assert near_miss("Bne", ["Ana", "Ben"]) == "Ben"  # a swap
    assert near_miss("ditc", ["ditch", "edge"]) == "ditch"  # a letter left out
    assert near_miss("shott", ["shot", "end"]) == "shot"  # a letter doubled
    assert near_miss("ab", ["ba", "ab"]) is None  # the word itself is a choice: nothing to suggest
    assert near_miss("x", ["xa"]) is None  # one letter says too little
    assert near_miss("Lea", ["Ana", "Ben"]) is None  # another name, not a slip


@pytest.mark.parametrize(
    ("rules", "players", "example"),
    [
        ("tournament-2019", ["Ana", "Ben"], "shot hit Ben:in Ana:ditch"),
        ("tournament-2019", ["Ana", "Cy", "Ben", "Di"], ":in "),  # doubles: the sides' names
        ("officiel", ["Zoé", "Ben"], "shot Zoé red"),
    ],
)
def test_help_speaks_with_the_matchs_own_names(rules: str, players: list[str], example: str) -> None:
    """`help` in a match between Ana and Ben shows Ana and Ben, never another match's North and South."""
    game = games.create(games.find_rules(rules), players, rules=rules)
    text = games.help_for(game)
    assert example in text and "North" not in text and "South" not in text and "{" not in text
    own, other = game.side_names
    if rules != "officiel":
        assert f"{other}:in {own}:ditch" in text


def test_people_read_rule_sheets_by_name_never_by_file_number() -> None:
    """`rules list`, `rules show`, `help` and the rules' own refusals name a sheet as people know it ("the beginner
    sheet, rule 7"), not by the seed file it was built from ("000 rule 7")."""
    import io
    import re

    from flickboard.cli.main import main

    said = io.StringIO()
    assert main(["rules", "list"], said) == 0
    for kind in games.GAMES:
        for name, _ in games.GAMES[kind].rule_sets():
            if "+A+B" not in name:
                assert main(["rules", "show", name], said) == 0
    matches = (("tournament-2019", ["Ana", "Ben"]), ("officiel", ["Ana", "Ben"]), ("flicochet", ["A", "B"]))
    for rules, players in matches:
        said.write(games.help_for(games.create(games.find_rules(rules), players, rules=rules)))
    game = games.create(games.find_rules("beginner"), ["Ana", "Ben"], rules="beginner")
    with pytest.raises(Illegal) as e:  # a call on a free shot: the refusal cites its sheet
        game.apply(game.start(), game.parse("shot call in"))
    assert "beginner sheet, rule 5" in str(e.value)
    said.write(str(e.value))
    text = said.getvalue()
    assert "beginner sheet" in text and "Règlements officiels" in text
    numbers = re.compile(r"\b00[0-4]\b|\bseeds?\b")
    assert not numbers.search(text), [text[max(0, m.start() - 30) : m.end() + 10] for m in numbers.finditer(text)]
