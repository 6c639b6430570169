"""The Pichenotte text notation: one input per line. It is what a scorer types at the `play` prompt, what a
transcript file holds, and what the journal stores, so one parser serves all three (docs/transcript.md).

    shot [PLAYER] [call] [hit|miss] [zone|short] [FACT ...]   a whole shot
    begin [PLAYER] [call]  /  FACT ...  /  end                a shot entered as it happens (sensors)
    FACT is `in`, `ditch`, ... for the shooting puck, or `SIDE:in`, `SIDE:ditch`, ... for another puck
    choose leave|ditch          zones SIDE 15 10 5 (or just: SIDE 15 10 5)
    penalty SIDE                forfeit SIDE REASON [note]
    confirm [N]                 undo                correct N LINE  (or: correct N -)
A trailing `@sensor` marks evidence from the board's sensors.
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
    near_miss,
    read_undo_correct,
)
from flickboard.rules.names import Names, fold
from flickboard.rules.text import Message

from .engine import (
    FACT_HELP,
    FORFEIT_REASONS,
    Choose,
    Confirm,
    EndShot,
    Fact,
    Facts,
    Forfeit,
    Input,
    Penalty,
    Setup,
    Shot,
    Zones,
)

ALIASES = {"20": "in", "twenty": "in", "baseline": "base"}
KEYWORDS = {
    "shot",
    "begin",
    "end",
    "call",
    "hit",
    "miss",
    "zone",
    "short",
    "choose",
    "leave",
    "zones",
    "penalty",
    "forfeit",
    "confirm",
    "undo",
    "correct",
    "edge",
    *FACT_HELP,
    *ALIASES,
}


_FACT_LINES = "\n".join(f"     {k:<14}{v}" for k, v in FACT_HELP.items())
_REASONS = ", ".join(FORFEIT_REASONS)

# What a scorer reads at the prompt's `help` (docs/transcript.md has the whole notation).
HELP = f"""Enter one input per line (docs/transcript.md has the whole notation):
  shot hit | shot miss          contact shot: touched an opponent puck, or not (R-8 A)
  shot call in | shot call      declared twenty made / missed (R-8 B); then: choose leave | choose ditch
  shot zone | shot short        free shot rested in the required zone, or not (R-9)
  shot in                       the shooting puck dropped flat in the hole (a twenty)
  shot PLAYER ...               name the shooter too, to have the rotation checked
  facts after the shot word, for the shooting puck, or SIDE:fact for another puck, e.g.
     shot hit {{other}}:in {{own}}:ditch      shot miss base       shot call {{other}}:hand
{_FACT_LINES}
  SIDE 15 10 10 5               end-of-game zones of that side's pucks on the board (edge = 15, A-4)
  penalty SIDE                  touched a moving puck: -20 (A-2)
  forfeit SIDE REASON [note]    REASON: {_REASONS}
  begin [PLAYER] [call] / FACTS / end    a shot entered as it happens; confirm [N]: provisional twenties
{UNDO_HELP}"""


_NUMBER = re.compile(r"[0-9]{1,9}")  # ASCII digits only ('²'.isdigit() is true), and small enough for int()


def _is_number(word: str) -> bool:
    return _NUMBER.fullmatch(word) is not None


def _show(word: str) -> str:
    """A user's word as quoted in a message: clipped, so one bad line still gives a one-line reason."""
    return word if len(word) <= 24 else word[:20] + "…"


Line = Input | Undo | Correct


def _reserved(word: str) -> bool:
    return word.lower() in KEYWORDS or _is_number(word)


@functools.lru_cache(maxsize=256)
def _names(players: tuple[str, ...], sides: tuple[str, ...]) -> Names:
    return Names(players, _reserved, after=sides)  # a side named after its players leaves them their names


def names_of(setup: Setup) -> Names:
    """The game's names and the handles its lines use for them (flickboard/rules/names.py)."""
    return _names(setup.players, setup.sides)


def check_names(setup: Setup) -> None:
    """Any names people have, each told apart from the others and from the notation's words (rules/names.py), so
    every line reads one way."""
    names_of(setup)
    folded = [fold(n) for n in setup.players]
    if len(set(folded)) != len(folded):
        raise NotationError(Message("player names must differ"))
    if fold(setup.sides[0]) == fold(setup.sides[1]):
        raise NotationError(Message("the two sides need different names"))
    for i, p in enumerate(setup.players):
        if fold(p) == fold(setup.sides[1 - setup.side_of(i)]):
            raise NotationError(Message("player '{player}' has the name of the other side", player=p))


def side_word(setup: Setup, side: int) -> str:
    """The word a line uses for a side: its handle, or its first player's when that is shorter (a line may name a
    side by one of its players: "Zoé:ditch" for the side "Zoé Lévesque+Ben O'Neil")."""
    names = names_of(setup)
    own = names.handle(setup.sides[side])
    player = names.handle(setup.players[setup.seats_of(side)[0]])
    return own if len(own) <= len(player) else player


def player_word(setup: Setup, seat: int) -> str:
    """The word a line uses for a player (its handle)."""
    return names_of(setup).handle(setup.players[seat])


def side_ref(setup: Setup, word: str) -> int:
    """A side by its name or by the name of one of its players (its handle or whole name, any case or accents)."""
    name = names_of(setup).find(word)
    for i, s in enumerate(setup.sides):
        if s == name:
            return i
    for seat, p in enumerate(setup.players):
        if p == name:
            return setup.side_of(seat)
    names = list(dict.fromkeys([*setup.sides, *setup.players]))
    hint = did_you_mean(word, names)
    raise NotationError(
        Message(
            "'{word}' is neither a side nor a player: {names}{hint}",
            word=_show(word),
            names=", ".join(names),
            hint=hint,
        )
    )


def seat_ref(setup: Setup, word: str) -> int:
    name = names_of(setup).find(word)
    for seat, p in enumerate(setup.players):
        if p == name:
            return seat
    raise NotationError(
        Message(
            "'{word}' is not a player: {names}{hint}",
            word=_show(word),
            names=", ".join(setup.players),
            hint=did_you_mean(word, setup.players),
        )
    )


VERBS = ("shot", "begin", "end", "choose", "zones", "penalty", "forfeit", "confirm", "undo", "correct")
SHOT_WORDS = ("call", "hit", "miss", "zone", "short", *FACT_HELP)


def _shooter(setup: Setup, word: str) -> int:
    """The player after `shot`: a word of the shot mistyped ('shot zon') is said as such, not as a stranger."""
    try:
        return seat_ref(setup, word)
    except NotationError as e:
        near = near_miss(word, [*SHOT_WORDS, *setup.players])
        if near is not None and near not in setup.players:
            raise NotationError(
                Message(
                    "'{word}' is not a word of a shot or a player; did you mean '{near}'?", word=_show(word), near=near
                )
            ) from e
        raise


def _zone_value(word: str) -> int:
    if word.lower() == "edge":
        return 15  # a puck on edge in the hole counts as in the 15 zone
    if not _is_number(word):
        raise NotationError(
            Message("'{word}' is not a zone value: 0, 5, 10, 15, 25, 50 (or 'edge' for 15)", word=_show(word))
        )
    return int(word)


def parse(setup: Setup, text: str, source: Source = "manual") -> Line | None:
    """One line -> an input, None for a blank or comment line; NotationError otherwise."""
    words = names_of(setup).words(text.split("#", 1)[0]).split()
    if words and words[-1].lower() == "@sensor":
        source = "sensor"
        words = words[:-1]
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    if verb in ("shot", "begin"):
        seat = None
        if args and args[0].lower() not in KEYWORDS and ":" not in args[0]:
            seat = _shooter(setup, args[0])
            args = args[1:]
        call = bool(args) and args[0].lower() == "call"
        if call:
            args = args[1:]
        if verb == "begin":
            if args:
                raise NotationError(
                    Message("'begin' takes only the player and 'call'; add what happens on later lines")
                )
            return Shot(seat=seat, call=call, complete=False, source=source)
        f = _facts(setup, args, source)
        return Shot(seat, call, f.facts, f.contact, f.zone, True, source)
    if verb == "end":
        _no_args(verb, args)
        return EndShot()
    if verb == "choose":
        if len(args) != 1 or args[0].lower() not in ("leave", "ditch"):
            raise NotationError(Message("write 'choose leave' or 'choose ditch' (R-8 choice B)"))
        return Choose(ditch=args[0].lower() == "ditch")
    if verb == "penalty":
        if len(args) != 1:
            raise NotationError(Message("write 'penalty SIDE' (A-2: touching a moving puck, -20)"))
        return Penalty(side_ref(setup, args[0]))
    if verb == "forfeit":
        if len(args) < 2 or args[1].lower() not in FORFEIT_REASONS:
            raise NotationError(
                Message(
                    "write 'forfeit SIDE REASON [note]', REASON one of {reasons}", reasons=", ".join(FORFEIT_REASONS)
                )
            )
        return Forfeit(side_ref(setup, args[0]), args[1].lower(), " ".join(args[2:]))
    if verb == "confirm":
        if len(args) > 1 or (args and not _is_number(args[0])):
            raise NotationError(Message("write 'confirm' or 'confirm N' (N: the entry of a provisional twenty)"))
        return Confirm(int(args[0]) if args else None)
    entry = read_undo_correct(verb, args, text)
    if entry is not None:
        return entry
    if verb == "zones":
        if not args:
            raise NotationError(Message("write 'zones SIDE 15 10 5 ...'"))
        return Zones(side_ref(setup, args[0]), tuple(_zone_value(v) for v in args[1:]))
    if verb not in KEYWORDS and ":" not in verb:
        # "red 15 10 10 5": zones without the verb, the quick form at the end of a game.
        try:
            side = side_ref(setup, words[0])
        except NotationError:
            hint = did_you_mean(words[0], [*VERBS, *setup.sides, *setup.players])
            example = Message(" (e.g. 'shot hit', '{side} 15 10 5')", side=setup.sides[0])
            raise NotationError(
                Message(
                    "'{word}' is not a word of the notation, a side or a player{hint}",
                    word=_show(words[0]),
                    hint=hint or example,
                )
            ) from None
        return Zones(side, tuple(_zone_value(v) for v in args))
    f = _facts(setup, words, source)
    return f


def _no_args(verb: str, args: list[str]) -> None:
    if args:
        raise NotationError(Message("'{verb}' takes nothing after it", verb=verb))


def _facts(setup: Setup, words: list[str], source: Source) -> Facts:
    facts: list[Fact] = []
    contact: bool | None = None
    zone: bool | None = None
    for w in words:
        low = w.lower()
        if low in ("hit", "miss"):
            if contact is not None:
                raise NotationError(Message("give 'hit' or 'miss' once"))
            contact = low == "hit"
        elif low in ("zone", "short"):
            if zone is not None:
                raise NotationError(Message("give 'zone' or 'short' once"))
            zone = low == "zone"
        else:
            who, _, what = low.rpartition(":")
            what = ALIASES.get(what, what)
            if what not in FACT_HELP:
                hint = did_you_mean(what, ("hit", "miss", "zone", "short", *FACT_HELP))
                raise NotationError(
                    Message(
                        "'{word}' is not a shot fact: hit, miss, zone, short, or {facts} (prefix SIDE: for a puck "
                        "other than the shooting puck){hint}",
                        word=_show(w),
                        facts=", ".join(FACT_HELP),
                        hint=hint,
                    )
                )
            facts.append(Fact(what, side_ref(setup, who) if who else None))
    return Facts(tuple(facts), contact, zone, source)


def _fact_words(setup: Setup, facts: tuple[Fact, ...], contact: bool | None, zone: bool | None) -> list[str]:
    out = []
    if contact is not None:
        out.append("hit" if contact else "miss")
    if zone is not None:
        out.append("zone" if zone else "short")
    for f in facts:
        out.append(f.what if f.side is None else f"{side_word(setup, f.side)}:{f.what}")
    return out


def format_line(setup: Setup, line: Line) -> str:
    """The canonical text of an input (without the @sensor mark; sources are kept beside it)."""
    if isinstance(line, Shot):
        words = ["shot" if line.complete else "begin"]
        if line.seat is not None:
            words.append(player_word(setup, line.seat))
        if line.call:
            words.append("call")
        words += _fact_words(setup, line.facts, line.contact, line.zone)
        return " ".join(words)
    if isinstance(line, Facts):
        return " ".join(_fact_words(setup, line.facts, line.contact, line.zone))
    if isinstance(line, EndShot):
        return "end"
    if isinstance(line, Choose):
        return "choose ditch" if line.ditch else "choose leave"
    if isinstance(line, Zones):
        return " ".join(["zones", side_word(setup, line.side), *map(str, line.values)])
    if isinstance(line, Penalty):
        return f"penalty {side_word(setup, line.side)}"
    if isinstance(line, Forfeit):
        return " ".join(w for w in ("forfeit", side_word(setup, line.side), line.reason, line.note) if w)
    if isinstance(line, Confirm):
        return "confirm" if line.ref is None else f"confirm {line.ref}"
    return format_undo_correct(line)
