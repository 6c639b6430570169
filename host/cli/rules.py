"""`flickboard rules list` and `flickboard rules show NAME`: every game's rule sets, and what a rule set's options mean.
It reads the games' registry and nothing else, so that it answers at once."""

from __future__ import annotations

import argparse
from typing import TextIO

from flickboard import i18n
from flickboard.errors import UserError
from flickboard.rules import games


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    asked = getattr(args, "lang", None)
    if asked and not i18n.known(asked):
        raise UserError(
            f"--lang {asked}: there is no catalogue for it; the languages are {', '.join(i18n.languages())}"
        )
    try:
        kinds = [games.game_name(args.game)] if args.game else list(games.GAMES)
        if args.action == "list" or args.action is None:
            for kind in kinds:
                game = games.GAMES[kind]
                out.write(f"{game.title} (--game {kind}; from {game.seeds}; default rule set {game.default_rules}):\n")
                for name, summary in game.rule_sets():
                    out.write(f"  {name:<22} {i18n.say(summary, i18n.choose(asked))}\n")
                out.write("\n")
            out.write("flickboard rules show NAME  prints a rule set's options.\n")
            return 0
        if not args.name:
            raise UserError("which rule set? flickboard rules show NAME (see: flickboard rules list)")
        kind = kinds[0] if args.game else games.find_rules(args.name)
        name, summary, rows = games.describe(kind, args.name)
    except ValueError as e:
        raise UserError(str(e)) from None
    # said in the language asked for (--lang), else the game's own (Québec Pichenottes: French), else English
    lang = i18n.choose(getattr(args, "lang", None), kind)
    _ = i18n.translator(lang)
    out.write(f"{games.title(kind)} · {name}: {_(summary)}\n\n")
    width = max([32, *(len(_(k)) + 1 for k, _v in rows)])
    for k, v in rows:
        out.write(f"  {_(k):<{width}} {_(v)}\n")
    return 0
