"""`flickboard play`: a game scored at the terminal, line by line, every entry journaled before it counts; its
prompt, completion and hints."""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from flickboard import i18n
from flickboard.cli.files import is_journal
from flickboard.core import render, render_games
from flickboard.core.scoreboard import PROMPT_MOMENTS, moment_text, moments
from flickboard.core.session import Session
from flickboard.errors import UserError
from flickboard.i18n import SOURCE
from flickboard.rules import games
from flickboard.rules.games import AnyGame
from flickboard.rules.names import fold
from flickboard.rules.quebec import Quebec
from flickboard.rules.text import N_, message_of

# The prompt's own words, after the game's notation (its `notation_help`) in `help`.
PROMPT_HELP = """  score   the full scoreboard    status   the short one    help   this text    quit   leave (or Ctrl-D)
Every input is saved in the journal before it counts; a refused input changes nothing."""

COMMANDS = {
    "quit": ("quit", "exit", "q"),
    "help": ("help", "?", "h"),
    "score": ("score", "scoreboard", "s"),
    "status": ("status", "st"),
}


PROMPT_HELP_FR = """  score   le tableau complet    status   le résumé    help   ce texte    quit   quitter (ou Ctrl-D)
Chaque entrée est gardée au journal avant de compter ; une entrée refusée ne change rien."""


def _help_text(game: AnyGame, lang: str = SOURCE) -> str:
    if lang == "fr" and isinstance(game, Quebec):  # the sheet's own words (rules/quebec/notation.py)
        names = game.setup.players
        return notation_fr_help(names[0]) + "\n" + PROMPT_HELP_FR
    return f"{games.help_for(game)}\n{PROMPT_HELP}"


def notation_fr_help(player: str) -> str:
    from flickboard.rules.quebec.notation import HELP_FR

    pad = " " * max(1, 19 - len(player))  # the descriptions start in the same column
    return HELP_FR.format(player=player, pad=pad)


def _slug(names: Sequence[str]) -> str:
    """The players' names in a file name: letters and digits, accents dropped ("Zoé Lévesque" → zoelevesque)."""
    return "-".join(re.sub(r"[^a-z0-9]+", "", fold(n)) or "p" for n in names)


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    asked = getattr(args, "lang", None)
    if asked and not i18n.known(asked):
        raise UserError(
            f"--lang {asked}: there is no catalogue for it; the languages are {', '.join(i18n.languages())}"
        )
    if args.resume:
        path = args.resume
        if args.players or args.journal or args.game:
            raise UserError("--resume continues a journal as it was set up: leave out --game, --players and --journal")
        if os.path.isdir(path):
            raise UserError(f"{path} is a directory, not a journal")
        if os.path.exists(path) and not is_journal(path):
            raise UserError(
                f"{path} is not a journal (a journal is the .jsonl file 'play' writes); "
                f"to score a transcript use: flickboard replay {path}"
            )
        try:
            session = Session.resume(path)
        except ValueError as e:
            raise UserError(str(e)) from None
        replayed = session.journal.count
        _ = i18n.translator(i18n.choose(asked, session.game.name))
        if session.journal.torn:
            out.write(_("note: {what}", what=session.journal.torn.message()) + "\n")
        refused = len(session.fold.rejected)
        if refused:
            said = _(
                "Resumed {path}: {n} entries replayed ({refused} refused).", path=path, n=replayed, refused=refused
            )
        else:
            said = _("Resumed {path}: {n} entries replayed.", path=path, n=replayed)
        out.write(said + "\n")
        if session.fold.stack:
            top = session.fold.stack[-1]
            out.write(_("Last input in effect: [{n}] {line}", n=top.n, line=session.game.format(top.line)) + "\n")
    else:
        if not args.players:
            try:
                usage = games.get(args.game).players_usage
            except games.GameError:  # said once the players are named
                usage = games.get(None).players_usage
            raise UserError(f"name the players: {usage}")
        try:
            game = games.create(
                args.game,
                args.players,
                rules=args.rules,
                sides=args.sides,
                match=args.match,
                target=args.target,
                first=args.breaker,
                teams=args.teams,
            )
        except ValueError as e:  # said in the language the game would have been played in
            try:
                lang = i18n.choose(asked, games.game_name(args.game))
            except games.GameError:
                lang = i18n.choose(asked)
            raise UserError(i18n.say(message_of(e), lang)) from None
        path = args.journal or os.path.join(
            "journals", datetime.datetime.now().strftime("%Y%m%d-%H%M%S-") + _slug(args.players) + ".jsonl"
        )
        if os.path.isdir(path):
            example = os.path.join(path, "match.jsonl")
            raise UserError(f"--journal {path} is a directory: give a file name, e.g. {example}")
        if os.path.lexists(path):
            raise UserError(
                f"{path} already exists: continue it with 'flickboard play --resume {path}' or choose another --journal"
            )
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the folder for {path}: {e.strerror or e}") from None
        session = Session.create(path, game)
        _ = i18n.translator(i18n.choose(asked, game.name))
        out.write(
            _("New match, journal {path}", path=path)
            + "\n"
            + _("(after a crash: flickboard play --resume {path})", path=path)
            + "\n"
        )
    with session.journal:
        return _play_loop(session, out, sys.stdin, i18n.choose(asked, session.game.name))


PROMPT_WORDS = sorted(w for ws in COMMANDS.values() for w in ws if len(w) > 2)  # offered as a line's first word


def completion_words(game: AnyGame) -> list[str]:
    """What Tab offers in a line of `game`: its notation's words (rules/*/notation.py, `games.help_for`), the
    match's player and side names (and Pichenotte's SIDE:fact), sorted."""
    return sorted(game.words())


def completions(words: Sequence[str], line: str, first_words: Sequence[str] = PROMPT_WORDS) -> list[str]:
    """The words that complete the last word of `line` (the text before the cursor), case-insensitively, each with
    a space after it; `first_words` are offered too when it is the line's first word. `shot zo` -> `zone `."""
    head, _, word = line.rpartition(" ")
    pool = [*words, *first_words] if not head.strip() else list(words)
    hits = [w for w in dict.fromkeys(pool) if w.lower().startswith(word.lower())]
    return [w + " " for w in sorted(hits, key=str.lower)]


def notation_completer(words: Sequence[str], first_words: Sequence[str] = PROMPT_WORDS) -> Any:
    """A prompt_toolkit completer over `completions` (ImportError without prompt_toolkit)."""
    from prompt_toolkit.completion import Completer, Completion

    class NotationCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Any]:
            line = document.text_before_cursor
            word = line.rpartition(" ")[2]
            for hit in completions(words, line, first_words):
                yield Completion(hit, start_position=-len(word), display=hit.rstrip())

    return NotationCompleter()


def prompt_session(words: Sequence[str], first_words: Sequence[str] = PROMPT_WORDS, **kw: Any) -> Any:
    """A prompt_toolkit PromptSession for a line of the notation: Tab completes `words` (ImportError without
    prompt_toolkit); its history is the lines typed in this run (Up, Ctrl-P). `kw`: `input`, `output` (tests).

    Tab works as in readline, and at once: one completion is put in; several put in what they have in common, or
    show the menu (the next Tab goes through it). prompt_toolkit's own Tab completes in a background task, after
    the keys read with it: keys that arrive together (pasted, or typed ahead on a slow link) would pass it by."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.buffer import CompletionState
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings

    completer = notation_completer(words, first_words)
    keys = KeyBindings()

    @keys.add("tab")
    def _tab(event: Any) -> None:
        buf = event.current_buffer
        if buf.complete_state:
            buf.complete_next()
            return
        found = list(completer.get_completions(buf.document, CompleteEvent(completion_requested=True)))
        word = buf.document.text_before_cursor.rpartition(" ")[2]
        common = os.path.commonprefix([c.text for c in found])  # noqa: RUF071 - words, not paths
        if len(found) == 1:
            buf.apply_completion(found[0])
        elif len(common) > len(word):
            buf.delete_before_cursor(len(word))
            buf.insert_text(common)
        elif found:  # the menu, nothing chosen yet; the next Tab goes through it
            buf.complete_state = CompletionState(original_document=buf.document, completions=found)
            buf.on_completions_changed.fire()

    return PromptSession(
        completer=completer,
        complete_while_typing=False,  # Tab completes; the line the scorer types stays as typed
        history=InMemoryHistory(),
        key_bindings=keys,
        **kw,
    )


class _Prompter:
    """Reads one input line. On a terminal it uses prompt_toolkit (line editing, history, Tab completes the
    notation and the names), or readline on a dumb terminal or when prompt_toolkit is missing; piped input is read
    plainly and echoed after the prompt, so a log reads well."""

    def __init__(self, session: Session, out: TextIO, inp: TextIO) -> None:
        self.out, self.inp = out, inp
        self.tty = _isatty(inp)
        self.readline = False
        self.toolkit: Any = None
        if self.tty and inp is sys.stdin and out is sys.stdout:
            words = completion_words(session.game)
            # A dumb terminal (TERM=dumb: an editor's shell, a plain pty) gets readline: prompt_toolkit's dumb mode
            # echoes only the last letter of a completed word, and shows its prompt before it reads the keys.
            if os.environ.get("TERM", "dumb") not in ("dumb", "unknown", ""):
                try:
                    self.toolkit = prompt_session(words)
                    return
                except ImportError:  # pragma: no cover - prompt_toolkit not installed: readline
                    pass
            try:
                import readline
            except ImportError:  # pragma: no cover - platforms without readline
                return

            def complete(text: str, state: int) -> str | None:
                hits = completions(words, readline.get_line_buffer()[: readline.get_endidx()])
                return hits[state] if state < len(hits) else None

            readline.set_completer(complete)
            readline.set_completer_delims(" \t")
            if "libedit" in (readline.__doc__ or ""):  # pragma: no cover - macOS
                readline.parse_and_bind("bind ^I rl_complete")
            else:
                readline.parse_and_bind("tab: complete")
            self.readline = True

    def read(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        if self.toolkit is not None:
            self.out.flush()
            try:
                line: str = self.toolkit.prompt("> ")
                return line
            except EOFError:
                self.out.write("\n")
                return None
        if self.readline:
            self.out.flush()
            try:
                return input("> ")
            except EOFError:
                self.out.write("\n")
                return None
        self.out.write("> ")
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            return None
        line = line.rstrip("\r\n")
        if not self.tty:
            self.out.write(line.rstrip() + "\n")
        return line


def _isatty(f: TextIO) -> bool:
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False


def _play_loop(session: Session, out: TextIO, inp: TextIO, lang: str = SOURCE) -> int:
    game = session.game
    _ = i18n.translator(lang)
    out.write(
        f"{game.title} · {game.options.name}: {_(game.options.summary)}\n"
        + _("Type 'help' for the notation, 'quit' to stop.")
        + "\n\n"
    )
    prompter = _Prompter(session, out, inp)
    doc = session.summary()
    out.write(render.status(doc, lang) + "\n")
    while True:
        out.write(render.prompt_line(doc, lang) + "\n")
        try:
            line = prompter.read()
        except KeyboardInterrupt:
            out.write("\n")
            break
        if line is None:
            break
        word = line.strip().lower()
        if word in COMMANDS["quit"]:
            break
        if word in COMMANDS["help"]:
            out.write(_help_text(game, lang) + "\n")
            continue
        if word in COMMANDS["score"]:
            out.write(render.scoreboard(doc, lang) + "\n")
            continue
        if word in COMMANDS["status"]:
            out.write(render.status(doc, lang) + "\n")
            continue
        if not word or word.startswith("#"):
            continue
        result = session.submit(line)
        doc = session.summary()
        if result.accepted:
            out.write(f"  ok [{result.n}] {render_games.notation_line(_(result.message), lang, game.name)}\n")
            for m in moments("", session.game, result):
                note = moment_text(m, lang) if m["type"] in PROMPT_MOMENTS else ""
                if note:
                    out.write(f"  {note}\n")
        else:
            refused = _("refused [{n}]: {why}", n=result.n, why=_(result.message))
            out.write(f"  {refused}{_(_hint(session, line)) if _hint(session, line) else ''}\n")
        out.write(render.status(doc, lang) + "\n")
    out.write(_("Journal saved: {path}", path=session.journal.path) + "\n")
    out.flush()
    return 0


def _hint(session: Session, line: str) -> str:
    """For a line that does not start with a word of the notation or a name: where to look."""
    first = line.split()[0].lower()
    game = session.game
    if first in game.keywords or ":" in first or first in {w.lower() for w in game.words()}:
        return ""
    return N_(" (type 'help' for the notation)")
