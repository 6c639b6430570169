"""The Québec Pichenottes text notation: one input per line, for the scorer's prompt, transcripts, the journal
and the tests alike (docs/rules-coverage.md (Québec part) lists the lines).

    shot [PLAYER] [PIECE[@POCKET] ...] [off PIECE ...]   one shot: what it pocketed, what fell off the board
    shot [PLAYER] none                                   a shot that pocketed nothing (`shot` alone is the same)
    color green|red                                      the colour choice after the break (règle 10)
    foul [PLAYER]                                        moved a piece before shooting: turn over (règle 15)
    pocket N                                             a piece entered pocket N, to be named (sensor evidence)
    undo                correct N LINE   (or: correct N -)

PIECE is `green`, `red` (a dame of that colour), `c5`, `c10` (a compteuse) or `chien`. The sheet's own French
words work as well (docs/transcript.md lists them): `coup verte rouge`, `coup dame rouge compteuse 5`, `coup rien`
(or `aucune`), `coup verte par terre rouge`, `couleur rouge`, `faute`, `poche 2`, `annule`, `corrige N ...`.
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
    read_undo_correct,
)
from flickboard.rules.names import Names, fold
from flickboard.rules.text import Message

from .engine import PIECES, ChooseColour, Colour, Foul, Input, Pocketed, PocketEvidence, Setup, Shot

__all__ = ["HELP", "KEYWORDS", "Line", "check_names", "format_line", "parse"]

ALIASES = {"verte": "green", "vert": "green", "rouge": "red", "vertes": "green", "rouges": "red"}
# The sheet's words (seed 003) and a Québec scorer's: a "coup" of the chien, a "faute" (règle 15), "rien" or "aucune"
# pocketed, a piece "par terre" (règle 17.3), a "poche"; `annule` and `corrige` take back or replace an entry.
VERB_ALIASES = {
    "colour": "color",
    "couleur": "color",
    "coup": "shot",
    "tir": "shot",
    "faute": "foul",
    "poche": "pocket",
    "annule": "undo",
    "annuler": "undo",
    "corrige": "correct",
    "corriger": "correct",
}
WORD_ALIASES = {"rien": "none", "aucune": "none", "aucun": "none", "hors": "off", "dehors": "off"}
# Words that name a piece in two: `dame rouge` (a dame is known by its colour), `compteuse 5`, `par terre`.
_BEFORE_COLOUR = {"dame", "dames"}
_COMPTEUSE = {"compteuse", "compteuses"}
FRENCH = {*VERB_ALIASES, *WORD_ALIASES, *_BEFORE_COLOUR, *_COMPTEUSE, "par", "terre"} - {"colour"}
KEYWORDS = {"shot", "off", "none", "color", "foul", "pocket", "undo", "correct", *PIECES, *ALIASES, *VERB_ALIASES}
KEYWORDS |= FRENCH

# What a scorer reads at the prompt's `help` (docs/transcript.md has the whole notation).
HELP = f"""Enter one input per line, one line per shot (docs/transcript.md has the whole notation):
  shot red green                what the shot pocketed: green, red (dames), c5, c10 (compteuses), chien
  shot c5 red                   a compteuse and the dame that buries it (règle 11)
  shot none                     nothing pocketed: the turn passes (règle 17)
  shot red off green            ... and a piece fell off the board (règle 17.3)
  shot {{player}} red{{pad}}name the shooter too, to have the turn order checked
  shot red@2                    with a pocket sensor: say which pocket each piece went into
  color green | color red       the colour chosen after a break of two colours or none (règle 10)
  foul [PLAYER]                 a piece moved before the shot: the turn passes (règle 15)
{UNDO_HELP}"""

# The same, in the sheet's words (a Québec game is said in French: flickboard/i18n).
HELP_FR = """Une entrée par ligne, une ligne par coup (docs/transcript.md donne toute la notation) :
  coup rouge verte              ce que le coup a empoché : verte, rouge (dames), compteuse 5, compteuse 10, chien
  coup compteuse 5 rouge        une compteuse et la dame qui l'enterre (règle 11)
  coup rien                     rien d'empoché (ou : coup aucune) : c'est au tour de l'autre (règle 17)
  coup rouge par terre verte    ... et une pièce est tombée par terre (règle 17.3)
  coup {player} rouge{pad}nommer aussi le joueur, pour vérifier l'ordre du jeu
  coup rouge@2                  avec un capteur de poche : la poche où chaque pièce est entrée
  couleur verte | couleur rouge la couleur choisie après une casse de deux couleurs ou d'aucune (règle 10)
  faute [JOUEUR]                une pièce déplacée avant de jouer : le tour passe (règle 15)
  annule | corrige N LIGNE | corrige N -    reprendre la dernière entrée / remplacer ou rayer l'entrée N
Les mots anglais (shot, none, foul, color, undo...) sont acceptés aussi."""

Line = Input | Undo | Correct

_NUMBER = re.compile(r"[0-9]{1,9}")


def _show(word: str) -> str:
    return word if len(word) <= 24 else word[:20] + "…"


def _reserved(word: str) -> bool:
    return word.lower() in KEYWORDS or _NUMBER.fullmatch(word) is not None


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
        raise NotationError("player names must differ")
    if fold(setup.sides[0]) == fold(setup.sides[1]):
        raise NotationError("the two sides need different names")
    for i, p in enumerate(setup.players):
        if fold(p) == fold(setup.sides[1 - setup.side_of(i)]):
            raise NotationError(f"player '{p}' has the name of the other side")


def player_word(setup: Setup, seat: int) -> str:
    """The word a line uses for a player (its handle)."""
    return names_of(setup).handle(setup.players[seat])


def seat_ref(setup: Setup, word: str) -> int:
    name = names_of(setup).find(word)
    for seat, p in enumerate(setup.players):
        if p == name:
            return seat
    raise NotationError(
        Message(
            "'{word}' is not a player: {players}{hint}",
            word=_show(word),
            players=", ".join(setup.players),
            hint=did_you_mean(word, setup.players),
        )
    )


def _piece(setup: Setup, word: str, pocket_ok: bool) -> Pocketed:
    low = word.lower()
    name, at, pocket = low.partition("@")
    name = ALIASES.get(name, name)
    if name not in PIECES:
        hint = did_you_mean(name, [*PIECES, *ALIASES, *setup.players])
        raise NotationError(
            Message(
                "'{word}' is not a piece (green, red, c5, c10, chien) or a player ({players}){hint}",
                word=_show(word),
                players=", ".join(setup.players),
                hint=hint,
            )
        )
    if not at:
        return Pocketed(name)
    if not pocket_ok:
        raise NotationError(Message("'{word}': a piece off the board has no pocket", word=_show(word)))
    if pocket not in ("1", "2", "3", "4"):
        raise NotationError(Message("'{word}': the pockets are 1 to 4 (e.g. {piece}@2)", word=_show(word), piece=name))
    return Pocketed(name, int(pocket))


def _sheet_words(words: list[str]) -> list[str]:
    """The sheet's French words in the notation's: `dame rouge` → `red`, `compteuse 5` → `c5`, `par terre` → `off`,
    `rien`/`aucune` → `none` (the verbs are read by the caller)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w, low = words[i], words[i].lower()
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        if low in _BEFORE_COLOUR and ALIASES.get(nxt.partition("@")[0], nxt.partition("@")[0]) in ("green", "red"):
            i += 1  # `dame rouge`: the colour names the piece
            continue
        if low in _COMPTEUSE and nxt.partition("@")[0] in ("5", "10"):
            out.append("c" + nxt)
            i += 2
            continue
        if low == "par" and nxt == "terre":
            out.append("off")
            i += 2
            continue
        out.append(WORD_ALIASES.get(low, w))
        i += 1
    return out


def parse(setup: Setup, text: str, source: Source = "manual") -> Line | None:
    """One line -> an input, None for a blank or comment line; NotationError otherwise."""
    words = names_of(setup).words(text.split("#", 1)[0]).split()
    if words and VERB_ALIASES.get(words[0].lower()) != "correct":  # a correction's line is read on its own
        words = words[:1] + _sheet_words(words[1:])
    if words and words[-1].lower() == "@sensor":
        source = "sensor"
        words = words[:-1]
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    verb = VERB_ALIASES.get(verb, verb)
    if verb == "shot":
        seat = None
        if args and names_of(setup).find(args[0]) in setup.players:
            seat = seat_ref(setup, args[0])
            args = args[1:]
        if [a.lower() for a in args] == ["none"]:
            return Shot(seat, source=source)
        pocketed: list[Pocketed] = []
        off: list[str] = []
        in_off = False
        for a in args:
            if a.lower() == "none":
                raise NotationError(Message("'none' stands alone: 'shot none' is a shot that pocketed nothing"))
            if a.lower() == "off":
                if in_off:
                    raise NotationError(Message("write 'off' once, then every piece that fell off the board"))
                in_off = True
                continue
            p = _piece(setup, a, not in_off)
            if in_off:
                off.append(p.piece)
            else:
                pocketed.append(p)
        if in_off and not off:
            raise NotationError(
                Message("'off' needs the pieces that fell off the board after it (e.g. 'shot off chien')")
            )
        return Shot(seat, tuple(pocketed), tuple(off), source)
    if verb == "color":
        if len(args) != 1 or ALIASES.get(args[0].lower(), args[0].lower()) not in ("green", "red"):
            raise NotationError(Message("write 'color green' or 'color red' (règle 10: the next player chooses)"))
        colour: Colour = "green" if ALIASES.get(args[0].lower(), args[0].lower()) == "green" else "red"
        return ChooseColour(colour)
    if verb == "foul":
        if len(args) > 1:
            raise NotationError(Message("write 'foul' or 'foul PLAYER' (règle 15: a piece moved before the shot)"))
        return Foul(seat_ref(setup, args[0]) if args else None)
    if verb == "pocket":
        if len(args) != 1 or args[0] not in ("1", "2", "3", "4"):
            raise NotationError(Message("write 'pocket N': a piece entered pocket N (the pockets are 1 to 4)"))
        return PocketEvidence(int(args[0]), source)
    entry = read_undo_correct(verb, args, text)
    if entry is not None:
        return entry
    verbs = ("shot", "color", "foul", "pocket", "undo", "correct", *VERB_ALIASES)
    hint = did_you_mean(words[0], verbs)
    if hint:
        raise NotationError(Message("'{word}' is not a word of the notation{hint}", word=_show(words[0]), hint=hint))
    raise NotationError(
        Message(
            "'{word}' is not a word of the notation: shot, color, foul, pocket, undo, correct (e.g. 'shot red', "
            "'shot red c5@2', 'shot none', 'shot chien', 'shot green off red')",
            word=_show(words[0]),
        )
    )


def format_line(setup: Setup, line: Line) -> str:
    """The canonical text of an input (without the @sensor mark; sources are kept beside it)."""
    if isinstance(line, Shot):
        words = ["shot"]
        if line.seat is not None:
            words.append(player_word(setup, line.seat))
        words += [p.piece if p.pocket is None else f"{p.piece}@{p.pocket}" for p in line.pocketed]
        if line.off:
            words += ["off", *line.off]
        if not line.pocketed and not line.off:
            words.append("none")
        return " ".join(words)
    if isinstance(line, ChooseColour):
        return f"color {line.colour}"
    if isinstance(line, Foul):
        return "foul" if line.seat is None else f"foul {player_word(setup, line.seat)}"
    if isinstance(line, PocketEvidence):
        return f"pocket {line.pocket}"
    return format_undo_correct(line)
