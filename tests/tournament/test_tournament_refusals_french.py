"""Every refusal a tournament gives its organiser is a `Message` (rules/text.py) that the French catalogue says, so a
French organiser's page (`?lang=fr`, `flickboard web --lang fr`, a Québec tournament) never shows English after a
refused act (docs/translating.md). The model is tests/rules/test_refusals_french.py, for the engines.

Three parts: every `raise` of a refusal in host/tournament hands it a Message (read from the source, so a new English
f-string fails here before an organiser meets it), and every noun the act checks put into one is a Message too; every
sentence host/tournament marks is in the French catalogue; and a real tournament driven into its refusals (a
duplicate entrant, a seed taken, a Swiss rematch, a second bye, a stage not finished, the shoot-outs, a result in the
wrong order, an undo of an act that is not the last, ...), each checked as the organiser's page gets it."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from french import untranslated

from flickboard import i18n
from flickboard.core import journal
from flickboard.rules.text import message_of
from flickboard.tournament import ActError, Director, PairingError

ROOT = Path(__file__).resolve().parents[2]
TOURNAMENT = sorted((ROOT / "host" / "tournament").glob("*.py"))
# What the organiser meets from host/tournament: a refused act, a Swiss round that cannot be paired (the organiser's
# page and `flickboard tournament pair` pass it on), a journal that is not a tournament's. Not among them: HallError
# (the hall could not start: `flickboard web --tournament` and `flickboard tournament hall` print it when they start,
# for the operator) and matching.py's ValueError (a program error: the Swiss pairing never hands it a wrong edge).
REFUSALS = {"ActError", "PairingError", "JournalError"}
# The act checks' helpers (event.py): the noun they are given is said inside the refusal ("{what} must be ...").
HELPERS = {"_text", "_name", "_int", "_two"}

Make = Callable[..., Director]


def _called(node: ast.AST | None) -> str | None:
    """The name a call calls: `f(...)` and `x.f(...)` both give "f"; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _says_messages(tree: ast.Module) -> set[str]:
    """The functions of a module declared to return a Message (or None): mypy holds every return of theirs to it."""
    return {
        f.name
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and f.returns is not None
        and ast.unparse(f.returns) in ("Message", "Message | None")
    }


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_every_refusal_in_the_tournament_is_raised_as_a_message() -> None:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in TOURNAMENT}
    messages = set().union(*(_says_messages(t) for t in trees.values()))
    english = []
    for path, tree in trees.items():
        for fn in _functions(tree):
            # a name assigned from a function that returns a Message (`problem = self._entering(rec)`)
            made = {
                target.id
                for node in ast.walk(fn)
                if isinstance(node, ast.Assign) and _called(node.value) in messages
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                    continue
                if _called(node.exc) not in REFUSALS or not node.exc.args:
                    continue
                said = node.exc.args[0]
                # a Message made here, one passed on from the exception it replaces, or one a checker returned
                if _called(said) in ("Message", "message_of") or (isinstance(said, ast.Name) and said.id in made):
                    continue
                english.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(said)[:70]}")
    assert english == [], "refusals raised as plain English:\n" + "\n".join(english)


def test_the_nouns_the_act_checks_say_are_messages() -> None:
    """`_name(act.get("board"), Message("a board"))`: "un jeu : il faut un nom ...", never "a board : il faut ..."."""
    english = []
    for path in TOURNAMENT:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _called(node) not in HELPERS:
                continue
            assert isinstance(node, ast.Call)
            what = node.args[1] if len(node.args) > 1 else None
            if _called(what) == "Message" or (isinstance(what, ast.Name) and what.id == "what"):  # (_two to _int)
                continue
            english.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:70]}")
    assert english == [], "nouns said in English inside a refusal:\n" + "\n".join(english)


def templates() -> set[str]:
    """Every sentence host/tournament marks for the catalogues: Message("...") and N_("...")."""
    found: set[str] = set()
    for path in TOURNAMENT:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _called(node) in ("Message", "N_") and isinstance(node, ast.Call) and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


def test_every_sentence_of_the_tournament_is_in_the_french_catalogue() -> None:
    marked = templates()
    assert len(marked) > 100, len(marked)  # the sweep reads the sentences, not a few of them
    missing = sorted(t for t in marked if i18n.gettext("fr", t) is t)
    assert missing == [], "not in the French catalogue (make catalogues, then translate):\n" + "\n".join(missing)


# -- a real tournament driven into its refusals -------------------------------------------------------------------

Refused = Callable[[], Any]
Scenario = Callable[[Make, Path], Refused]
# what is refused: (the scenario: a set-up with the director factory and the test's folder, giving the refused step;
# a few words the French says, to show it is the catalogue's sentence)
SCENARIOS: dict[str, tuple[Scenario, str]] = {}


def refusal(what: str, says: str) -> Callable[[Scenario], Scenario]:
    def register(scenario: Scenario) -> Scenario:
        SCENARIOS[what] = (scenario, says)
        return scenario

    return register


def _swiss(make: Make) -> tuple[Director, list[list[str]], str]:
    """Five entrants, a Swiss stage of 3 rounds, its round 1 paired (two matches and a bye) and played; round 1's
    pairs and who had the bye."""
    d = make("Ana", "Ben", "Cat", "Dan", "Éloïse")
    d.start_stage("sw", "swiss", options={"rounds": 3})
    d.pair_round("sw")
    st = d.event.stages["sw"]
    for mid in st.rounds[0]:
        d.result(mid, d.event.matches[mid].sides[0], points=[200, 100])
    return d, [list(d.event.matches[m].sides) for m in st.rounds[0]], st.byes[0][1]


def _round_robin(make: Make, chain: list[str] | None = None, play: bool = True) -> Director:
    """Ana, Ben and Cat in a round robin, played in a circle (each beats one, 200-100) unless `play` is False."""
    d = make("Ana", "Ben", "Cat")
    d.start_stage("rr", "round-robin", match="games:1", tiebreaks=chain)
    beats = {frozenset(("Ana", "Ben")): "Ana", frozenset(("Ben", "Cat")): "Ben", frozenset(("Ana", "Cat")): "Cat"}
    for m in list(d.event.stages["rr"].matches.values()) if play else []:
        w = beats[frozenset(m.sides)]
        d.result(m.id, w, points=[200, 100] if w == m.sides[0] else [100, 200])
    return d


def _result(d: Director, **fields: Any) -> Refused:
    """A result act for the round robin's first match (its first side wins), with `fields` changed."""
    m = next(iter(d.event.stages["rr"].matches.values()))
    act = {"act": "result", "match": m.id, "sides": list(m.sides), "winner": m.sides[0], "source": "organiser"}
    return lambda: d.act({**act, **fields})


def _shootout_round(d: Director, stage: str, number: int, *who: str) -> Refused:
    act = {"act": "shootout-round", "stage": stage, "round": number, "entrants": list(who)}
    return lambda: d.act({**act, "pairs": [list(p) for p in itertools.combinations(who, 2)]})


@refusal("a tournament without a name", "le nom d'un tournoi")
def _nameless(make: Make, tmp: Path) -> Refused:
    return lambda: Director.create(str(tmp / "x.jsonl"), " ")


@refusal("a journal that is not a tournament's", "n'est pas un journal de tournoi")
def _not_a_tournament(make: Make, tmp: Path) -> Refused:
    path = tmp / "game.jsonl"
    journal.Journal.create(str(path), {"game": "pichenotte"}).close()
    return lambda: Director.open(str(path))


@refusal("an entrant twice", "il y a déjà un participant nommé Ana")
def _twice(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    return lambda: d.add_entrant("Ana")


@refusal("an entrant too like another", "ne diffèrent que par")
def _alike(make: Make, tmp: Path) -> Refused:
    d = make("Éloïse")
    return lambda: d.add_entrant("eloise")


@refusal("a seed taken", "la tête de série 1 est déjà prise")
def _seed_taken(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    return lambda: d.add_entrant("Ben", seed=1)


@refusal("a seed of 0", "une tête de série : il faut un nombre entier d'au moins 1")
def _seed_zero(make: Make, tmp: Path) -> Refused:
    return lambda: make().add_entrant("Ben", seed=0)


@refusal("a name with a slash", "le nom d'un participant : il faut un nom")
def _slash(make: Make, tmp: Path) -> Refused:
    return lambda: make().add_entrant("A/B")


@refusal("two spaces in a name", "une espace entre les mots")
def _spaces(make: Make, tmp: Path) -> Refused:
    return lambda: make().add_entrant("Ana  Costa")


@refusal("a doubles team of one player twice", "deux joueurs différents")
def _same_partner(make: Make, tmp: Path) -> Refused:
    return lambda: make().add_entrant("Les As", players=["Ana", "Ana"])


@refusal("a club's name too long", "un club : il faut un texte")
def _club(make: Make, tmp: Path) -> Refused:
    return lambda: make().add_entrant("Ana", club="x" * 201)


@refusal("an unknown entrant", "il n'y a pas de participant nommé Zed")
def _unknown(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    return lambda: d.withdraw("Zed")


@refusal("a withdrawal twice", "Ana est déjà retiré")
def _withdrawn(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    d.withdraw("Ana")
    return lambda: d.withdraw("Ana")


@refusal("a rename to the same name", "Ana porte déjà ce nom")
def _same_name(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    return lambda: d.rename("Ana", "Ana")


@refusal("a substitute in a singles entrant", "participant en simple")
def _singles(make: Make, tmp: Path) -> Refused:
    d = make("Ana")
    return lambda: d.substitute("Ana", "Ana", "Ben")


@refusal("a substitute for a player not in the team", "Zed n'est pas un joueur de Duo : Ana et Ben")
def _not_in_team(make: Make, tmp: Path) -> Refused:
    d = make()
    d.add_entrant("Duo", players=["Ana", "Ben"])
    return lambda: d.substitute("Duo", "Zed", "Cat")


@refusal("an unknown act", "acte inconnu 'dance'")
def _unknown_act(make: Make, tmp: Path) -> Refused:
    return lambda: make().act({"act": "dance"})


@refusal("an undo with nothing to undo", "il n'y a aucun acte à annuler")
def _nothing_to_undo(make: Make, tmp: Path) -> Refused:
    return lambda: make().undo()


@refusal("an undo of an act that is not the last", "le dernier acte encore en vigueur : l'entrée 2")
def _undo_not_last(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.act({"act": "undo", "ref": 1})


@refusal("a format unknown", "le format d'une phase est l'un de")
def _format(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "ladder")


@refusal("an option of another format", "round-robin ne prend pas d'option 'rounds'")
def _option(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "round-robin", options={"rounds": 2})


@refusal("a tie-break unknown", "les départages sont une liste")
def _tiebreak(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "round-robin", tiebreaks=["luck"])


@refusal("too few entrants for the pools", "2 poules demandent au moins 4 participants")
def _pools(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat")
    return lambda: d.start_stage("s", "pools", options={"pools": 2})


@refusal("a Swiss stage without its rounds", "les rondes d'une phase suisse : il faut un nombre entier")
def _no_rounds(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "swiss")


@refusal("a rule set unknown", "le jeu de la phase ne peut pas être joué : jeu de règles inconnu")
def _rules(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "round-robin", rules="bogus")


@refusal("a stage's entrants not the entrants", "tous les participants actifs (2), chacun une fois")
def _entrants(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    return lambda: d.start_stage("s", "round-robin", entrants=["Ana", "Zed"])


@refusal("a stage from a stage not finished", "la phase rr n'est pas finie")
def _not_finished(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, play=False)
    act = {"act": "stage", "name": "f", "format": "round-robin", "entrants": ["Ana", "Ben"]}
    return lambda: d.act({**act, "intake": {"from": "rr", "top": 2}})


@refusal("an intake without its number", 'une entrée de phase est {"from": STAGE, "top": N}')
def _intake(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make)
    return lambda: d.start_stage("f", "single-elimination", intake={"from": "rr"})


@refusal("a cut through a tie", "la place qualificative est à égalité entre Ana, Ben, Cat")
def _cut(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, ["h2h", "points", "shootout"])
    return lambda: d.start_stage("f", "single-elimination", intake={"from": "rr", "top": 2})


@refusal("a Swiss round paired twice", "la ronde 1 de la phase sw a encore des matchs à jouer")
def _paired_twice(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat", "Dan")
    d.start_stage("sw", "swiss", options={"rounds": 3})
    d.pair_round("sw")
    return lambda: d.pair_round("sw")


@refusal("a Swiss rematch", "une phase suisse n'a pas de revanche")
def _rematch(make: Make, tmp: Path) -> Refused:
    d, pairs, bye = _swiss(make)
    return lambda: d.act({"act": "pair", "stage": "sw", "round": 2, "pairs": pairs, "bye": bye})


@refusal("a second bye", "a déjà été exempt dans la phase sw")
def _second_bye(make: Make, tmp: Path) -> Refused:
    d, ((a, b), (c, e)), bye = _swiss(make)
    return lambda: d.act({"act": "pair", "stage": "sw", "round": 2, "pairs": [[a, c], [b, e]], "bye": bye})


@refusal("no pairing without a rematch", "aucun appariement n'évite une revanche")
def _no_pairing(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben")
    d.start_stage("sw", "swiss", options={"rounds": 2})
    d.pair_round("sw")
    mid = d.event.stages["sw"].rounds[0][0]
    d.result(mid, d.event.matches[mid].sides[0], points=[200, 100])
    return lambda: d.pair_round("sw")


@refusal("a Swiss round in a round robin", "il n'y a pas de phase suisse nommée rr")
def _not_swiss(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, play=False)
    return lambda: d.pair_round("rr")


@refusal("a round that leaves an entrant out", "la ronde 1 doit apparier une fois chaque participant actif")
def _left_out(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat", "Dan")
    d.start_stage("sw", "swiss", options={"rounds": 2})
    return lambda: d.act({"act": "pair", "stage": "sw", "round": 1, "pairs": [["Ana", "Ben"]], "bye": None})


@refusal("a result with its sides in the wrong order", "un résultat nomme les côtés du match dans son ordre")
def _wrong_order(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, play=False)
    m = next(iter(d.event.stages["rr"].matches.values()))
    return _result(d, sides=[m.sides[1], m.sides[0]])


@refusal("a result from nowhere", "la source d'un résultat est l'une de")
def _nowhere(make: Make, tmp: Path) -> Refused:
    return _result(_round_robin(make, play=False), source="fax")


@refusal("a board's result without its journal", "comme preuve")
def _no_evidence(make: Make, tmp: Path) -> Refused:
    return _result(_round_robin(make, play=False), source="board")


@refusal("points that are not two numbers", "points : il faut deux nombres entiers")
def _one_number(make: Make, tmp: Path) -> Refused:
    return _result(_round_robin(make, play=False), points=[200])


@refusal("twenties confirmed without the twenties", "des vingts confirmés demandent les vingts")
def _unconfirmed(make: Make, tmp: Path) -> Refused:
    return _result(_round_robin(make, play=False), twenties_confirmed=True)


@refusal("a result twice", "a déjà un résultat (joué)")
def _result_twice(make: Make, tmp: Path) -> Refused:
    return _result(_round_robin(make))


@refusal("a match not ready", "n'est pas prêt à jouer (en attente)")
def _not_ready(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat", "Dan")
    d.start_stage("ko", "single-elimination")
    return lambda: d.assign("ko/W2-1", "t1")


@refusal("a board's name with a slash", "un jeu : il faut un nom")
def _board(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat", "Dan")
    d.start_stage("ko", "single-elimination")
    return lambda: d.assign("ko/W1-1", "t/1")


@refusal("an abandon without its game", "abandon nomme la partie à laisser")
def _abandon(make: Make, tmp: Path) -> Refused:
    return lambda: make().abandon("t1", "")


@refusal("a shoot-out of one", "entre deux participants différents ou plus")
def _shootout_of_one(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make)
    return lambda: d.shootout("rr", ["Ana"], [3])


@refusal("a shoot-out with an outsider", "les tirs de barrage de la phase rr se jouent entre ses participants")
def _outsider(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make)
    return lambda: d.shootout("rr", ["Ana", "Zed"], [3, 2])


@refusal("a shoot-out without its twenties", "les vingts de chaque participant")
def _no_twenties(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make)
    return lambda: d.shootout("rr", ["Ana", "Ben"], [3])


@refusal("shoot-out matches with no shootout in the chain", "la chaîne de départage de la phase rr n'a pas de shootout")
def _no_shootout(make: Make, tmp: Path) -> Refused:
    return _shootout_round(_round_robin(make, ["h2h"], play=False), "rr", 1, "Ana", "Ben")


@refusal("shoot-out matches before the stage is played", "son classement n'est pas final")
def _too_soon(make: Make, tmp: Path) -> Refused:
    return _shootout_round(_round_robin(make, ["shootout"], play=False), "rr", 1, "Ana", "Ben", "Cat")


@refusal("shoot-out matches in a bracket", "la phase ko est un tableau")
def _in_a_bracket(make: Make, tmp: Path) -> Refused:
    d = make("Ana", "Ben", "Cat", "Dan")
    d.start_stage("ko", "single-elimination")
    return _shootout_round(d, "ko", 1, "Ana", "Ben")


@refusal("a shoot-out round among entrants not level", "encore à égalité dans la phase rr (maintenant : Ana, Ben, Cat)")
def _not_level(make: Make, tmp: Path) -> Refused:
    return _shootout_round(_round_robin(make, ["shootout"]), "rr", 1, "Ana", "Ben")


@refusal("a shoot-out round when nobody is level", "(maintenant : aucun)")
def _nobody_level(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, ["shootout"])
    d.shootout("rr", ["Ana", "Ben", "Cat"], [3, 2, 1])
    return _shootout_round(d, "rr", 1, "Ana", "Ben")


@refusal("a shoot-out round numbered wrong", "la prochaine ronde de tirs de barrage de la phase rr est la ronde 1")
def _numbered_wrong(make: Make, tmp: Path) -> Refused:
    return _shootout_round(_round_robin(make, ["shootout"]), "rr", 2, "Ana", "Ben", "Cat")


@refusal("a shoot-out round while one is being played", "(Ana, Ben, Cat) est encore en cours")
def _being_played(make: Make, tmp: Path) -> Refused:
    d = _round_robin(make, ["shootout"])
    d.shootout_matches("rr")
    return _shootout_round(d, "rr", 2, "Ana", "Ben", "Cat")


@pytest.mark.parametrize("what", list(SCENARIOS))
def test_a_refusal_comes_back_in_french(director: Make, tmp_path: Path, what: str) -> None:
    """The refusal as the organiser's page gets it (pages.py: `message_of`, then `i18n.said` for the page to say)."""
    scenario, says = SCENARIOS[what]
    refused = scenario(director, tmp_path)
    with pytest.raises((ActError, PairingError, journal.JournalError)) as caught:
        refused()
    reason = message_of(caught.value)
    assert untranslated(reason) == [], f"{what}: refused in English: {reason!r}"
    french = i18n.say(reason, "fr")
    assert says in french, f"{what}: {french!r}"
    assert french != str(reason), french


def test_the_scenarios_reach_many_different_refusals(director: Make, tmp_path: Path) -> None:
    """The scenarios above are worth something only if each reaches a refusal of its own."""
    reached: set[str] = set()
    for i, (scenario, _) in enumerate(SCENARIOS.values()):
        sub = tmp_path / str(i)
        sub.mkdir()

        def make(*names: str, sub: Path = sub) -> Director:
            return director(*names, path=str(sub / "event.jsonl"))

        with pytest.raises((ActError, PairingError, journal.JournalError)) as caught:
            scenario(make, sub)()
        found = i18n._message(message_of(caught.value))
        assert found is not None
        reached.add(found[0])
    assert len(reached) >= len(SCENARIOS) - 2, len(reached)
