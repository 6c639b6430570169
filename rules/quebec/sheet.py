"""The rules of seed 003 ("Règlements officiels du jeu de Pichenottes") as the program cites them: each rule's own
words, quoted from the sheet, and a short English gloss for the players who read English. A French display quotes
the sheet; another language says the gloss from its catalogue (flickboard/i18n).
tests/rules/test_rules_quebec_words.py checks every quote against the sheet, word for word.
"""

from __future__ import annotations

from collections.abc import Callable

from flickboard.rules.text import Message

# The sheet's words for each rule the engine cites (a stop, a colour, a compteuse, a foul, a tie).
QUOTES: dict[str, str] = {
    "6": "En cas d'égalité, les participants jouent un tour supplémentaire.",
    "10": "La première dame entrée indique la couleur du participant ou de l'équipe pour cette manche.",
    # the same rule when the break gives no colour (its second paragraph): the turn passes to the one who chooses
    "10/casse": "si aucune dame n'entre dans la poche, l'autre joueur (le no. 2 en double ou le no. 3 en simple) "
    "décidera de la couleur qu'il choisit avant de jouer",
    "11": "la compteuse devra être enterrée (entrer une autre dame de sa couleur) et ce, aussitôt la compteuse entrée",
    "12": "accumule un point pour chaque dame de l'adversaire qui reste sur le jeu",
    "13": "ce participant ou cette équipe perd les points de la (des) compteuse(s)",
    "14": "La (les) compteuse(s) ne doit (doivent) pas s'empocher en même temps qu'une couleur adverse.",
    "15": "Les joueurs qui jouent dans le trou du chien ne déplacent aucune pichenotte avant de jouer",
    "17.1": "s'il entre une dame d'une autre couleur que la sienne",
    "17.2": "si la compteuse est enterrée avec une autre couleur (et l'on sort la compteuse)",
    "17.3": "si une dame, compteuse ou chien tombe par terre (en dehors du jeu)",
    "17.4": "si le chien va dans la poche, on ne sort pas de dame",
    "17.5": "si on entre une compteuse sans avoir de fond (on la remet en jeu)",
    "17.6": "si deux dames de couleurs différentes entrent en même temps",
}

# The same rules in a few English words.
GLOSSES: dict[str, str] = {
    "6": Message("a tie plays another manche"),
    "10": Message("the first dame pocketed gives the colour"),
    "10/casse": Message("no dame at the break: the next player chooses the colour"),
    "11": Message("a compteuse must be buried by an own dame at once"),
    "12": Message("all its dames in: a point per opponent dame left"),
    "13": Message("5 dames or more left: the compteuses' points are lost"),
    "14": Message("a compteuse must not go in with an opponent's dame"),
    "15": Message("no piece may be moved before the shot"),
    "17.1": Message("a dame of the other colour went in"),
    "17.2": Message("the compteuse was buried with the other colour"),
    "17.3": Message("a piece fell off the board"),
    "17.4": Message("the chien went into a pocket"),
    "17.5": Message("a compteuse went in without a fond"),
    "17.6": Message("two dames of different colours went in together"),
}

SHEET_LANGUAGE = "fr"


def cite(rule: str, lang: str, say: Callable[[str, str], str] | None = None) -> str:
    """`règle 17.1 : « s'il entre une dame d'une autre couleur que la sienne »` in French (the sheet's words);
    `règle 17.1: a dame of the other colour went in` otherwise. `say(text, lang)` translates the gloss."""
    key = rule.split(" ", 1)[0]  # "11 (two colours: good, turn over)" is règle 11; "10/casse" is règle 10's second part
    number = key.split("/", 1)[0]
    if lang == SHEET_LANGUAGE and key in QUOTES:
        return f"règle {number} : « {QUOTES[key]} »"
    gloss = GLOSSES.get(key)
    if gloss is None:
        return f"règle {rule}"
    text = say(gloss, lang) if say is not None else str(gloss)
    return f"règle {number}: {text}"
