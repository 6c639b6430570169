"""What every game shares: how an input is refused, the two entries the session reads the same way in every game
(`undo`, `correct N ...`), where an input came from, and reading the tags of a transcript header.

A game package (`rules/<game>/`) raises these and the session, the transcript reader and the command line catch
them, so a caller handles one `Illegal` and one `NotationError` whatever the game.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from flickboard.rules.text import Message

# Who gave an input: a person (typed, or a transcript line) or the board's sensors (a line marked `@sensor`).
Source = Literal["manual", "sensor"]


class Illegal(Exception):
    """An input the rules do not allow in this state; str() is the one-line reason. The state is left as it was."""


class NotationError(ValueError):
    """A line that cannot be read; str() says why and what is expected."""


class SetupError(ValueError):
    """A game that cannot be set up as asked (players, sides, rule set, a header's tags); str() says why."""


@dataclass(frozen=True)
class Undo:
    """Masks the latest input still in effect (a new journal entry; nothing is edited)."""


@dataclass(frozen=True)
class Correct:
    """Replaces the input of entry `ref` with `line` (None: the entry never happened)."""

    ref: int
    line: str | None


def near_miss(word: str, choices: Iterable[str]) -> str | None:
    """The one choice `word` is most likely a slip of the finger for (case-insensitive), or None: a letter left
    out, doubled, swapped or mistyped in a word of four letters or more, a close spelling of a name."""
    pool = {c.lower(): c for c in choices}
    low = word.lower()
    if len(low) < 2 or low in pool:
        return None
    swapped = [c for c in pool if _one_swap(low, c)]  # 'hti', 'Bne': difflib scores a swap low on short words
    if len(swapped) == 1:
        return pool[swapped[0]]
    found = difflib.get_close_matches(low, list(pool), n=1, cutoff=0.7)
    return pool[found[0]] if found else None


def _one_swap(a: str, b: str) -> bool:
    """`a` is `b` with two neighbouring letters swapped."""
    if len(a) != len(b):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ "; did you mean 'X'?" for a near miss, to end a NotationError's message; "" when nothing is near."""
    near = near_miss(word, choices)
    return Message("; did you mean '{word}'?", word=near) if near else ""


# The help line of the two entries above, the same in every game (the last line of each game's `HELP`).
UNDO_HELP = "  undo | correct N LINE | correct N -    take back the last input / replace or strike entry N"

_ENTRY = re.compile(r"[0-9]{1,9}")  # an entry number: ASCII digits, small enough for int()


# The same two entries in French, in every game (docs/translating.md).
UNDO_WORDS = {"annule": "undo", "annuler": "undo", "corrige": "correct", "corriger": "correct"}


def read_undo_correct(verb: str, args: list[str], text: str) -> Undo | Correct | None:
    """`undo` or `correct N LINE|-` (verb: the line's first word, lower case; args: the words after it; text: the
    whole line), or their French words; None when the verb is none of them."""
    verb = UNDO_WORDS.get(verb, verb)
    if verb == "undo":
        if args:
            raise NotationError(Message("'undo' takes nothing after it"))
        return Undo()
    if verb == "correct":
        if len(args) < 2 or not _ENTRY.fullmatch(args[0]):
            raise NotationError(
                Message("write 'correct N LINE' (replace entry N) or 'correct N -' (entry N never happened)")
            )
        rest = text.split("#", 1)[0].split(None, 2)[2].strip()
        return Correct(int(args[0]), None if rest == "-" else rest)
    return None


def format_undo_correct(line: Undo | Correct) -> str:
    """The canonical text of an `undo` or a `correct` entry."""
    if isinstance(line, Undo):
        return "undo"
    return f"correct {line.ref} {line.line if line.line is not None else '-'}"


# ---------------------------------------------------------------- transcript headers


def header_value(header: dict[str, list[str]], key: str) -> str | None:
    """The value of a tag that takes one (`[Rules "officiel"]`); None when the header has no such tag."""
    values = header.get(key)
    if values is not None and len(values) != 1:
        raise SetupError(Message("the {key} tag takes one value", key=key))
    return values[0] if values else None


def check_game_tag(header: dict[str, list[str]], name: str) -> None:
    """A header whose `Game` tag names another game is not this game's."""
    game = header_value(header, "Game")
    if game is not None and game.lower() != name:
        raise SetupError(Message("this header is for the game '{game}', not {name}", game=game, name=name))


class FixedRuleSets:
    """The registry's face (rules/games.py) of a game whose rule sets are a fixed table (its options.py): the list,
    one rule set described, and the players each takes, which are the same for every rule set of the game."""

    rule_table: ClassVar[Mapping[str, Any]]  # name -> options (`.name`, `.summary`, `.seed`, `.describe()`)
    players: ClassVar[tuple[int, ...]]
    players_in_words: ClassVar[str]  # `players`, as a message says it

    @staticmethod
    def find_rule_set(name: str) -> Any:
        """The options of a rule set by name; ValueError names the choices."""
        raise NotImplementedError

    @classmethod
    def rule_sets(cls) -> list[tuple[str, str]]:
        """(rule set, one-line summary) of each rule set, for `flickboard rules list`."""
        return [(o.name, o.summary) for o in cls.rule_table.values()]

    @classmethod
    def describe(cls, rules: str) -> tuple[str, str, list[tuple[str, str]]]:
        """(name, summary, option rows) of one rule set; ValueError names the choices."""
        o = cls.find_rule_set(rules)
        summary = o.summary if isinstance(o.summary, Message) else Message(o.summary)  # (marked N_ where defined)
        return o.name, Message("{summary}\nfrom: {seed}", summary=summary, seed=Message(o.seed)), list(o.describe())

    @classmethod
    def player_counts(cls, rules: str) -> tuple[int, ...]:
        """How many players the rule set takes; ValueError if it is not one of this game's."""
        cls.find_rule_set(rules)
        return cls.players

    @classmethod
    def players_said(cls, rules: str) -> str:
        """The same in words, for a message."""
        cls.find_rule_set(rules)
        return cls.players_in_words
