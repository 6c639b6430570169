"""People's names in a game, and the short forms the notation refers to them by.

A player or a side may be named as people are: two words, accents, apostrophes, hyphens ("Marie-Claire O'Neil",
"Zoé Lévesque", "Ana & Ben"). Everything that shows or stores a name keeps it whole; a notation line, which is read
word by word, refers to each by a *handle*: one word that names it and nothing else in the game.

- A handle is the name's first word ("Marie-Claire"), with the next words joined on ("AnaCosta", "AnaSilva") while
  it would be taken for another name of the game, a word of the notation or a number.
- A word in a line names a player or a side when it is its handle or its whole name, whatever the case and the accents
  ("zoe" is "Zoé"). A whole name of several words may be typed as it is ("shot Ana Costa hit", "Ana Costa:ditch"):
  `Names.words` turns it into the handle before the line is read.
- A name that cannot work is refused where it is given, with the reason (`name_problem`, `Names`): one with ':',
  '#', '@', brackets or double quotes (the notation's own marks), control characters, more than MAX_NAME characters;
  two names that differ only in case or accents; a one-word name that is a word of the notation or a number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from flickboard.rules.base import NotationError
from flickboard.rules.text import N_, Message

MAX_NAME = 60  # characters of a person's name (a side named after two people may have twice as many)
MARKS = ':#@[]"'  # the notation's own marks: never in a name
_SPACES = re.compile(r"\s+")


def clean(name: str) -> str:
    """A name as it is kept: its words with one space between them."""
    return " ".join(name.split())


def fold(text: str) -> str:
    """`text` as names are compared: case and accents ignored ("Zoé" is "zoe")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def name_problem(name: str, longest: int = MAX_NAME) -> Message | None:
    """Why `name` cannot be a player's, a side's or an entrant's name, in one line; None when it can."""
    n = clean(name)
    if not n:
        return Message("a name cannot be empty")
    if len(n) > longest:
        return Message("'{name}…' is too long for a name: at most {n} characters", name=n[:longest], n=longest)
    bad = sorted({ch for ch in n if ch in MARKS})
    if bad:
        said = N_("'{name}' cannot be a name: no {marks} in a name (the notation uses them)")
        return Message(said, name=n, marks=", ".join(repr(c) for c in bad))
    if any(unicodedata.category(ch).startswith("C") for ch in n):
        return Message("{name} cannot be a name: it has a control character", name=repr(n))
    return None


class Names:
    """The names of one game (its players and sides, in any order; one name may be both, as in singles) and their
    handles. Raises NotationError, in one line, when they cannot all be told apart.

    `reserved(word)`: whether a one-word handle would be read as notation (a keyword, a number, a colour string);
    `drop`: characters a handle leaves out besides MARKS (a game's notation may give them a meaning)."""

    def __init__(
        self, names: Iterable[str], reserved: Callable[[str], bool], drop: str = "", after: Iterable[str] = ()
    ) -> None:
        """`after`: names whose handles give way to those of `names` (a side named after its players: the players
        keep their first names, the side's handle grows)."""
        self.names: list[str] = []
        seen: dict[str, str] = {}
        first: list[str] = []
        for group, raws in ((first, names), (None, after)):
            for raw in raws:
                name = clean(raw)
                problem = name_problem(name, MAX_NAME if group is not None else 2 * MAX_NAME + 3)
                if problem:
                    raise NotationError(problem)
                key = fold(name)
                if key in seen:
                    if seen[key] != name:
                        said = N_("'{a}' and '{b}' differ only in case or accents: name them apart")
                        raise NotationError(Message(said, a=seen[key], b=name))
                    continue
                seen[key] = name
                self.names.append(name)
                if group is not None:
                    group.append(name)
        self._handles = _handles(first, reserved, MARKS + drop, {})
        self._handles = _handles(
            [n for n in self.names if n not in self._handles], reserved, MARKS + drop, self._handles
        )
        self._by_fold = {fold(h): n for n, h in self._handles.items()}
        self._by_fold.update({fold(n): n for n in self.names})
        # whole names of several words, longest first, as a line may spell them: turned into their handles
        several = sorted((n for n in self.names if " " in n), key=len, reverse=True)
        self._spelled = [
            (re.compile(r"(?<![^\s:])" + r"\s+".join(re.escape(w) for w in _fold_each(n)) + r"(?=$|[\s:])"), n)
            for n in several
        ]

    def handle(self, name: str) -> str:
        """The one word the notation uses for `name` (a name of this game)."""
        return self._handles[clean(name)]

    def find(self, word: str) -> str | None:
        """The name a word of a line names (its handle or its whole name, any case or accents); None: no name."""
        return self._by_fold.get(fold(word))

    def words(self, text: str) -> str:
        """`text` with each whole name of several words written as its handle, so the line reads word by word."""
        if not self._spelled:
            return text
        folded, out = _fold_keep(text)
        for rx, name in self._spelled:
            pieces = []
            at = 0
            for m in rx.finditer(folded):
                pieces.append(out[at : m.start()])
                pieces.append(self._handles[name])
                at = m.end()
            if pieces:
                pieces.append(out[at:])
                out = "".join(pieces)
                folded, out = _fold_keep(out)
        return out


def _fold_each(name: str) -> list[str]:
    """The words of a name folded as `_fold_keep` folds a line, so the two compare."""
    return [_fold_keep(w)[0] for w in name.split()]


def _fold_keep(text: str) -> tuple[str, str]:
    """(the text folded, the text) with one character of each for one of the other, so a match in the folded text
    is cut from the text itself: each character is folded on its own, and one that folds to several (ß, ﬁ) or to
    none is kept as it is (it then matches only itself)."""
    folded, kept = [], []
    for ch in text:
        f = fold(ch)
        folded.append(f if len(f) == 1 else ch)
        kept.append(ch)
    return "".join(folded), "".join(kept)


def _handles(names: Sequence[str], reserved: Callable[[str], bool], drop: str, fixed: dict[str, str]) -> dict[str, str]:
    """Each name's handle: its first word, and the next words joined on while it is not yet unique (among `names`
    and the handles already `fixed`, which do not change). Returns `fixed` with the new ones."""
    parts = {n: [w for w in ("".join(c for c in word if c not in drop) for word in n.split()) if w] for n in names}
    for n, words in parts.items():
        if not words:
            raise NotationError(Message("'{name}' cannot be a name: it has no letters the notation can use", name=n))
    size = dict.fromkeys(names, 1)

    def candidate(n: str) -> str:
        return "".join(parts[n][: size[n]])

    held = {fold(h) for h in fixed.values()}
    while True:
        made = {n: candidate(n) for n in names}
        taken: dict[str, list[str]] = {}
        for n, h in made.items():
            taken.setdefault(fold(h), []).append(n)
        for key in held & set(taken):
            taken[key].append("")  # taken by a fixed handle: the new name grows
        grow = {n for group in taken.values() if len(group) > 1 for n in group if n}
        grow |= {n for n, h in made.items() if reserved(h)}
        grow = {n for n in grow if size[n] < len(parts[n])}
        if not grow:
            break
        for n in grow:
            size[n] += 1
    for n, h in made.items():
        if reserved(h):
            said = N_("'{name}' cannot be a name: '{word}' is a word of the notation; add a second name or an initial")
            raise NotationError(Message(said, name=n, word=h))
    for group in taken.values():
        if len(group) > 1:
            alike = [n for n in group if n] + [n for n, h in fixed.items() if fold(h) == fold(made[group[0]])]
            if len(alike) == 2:
                said = N_("'{a}' and '{b}' are too alike to tell apart in the notation")
                raise NotationError(Message(said, a=alike[0], b=alike[1]))
            listed = Message("{first} and {rest}", first=repr(alike[-2]), rest=repr(alike[-1]))
            for n in reversed(alike[:-2]):
                listed = Message("{first}, {rest}", first=repr(n), rest=listed)
            raise NotationError(Message("{names} are too alike to tell apart in the notation", names=listed))
    return {**fixed, **made}
