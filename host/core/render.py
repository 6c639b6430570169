"""Plain-text views of a summary document (see rules/pichenotte/report.py): the scoreboard and the
one-line "what now" prompt of the scorekeeper."""

from __future__ import annotations

from typing import Any

from flickboard.core import render_games
from flickboard.i18n import SOURCE


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


def scoreboard(doc: dict[str, Any], lang: str = SOURCE) -> str:
    if _other_game(doc):
        return render_games.scoreboard(doc, lang)
    sides = [s["name"] for s in doc["sides"]]
    width = max(8, *(len(s) for s in sides))
    lines = [
        f"Pichenotte · {doc['rules']} · match {doc['match']} · "
        + " vs ".join(
            f"{s['name']} ({', '.join(s['players'])})" if len(s["players"]) > 1 else s["name"] for s in doc["sides"]
        )
    ]
    if doc["games"]:
        head = "game".ljust(width) + "".join(f"{g['number']:>6}" for g in doc["games"]) + "   total  won"
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
                notes.append(f"forfeited by {g['forfeit']['side']} ({g['forfeit']['reason']})")
            if g["decided_by_shootout"]:
                notes.append("tie broken by a shoot-out")
            elif g["tied"]:
                notes.append("tied")
            if any(g["penalties"]):
                notes.append("penalties " + ", ".join(f"{sides[i]} -{p}" for i, p in enumerate(g["penalties"]) if p))
            if notes:
                lines.append(f"  game {g['number']}: " + "; ".join(notes))
    cur = doc["current"]
    if cur:
        lines.append(
            f"Game {cur['game']} (breaker {cur['breaker']}), shot {cur['shots_played']}/{cur['shots_per_game']}"
        )
        lines += _side_rows(doc, sides)
    so = doc["shootout"]
    if so:
        lines.append(
            f"Twenties shoot-out ({'to break a tied game' if so['purpose'] == 'game' else 'to decide the match'}): "
            + ", ".join(f"{sides[i]} {so['twenties'][i]}/{so['shots'][i]}" for i in (0, 1))
        )
    if doc["over"]:
        won = doc["winner"]
        how = ""
        if doc["match_shootout"]:
            how = " in the shoot-out " + "-".join(str(x) for x in doc["match_shootout"])
        lines.append(f"Match over: {won} wins{how}.")
    if doc["rejected_inputs"]:
        lines.append(f"({doc['rejected_inputs']} input(s) refused; nothing they said was counted)")
    return "\n".join(lines)


def _side_rows(doc: dict[str, Any], sides: list[str]) -> list[str]:
    """One line per side for the game in progress: twenties, board, ditch, hand, penalties, provisional."""
    cur = doc["current"]
    width = max(len(s) for s in sides)
    rows = []
    for i, name in enumerate(sides):
        prov = sum(1 for p in cur["provisional_twenties"] if p["side"] == name)
        extra = f"  ({prov} provisional)" if prov else ""
        pen = f"  penalty -{cur['penalties'][i]}" if cur["penalties"][i] else ""
        rows.append(
            f"  {name.ljust(width)}  twenties {cur['twenties'][i]:>2}  board {cur['on_board'][i]:>2}"
            f"  ditch {cur['in_ditch'][i]:>2}  hand {cur['in_hand'][i]:>2}{pen}{extra}"
        )
    return rows


def _plural(n: float, word: str) -> str:
    return f"{_fmt(n)} {word}" + ("" if n == 1 else "s")


def standing(doc: dict[str, Any]) -> str:
    """The match so far, in one phrase: points and games won per side."""
    played = len(doc["games"])
    if not played:
        return "no game finished yet"
    sides = [s["name"] for s in doc["sides"]]
    parts = [f"{name} {doc['totals'][i]} pts ({_fmt(doc['games_won'][i])} won)" for i, name in enumerate(sides)]
    return f"after {_plural(played, 'game')}: " + ", ".join(parts)


def status(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """The compact view printed after every input: one line for the match, one per side for the game."""
    if _other_game(doc):
        return render_games.status(doc, lang)
    sides = [s["name"] for s in doc["sides"]]
    lines = []
    cur = doc["current"]
    so = doc["shootout"]
    if doc["over"]:
        how = ""
        if doc["match_shootout"]:
            how = " (shoot-out " + "-".join(str(x) for x in doc["match_shootout"]) + ")"
        lines.append(f"Match over: {doc['winner']} wins{how}; {standing(doc)}")
    elif cur:
        lines.append(
            f"Game {cur['game']} · {cur['shots_played']}/{cur['shots_per_game']} shots played · "
            f"match {doc['match']}, {standing(doc)}"
        )
        lines += _side_rows(doc, sides)
    else:
        lines.append(f"match {doc['match']}, {standing(doc)}")
    if so:
        what = f"to break game {len(doc['games']) + 1}'s tie" if so["purpose"] == "game" else "to decide the match"
        lines.append(
            f"Twenties shoot-out {what}: "
            + ", ".join(f"{sides[i]} {so['twenties'][i]} in {so['shots'][i]}" for i in (0, 1))
        )
    return "\n".join(lines)


def _zones_prompt(doc: dict[str, Any], questions: list[dict[str, Any]]) -> str:
    _, _, values = _free_rule(doc["rules"])
    lines = [
        "ZONES: every puck has been shot. One line per side: its name, then the value of each of its pucks "
        f"on the board ({' '.join(map(str, values))}; edge = 15)"
    ]
    for q in questions:
        example = q["answers"][0].split(None, 1)[1] if q["answers"] else q["side"]
        count = len(example.split()) - 1
        lines.append(
            f"  {q['side']}: {_plural(count, 'puck')} on the board → type {q['side']} and "
            f"{_plural(count, 'value')}, e.g.  {example}"
        )
    return "\n".join(lines)


def prompt_line(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """What the scorer must do next: whose shot and its kind, the open question and its answers, or the
    zones to enter (one line per side)."""
    if _other_game(doc):
        return render_games.prompt_line(doc, lang)
    if doc["over"]:
        return (
            f"MATCH OVER: {doc['winner']} wins. 'score' shows the scoreboard, 'undo' takes back the last input, "
            "'quit' leaves"
        )
    questions = doc["questions"]
    if questions:
        zones = [q for q in questions if q["kind"] == "zones"]
        if zones:
            return _zones_prompt(doc, zones)
        q = questions[0]
        return f"QUESTION: {q['text']} → type: {' | '.join(q['answers'])}"
    so = doc["shootout"]
    sides = [s["name"] for s in doc["sides"]]
    if so:
        return f"{_who(doc, so['to_shoot'])} to shoot · SHOOT-OUT: for the centre hole → shot in | shot miss"
    cur = doc["current"]
    if cur and cur["to_shoot"]:
        who = _who(doc, cur["to_shoot"])
        me = next(s for s in doc["sides"] if cur["to_shoot"] in s["players"])["name"]
        opp = sides[1 - sides.index(me)]
        kind = cur["shot_kind"]
        if cur["shot_open"]:
            what = {"contact": "contact shot", "call": "declared twenty", "free": "free shot"}.get(kind, kind)
            facts = f"hit, miss, zone, short, in, {opp}:in ..."
            return f"{who}'s shot is open ({what}): add what happened ({facts}), then 'end'"
        head = f"{who} to shoot ({cur['shots_played'] + 1}/{cur['shots_per_game']})"
        if kind == "contact":
            return (
                f"{head} · CONTACT OR CALL: touch one of {opp}'s pucks or call a twenty (R-8)"
                " → shot hit | shot miss | shot call in | shot call"
            )
        zone, _, _ = _free_rule(doc["rules"])
        if zone is None:
            return f"{head} · FREE SHOT: no {opp} puck on the board, the puck stays where it rests → shot | shot in"
        return f"{head} · FREE SHOT: must rest in the {zone} zone or inside it (R-9) → shot zone | shot short | shot in"
    return "no shot is due: type 'score' for the scoreboard"


def _who(doc: dict[str, Any], player: str) -> str:
    """A player, with the side in doubles."""
    side = next(s for s in doc["sides"] if player in s["players"])
    return player if len(side["players"]) == 1 else f"{player} ({side['name']})"


# ---------------------------------------------------------------- a scoreboard document (docs/mqtt.md) as text


def text_view(doc: dict[str, Any], lang: str = SOURCE) -> str:
    """A terminal view of a scoreboard document: the scoreboard, then the sensor side's state."""
    lines = [f"board {doc['board']} · " + link_text(doc.get("board_link") or {}), scoreboard(doc["score"], lang)]
    shot = doc.get("open_shot")
    if shot:
        facts = " ".join(shot["facts"]) or "-"
        lines.append(f"  shot {shot['number']} open: {shot['player']} ({shot['kind']}), so far: {facts}")
    if doc.get("declared"):
        lines.append("  a twenty is declared for the next shot")
    for r in doc.get("review", []):
        lines.append(f"  NEEDS REVIEW [{r['entry']}]: {r['text']}")
    if doc.get("waiting"):
        w = doc["waiting"]
        lines.append(f"  waiting [{w['entry']}]: {w['text']}" + (f" ({doc['queued']} queued)" if doc["queued"] else ""))
    return "\n".join(lines)


def link_text(link: dict[str, Any]) -> str:
    """How the board is linked, from a scoreboard document's `board_link`."""
    online = link.get("online")
    via = f" via {link['via']}" if link.get("via") else ""
    if online is None:  # no presence said yet
        return f"heard{via}" if via else "scored by hand (no board connected)"
    return f"{'online' if online else 'offline'}{via}"


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
