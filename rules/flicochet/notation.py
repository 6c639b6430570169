"""The Flicochet text notation: one input per line, for the scorer's prompt, transcripts, the journal and the tests
alike (docs/rules-coverage.md (Flicochet part) lists the lines).

    flick [PLAYER] [at CM]        the next flick; `at CM`: the disc was placed CM from the jack (proximity rule)
    off R|W [by R|W]              a disc of that colour left the table during the latest flick
    jack off [1|2]                a jack left the table during the latest flick (penalty rule)
    place [PLAYER] [off]          Target: the jack was flicked into place (`off`: it left the table)
    order [1|2] R W R ...         the discs on the table by distance to the jack, closest first (`RWR` works too);
                                  `order none` when no disc is on the table
    dist [1|2] R 12.5 W 20 ...    measured distances in cm, at most one decimal place
    undo                          correct N LINE   (or: correct N -)

R and W (or red, white) are the two colours. The jack number is given only when there are two (Double-Jack).
A distance is 1 to 3 digits and at most one decimal (`12`, `12.5`, `0.5`), kept as whole tenths of a centimetre.
"""

from __future__ import annotations

import functools
import re

from flickboard.rules.base import (
    UNDO_HELP,
    Correct,
    NotationError,
    Source,
    Undo,
    did_you_mean,
    format_undo_correct,
    read_undo_correct,
)
from flickboard.rules.names import Names, fold
from flickboard.rules.text import Message

from .engine import LETTERS, Distances, Flick, Input, JackOff, Off, Order, Place, Setup

__all__ = [
    "HELP",
    "KEYWORDS",
    "Line",
    "check_names",
    "format_distance",
    "format_line",
    "parse",
    "parse_distance",
]

COLOURS = {"r": 0, "red": 0, "w": 1, "white": 1}
KEYWORDS = {"flick", "at", "off", "by", "jack", "place", "order", "dist", "none", "undo", "correct", *COLOURS}

# What a scorer reads at the prompt's `help` (docs/transcript.md has the whole notation).
HELP = f"""Enter one input per line (docs/transcript.md has the whole notation):
  flick [PLAYER]                the next flick (the prompt says whose it is)
  flick at 12.5                 ... and the disc was placed 12.5 cm from the jack (proximity rule: 8 cm)
  off red | off white [by red]  a disc left the table during the latest flick
  jack off [1|2]                a jack left the table: the penalty rule (+3; Double-Jack: +2 for the first)
  place | place off             Target: the jack was flicked into place, or it left the table
  order R W R | order 1 RWR     at the round's end: the discs on the table by distance, closest first
  dist R 12.5 W 20              ... or their measured distances in cm; `order none`: no disc on the table
{UNDO_HELP}"""

Line = Input | Undo | Correct

_NUMBER = re.compile(r"[0-9]{1,9}")
_DISTANCE = re.compile(r"([0-9]{1,3})(?:\.([0-9]))?")


def _show(word: str) -> str:
    return word if len(word) <= 24 else word[:20] + "…"


def _reserved(word: str) -> bool:
    low = word.lower()
    return low in KEYWORDS or re.fullmatch(r"[rw]+", low) is not None or _NUMBER.fullmatch(word) is not None


@functools.lru_cache(maxsize=256)
def _names(players: tuple[str, ...]) -> Names:
    return Names(players, _reserved, drop="+.")  # `+` joins layers and `.` marks decimals in this notation


def names_of(setup: Setup) -> Names:
    """The game's names and the handles its lines use for them (flickboard/rules/names.py)."""
    return _names(setup.players)


def check_names(setup: Setup) -> None:
    """Any names people have, each told apart from the others and from the notation's words (rules/names.py), so
    every line reads one way."""
    names_of(setup)
    folded = [fold(n) for n in setup.players]
    if len(set(folded)) != len(folded):
        raise NotationError(Message("player names must differ"))


def player_word(setup: Setup, player: int) -> str:
    """The word a line uses for a player (its handle)."""
    return names_of(setup).handle(setup.players[player])


def player_ref(setup: Setup, word: str) -> int:
    name = names_of(setup).find(word)
    for i, p in enumerate(setup.players):
        if p == name:
            return i
    raise NotationError(
        Message(
            "'{word}' is not a player: {names}{hint}",
            word=_show(word),
            names=", ".join(setup.players),
            hint=did_you_mean(word, setup.players),
        )
    )


def colour_ref(word: str) -> int:
    try:
        return COLOURS[word.lower()]
    except KeyError:
        raise NotationError(Message("'{word}' is not a colour: R (red) or W (white)", word=_show(word))) from None


def parse_distance(word: str) -> int:
    """'12.5' -> 125 tenths of a cm. Decimal-safe: no float is ever made."""
    m = _DISTANCE.fullmatch(word)
    if m is None:
        raise NotationError(
            Message(
                "'{word}' is not a distance: centimetres, 1 to 3 digits and at most one decimal (e.g. 12.5)",
                word=_show(word),
            )
        )
    return int(m.group(1)) * 10 + int(m.group(2) or 0)


def format_distance(tenths: int) -> str:
    whole, tenth = divmod(tenths, 10)
    return str(whole) if tenth == 0 else f"{whole}.{tenth}"


def _jack(args: list[str]) -> tuple[int | None, list[str]]:
    if args and args[0] in ("1", "2"):
        return int(args[0]), args[1:]
    return None, args


def _order(args: list[str]) -> Order:
    jack, args = _jack(args)
    if [a.lower() for a in args] in (["none"], ["-"]):
        return Order(jack, ())
    if not args:
        raise NotationError(Message("write 'order R W R ...': the discs on the table, closest to the jack first"))
    sides: list[int] = []
    for a in args:
        low = a.lower()
        if low in COLOURS:
            sides.append(COLOURS[low])
        elif re.fullmatch(r"[rw]+", low):
            sides += [COLOURS[c] for c in low]
        else:
            raise NotationError(
                Message(
                    "'{word}' is not a disc: R or W (e.g. 'order R R W'; with two jacks, 'order 2 W R')", word=_show(a)
                )
            )
    if len(sides) > 12:
        raise NotationError(Message("the order names {n} discs: there are only 12", n=len(sides)))
    return Order(jack, tuple(sides))


def _distances(args: list[str]) -> Distances:
    jack, args = _jack(args)
    if [a.lower() for a in args] in (["none"], ["-"]):
        return Distances(jack, ())
    if not args or len(args) % 2:
        raise NotationError(
            Message("write 'dist R 12.5 W 20 ...': a colour and its distance in cm for each disc on the table")
        )
    pairs = [(colour_ref(args[i]), parse_distance(args[i + 1])) for i in range(0, len(args), 2)]
    if len(pairs) > 12:
        raise NotationError(Message("the line gives {n} distances: there are only 12 discs", n=len(pairs)))
    return Distances(jack, tuple(pairs))


def parse(setup: Setup, text: str, source: Source = "manual") -> Line | None:
    """One line -> an input, None for a blank or comment line; NotationError otherwise."""
    words = names_of(setup).words(text.split("#", 1)[0]).split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    low = [a.lower() for a in args]
    if verb == "flick":
        player = None
        if args and low[0] != "at":
            player = player_ref(setup, args[0])
            args, low = args[1:], low[1:]
        at = None
        if args:
            if low[0] != "at" or len(args) != 2:
                raise NotationError(Message("write 'flick [PLAYER] [at CM]' (e.g. 'flick Ana', 'flick at 9.5')"))
            at = parse_distance(args[1])
        return Flick(player, at)
    if verb == "off":
        if len(args) == 1:
            return Off(colour_ref(args[0]))
        if len(args) == 3 and low[1] == "by":
            return Off(colour_ref(args[0]), colour_ref(args[2]))
        raise NotationError(Message("write 'off R' or 'off W by R': a disc of that colour left the table"))
    if verb == "jack":
        if low[:1] != ["off"] or len(args) > 2 or (len(args) == 2 and args[1] not in ("1", "2")):
            raise NotationError(Message("write 'jack off' (with two jacks: 'jack off 1' or 'jack off 2')"))
        return JackOff(int(args[1]) if len(args) == 2 else None)
    if verb == "place":
        off = bool(low) and low[-1] == "off"
        if off:
            args = args[:-1]
        if len(args) > 1:
            raise NotationError(Message("write 'place [PLAYER]' or 'place [PLAYER] off' (TARGET 2)"))
        return Place(player_ref(setup, args[0]) if args else None, off)
    if verb == "order":
        return _order(args)
    if verb in ("dist", "distances"):
        return _distances(args)
    entry = read_undo_correct(verb, args, text)
    if entry is not None:
        return entry
    hint = did_you_mean(words[0], ("flick", "off", "jack", "place", "order", "dist", "undo", "correct"))
    if hint:
        raise NotationError(Message("'{word}' is not a word of the notation{hint}", word=_show(words[0]), hint=hint))
    raise NotationError(
        Message(
            "'{word}' is not a word of the notation: flick, off, jack off, place, order, dist, undo, correct "
            "(e.g. 'flick Ana', 'off W', 'order R R W')",
            word=_show(words[0]),
        )
    )


def format_line(setup: Setup, line: Line) -> str:
    """The canonical text of an input."""
    if isinstance(line, Flick):
        words = ["flick"]
        if line.player is not None:
            words.append(player_word(setup, line.player))
        if line.at is not None:
            words += ["at", format_distance(line.at)]
        return " ".join(words)
    if isinstance(line, Off):
        return f"off {LETTERS[line.side]}" + ("" if line.by is None else f" by {LETTERS[line.by]}")
    if isinstance(line, JackOff):
        return "jack off" + ("" if line.jack is None else f" {line.jack}")
    if isinstance(line, Place):
        words = ["place"]
        if line.player is not None:
            words.append(player_word(setup, line.player))
        if line.off:
            words.append("off")
        return " ".join(words)
    if isinstance(line, Order | Distances):
        words = ["order" if isinstance(line, Order) else "dist"]
        if line.jack is not None:
            words.append(str(line.jack))
        if isinstance(line, Order):
            words += [LETTERS[s] for s in line.discs]
        else:
            for s, d in line.discs:
                words += [LETTERS[s], format_distance(d)]
        if not line.discs:
            words.append("none")
        return " ".join(words)
    return format_undo_correct(line)
