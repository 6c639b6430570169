"""Plain-text views of a summary document (see rules/pichenotte/report.py): the scoreboard and the
one-line "what now" prompt of the scorekeeper."""

from __future__ import annotations

from typing import Any

from flickboard.core import render_games
from flickboard.i18n import SOURCE, Translator, say, translator
from flickboard.rules.text import N_


def _other_game(doc: dict[str, Any]) -> bool:
    """A Québec Pichenottes or Flicochet document: host/core/render_games.py has its views."""
    return bool(doc.get("game", "pichenotte") != "pichenotte")


def _free_rule(rules: str) -> tuple[int | None, bool, tuple[int, ...]]:
    """(free-shot zone, another puck may meet it, zone values) of a rule set; tolerant of unknown names. The rules
    are loaded here, by the prompt, so that a scoreboard's text alone (`flickboard scoreboard`) loads no game."""
    from flickboard.rules.pichenotte.engine import ZONE_VALUES
    from flickboard.rules.pichenotte.options import rule_set

    try:
        o = rule_set(rules)
    except ValueError:
        return None, False, ZONE_VALUES
    return o.free_shot_zone, o.free_shot_other_puck, ZONE_VALUES if o.post_values else ZONE_VALUES[:4]


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def match_said(spec: str, lang: str = SOURCE) -> str:
    """A Pichenotte match format after the word "match": in English the notation as it is (`games:8`, what the
    scorer types with --match); in another language, in words ("en 8 parties"), the notation being English."""
    if lang == SOURCE:
        return spec
    from flickboard.rules.pichenotte.options import parse_match  # (its package loads the engine: only when said)

    try:
        return say(parse_match(spec).short(), lang)
    except ValueError:
        return spec


def scoreboard(doc: dict[str, Any], lang: str = SOURCE) -> str:
    if _other_game(doc):
        return render_games.scoreboard(doc, lang)
    _ = translator(lang)
    sides = [s["name"] for s in doc["sides"]]
    width = max(8, *(len(s) for s in sides))
    teams = _(" vs ").join(
        f"{s['name']} ({', '.join(s['players'])})" if len(s["players"]) > 1 else s["name"] for s in doc["sides"]
    )
    match = match_said(doc["match"], lang)
    lines = [_("Pichenotte · {rules} · match {match} · {teams}", rules=doc["rules"], match=match, teams=teams)]
    if doc["games"]:
        head = _("game").ljust(width) + "".join(f"{g['number']:>6}" for g in doc["games"]) + _("   total  won")
        lines.append(head)
        for i, name in enumerate(sides):
            row = name.ljust(width)
            for g in doc["games"]:
                mark = "*" if g["winner"] == name else " "
                row += f"{g['points'][i]:>5}{mark}"
            row += f"{doc['totals'][i]:>8}{_fmt(doc['games_won'][i]):>5}"
            lines.append(row)
        for g in doc["games"]:
            notes = []
            if g["forfeit"]:
                notes.append(
                    _("forfeited by {side} ({reason})", side=g["forfeit"]["side"], reason=g["forfeit"]["reason"])
                )
            if g["decided_by_shootout"]:
                notes.append(_("tie broken by a shoot-out"))
            elif g["tied"]:
                notes.append(_("tied"))
            if any(g["penalties"]):
                each = ", ".join(f"{sides[i]} -{p}" for i, p in enumerate(g["penalties"]) if p)
                notes.append(_("penalties {list}", list=each))
            if notes:
                lines.append("  " + _("game {number}: {notes}", number=g["number"], notes="; ".join(notes)))
    cur = doc["current"]
    if cur:
        lines.append(
            _(
                "Game {game} (breaker {breaker}), shot {played}/{shots}",
                game=cur["game"],
                breaker=cur["breaker"],
                played=cur["shots_played"],
                shots=cur["shots_per_game"],
            )
        )
        lines += _side_rows(doc, sides, _)
    so = doc["shootout"]
    if so:
        counts = ", ".join(f"{sides[i]} {so['twenties'][i]}/{so['shots'][i]}" for i in (0, 1))
        if so["purpose"] == "game":
            lines.append(_("Twenties shoot-out (to break a tied game): {counts}", counts=counts))
        else:
            lines.append(_("Twenties shoot-out (to decide the match): {counts}", counts=counts))
    if doc["over"]:
        won = doc["winner"]
        if doc["match_shootout"]:
            score = "-".join(str(x) for x in doc["match_shootout"])
            lines.append(_("Match over: {winner} wins in the shoot-out {score}.", winner=won, score=score))
        else:
            lines.append(_("Match over: {winner} wins.", winner=won))
    if doc["rejected_inputs"]:
        lines.append(_("({n} input(s) refused; nothing they said was counted)", n=doc["rejected_inputs"]))
    return "\n".join(lines)


def _side_rows(doc: dict[str, Any], sides: list[str], _: Translator) -> list[str]:
    """One line per side for the game in progress: twenties, board, ditch, hand, penalties, provisional."""
    cur = doc["current"]
    width = max(len(s) for s in sides)
    rows = []
    for i, name in enumerate(sides):
        prov = sum(1 for p in cur["provisional_twenties"] if p["side"] == name)
        extra = "  " + _("({n} provisional)", n=prov) if prov else ""
        pen = "  " + _("penalty -{points}", points=cur["penalties"][i]) if cur["penalties"][i] else ""
        twenties, board, ditch, hand = (
            str(cur[k][i]).rjust(2) for k in ("twenties", "on_board", "in_ditch", "in_hand")
        )
        counts = _(
            "twenties {twenties}  board {board}  ditch {ditch}  hand {hand}",
            twenties=twenties,
            board=board,
            ditch=ditch,
            hand=hand,
        )
        rows.append(f"  {name.ljust(width)}  {counts}{pen}{extra}")
    return rows


def standing(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """The match so far, in one phrase: points and games won per side."""
    _ = translator(lang)
    played = len(doc["games"])
    if not played:
        return _("no game finished yet")
    sides = [s["name"] for s in doc["sides"]]
    parts = ", ".join(
        _("{side} {points} pts ({won} won)", side=name, points=doc["totals"][i], won=_fmt(doc["games_won"][i]))
        for i, name in enumerate(sides)
    )
    if played == 1:
        return _("after 1 game: {sides}", sides=parts)
    return _("after {n} games: {sides}", n=played, sides=parts)


def status(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """The compact view printed after every input: one line for the match, one per side for the game."""
    if _other_game(doc):
        return render_games.status(doc, lang)
    _ = translator(lang)
    match = match_said(doc["match"], lang)  # "match games:8", in French "match en 8 parties"
    sides = [s["name"] for s in doc["sides"]]
    lines = []
    cur = doc["current"]
    so = doc["shootout"]
    if doc["over"]:
        standing_now = standing(doc, lang)
        if doc["match_shootout"]:
            score = "-".join(str(x) for x in doc["match_shootout"])
            lines.append(
                _(
                    "Match over: {winner} wins (shoot-out {score}); {standing}",
                    winner=doc["winner"],
                    score=score,
                    standing=standing_now,
                )
            )
        else:
            lines.append(_("Match over: {winner} wins; {standing}", winner=doc["winner"], standing=standing_now))
    elif cur:
        lines.append(
            _(
                "Game {game} · {played}/{shots} shots played · match {match}, {standing}",
                game=cur["game"],
                played=cur["shots_played"],
                shots=cur["shots_per_game"],
                match=match,
                standing=standing(doc, lang),
            )
        )
        lines += _side_rows(doc, sides, _)
    else:
        lines.append(_("match {match}, {standing}", match=match, standing=standing(doc, lang)))
    if so:
        counts = ", ".join(
            _("{side} {twenties} in {shots}", side=sides[i], twenties=so["twenties"][i], shots=so["shots"][i])
            for i in (0, 1)
        )
        if so["purpose"] == "game":
            lines.append(
                _("Twenties shoot-out to break game {game}'s tie: {counts}", game=len(doc["games"]) + 1, counts=counts)
            )
        else:
            lines.append(_("Twenties shoot-out to decide the match: {counts}", counts=counts))
    return "\n".join(lines)


def _zones_prompt(doc: dict[str, Any], questions: list[dict[str, Any]], _: Translator) -> str:
    _z, _o, values = _free_rule(doc["rules"])
    lines = [
        _(
            "ZONES: every puck has been shot. One line per side: its name, then the value of each of its pucks "
            "on the board ({values}; edge = 15)",
            values=" ".join(map(str, values)),
        )
    ]
    for q in questions:
        example = q["answers"][0].split(None, 1)[1] if q["answers"] else q["side"]
        count = len(example.split()) - 1
        template = (
            "{side}: 1 puck on the board → type {side} and 1 value, e.g.  {example}"
            if count == 1
            else "{side}: {n} pucks on the board → type {side} and {n} values, e.g.  {example}"
        )
        lines.append("  " + _(template, side=q["side"], n=count, example=example))
    return "\n".join(lines)


_KINDS = {"contact": N_("contact shot"), "call": N_("declared twenty"), "free": N_("free shot")}


def prompt_line(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """What the scorer must do next: whose shot and its kind, the open question and its answers, or the
    zones to enter (one line per side). The notation's words stay the notation's (English) in every language."""
    if _other_game(doc):
        return render_games.prompt_line(doc, lang)
    _ = translator(lang)
    if doc["over"]:
        return _(
            "MATCH OVER: {winner} wins. 'score' shows the scoreboard, 'undo' takes back the last input, 'quit' leaves",
            winner=doc["winner"],
        )
    questions = doc["questions"]
    if questions:
        zones = [q for q in questions if q["kind"] == "zones"]
        if zones:
            return _zones_prompt(doc, zones, _)
        q = questions[0]
        return _("QUESTION: {text} → type: {answers}", text=_(q["text"]), answers=" | ".join(q["answers"]))
    so = doc["shootout"]
    sides = [s["name"] for s in doc["sides"]]
    if so:
        return _(
            "{player} to shoot · SHOOT-OUT: for the centre hole → shot in | shot miss", player=_who(doc, so["to_shoot"])
        )
    cur = doc["current"]
    if cur and cur["to_shoot"]:
        who = _who(doc, cur["to_shoot"])
        me = next(s for s in doc["sides"] if cur["to_shoot"] in s["players"])["name"]
        opp = sides[1 - sides.index(me)]
        kind = cur["shot_kind"]
        if cur["shot_open"]:
            what = _(_KINDS[kind]) if kind in _KINDS else kind
            facts = f"hit, miss, zone, short, in, {opp}:in ..."
            return _(
                "{player}'s shot is open ({kind}): add what happened ({facts}), then 'end'",
                player=who,
                kind=what,
                facts=facts,
            )
        head = _(
            "{player} to shoot ({number}/{shots})",
            player=who,
            number=cur["shots_played"] + 1,
            shots=cur["shots_per_game"],
        )
        if kind == "contact":
            return _(
                "{head} · CONTACT OR CALL: touch one of {opponent}'s pucks or call a twenty (R-8)"
                " → shot hit | shot miss | shot call in | shot call",
                head=head,
                opponent=opp,
            )
        zone, _o, _v = _free_rule(doc["rules"])
        if zone is None:
            return _(
                "{head} · FREE SHOT: no {opponent} puck on the board, the puck stays where it rests → shot | shot in",
                head=head,
                opponent=opp,
            )
        return _(
            "{head} · FREE SHOT: must rest in the {zone} zone or inside it (R-9) → shot zone | shot short | shot in",
            head=head,
            zone=zone,
        )
    return _("no shot is due: type 'score' for the scoreboard")


def _who(doc: dict[str, Any], player: str) -> str:
    """A player, with the side in doubles."""
    side = next(s for s in doc["sides"] if player in s["players"])
    return player if len(side["players"]) == 1 else f"{player} ({side['name']})"


# ---------------------------------------------------------------- a scoreboard document (docs/mqtt.md) as text


def text_view(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """A terminal view of a scoreboard document: the scoreboard, then the sensor side's state."""
    _ = translator(lang)
    lines = [
        _("board {board} · {link}", board=doc["board"], link=link_text(doc.get("board_link") or {}, lang)),
        scoreboard(doc["score"], lang),
    ]
    shot = doc.get("open_shot")
    if shot:
        facts = " ".join(shot["facts"]) or "-"
        lines.append(
            "  "
            + _(
                "shot {number} open: {player} ({kind}), so far: {facts}",
                number=shot["number"],
                player=shot["player"],
                kind=shot["kind"],
                facts=facts,
            )
        )
    if doc.get("declared"):
        lines.append("  " + _("a twenty is declared for the next shot"))
    for r in doc.get("review", []):
        lines.append("  " + _("NEEDS REVIEW [{entry}]: {text}", entry=r["entry"], text=r["text"]))
    if doc.get("waiting"):
        w = doc["waiting"]
        line = _("waiting [{entry}]: {text}", entry=w["entry"], text=w["text"])
        lines.append("  " + line + (" " + _("({n} queued)", n=doc["queued"]) if doc["queued"] else ""))
    return "\n".join(lines)


def link_text(link: dict[str, Any], lang: str = SOURCE) -> str:
    """How the board is linked, from a scoreboard document's `board_link`."""
    _ = translator(lang)
    online = link.get("online")
    via = link.get("via")
    if online is None:  # no presence said yet
        return _("heard via {via}", via=via) if via else _("scored by hand (no board connected)")
    if via:
        return _("online via {via}", via=via) if online else _("offline via {via}", via=via)
    return _("online") if online else _("offline")


def final_line(doc: dict[str, Any]) -> str:
    """`Ana 115 - Ben 65 (Ana wins the match)`, from the totals of a scoreboard document."""
    score = doc["score"]
    sides = [s["name"] for s in score["sides"]]
    totals = score["totals"]
    text = f"{sides[0]} {totals[0]} - {sides[1]} {totals[1]}"
    what = "match" if score.get("game", "pichenotte") == "pichenotte" else "game"
    if score["over"]:
        text += f" ({score['winner']} wins the {what})" if score["winner"] else f" ({what} over)"
    return text
