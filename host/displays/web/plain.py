"""The bridge's answer to an entry, said for the scorer (`plain`): one short sentence in the players' words (`say`),
and the fix as lines to tap when there is one (`fixes`: a line of the notation a word or two away from the one
refused, that the game reads). The bridge's own `message` is kept beside them: it is the notation's help, shown
with the free line only. Every sentence the scorer's page reads from here is in `SAY`, marked for the catalogues:
each answer carries it as `said` too (`{text, values}`, a fix's label likewise), for a page in another language."""

from __future__ import annotations

import re
from typing import Any

from flickboard.core.entries import HOST_WORDS
from flickboard.rules import games
from flickboard.rules.base import NotationError, near_miss
from flickboard.rules.text import N_

SAY = {
    "not understood": N_("Not understood: “{line}”."),
    "not taken": N_("Not taken: {reason}."),
    "not started": N_("Not started: {reason}."),
    "did you mean": N_("Did you mean {line}?"),
}


def _say(which: str, **values: str) -> dict[str, Any]:
    """One of SAY's sentences in English (`say`) and as the catalogues know it (`said`: a page says it in its own
    language with FB.T; the values stay as they are: a line typed, a rule's reason)."""
    return {"say": SAY[which].format(**values), "said": {"text": SAY[which], "values": values}}


def _fix(line: str) -> dict[str, Any]:
    sentence = _say("did you mean", line=_spaced(line))
    return {"label": sentence["say"], "said": sentence["said"], "line": line}


MAX_FIXES = 2


def plain(score: dict[str, Any] | None, req: dict[str, Any], res: dict[str, Any]) -> dict[str, Any]:
    """`say` and `fixes` for the bridge's answer `res` to the request `req` on a board whose score is `score`
    (None: no scoreboard yet). An entry taken needs neither: an empty dict."""
    if res.get("ok") or not isinstance(res.get("message"), str):
        return {}
    message = res["message"]
    if "new" in req:
        return {**_say("not started", reason=_reason(message)), "fixes": []}
    line = str(req.get("line") or "").strip()
    game = _game(score)
    if game is None:
        return {**_say("not taken", reason=_reason(message)), "fixes": []}
    verb = (line.split() or [""])[0].lower()
    try:
        if verb not in HOST_WORDS:  # the session's own words (reviewed, dismiss, ...) are not the game's
            game.parse(line)
    except NotationError:
        return {**_say("not understood", line=line), "fixes": [_fix(f) for f in _near_lines(game, line)]}
    except Exception:  # the game could not read it for a reason of its own: the rules' words
        return {**_say("not taken", reason=_reason(message)), "fixes": []}
    return {**_say("not taken", reason=_reason(message)), "fixes": []}


def plain_request(req: Any, error: str) -> dict[str, Any]:
    """`say` for a request this server refused before sending it (its error names the request's part)."""
    new = isinstance(req, dict) and "new" in req
    reason = re.sub(r"^\"(new|line)\": ", "", error)
    return {**_say("not started" if new else "not taken", reason=_reason(reason)), "fixes": []}


def _spaced(line: str) -> str:
    """`Ben:ditch` as a person reads it: `Ben: ditch`."""
    return " ".join(w.replace(":", ": ", 1) if ":" in w[1:-1] else w for w in line.split())


def _reason(message: str) -> str:
    # The bracketed parts of a rule's message are its examples in the notation and its citations: the help's, not
    # the sentence's (the free line shows the whole message).
    text = re.sub(r" ?\((?!s\))[^()]*\)", "", message).strip().rstrip(".")
    text = re.sub(r"\b(\d+) (\w+)\(s\)", lambda m: f"{m[1]} {m[2]}{'' if m[1] == '1' else 's'}", text)  # 12 pucks
    if text.startswith("first answer: "):  # the rules' "answer this first": said as what to do first
        text = text.removeprefix("first answer: ") + " first"
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _game(score: dict[str, Any] | None) -> Any:
    """The board's game as the notation reads it (its rule set and players), or None."""
    if not score or not score.get("players"):
        return None
    try:
        return games.create(
            score.get("game") or games.DEFAULT, [str(p) for p in score["players"]], rules=score.get("rules")
        )
    except Exception:  # a scoreboard from another version: no suggestion, never a failure
        return None


def _near_lines(game: Any, line: str) -> list[str]:
    """Lines one word away from `line` (each word tried against the game's own words, a side or player's prefix kept
    apart) that the game reads; at most MAX_FIXES."""
    words = line.split()
    vocab = sorted(game.words())
    out: list[str] = []
    for i, w in enumerate(words):
        for near in _near_words(w, vocab):
            candidate = " ".join([*words[:i], near, *words[i + 1 :]])
            try:
                game.parse(candidate)
            except Exception:
                continue
            if candidate not in out:
                out.append(candidate)
            if len(out) >= MAX_FIXES:
                return out
    return out


def _near_words(word: str, vocab: list[str]) -> list[str]:
    if word in vocab:
        return []
    out = []
    whole = near_miss(word, vocab)
    if whole:
        out.append(whole)
    who, colon, what = word.rpartition(":")
    if colon and who:
        plain_words = [v for v in vocab if ":" not in v]
        who_near = who if who in vocab else near_miss(who, plain_words)
        what_near = what if what in vocab else near_miss(what, plain_words)
        if who_near and what_near and f"{who_near}:{what_near}" not in out:
            out.append(f"{who_near}:{what_near}")
    return out
