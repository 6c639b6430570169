"""What the bridge publishes for displays (docs/mqtt.md): the retained scoreboard document of one board and the
scoring moments of its events stream, plus a compact text view of a scoreboard document for terminals.

Pure functions of a session; the bridge owns the broker connection.
"""

from __future__ import annotations

from typing import Any

from flickboard import i18n
from flickboard.core.asks import asks, now
from flickboard.core.evidence import open_checks
from flickboard.core.render import final_line as final_line  # the document's text: kept importable from here
from flickboard.core.render import text_view as text_view
from flickboard.core.session import Outcome, Session
from flickboard.i18n import SOURCE, Translator, say, translator
from flickboard.rules.games import AnyGame, side_names
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.quebec import sheet
from flickboard.rules.text import N_

SCOREBOARD_FORMAT = "flickboard-scoreboard"
SCOREBOARD_VERSION = 1
MOMENTS_FORMAT = "flickboard-moment"


def open_shot(session: Session) -> dict[str, Any] | None:
    """Pichenotte's shot in progress, as the sensors and the scorer have it so far (None in the other games)."""
    if not isinstance(session.game, Pichenotte):
        return None
    st = session.state
    g = st.game
    if g is None or g.shot is None or g.points is not None:
        return None
    s = g.shot
    setup = session.game.setup
    return {
        "number": s.number,
        "player": setup.players[s.seat],
        "side": setup.sides[setup.side_of(s.seat)],
        "kind": s.kind,
        "contact": s.contact,
        "zone": s.zone,
        "facts": [f for f, _ in s.facts],
        "ending": s.ending,
    }


# How many of the latest entries in effect the scoreboard lists: a display drops the moments of one undone since.
IN_EFFECT = 16


def scoreboard_doc(
    board: str, session: Session, link: dict[str, Any], updated: str, bridge: str | None = None
) -> dict[str, Any]:
    """The retained `flickboard/<board>/scoreboard` document, version 1 (docs/mqtt.md); `bridge`: the id of the
    bridge that keeps it (its status tells a display whether the score is live)."""
    fold = session.fold
    checks: list[str] = []
    if isinstance(session.game, Pichenotte):
        g = fold.state.game
        if g is not None and g.shot is not None and g.points is None:
            checks = open_checks(session.game, g.shot, fold.evidence)
    review = [{"entry": n, "text": t} for n, t in fold.review]
    doc = {
        "format": SCOREBOARD_FORMAT,
        "version": SCOREBOARD_VERSION,
        "board": board,
        "updated": updated,
        "journal": session.journal.path,
        "entries": session.journal.count,
        "score": session.summary(),
        "open_shot": open_shot(session),
        "declared": fold.declared,
        "needs_review": bool(review),
        "review": review,
        "waiting": {"entry": fold.waiting[0], "text": fold.waiting[1]} if fold.waiting else None,
        "checks": checks,
        "queued": fold.waiting_events,
        "notes": [{"entry": n, "text": t} for n, t in fold.notes],
        "sensor_events": fold.sensor_events,
        "in_effect": [a.n for a in fold.stack[-IN_EFFECT:]],
        "strip_unseen": fold.strip_unseen,
        "board_link": link,
        "bridge": bridge,
    }
    asked = asks(session)
    doc["asks"] = asked
    said_now = now(doc, asked)
    doc["now"] = str(said_now)
    doc["now_sentence"] = i18n.said(said_now)  # the same, for a screen in the players' language (docs/mqtt.md)
    return doc


def moments(board: str, game: AnyGame, outcome: Outcome) -> list[dict[str, Any]]:
    """The scoring moments of one accepted entry, for `flickboard/<board>/events`: engine effects with side and
    player names instead of numbers, and the sensor side's own moments (ditch-pass, edge, review)."""
    sides = side_names(game)
    players = game.setup.players
    out = []
    for fx in outcome.effects:
        m: dict[str, Any] = {"format": MOMENTS_FORMAT, "board": board, "entry": outcome.n}
        for k, v in fx.items():
            if k in ("side", "winner") and _index(v, 2):
                m[k] = sides[v]
            elif k == "finished" and isinstance(v, list) and all(_index(x, 2) for x in v):
                m[k] = [sides[x] for x in v]
            elif k == "seat" and _index(v, len(players)):
                m["player"] = players[v]
            elif k == "next" and _index(v, len(players)):
                m["next"] = players[v]
            else:
                m[k] = v
        out.append(m)
    return out


def _index(v: object, size: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < size


# The moments the scorekeeper's own prompt reports after an entry; a display shows them all.
PROMPT_MOMENTS = frozenset(
    {"twenty", "shot-end", "penalty", "forfeit", "game-over", "match-over", "shootout"}
    | {"colour", "compteuse", "turn-end", "manche-over", "tie"}  # Québec Pichenottes
    | {"jack-off", "jack-place-off", "off", "jack-scored", "round-over", "tied-at-target", "round"}  # Flicochet
)


def moment_text(m: dict[str, Any], lang: str = SOURCE) -> str:
    """One line for a scoring moment (empty: not worth a line on its own). One vocabulary for every terminal, said in
    `lang` where a catalogue has it (Québec Pichenottes' moments: flickboard/i18n)."""
    t = m.get("type")
    _ = translator(lang)
    if t == "shot" and "pocketed" in m:  # Québec Pichenottes
        what = " ".join(_piece_words(m.get("pocketed") or [], _)) or _("nothing")
        if m.get("off"):
            return _(
                "shot {number}: {player} pockets {what}, off the board: {off}",
                number=m.get("number"),
                player=m.get("player"),
                what=what,
                off=" ".join(_piece_words(m["off"], _)),
            )
        return _("shot {number}: {player} pockets {what}", number=m.get("number"), player=m.get("player"), what=what)
    if t == "shot":
        return _("shot {number}: {player} ({kind})", number=m.get("number"), player=m.get("player"), kind=m.get("kind"))
    if t == "twenty":
        if m.get("provisional"):
            return _("TWENTY for {side} (provisional: confirm or correct)", side=m.get("side"))
        return _("TWENTY for {side}", side=m.get("side"))
    if t == "ditch-pass":
        return _("a puck went into the ditch ({sensor})", sensor=m.get("sensor"))
    if t == "edge":
        return _("a puck stands on edge in the twenty hole (A-4)")
    if t == "ditch":
        # why: the engine's word for it (rules/pichenotte/engine.py, N_), or the fact the scorer typed ("fly")
        return _("{side} puck to the ditch ({why})", side=m.get("side"), why=_(str(m.get("why"))))
    if t == "shot-end" and m.get("result") not in (None, "stands"):
        return f"→ {_(m['result'])}"  # the engine's sentence (rules/text.py), or the same words read back
    if t == "review":
        return _("NEEDS REVIEW: {text}", text=m.get("text"))
    if t == "penalty":
        return _("PENALTY: {side} -20 (A-2)", side=m.get("side"))
    if t == "forfeit":
        return _("FORFEIT: {side} forfeits the game ({reason})", side=m.get("side"), reason=m.get("reason"))
    if t == "game-over" and "totals" in m:  # Québec Pichenottes, Flicochet: the game is the whole match
        tot = m.get("totals") or ["?", "?"]
        return _("GAME OVER: {winner} wins, {a}-{b}", winner=m.get("winner"), a=tot[0], b=tot[1])
    text = _quebec_moment(t, m, lang) or _other_moment(t, m, _)
    if text:
        return text
    if t == "game-over":
        pts = m.get("points") or ["?", "?"]
        if m.get("winner"):
            return _(
                "GAME {game} OVER: {a}-{b}, won by {winner}", game=m.get("game"), a=pts[0], b=pts[1], winner=m["winner"]
            )
        return _("GAME {game} OVER: {a}-{b}, won by nobody (tied)", game=m.get("game"), a=pts[0], b=pts[1])
    if t == "match-over":
        return _("MATCH OVER: {winner} wins", winner=m.get("winner"))
    if t == "shootout":
        if m.get("purpose") == "game":
            return _("TIED: twenties shoot-out, for this game")
        return _("TIED: twenties shoot-out, for the match")
    return ""


_PIECES = {"green": N_("green"), "red": N_("red")}


def _piece_words(pieces: list[str], _: Translator) -> list[str]:
    """Pieces as the players say them: `green@2` → `verte@2` in French; c5, c10 and chien are the sheet's own."""
    out = []
    for p in pieces:
        name, at, pocket = str(p).partition("@")
        out.append(_(_PIECES[name]) + at + pocket if name in _PIECES else str(p))
    return out


def _quebec_moment(t: object, m: dict[str, Any], lang: str) -> str:
    """Québec Pichenottes' moments, citing the rules in the sheet's own words (rules/quebec/sheet.py)."""
    _ = translator(lang)

    def cite(rule: object) -> str:
        return sheet.cite(str(rule), lang, say)

    if t == "pocket-evidence":
        return _(
            "a piece entered pocket {pocket}: name it on the shot line (e.g. red@{pocket})", pocket=m.get("pocket")
        )
    if t == "colour":
        colour = _(_PIECES.get(str(m.get("colour")), str(m.get("colour"))))
        if m.get("chosen"):
            return _("{side} chose {colour} ({rule})", side=m.get("side"), colour=colour, rule=cite("10"))
        return _("{side} plays {colour} ({rule})", side=m.get("side"), colour=colour, rule=cite("10"))
    if t == "compteuse":
        outcome = str(m.get("outcome"))
        values = {"value": m.get("value"), "side": m.get("side"), "rule": cite(m.get("rule") or "11")}
        if outcome == "won":
            return _("compteuse {value} ({side}) is good ({rule})", **values)
        if outcome == "returned":
            return _("compteuse {value} ({side}) goes back to the centre ({rule})", **values)
        if outcome == "pending":
            return _("compteuse {value} ({side}) must be buried now ({rule})", **values)
        return ""
    if t == "foul":
        return _("foul by {player}: the turn passes ({rule})", player=m.get("player"), rule=cite("15"))
    if t == "turn-end":
        stops = [s for s in (m.get("stops") or []) if s != "nothing"]
        if not stops:
            return _("turn over (nothing pocketed): {player} plays", player=m.get("next"))
        why = "; ".join(cite("10/casse" if s == "10" else s) for s in stops)  # a turn ends on règle 10 at the break
        return _("turn over ({why}): {player} plays", why=why, player=m.get("next"))
    if t == "manche-over":
        pts = m.get("points") or ["?", "?"]
        return _("MANCHE {manche} OVER: {a}-{b}", manche=m.get("manche"), a=pts[0], b=pts[1])
    if t == "tie":
        tot = m.get("totals") or ["?", "?"]
        return _("TIED at {a}-{b}: another manche ({rule})", a=tot[0], b=tot[1], rule=cite("6"))
    return ""


def _other_moment(t: object, m: dict[str, Any], _: Translator) -> str:
    """Flicochet's moments, in the same vocabulary."""
    if t == "jack-off":
        return _(
            "JACK {jack} OFF the table (by {by}): +{penalty} to {to}",
            jack=m.get("jack"),
            by=m.get("by"),
            penalty=m.get("penalty"),
            to=m.get("to"),
        )
    if t == "jack-place-off":
        return _(
            "jack {jack} left the table while placed: {by}'s opponent places it", jack=m.get("jack"), by=m.get("by")
        )
    if t == "off":
        if m.get("school_point"):
            return _(
                "a {side} disc knocked off the table by {by} (+1 to {side}, school rules)",
                side=m.get("side"),
                by=m.get("by"),
            )
        return _("a {side} disc knocked off the table by {by}", side=m.get("side"), by=m.get("by"))
    if t == "jack-scored":
        pts = m.get("points") or ["?", "?"]
        return _("jack {jack} scored: red {red}, white {white}", jack=m.get("jack"), red=pts[0], white=pts[1])
    if t == "round-over":
        pts = m.get("points") or ["?", "?"]
        return _("ROUND {round} OVER: red {red}, white {white}", round=m.get("round"), red=pts[0], white=pts[1])
    if t == "tied-at-target":
        tot = m.get("totals") or ["?", "?"]
        return _("both sides at the target, tied {a}-{b}: another round", a=tot[0], b=tot[1])
    if t == "round":
        return _("round {round}: {start} starts", round=m.get("round"), start=m.get("start"))
    return ""
