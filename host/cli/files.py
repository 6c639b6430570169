"""Files for the command line: transcripts and journals read and folded (a journal is told by its first byte), the
bundled samples, and the `rules`, `replay` and `export` commands."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from importlib import resources
from typing import TextIO

from flickboard import i18n
from flickboard.core import journal, render
from flickboard.core.session import Fold, fold_entries, fold_records, game_of
from flickboard.errors import UserError
from flickboard.rules import games
from flickboard.rules.base import Source
from flickboard.rules.games import AnyGame
from flickboard.rules.text import Message
from flickboard.rules.transcript import TranscriptError, format_header, parse_transcript

# ---------------------------------------------------------------- loading games


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UserError(f"{path} is a directory, not a transcript or a journal") from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is neither a transcript nor a journal (it is not UTF-8 text)") from None
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror or e}") from None


SAMPLES = {
    "pichenotte": "club-night.pich",
    "pichenottes-quebec": "quebec-warmup.pich",
    "flicochet": "flicochet-quick.pich",
}


def sample_path(game: str = "pichenotte") -> str:
    """A bundled example transcript of a game (host/samples/)."""
    return str(resources.files("flickboard").joinpath("samples", SAMPLES[games.game_name(game)]))


def load(path: str) -> tuple[AnyGame, Fold, dict[str, list[str]], list[str]]:
    """A transcript or a journal, folded. Returns the game, the fold, the header and warnings."""
    warnings: list[str] = []
    from_journal = is_journal(path)
    if from_journal:
        snap = journal.read(path)
        torn = snap.torn_message()
        if torn:
            warnings.append(torn)
        try:
            game = game_of(snap.header, path)
        except ValueError as e:
            raise UserError(str(e)) from None
        header = snap.header["header"]  # as stored, extra tags (Event, Date...) included
        records = snap.records
        where = {r["n"]: Message("entry {n}", n=r["n"]) for r in records}
    else:
        try:
            t = parse_transcript(_read_text(path), os.path.basename(path))
        except TranscriptError as e:
            raise UserError(str(e)) from None
        header = t.header
        game = _game_from_header(header, path)
        manual: Source = "manual"  # a line's own '@sensor' mark still counts
        entries = [(i, text, manual) for i, (_, text) in enumerate(t.lines, 1)]
        where = {i: Message("line {n}", n=lineno) for i, (lineno, _) in enumerate(t.lines, 1)}
    fold = fold_records(game, records) if from_journal else fold_entries(game, entries)
    for n, text, reason in fold.rejected:
        warnings.append(
            Message(
                "{file} {where}: refused '{text}': {reason}",
                file=os.path.basename(path),
                where=where[n],
                text=text,
                reason=reason,
            )
        )
    return game, fold, header, warnings


def _game_from_header(header: dict[str, list[str]], path: str) -> AnyGame:
    try:
        return games.from_header(header)
    except ValueError as e:
        raise UserError(f"{path}: {e}") from None


def is_journal(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(1) == b"{"
    except OSError:
        return False


# ---------------------------------------------------------------- commands


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    try:
        path = sample_path(args.sample) if args.sample else args.file
    except ValueError as e:
        raise UserError(str(e)) from None
    if not path:
        raise UserError("give a transcript or journal to replay (or --sample)")
    game, fold, _, warnings = load(path)
    lang = i18n.choose(getattr(args, "lang", None), game.name)
    _ = i18n.translator(lang)
    for w in warnings:
        print(_("warning: {what}", what=w), file=sys.stderr)
    doc = game.summary(fold.state, len(fold.rejected))
    if args.json:
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        if args.sample:
            out.write(_("Replaying the bundled sample game ({name}):", name=os.path.basename(path)) + "\n\n")
        out.write(render.scoreboard(doc, lang) + "\n")
        if not doc["over"]:
            out.write(_("next: {what}", what=render.prompt_line(doc, lang)) + "\n")
    return 1 if args.strict and fold.rejected else 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    if not (args.csv or args.json or args.transcript):
        raise UserError("say what to write: --csv FILE, --json FILE and/or --transcript FILE ('-' for stdout)")
    game, fold, header, warnings = load(args.file)
    _ = i18n.translator(i18n.choose(getattr(args, "lang", None), game.name))  # the warnings, as replay says them
    for w in warnings:
        print(_("warning: {what}", what=w), file=sys.stderr)
    fields, rows = game.log(fold.state)
    if args.csv:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)
        _write(args.csv, buf.getvalue(), out)
    if args.json:
        doc = {"summary": game.summary(fold.state, len(fold.rejected)), game.log_name: rows}
        _write(args.json, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", out)
    if args.transcript:
        lines = [format_header(header), ""]
        for a in fold.stack:
            lines.append(game.format(a.line) + (" @sensor" if a.source == "sensor" else ""))
        _write(args.transcript, "\n".join(lines) + "\n", out)
    return 0


def _write(target: str, text: str, out: TextIO) -> None:
    if target == "-":
        out.write(text)
        return
    try:
        with open(target, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"cannot write {target}: {e}") from None
    print(f"wrote {target}", file=sys.stderr)
