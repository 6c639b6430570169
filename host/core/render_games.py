"""Plain-text views of the Québec Pichenottes and Flicochet summary documents (rules/quebec/report.py,
rules/flicochet/report.py): the scoreboard, the compact status after each input, and the "what now" prompt.
host/core/render.py does the same for Pichenotte and sends these two games here.

The words follow each game's seed: a Québec partie is played in manches to 31, with dames, compteuses and a
colour per side; a Flicochet game is played in rounds, red against white, to 8 (12 with two jacks).
"""

from __future__ import annotations

from typing import Any

QUEBEC = "pichenottes-quebec"
FLICOCHET = "flicochet"


def _names(doc: dict[str, Any]) -> list[str]:
    return [s["name"] for s in doc["sides"]]


def _teams(doc: dict[str, Any]) -> str:
    return " vs ".join(
        f"{s['name']} ({', '.join(s['players'])})" if s["players"] != [s["name"]] else s["name"] for s in doc["sides"]
    )


def title(doc: dict[str, Any]) -> str:
    """The scoreboard's first line: game, rule set, target and the sides."""
    if doc["game"] == QUEBEC:
        return f"Québec Pichenottes · {doc['rules']} · partie to {doc['target']} · {_teams(doc)}"
    variants = ", ".join(doc.get("variants") or []) or "base game"
    return f"Flicochet · {variants} · to {doc['target']} · {_teams(doc)}"


def _quebec_round(doc: dict[str, Any], r: dict[str, Any]) -> str:
    names = _names(doc)
    pts = r["points"] or ["-", "-"]
    cols = [c or "?" for c in r["colours"]]
    parts = [f"{names[i]} ({cols[i]}) {pts[i]}" for i in (0, 1)]
    lost = r["compteuse_points_lost"]
    extra = [f"{names[i]} lost c-points {lost[i]} (règle 13)" for i in (0, 1) if lost[i]]
    return f"  manche {r['number']}: " + ", ".join(parts) + (f"; {'; '.join(extra)}" if extra else "")


def _flicochet_round(doc: dict[str, Any], r: dict[str, Any]) -> str:
    pts = r["points"] or ["-", "-"]
    how = {"jack": "jack off the table"}.get(str(r.get("ended")), "")
    orders = " / ".join(o for o in r["orders"] if o) if any(r["orders"]) else ""
    bits = [f"red {pts[0]}, white {pts[1]}"]
    if orders:
        bits.append(f"order {orders}")
    if how:
        bits.append(how)
    return f"  round {r['number']} ({r['start']} started): " + "; ".join(bits)


def current_rows(doc: dict[str, Any]) -> list[str]:
    """One line per side for the manche or round in progress (shared by the status and the big terminal view)."""
    cur = doc.get("current")
    if not cur:
        return []
    names = _names(doc)
    width = max(len(n) for n in names)
    rows = []
    if doc["game"] == QUEBEC:
        for i, name in enumerate(names):
            colour = cur["colours"][i] or "no colour yet"
            left = cur["dames_left"][i]
            won = [f"c{c['value']}" for c in cur["compteuses"] if c["side"] == name and c["where"] == "won"]
            pend = [f"c{c['value']}" for c in cur["compteuses"] if c["side"] == name and c["where"] == "pending"]
            bits = [f"{colour:<13}", f"dames left {left if left is not None else '-':>2}"]
            if won:
                bits.append("compteuses " + " ".join(won))
            if pend:
                bits.append("to bury " + " ".join(pend))
            rows.append(f"  {name.ljust(width)}  " + "  ".join(bits))
        return rows
    for i, name in enumerate(names):
        bits = [
            f"in hand {cur['in_hand'][i]:>2}",
            f"on the table {cur['on_table'][i]:>2}",
            f"off {cur['off_table'][i]:>2}",
        ]
        if cur["penalties"][i]:
            bits.append(f"penalty +{cur['penalties'][i]}")
        if cur["knocked_off_by_opponent"][i]:
            bits.append(f"knocked off by the other side {cur['knocked_off_by_opponent'][i]}")
        rows.append(f"  {name.ljust(width)}  " + "  ".join(bits))
    jacks = cur.get("jacks") or []
    if len(jacks) > 1 or any(j != "table" for j in jacks):
        rows.append("  jacks: " + ", ".join(f"{n} {j}" for n, j in enumerate(jacks, 1)))
    return rows


def headline(doc: dict[str, Any]) -> str:
    """The manche or round in progress, in one line."""
    cur = doc.get("current")
    if not cur:
        return ""
    if doc["game"] == QUEBEC:
        return f"Manche {cur['manche']} (break: {cur['breaker']}), {cur['shots']} shot(s) played"
    return f"Round {cur['round']} ({cur['start']} starts, {cur['start_player']}), {cur['flicks_played']} flick(s)"


def _over(doc: dict[str, Any]) -> str:
    names, totals = _names(doc), doc["totals"]
    if doc["winner"] not in names:
        return f"Game over: {totals[0]}-{totals[1]}."
    w = names.index(doc["winner"])
    return f"Game over: {doc['winner']} wins {totals[w]}-{totals[1 - w]}."


def scoreboard(doc: dict[str, Any]) -> str:
    names = _names(doc)
    lines = [title(doc)]
    rounds = doc["rounds"]
    if rounds:
        lines.append("  ".join(f"{n} {t}" for n, t in zip(names, doc["totals"], strict=True)) + "   (total)")
        lines += [_quebec_round(doc, r) if doc["game"] == QUEBEC else _flicochet_round(doc, r) for r in rounds]
    if doc.get("current"):
        lines.append(headline(doc))
        lines += current_rows(doc)
    if doc["over"]:
        lines.append(_over(doc))
    if doc["rejected_inputs"]:
        lines.append(f"({doc['rejected_inputs']} input(s) refused; nothing they said was counted)")
    return "\n".join(lines)


def status(doc: dict[str, Any]) -> str:
    names = _names(doc)
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, doc["totals"], strict=True))
    if doc["over"]:
        return _over(doc)
    return "\n".join([f"{headline(doc)} · {totals} (to {doc['target']})", *current_rows(doc)])


def prompt_line(doc: dict[str, Any]) -> str:
    """What the scorer enters next: the open question and its answers, else the next shot or flick."""
    if doc["over"]:
        return (
            f"GAME OVER: {doc['winner']} wins. 'score' shows the scoreboard, 'undo' takes back the last input, "
            "'quit' leaves"
        )
    qs = doc["questions"]
    if qs:
        return "\n".join(f"QUESTION: {q['text']} → type: {' | '.join(q['answers'])}" for q in qs)
    cur = doc.get("current") or {}
    if doc["game"] == QUEBEC and cur.get("to_play"):
        again = " again" if cur.get("turn_shots") else ""
        return (
            f"{cur['to_play']} to shoot{again} · what did the shot pocket? → shot red green | shot c5 red | "
            "shot none | shot chien | shot red off green | foul"
        )
    if doc["game"] == FLICOCHET and cur.get("to_flick"):
        side = next(s["name"] for s in doc["sides"] if cur["to_flick"] in s["players"])
        on = [k + 1 for k, where in enumerate(cur.get("jacks") or ["table"]) if where == "table"]
        jack = " | ".join(f"jack off {k}" for k in on) if len(on) > 1 else "jack off"
        return (
            f"{cur['to_flick']} ({side}) to flick · → flick | flick at CM (placed CM from the jack) | after it: "
            f"off red | off white | {jack}"
        )
    return "nothing is due: type 'score' for the scoreboard"
