"""The big terminal scoreboard: a scoreboard document (docs/mqtt.md) drawn to be read from across the room.

    print(big_view(doc, width=80, color=True, bridge_online=True))

Large block digits for each side's points, one colour per side, then the pucks, whose shot and what kind, the open
questions, provisional twenties and the needs-review / waiting flags, and the board's and the scorer's link state.
Québec Pichenottes and Flicochet documents get their own middle part (host/core/render_games.py words it): the manche
with each side's colour, dames left and compteuses; the round with the discs in hand, on the table and off, the
jacks, penalties and round points. The big numbers are then the points towards the game's target.
Pure: a function of the document; `flickboard scoreboard` (host/cli/bridge.py) redraws it on every update.
`bridge_online` is whether the bridge that keeps this scoreboard is online (flickboard.mqtt.BridgeWatch.owner_online);
`link_lines(doc, bridge_online)` words the link's trouble in plain sentences for the plain text view too.
"""

from __future__ import annotations

from typing import Any

from flickboard.core import render_games
from flickboard.i18n import SOURCE, translator

# 5-row block glyphs, 4 columns wide (plus a space between glyphs).
_GLYPHS = {
    "0": ["████", "█  █", "█  █", "█  █", "████"],
    "1": ["  █ ", " ██ ", "  █ ", "  █ ", " ███"],
    "2": ["████", "   █", "████", "█   ", "████"],
    "3": ["████", "   █", " ███", "   █", "████"],
    "4": ["█  █", "█  █", "████", "   █", "   █"],
    "5": ["████", "█   ", "████", "   █", "████"],
    "6": ["████", "█   ", "████", "█  █", "████"],
    "7": ["████", "   █", "  █ ", " █  ", " █  "],
    "8": ["████", "█  █", "████", "█  █", "████"],
    "9": ["████", "█  █", "████", "   █", "████"],
    "-": ["    ", "    ", "████", "    ", "    "],
    " ": ["    ", "    ", "    ", "    ", "    "],
}
SIDE_COLORS = ("\x1b[1;36m", "\x1b[1;33m")  # bold cyan, bold yellow: tell apart for most colour vision
ALERT = "\x1b[1;41;97m"  # white on red
WARN = "\x1b[1;30;43m"  # black on yellow
DIM = "\x1b[2m"
RESET = "\x1b[0m"


def big_number(n: int) -> list[str]:
    """`n` in block digits: 5 lines."""
    text = str(n)
    rows = ["", "", "", "", ""]
    for ch in text:
        glyph = _GLYPHS.get(ch, _GLYPHS[" "])
        for i in range(5):
            rows[i] += glyph[i] + " "
    return [r.rstrip() for r in rows]


def only_duplicates_text(doc: dict[str, Any]) -> str | None:
    """The board keeps sending, but everything it sends was counted already (`board_link.only_duplicates`)."""
    dup = (doc.get("board_link") or {}).get("only_duplicates")
    if not isinstance(dup, dict):
        return None
    n = dup.get("count")
    last = f"last {n} messages were" if isinstance(n, int) and n > 1 else "latest messages were"
    since = dup.get("since")
    when = f" (since {since[11:19]} UTC)" if isinstance(since, str) and len(since) >= 19 else ""
    return (
        f"the board's {last} all repeats of ones already counted{when}: nothing it sends counts now; restart the "
        "board or check its boot id"
    )


def link_lines(doc: dict[str, Any], bridge_online: bool | None) -> list[str]:
    """Plain sentences on what keeps this score from being live: the scorer (its bridge) offline, a board whose
    messages are all repeats."""
    lines = []
    if bridge_online is False:
        owner = doc.get("bridge")
        who = f" {owner}" if isinstance(owner, str) else ""
        lines.append(f"the scorer (bridge{who}) is offline: this score may be stale")
    dup = only_duplicates_text(doc)
    if dup:
        lines.append(dup)
    return lines


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{RESET}" if color and text else text


def _points(score: dict[str, Any]) -> tuple[list[int], str]:
    """(the number to show big per side, what it is). A game's points are known only once its zones are in, so
    the big numbers are the match points so far; the game in progress shows its twenties below them."""
    games = score.get("games") or []
    totals = score.get("totals") or [0, 0]
    label = f"match points after {len(games)} game{'s' if len(games) != 1 else ''}" if games else "match points"
    return [int(totals[0]), int(totals[1])], label


def _target_points(score: dict[str, Any], lang: str = SOURCE) -> tuple[list[int], str]:
    """Québec Pichenottes and Flicochet: the points so far, towards the target."""
    totals = score.get("totals") or [0, 0]
    if score.get("game") == render_games.QUEBEC:
        _ = translator(lang)
        done = len(score.get("rounds") or [])
        target = score.get("target")
        if done:
            return [int(totals[0]), int(totals[1])], _(
                "points after {n} manche(s) · first to {target}", n=done, target=target
            )
        return [int(totals[0]), int(totals[1])], _("points · first to {target}", target=target)
    what = "manche" if score.get("game") == render_games.QUEBEC else "round"
    done = len(score.get("rounds") or [])
    after = f" after {done} {what}{'s' if done != 1 else ''}" if done else ""
    return [int(totals[0]), int(totals[1])], f"points{after} · first to {score.get('target')}"


def _other_game(score: dict[str, Any], sides: list[str], color: bool, lang: str = SOURCE) -> list[str]:
    """The middle part for a Québec Pichenottes or Flicochet document: the manche or round in progress, one line
    per side in its colour, the last rounds' points, and what is due now (questions come after, as for every game)."""
    lines: list[str] = []
    _ = translator(lang)
    cur = score.get("current")
    if cur:
        rows = render_games.current_rows(score, lang)
        for i, row in enumerate(rows):
            lines.append(_paint(row, SIDE_COLORS[i], color) if i < 2 else row)
        lines.append("")
        lines.append(render_games.headline(score, lang))
        if score["game"] == render_games.QUEBEC and cur.get("to_play"):
            if cur.get("turn_shots"):
                lines.append(_("next: {player} to shoot (again)", player=cur["to_play"]))
            else:
                lines.append(_("next: {player} to shoot", player=cur["to_play"]))
        elif score["game"] == render_games.FLICOCHET:
            if cur.get("to_place_jack"):
                lines.append(f"next: {cur['to_place_jack']} places the jack")
            elif cur.get("to_flick"):
                team = next((s["name"] for s in score["sides"] if cur["to_flick"] in s["players"]), "?")
                lines.append(f"next: {cur['to_flick']} ({team}) to flick")
            pts = cur.get("jack_points") or []
            if any(p is not None for p in pts):
                lines.append("jack points so far: " + ", ".join(f"{p[0]}-{p[1]}" for p in pts if p is not None))
    rounds = score.get("rounds") or []
    if rounds:
        last = rounds[-6:]
        cells = [f"{r['number']}: {r['points'][0]}-{r['points'][1]}" for r in last if r.get("points")]
        if cells and score["game"] == render_games.QUEBEC:
            lines.append(_("manches ({a}-{b}): {cells}", a=sides[0], b=sides[1], cells="  ".join(cells)))
        elif cells:
            lines.append(f"rounds ({sides[0]}-{sides[1]}): " + "  ".join(cells))
    if score.get("over"):
        won = score.get("winner")
        code = SIDE_COLORS[sides.index(won)] if won in sides else DIM
        tot = score.get("totals") or [0, 0]
        over = _("GAME OVER: {winner} wins {a}-{b}", winner=won, a=tot[0], b=tot[1]) if won else _("GAME OVER")
        lines.append(_paint(over, code, color))
    return lines


def big_view(
    doc: dict[str, Any], width: int = 80, color: bool = False, bridge_online: bool | None = None, lang: str = SOURCE
) -> str:
    score = doc["score"]
    sides = [s["name"] for s in score["sides"]]
    cur = score.get("current") or {}
    half = max(20, width // 2)
    lines: list[str] = []

    link = doc.get("board_link") or {}
    status = []
    if link.get("online") is False:
        status.append(_paint(" BOARD OFFLINE ", ALERT, color))
    if bridge_online is False:
        status.append(_paint(" SCORER OFFLINE: this score may be stale ", ALERT, color))
    game = score.get("game", "pichenotte")
    if game == "pichenotte":
        head = f"Flickboard · board {doc['board']} · {score['rules']} · match {score['match']}"
    else:
        head = f"Flickboard · board {doc['board']} · {render_games.title(score, lang)}"
    lines.append(head + ("   " + " ".join(status) if status else ""))
    dup = only_duplicates_text(doc)
    if dup:
        lines.append(_paint(f"REPEATS ONLY: {dup}", WARN, color))
    unseen = doc.get("strip_unseen")
    if isinstance(unseen, str):
        lines.append(_paint(f"PUCKS NOT SEEN: {unseen}", WARN, color))
    lines.append("")

    points, label = _points(score) if game == "pichenotte" else _target_points(score, lang)
    blocks = [big_number(points[0]), big_number(points[1])]
    row = ""
    for i in (0, 1):
        name = sides[i].upper()[: half - 2]
        row += _paint(name, SIDE_COLORS[i], color) + " " * (half - len(name))
    lines.append(row.rstrip())
    for r in range(5):
        row = ""
        for i in (0, 1):
            cell = blocks[i][r]
            row += _paint(cell, SIDE_COLORS[i], color) + " " * (half - len(cell))
        lines.append(row.rstrip())
    lines.append(_paint(label, DIM, color))
    lines.append("")

    if game != "pichenotte":
        lines += _other_game(score, sides, color, lang)
    elif cur:
        tw = cur.get("twenties") or [0, 0]
        hand, board, ditch = cur.get("in_hand") or [0, 0], cur.get("on_board") or [0, 0], cur.get("in_ditch") or [0, 0]
        for i in (0, 1):
            row = (
                f"{sides[i]:<12} twenties {tw[i]:>2}   in hand {hand[i]:>2}   on the board {board[i]:>2}   "
                f"in the ditch {ditch[i]:>2}"
            )
            lines.append(_paint(row, SIDE_COLORS[i], color))
        lines.append("")
        game = f"Game {cur.get('game')} · shot {cur.get('shots_played')}/{cur.get('shots_per_game')}"
        shot = doc.get("open_shot")
        if shot:
            facts = " ".join(shot.get("facts") or [])
            lines.append(f"{game} · {shot['player']}'s {shot['kind']} shot in play" + (f" ({facts})" if facts else ""))
        elif cur.get("to_shoot"):
            lines.append(f"{game} · next: {cur['to_shoot']}, {cur.get('shot_kind')} shot")
        else:
            lines.append(game)
        if doc.get("declared"):
            lines.append(_paint("A twenty is declared for the next shot", WARN, color))
        for p in cur.get("provisional_twenties") or []:
            lines.append(f"provisional twenty for {p['side']} (entry {p['entry']}): confirm or correct")
    elif score.get("shootout"):
        so = score["shootout"]
        what = "for this game" if so.get("purpose") == "game" else "for the match"
        tw, shots = so.get("twenties") or [0, 0], so.get("shots") or [0, 0]
        lines.append(_paint(f"TIED: TWENTIES SHOOT-OUT {what.upper()}", WARN, color))
        for i in (0, 1):
            lines.append(_paint(f"{sides[i]:<12} twenties {tw[i]:>2} of {shots[i]:>2} shots", SIDE_COLORS[i], color))
        lines.append(f"next: {so.get('to_shoot')} ('shot in' or 'shot miss')")
    elif score.get("over"):
        won = score.get("winner")
        code = SIDE_COLORS[sides.index(won)] if won in sides else DIM
        lines.append(_paint(f"MATCH OVER{': ' + won + ' wins' if won else ''}", code, color))
    for q in score.get("questions") or []:
        lines.append(_paint(f"? {q['text']}", WARN, color) + f"  ({' / '.join(q['answers'])})")
    for r in doc.get("review") or []:
        lines.append(_paint(f"NEEDS REVIEW: {r['text']}", ALERT, color))
    waiting = doc.get("waiting")
    if waiting:
        queued = doc.get("queued") or 0
        more = f" ({queued} sensor event{'s' if queued != 1 else ''} waiting)" if queued else ""
        lines.append(_paint(f"waiting: {waiting['text']}", WARN, color) + more)
    for c in doc.get("checks") or []:
        lines.append(_paint(f"to enter: {c}", WARN, color))
    return "\n".join(lines)
