"""What the game needs from a person now, as one-tap questions, and the board's state in one plain sentence.

The scoreboard document carries both (docs/mqtt.md, `asks` and `now`): the phone draws each ask as a question with
a button per choice, the TV says `now`. Pure functions of a session, so every screen asks the same questions in the
same words, each question once.

An ask is `{"kind", "text", "spectator", "side", "choices": [{"label", "line", "confirm"}]}`:
- `text` is the question for the scorer, in plain words; `spectator` the same for the room ("whose puck went into
  the ditch?"); `side` the side it is about, or None;
- each choice's `line` is the notation line the bridge checks like any typed entry; `confirm` asks for a second tap
  (it takes something back).
Zones (end of a Pichenotte game) carry `pucks` and `prefix` instead of choices: a keypad per puck.

Kinds, Pichenotte: `ditch` and `edge` (the sensors saw what nobody has said yet), `twenty` (a provisional twenty from
the hole sensor), `contact`, `zone`, `choice` (the engine's questions), `zones`, `shootout`, `review`, `waiting`.
Québec Pichenottes and Flicochet: their engines' questions (`colour`, `identify`, `place`, `order`).
"""

from __future__ import annotations

import re
from typing import Any

from flickboard import i18n
from flickboard.core.evidence import unsettled
from flickboard.core.session import Session
from flickboard.rules.games import side_names
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.text import N_, Message


def _choice(label: str, line: str, confirm: bool = False) -> dict[str, Any]:
    """A choice; a label that is a `Message` carries it as `said` too, for a page in another language."""
    said = i18n.said(label)
    return {"label": label, "line": line, "confirm": confirm, **({"said": said} if said else {})}


def _ask(
    kind: str, text: str, spectator: str, choices: list[dict[str, Any]], side: str | None = None
) -> dict[str, Any]:
    """A question; a `text` that is a `Message` (the engine's, or one of these) comes as `sentence` too."""
    said = i18n.said(text)
    ask = {"kind": kind, "text": _cap(text), "spectator": spectator, "side": side, "choices": choices}
    return {**ask, "sentence": said} if said else ask


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# Questions a player answers at the table (the room is told what happens, not that the scorer is awaited).
PLAYERS_DECIDE = frozenset({"colour", "choice", "place", "shootout"})

# The engine's answers in plain words; a line not listed is shown as it is.
PLAIN_ANSWERS = {
    "hit": N_("Yes, it touched"),
    "miss": N_("No contact"),
    "zone": N_("Yes, in the zone"),
    "short": N_("No, short of it"),
    "choose leave": N_("Leave it on the board"),
    "choose ditch": N_("Remove it to the ditch"),
    "color green": N_("Green"),
    "color red": N_("Red"),
    "place": N_("Placed on the table"),
    "place off": N_("It left the table"),
}


def asks(session: Session) -> list[dict[str, Any]]:
    """Every question open now, most urgent first, each once."""
    game = session.game
    fold = session.fold
    out: list[dict[str, Any]] = []
    if isinstance(game, Pichenotte):
        out += _pichenotte(session)
    else:
        names = side_names(game)
        for q in session.state.questions():
            if q.kind == "order":  # the phone's disc-order keypad; the answers are patterns, not lines
                measuring = _ask("order", q.text, Message("measuring the discs around the jack"), [])
                out.append({**measuring, "lines": list(q.answers)})
                continue
            side = names[q.side] if isinstance(q.side, int) else None
            choices = [_choice(_plain_answer(a), a) for a in q.answers]
            out.append(_ask(q.kind, q.text, _other_spectator(q.kind, q.text), choices, side))
    if fold.review:
        choices = [_choice(N_("Checked: go on"), "reviewed")]
        if fold.waiting_events:
            choices.append(_choice(N_("Drop the board's event"), "dismiss", confirm=True))
        texts = [t for _, t in fold.review]
        more = f" (and {len(texts) - 1} more)" if len(texts) > 1 else ""
        out.append(
            {
                **_ask("review", _cap(texts[0]) + more, Message("the scorer is checking the board"), choices),
                "items": texts,
            }
        )
    elif fold.waiting and not out:
        out.append(
            _ask(
                "waiting",
                _cap(fold.waiting[1]),
                Message("waiting for the scorer"),
                [_choice(N_("Drop the board's event"), "dismiss", confirm=True)],
            )
        )
    return out


def _plain_answer(line: str) -> str:
    """An engine's answer line in words: `shot c5@2` (Québec, naming a pocketed piece) is "c5 in pocket 2"."""
    if line in PLAIN_ANSWERS:
        return PLAIN_ANSWERS[line]
    words = line.split()
    if len(words) == 2 and words[0] == "shot" and "@" in words[1]:
        piece, pocket = words[1].split("@", 1)
        return Message("{piece} in pocket {pocket}", piece=piece, pocket=pocket)
    return line


def _other_spectator(kind: str, text: str) -> str:
    if kind in PLAYERS_DECIDE:  # the engine's own sentence, without the rule's reference
        return re.sub(r"\s*\([^)]*\)$", "", text)
    if kind == "identify":
        return Message("naming the piece that went into a pocket")
    return Message("waiting for the scorer")


def _pichenotte(session: Session) -> list[dict[str, Any]]:
    game = session.game
    assert isinstance(game, Pichenotte)
    st = session.state
    setup = game.setup
    sides = list(setup.sides)
    out: list[dict[str, Any]] = []
    g = st.game
    shot = g.shot if g is not None and g.points is None else None
    if g is not None and shot is not None:
        own = setup.side_of(shot.seat)
        shooter = setup.players[shot.seat]
        shooting_on_board = shot.puck == "board"

        def others(fact: str) -> list[dict[str, Any]]:
            """A choice per side that has a puck on the board besides the shooting one."""
            assert g is not None
            out: list[dict[str, Any]] = []
            for side in (own, 1 - own):
                left = g.board[side] - (1 if side == own and shooting_on_board else 0)
                if left > 0:
                    label = (
                        Message("Another {side} puck", side=sides[side])
                        if side == own
                        else Message("A {side} puck", side=sides[side])
                    )
                    out.append(_choice(label, f"{sides[side]}:{fact}"))
            return out

        for u in unsettled(game, shot, session.fold.evidence):
            mine = [_choice(Message("{player}'s shooting puck", player=shooter), u.kind)] if shooting_on_board else []
            if u.kind == "ditch":
                text = (
                    Message(
                        "{n} pucks went into the ditch during {player}'s shot: whose?", n=u.unaccounted, player=shooter
                    )
                    if u.unaccounted > 1
                    else Message("A puck went into the ditch during {player}'s shot: whose?", player=shooter)
                )
                wrong = _choice(N_("No puck went in (the sensor was wrong)"), "reviewed")
                spectator = Message("whose puck went into the ditch?")
                out.append(_ask("ditch", text, spectator, [*mine, *others("ditch"), wrong]))
            else:
                text = Message(
                    "A puck stands on edge in the twenty hole during {player}'s shot (not a twenty, 15): whose?",
                    player=shooter,
                )
                wrong = _choice(N_("No puck is there"), "reviewed")
                spectator = Message("a puck stands on edge in the hole")
                out.append(_ask("edge", text, spectator, [*mine, *others("edge"), wrong]))
    if g is not None:
        for ref, side in g.provisional:
            other = sides[1 - side]
            given = [_choice(Message("It was {side}'s puck", side=other), f"correct {ref} {other}:in")]
            given = given if g.board[1 - side] else []
            out.append(
                _ask(
                    "twenty",
                    Message("Twenty for {side}? (the hole sensor saw a puck drop)", side=sides[side]),
                    Message("is it a twenty for {side}?", side=sides[side]),
                    [
                        _choice(N_("Yes, a twenty"), f"confirm {ref}"),
                        *given,
                        _choice(N_("No twenty"), f"correct {ref} -"),
                    ],
                    sides[side],
                )
            )
    for q in st.questions():
        side = sides[q.side]
        if q.kind == "zones":
            assert g is not None
            out.append(
                {
                    **_ask(
                        "zones",
                        Message("Every puck is shot: the zone of each {side} puck on the board", side=side),
                        Message("counting the pucks left on the board"),
                        [],
                        side,
                    ),
                    "pucks": g.board[q.side],
                    "prefix": f"zones {side}",
                }
            )
            continue
        spectator = {
            "contact": Message("did the shot touch a {side} puck?", side=sides[1 - q.side]),
            "zone": Message("did the free shot reach the zone?"),
            # a player's sentence: PLAYERS_DECIDE
            "choice": Message("{side} chooses what happens to the shooting puck", side=side),
        }.get(q.kind, Message("waiting for the scorer"))
        choices = [_choice(_plain_answer(a), a) for a in q.answers]
        out.append(_ask(q.kind, q.text, spectator, choices, side))
    so = st.shootout
    if so is not None and not st.over:
        who = st.to_shoot()
        if who is not None:
            player = setup.players[who]
            out.append(
                _ask(
                    "shootout",
                    Message("Shoot-out: {player}'s shot at the hole", player=player),
                    Message("Shoot-out: {player} shoots", player=player),
                    [_choice(N_("In"), "shot in"), _choice(N_("Missed"), "shot miss")],
                    sides[setup.side_of(who)],
                )
            )
    return out


def now(doc: dict[str, Any], asked: list[dict[str, Any]]) -> str:
    """The board's state in one plain sentence for the room, from a scoreboard document and its asks: a `Message`
    (rules/text.py), so that the document can carry it for a screen in another language (`now_sentence`)."""
    score = doc["score"]
    link = doc.get("board_link") or {}
    if score.get("over"):
        if score.get("game", "pichenotte") == "pichenotte":
            return Message("{winner} wins the match", winner=score.get("winner"))
        return Message("{winner} wins the game", winner=score.get("winner"))
    if link.get("only_duplicates"):
        return Message("The board's messages are not counting (all repeats): waiting for the scorer")
    if asked:
        first = asked[0]
        if first["kind"] in ("review", "waiting"):
            return Message("Waiting for the scorer to check the board")
        spectator = first["spectator"]
        if first["kind"] in PLAYERS_DECIDE:
            return spectator if spectator[:1] == spectator[:1].upper() else _cap(spectator)
        return Message("Waiting for the scorer: {what}", what=spectator)
    cur = score.get("current") or {}
    shot = doc.get("open_shot")
    if shot:
        return Message("{player} is shooting", player=shot["player"])
    for key in ("to_shoot", "to_play", "to_flick"):
        if cur.get(key):
            if key == "to_flick":
                return Message("{player} to flick", player=cur[key])
            return Message("{player} to shoot", player=cur[key])
    if cur.get("to_place_jack"):
        return Message("{player} places the jack", player=cur["to_place_jack"])
    return Message("Waiting for the next match") if not cur else Message("Waiting for the scorer")
