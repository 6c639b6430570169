"""Plain-text views of a summary document (see rules/pichenotte/report.py): the scoreboard and the
one-line "what now" prompt of the scorekeeper."""

from __future__ import annotations

from typing import Any

KIND_TEXT = {
    "contact": "CONTACT SHOT: touch a {opp} puck, or 'call' a twenty (R-8)",
    "call": "declared twenty",
    "free": "FREE SHOT: no {opp} puck on the board (R-9)",
    "shootout": "SHOOT-OUT: for the centre hole",
}


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def scoreboard(doc: dict[str, Any]) -> str:
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
        lines.append("".ljust(width) + "  hand board ditch twenties")
        for i, name in enumerate(sides):
            prov = sum(1 for p in cur["provisional_twenties"] if p["side"] == name)
            extra = f" ({prov} provisional)" if prov else ""
            pen = f"  penalty -{cur['penalties'][i]}" if cur["penalties"][i] else ""
            lines.append(
                f"{name.ljust(width)}  {cur['in_hand'][i]:>4} {cur['on_board'][i]:>5} {cur['in_ditch'][i]:>5}"
                f" {cur['twenties'][i]:>8}{extra}{pen}"
            )
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


def prompt_line(doc: dict[str, Any]) -> str:
    """What the scorer must do next, in one line."""
    if doc["over"]:
        return f"Match over: {doc['winner']} wins."
    if doc["questions"]:
        q = doc["questions"][0]
        return f"QUESTION: {q['text']} → {' | '.join(q['answers'])}"
    so = doc["shootout"]
    sides = [s["name"] for s in doc["sides"]]
    if so:
        return f"{so['to_shoot']} to shoot (shoot-out): 'shot in' or 'shot miss'"
    cur = doc["current"]
    if cur and cur["to_shoot"]:
        me = next(s for s in doc["sides"] if cur["to_shoot"] in s["players"])["name"]
        opp = sides[1 - sides.index(me)]
        kind = KIND_TEXT[cur["shot_kind"]].format(opp=opp)
        if cur["shot_open"]:
            return f"{cur['to_shoot']}'s shot is open ({kind}): add what happened, then 'end'"
        return f"{cur['to_shoot']} to shoot, shot {cur['shots_played'] + 1}/{cur['shots_per_game']} · {kind}"
    return "enter the zones"
