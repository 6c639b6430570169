"""Plain-text views of the Québec Pichenottes and Flicochet summary documents (rules/quebec/report.py,
rules/flicochet/report.py): the scoreboard, the compact status after each input, and the "what now" prompt.
host/core/render.py does the same for Pichenotte and sends these two games here.

The words follow each game's seed: a Québec partie is played in manches to 31, with dames, compteuses and a
colour per side; a Flicochet game is played in rounds, red against white, to 8 (12 with two jacks).
"""

from __future__ import annotations

from typing import Any

from flickboard.i18n import SOURCE, Translator, translator

QUEBEC = "pichenottes-quebec"
FLICOCHET = "flicochet"


def _names(doc: dict[str, Any]) -> list[str]:
    return [s["name"] for s in doc["sides"]]


def _teams(doc: dict[str, Any], _: Translator | None = None) -> str:
    return (_(" vs ") if _ else " vs ").join(
        f"{s['name']} ({', '.join(s['players'])})" if s["players"] != [s["name"]] else s["name"] for s in doc["sides"]
    )


def title(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """The scoreboard's first line: game, rule set, target and the sides."""
    if doc["game"] == QUEBEC:
        _ = translator(lang)
        return _(
            "Québec Pichenottes · {rules} · partie to {target} · {teams}",
            rules=doc["rules"],
            target=doc["target"],
            teams=_teams(doc, _),
        )
    _ = translator(lang)
    variants = ", ".join(doc.get("variants") or []) or _("base game")
    return _(
        "Flicochet · {variants} · to {target} · {teams}", variants=variants, target=doc["target"], teams=_teams(doc, _)
    )


def colour_word(colour: str | None, _: Translator) -> str:
    """A dame's colour as the players say it ("green" → "verte")."""
    return {"green": _("green"), "red": _("red")}.get(colour or "", colour or "?")


def _quebec_round(doc: dict[str, Any], r: dict[str, Any], _: Translator) -> str:
    names = _names(doc)
    pts = r["points"] or ["-", "-"]
    cols = [colour_word(c, _) for c in r["colours"]]
    parts = [f"{names[i]} ({cols[i]}) {pts[i]}" for i in (0, 1)]
    lost = r["compteuse_points_lost"]
    extra = [
        _("{side} lost {points} compteuse point(s) (règle 13)", side=names[i], points=lost[i])
        for i in (0, 1)
        if lost[i]
    ]
    head = _("manche {number}", number=r["number"])
    return f"  {head}: " + ", ".join(parts) + (f"; {'; '.join(extra)}" if extra else "")


def _flicochet_round(doc: dict[str, Any], r: dict[str, Any], _: Translator) -> str:
    pts = r["points"] or ["-", "-"]
    orders = " / ".join(o for o in r["orders"] if o) if any(r["orders"]) else ""
    bits = [_("red {red}, white {white}", red=pts[0], white=pts[1])]
    if orders:
        bits.append(_("order {order}", order=orders))
    if str(r.get("ended")) == "jack":
        bits.append(_("jack off the table"))
    head = _("round {number} ({start} started)", number=r["number"], start=r["start"])
    return f"  {head}: " + "; ".join(bits)


def current_rows(doc: dict[str, Any], lang: str = SOURCE) -> list[str]:
    """One line per side for the manche or round in progress (shared by the status and the big terminal view)."""
    cur = doc.get("current")
    if not cur:
        return []
    names = _names(doc)
    width = max(len(n) for n in names)
    rows = []
    if doc["game"] == QUEBEC:
        _ = translator(lang)
        for i, name in enumerate(names):
            colour = colour_word(cur["colours"][i], _) if cur["colours"][i] else _("no colour yet")
            left = cur["dames_left"][i]
            won = [f"c{c['value']}" for c in cur["compteuses"] if c["side"] == name and c["where"] == "won"]
            pend = [f"c{c['value']}" for c in cur["compteuses"] if c["side"] == name and c["where"] == "pending"]
            count = str(left if left is not None else "-").rjust(2)
            bits = [f"{colour:<13}", _("dames left {n}", n=count)]
            if won:
                bits.append(_("compteuses {list}", list=" ".join(won)))
            if pend:
                bits.append(_("to bury {list}", list=" ".join(pend)))
            rows.append(f"  {name.ljust(width)}  " + "  ".join(bits))
        return rows
    _ = translator(lang)
    for i, name in enumerate(names):
        hand, table, off = (str(cur[k][i]).rjust(2) for k in ("in_hand", "on_table", "off_table"))
        bits = [_("in hand {n}", n=hand), _("on the table {n}", n=table), _("off {n}", n=off)]
        if cur["penalties"][i]:
            bits.append(_("penalty +{points}", points=cur["penalties"][i]))
        if cur["knocked_off_by_opponent"][i]:
            bits.append(_("knocked off by the other side {n}", n=cur["knocked_off_by_opponent"][i]))
        rows.append(f"  {name.ljust(width)}  " + "  ".join(bits))
    jacks = cur.get("jacks") or []
    if len(jacks) > 1 or any(j != "table" for j in jacks):
        where = {"table": _("table")}
        rows.append("  " + _("jacks: {list}", list=", ".join(f"{n} {where.get(j, j)}" for n, j in enumerate(jacks, 1))))
    return rows


def headline(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """The manche or round in progress, in one line."""
    cur = doc.get("current")
    if not cur:
        return ""
    if doc["game"] == QUEBEC:
        _ = translator(lang)
        return _(
            "Manche {manche} (break: {breaker}), {shots} shot(s) played",
            manche=cur["manche"],
            breaker=cur["breaker"],
            shots=cur["shots"],
        )
    _ = translator(lang)
    return _(
        "Round {round} ({start} starts, {player}), {flicks} flick(s)",
        round=cur["round"],
        start=cur["start"],
        player=cur["start_player"],
        flicks=cur["flicks_played"],
    )


def _over(doc: dict[str, Any], _: Translator) -> str:
    names, totals = _names(doc), doc["totals"]
    if doc["winner"] not in names:
        return _("Game over: {a}-{b}.", a=totals[0], b=totals[1])
    w = names.index(doc["winner"])
    return _("Game over: {winner} wins {a}-{b}.", winner=doc["winner"], a=totals[w], b=totals[1 - w])


def scoreboard(doc: dict[str, Any], lang: str = SOURCE) -> str:
    names = _names(doc)
    _ = translator(lang)
    lines = [title(doc, lang)]
    rounds = doc["rounds"]
    if rounds:
        lines.append("  ".join(f"{n} {t}" for n, t in zip(names, doc["totals"], strict=True)) + "   " + _("(total)"))
        lines += [_quebec_round(doc, r, _) if doc["game"] == QUEBEC else _flicochet_round(doc, r, _) for r in rounds]
    if doc.get("current"):
        lines.append(headline(doc, lang))
        lines += current_rows(doc, lang)
    if doc["over"]:
        lines.append(_over(doc, _))
    if doc["rejected_inputs"]:
        lines.append(_("({n} input(s) refused; nothing they said was counted)", n=doc["rejected_inputs"]))
    return "\n".join(lines)


def status(doc: dict[str, Any], lang: str = SOURCE) -> str:
    names = _names(doc)
    _ = translator(lang)
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, doc["totals"], strict=True))
    if doc["over"]:
        return _over(doc, _)
    line = _("{headline} · {totals} (to {target})", headline=headline(doc, lang), totals=totals, target=doc["target"])
    return "\n".join([line, *current_rows(doc, lang)])


# What a Québec scorer may type for a shot, in the notation's English words and in the sheet's (notation.py).
_QUEBEC_SHOTS = {
    SOURCE: "shot red green | shot c5 red | shot none | shot chien | shot red off green | foul",
    "fr": "coup rouge verte | coup compteuse 5 rouge | coup rien | coup chien | coup rouge par terre verte | faute",
}


# The notation's words as a French scorer types them (rules/quebec/notation.py reads both).
_SHEET_WORDS = {"shot": "coup", "color": "couleur", "green": "verte", "red": "rouge", "none": "rien"}
_SHEET_WORDS |= {"foul": "faute", "pocket": "poche", "undo": "annule", "correct": "corrige", "off": "par terre"}


def notation_line(line: str, lang: str, game: str = QUEBEC) -> str:
    """A Québec notation line in the words a scorer of `lang` types (`shot red@2` → `coup rouge@2` in French)."""
    if game != QUEBEC or lang != "fr":
        return line
    out = []
    for word in line.split(" "):
        name, at, pocket = word.partition("@")
        if name in ("c5", "c10"):
            out.append(f"compteuse {name[1:]}{at}{pocket}")
        else:
            out.append(_SHEET_WORDS.get(name, name) + at + pocket)
    return " ".join(out)


def prompt_line(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """What the scorer enters next: the open question and its answers, else the next shot or flick. A question's
    text is said in `lang` when it is still the game's own sentence (rules/text.py), as in `play`."""
    _ = translator(lang)
    if doc["over"]:
        return _(
            "GAME OVER: {winner} wins. 'score' shows the scoreboard, 'undo' takes back the last input, 'quit' leaves",
            winner=doc["winner"],
        )
    qs = doc["questions"]
    if qs:
        return "\n".join(
            _(
                "QUESTION: {text} → type: {answers}",
                text=_(q["text"]),
                answers=" | ".join(notation_line(a, lang, doc["game"]) for a in q["answers"]),
            )
            for q in qs
        )
    cur = doc.get("current") or {}
    if doc["game"] == QUEBEC and cur.get("to_play"):
        line = (
            _("{player} to shoot again", player=cur["to_play"])
            if cur.get("turn_shots")
            else _("{player} to shoot", player=cur["to_play"])
        )
        ask = _("what did the shot pocket?")
        return f"{line} · {ask} → {_QUEBEC_SHOTS.get(lang, _QUEBEC_SHOTS[SOURCE])}"
    if doc["game"] == FLICOCHET and cur.get("to_flick"):
        side = next(s["name"] for s in doc["sides"] if cur["to_flick"] in s["players"])
        on = [k + 1 for k, where in enumerate(cur.get("jacks") or ["table"]) if where == "table"]
        jack = " | ".join(f"jack off {k}" for k in on) if len(on) > 1 else "jack off"
        return _(
            "{player} ({side}) to flick · → flick | flick at CM (placed CM from the jack) | after it: "
            "off red | off white | {jack}",
            player=cur["to_flick"],
            side=side,
            jack=jack,
        )
    return _("nothing is due: type 'score' for the scoreboard")
