"""`flickboard play` in the players' language: a Québec partie is said in French, in the sheet's words, from the
first line to the last (and in English with --lang en); a Pichenotte match stays English unless --lang fr, and is
said in French then (its notation's words stay English)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert "Partie 1 · 0/24 coups joués · match en 8 parties, aucune partie terminée" in out  # the format in words
    assert "  Ana  vingts  0  planche  0  fossé  0  main 12" in out
    assert "à Ana de jouer (1/24) · COUP LIBRE : doit s'arrêter dans la zone 10 ou en dedans (R-9) → shot zone" in out
    assert "refusé [1] : « zonez » n'est ni un mot de la notation, ni un côté, ni un joueur ; vouliez-vous dire" in out
    assert "à Ben de jouer (2/24) · TOUCHER OU ANNONCER : touchez une rondelle d'Ana ou annoncez un vingt" in out
    assert "  VINGT pour Ben\n" in out  # the moment
    assert "QUESTION : le coup libre d'Ana s'est-il arrêté dans la zone 10 ou en dedans" in out  # the engine's
    assert "Pichenotte · tournament-2019 · match en 8 parties · Ana contre Ben" in out  # score
    assert "games:8" not in out  # the notation of --match is not for the players to read
    assert "Partie 1 (casseur : Ana), coup 2/24" in out
    for english in ("to shoot", "TWENTY", "shots played", "twenties", "no game finished", "is not a word"):
        assert english not in out, english
    (tmp_path / "en").mkdir()
    out = play(tmp_path / "en", "--players", "Ana", "Ben", "--lang", "en", stdin=stdin)
    assert "  TWENTY for Ben\n" in out and "Ana to shoot (1/24) · FREE SHOT" in out
    assert "Game 1 · 0/24 shots played · match games:8, no game finished" in out  # English keeps the notation
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


def test_a_french_pichenotte_session_meets_no_english(tmp_path: Path) -> None:
    """--lang fr: the rule set's line, the engine's refusals, an undo's confirmation and a shot's result are French,
    with the names elided before a vowel ("d'Éloïse", "d'Ana"); what the scorer types stays as typed."""
    stdin = "shot zone\nshot in\nshot zone\nhit\nundo\nshot call\nmiss\nshot zone\nshot call in\n"
    out = play(tmp_path, "--players", "Ana", "Éloïse", "--lang", "fr", stdin=stdin)
    assert (
        "Pichenotte · tournament-2019: Règles de tournoi, version 9 (mai 2019) : 8 parties (4 en double), le plus de "
        "points, tirs de barrage en cas d'égalité." in out
    )
    assert "refusé [3] : répondez d'abord : le coup d'Éloïse a-t-il touché une rondelle d'Ana ? (hit / miss)" in out
    assert "ok [5] entrée 4 annulée : hit" in out
    assert "refusé [6] : répondez d'abord : le coup d'Éloïse" in out
    assert "→ vingt annoncé réussi" in out  # the shot's result after Éloïse's 'shot call in'
    for english in ("first answer", "undid entry", "Tournament rules", "declared twenty", "did Éloïse"):
        assert english not in out, english


def test_a_french_flicochet_game_meets_no_english(tmp_path: Path) -> None:
    stdin = "flick\nflick Ana\nflick at 5\nplace\njack off 3\nbogus\n"
    out = play(tmp_path, "--game", "flicochet", "--players", "Ana", "Éloïse", "--lang", "fr", stdin=stdin)
    assert "Flicochet · flicochet: le jeu de base : un cochonnet au centre, premier à 8 points" in out
    assert (
        "refusé [2] : c'est la pichenotte d'Éloïse (white), pas celle d'Ana : les côtés alternent et les coéquipiers "
        "jouent chacun leur tour (PLAYING 2, Team rules)" in out
    )
    assert "refusé [3] : règle de proximité : un disque se place à au moins 8 cm du cochonnet, pas à 5 cm" in out
    assert "refusé [4] : le cochonnet est déjà en place : « place » ne sert qu'à Flicochet Target" in out
    assert "refusé [6] : « bogus » n'est pas un mot de la notation : flick, off" in out
    for english in ("it is", "proximity rule", "already in place", "the base game", "is not a word"):
        assert english not in out, english


def test_a_game_that_cannot_be_set_up_is_refused_in_the_players_language(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(
        [*FLICKBOARD, "play", "--game", "flicochet", "--players", "Ana", "Ben", "--target", "0", "--lang", "fr"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "jouez en un nombre positif de points (de 1 à 999), pas 0" in p.stderr


def test_a_french_scorer_resumes_and_replays_in_french(tmp_path: Path) -> None:
    play(tmp_path, "--players", "Ana", "Éloïse", "--lang", "fr", stdin="shot zone\nshot in\nbogus\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    journal = str(tmp_path / "j.jsonl")

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        p = subprocess.run([*FLICKBOARD, *args], input=stdin, capture_output=True, text=True, timeout=60, env=env)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
        return p

    out = run("play", "--resume", journal, "--lang", "fr", stdin="quit\n").stdout
    assert "Reprise de " in out and ": 3 entrée(s) rejouée(s) (1 refusée(s))." in out
    assert "Dernière entrée qui compte : [2] shot in" in out
    said = run("replay", journal, "--lang", "fr").stderr
    assert "attention : j.jsonl entrée 3 : « bogus » refusé : « bogus » n'est ni un mot de la notation" in said
    assert "warning" not in said and "refused" not in said


def test_a_name_refused_in_french(tmp_path: Path) -> None:
    """rules/names.py's refusals are Messages: a name the notation cannot use, two names too alike, said in French."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cases = [
        (
            ["hit", "Ben"],
            "« hit » ne peut pas être un nom : « hit » est un mot de la notation ; ajoutez un deuxième nom",
        ),
        (["Ana:1", "Ben"], "« Ana:1 » ne peut pas être un nom : pas de ':' dans un nom (la notation s'en sert)"),
        (
            ["Zoé", "zoe"],
            "« Zoé » et « zoe » ne diffèrent que par les majuscules ou les accents : nommez-les autrement",
        ),
    ]
    for players, said in cases:
        p = subprocess.run(
            [*FLICKBOARD, "play", "--players", *players, "--lang", "fr", "--journal", str(tmp_path / "n.jsonl")],
            input="",
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env=env,
        )
        assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
        assert said in p.stderr, (players, p.stderr)
        for english in ("cannot be a name", "too alike", "differ only"):
            assert english not in p.stderr, p.stderr
    # A side named after its players whose handles cannot be told apart (the players keep their first names).
    from flickboard import i18n
    from flickboard.rules.base import NotationError
    from flickboard.rules.names import Names

    with pytest.raises(NotationError) as e:
        Names(["Ana", "Anab"], reserved=lambda w: False, after=["Ana B"])
    said = i18n.say(e.value.args[0], "fr")
    assert said == "« Ana B » et « Anab » se ressemblent trop pour qu'on les distingue dans la notation", said


def test_rules_show_in_french() -> None:
    """`flickboard rules show NAME --lang fr`: every option and its meaning in French, the match format in words; a
    Québec rule set in French by itself; --lang en as before."""
    import io

    from flickboard.cli.main import main

    out = io.StringIO()
    assert main(["rules", "show", "tournament-2019", "--lang", "fr"], out) == 0
    text = out.getvalue()
    assert "Règles de tournoi, version 9 (mai 2019)" in text and "d'après : les règles de tournoi, version 9" in text
    assert "  vingt annoncé raté " in text
    assert "8 parties, le plus de points au total gagne ; une égalité : tirs de barrage aux vingts" in text
    assert "12 chacun en simple, 6 chacun en double" in text
    for english in ("failed declared twenty", "games", "shoot-out", "pucks", "each in singles", "from:", "immediately"):
        assert english not in text, (english, text)
    out = io.StringIO()
    assert main(["rules", "show", "officiel"], out) == 0  # Québec: the sheet's own language
    assert "gagnée à 31 points ou plus ; une égalité joue une autre manche (règle 6)" in out.getvalue()
    out = io.StringIO()
    assert main(["rules", "show", "flicochet+double-jack", "--lang", "fr"], out) == 0
    assert "le premier cochonnet sorti : +" in out.getvalue() and "DOUBLE-JACK 4" in out.getvalue()
    out = io.StringIO()
    assert main(["rules", "show", "beginner", "--lang", "en"], out) == 0
    assert "first to 4 games won; a tied game: half a game each" in out.getvalue()


def test_a_torn_journal_and_exports_warnings_in_french(tmp_path: Path) -> None:
    """The "note:" of a journal whose last record was torn, and export's warnings, in the session's language."""
    play(tmp_path, "--players", "Ana", "Ben", "--lang", "fr", stdin="shot zone\nbogus\n")
    journal = tmp_path / "j.jsonl"
    with journal.open("ab") as f:
        f.write(b'{"n": 9, "line": "shot in", "src')  # the process stopped while writing it
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        p = subprocess.run([*FLICKBOARD, *args], input=stdin, capture_output=True, text=True, timeout=60, env=env)
        assert "Traceback" not in p.stderr, p.stderr
        return p

    said = run("export", str(journal), "--csv", "-", "--lang", "fr").stderr
    assert "attention : journal " in said and "le dernier enregistrement (" in said, said
    assert "attention : j.jsonl entrée 2 : « bogus » refusé" in said, said
    assert "warning" not in said and "incomplete" not in said
    out = run("play", "--resume", str(journal), "--lang", "fr", stdin="quit\n").stdout
    assert "note : journal " in out and "était incomplet — le programme s'est arrêté en l'écrivant" in out, out
    assert "note:" not in out and "was incomplete" not in out
