"""`flickboard play` in the players' language: a Québec partie is said in French, in the sheet's words, from the
first line to the last (and in English with --lang en); a Pichenotte match stays English unless --lang fr, and is
said in French then (its notation's words stay English)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]


def play(tmp_path: Path, *args: str, stdin: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    p = subprocess.run(
        [*FLICKBOARD, "play", "--journal", str(tmp_path / "j.jsonl"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    return p.stdout


# Ann breaks with a green: she plays green (règle 10); c5 and a green: good; two reds end the turn (17.1);
# Bob's shot pockets nothing; Ann moves a piece (15); a typo; the scoreboard.
QUEBEC = "coup verte\ncoup compteuse 5 verte\ncoup dame rouge\ncoup rien\nfaute\ncoup aucune\ncoup bleu\nscore\n"


def test_a_quebec_partie_is_played_in_french(tmp_path: Path) -> None:
    out = play(tmp_path, "--game", "quebec", "--players", "Ann", "Bob", stdin=QUEBEC)
    assert "Nouvelle partie, journal" in out
    assert "Tapez « help » pour la notation" in out
    assert "à Ann de jouer · qu'a empoché le coup ? → coup rouge verte" in out
    assert "Ann joue la verte (règle 10 : « La première dame entrée indique la couleur" in out
    assert "la compteuse 5 (Ann) est bonne" in out
    assert (
        "fin du tour (règle 17.1 : « s'il entre une dame d'une autre couleur que la sienne ») : au tour de Bob" in out
    )
    assert "fin du tour (rien d'empoché) : au tour d'Ann" in out  # elided before a vowel
    assert (
        "fin du tour (règle 15 : « Les joueurs qui jouent dans le trou du chien ne déplacent aucune pichenotte" in out
    )
    assert "refusé [7] : « bleu » n'est ni une pièce" in out
    assert "Pichenottes du Québec · officiel · partie en 31 · Ann contre Bob" in out
    assert "dames qui restent" in out and "Journal gardé" in out
    for english in ("to shoot", "turn over", "refused", "dames left", "Journal saved"):
        assert english not in out, english


def test_a_quebec_partie_in_english_when_asked(tmp_path: Path) -> None:
    out = play(tmp_path, "--game", "quebec", "--players", "Ann", "Bob", "--lang", "en", stdin=QUEBEC)
    assert "Ann to shoot · what did the shot pocket?" in out
    assert "Ann plays green (règle 10: the first dame pocketed gives the colour)" in out
    assert "turn over (règle 17.1: a dame of the other colour went in): Bob plays" in out
    assert "refused [7]: 'bleu' is not a piece" in out
    assert "tour" not in out.replace("Journal", "")


def test_pichenotte_stays_english_unless_french_is_picked(tmp_path: Path) -> None:
    out = play(tmp_path, "--rules", "beginner", "--players", "Ana", "Ben", stdin="shot hit\nbogus\n")
    assert "New match, journal" in out and "Journal saved" in out and "refused [2]" in out
    assert "Nouvelle" not in out and "refusé" not in out
    (tmp_path / "fr").mkdir()
    out = play(tmp_path / "fr", "--rules", "beginner", "--players", "Ana", "Ben", "--lang", "fr", stdin="bogus\n")
    assert "Nouvelle partie, journal" in out and "refusé [1]" in out


def test_a_pichenotte_match_in_french_when_picked(tmp_path: Path) -> None:
    """--lang fr: the match's lines, its moments and its prompts in French; the notation stays English (its words are
    the same in every language but Québec's)."""
    stdin = "zonez\nshot zone\nshot call in\nshot\nscore\n"
    out = play(tmp_path, "--players", "Ana", "Ben", "--lang", "fr", stdin=stdin)
    assert "Partie 1 · 0/24 coups joués · match games:8, aucune partie terminée" in out
    assert "  Ana  vingts  0  planche  0  fossé  0  main 12" in out
    assert "à Ana de jouer (1/24) · COUP LIBRE : doit s'arrêter dans la zone 10 ou en dedans (R-9) → shot zone" in out
    assert "refusé [1] : « zonez » n'est ni un mot de la notation, ni un côté, ni un joueur ; vouliez-vous dire" in out
    assert "à Ben de jouer (2/24) · TOUCHER OU ANNONCER : touchez une rondelle d'Ana ou annoncez un vingt" in out
    assert "  VINGT pour Ben\n" in out  # the moment
    assert "QUESTION : le coup libre d'Ana s'est-il arrêté dans la zone 10 ou en dedans" in out  # the engine's
    assert "Pichenotte · tournament-2019 · match games:8 · Ana contre Ben" in out  # score
    assert "Partie 1 (casseur : Ana), coup 2/24" in out
    for english in ("to shoot", "TWENTY", "shots played", "twenties", "no game finished", "is not a word"):
        assert english not in out, english
    (tmp_path / "en").mkdir()
    out = play(tmp_path / "en", "--players", "Ana", "Ben", "--lang", "en", stdin=stdin)
    assert "  TWENTY for Ben\n" in out and "Ana to shoot (1/24) · FREE SHOT" in out
    assert "'zonez' is not a word of the notation, a side or a player; did you mean" in out
    assert "vingt" not in out and "Partie" not in out


def test_an_unknown_language_is_said_plainly(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(
        [*FLICKBOARD, "play", "--game", "quebec", "--players", "Ann", "Bob", "--lang", "xx"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "--lang xx: there is no catalogue for it; the languages are en, fr" in p.stderr + p.stdout


def test_replay_says_a_quebec_partie_in_french(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def replay(*args: str) -> str:
        p = subprocess.run([*FLICKBOARD, "replay", *args], capture_output=True, text=True, timeout=60, env=env)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
        return p.stdout

    said = replay("--sample", "quebec")
    assert "Pichenottes du Québec · officiel · partie en 15 · Ann contre Bob" in said
    assert "Partie terminée : Bob gagne 22-14." in said
    assert "Game over: Bob wins 22-14." in replay("--sample", "quebec", "--lang", "en")
    assert "Pichenotte · tournament-2019" in replay("--sample")
