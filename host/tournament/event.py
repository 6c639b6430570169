"""The tournament as a pure fold of the director's acts: `fold(records)` gives the `Event` (entrants, stages,
matches, results), and `Event.check(act)` says whether one more act may be appended (ActError says why not).

Every act is a JSON object with an "act" field (the module docstring of host/tournament lists them with their
fields). The fold never reads a clock, a file or a random number: the seeding and a Swiss round's pairs are
computed before they are appended (host/tournament/director.py) and the act carries them, so a journal gives the
same event under any later version, and the proposals themselves are pure functions of the event.

What follows from the acts without an act of its own:
- a bracket's later matches fill in as results come (`brackets.py`); a match with one empty slot is a bye;
- an entrant withdrawn or disqualified loses every match of theirs still unplayed by walkover ("walkover" state,
  with no act), and is not paired again; results already played stand (a `correct` changes them);
- a stage is complete when every match of it is decided (a Swiss stage: after its last round).
Undo takes back the last act still in effect (a stack, like a game's undo); the event is then folded again
without it. A correction replaces a match's result and keeps the one it replaced in the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

from flickboard.rules import games
from flickboard.rules.names import clean, name_problem
from flickboard.rules.names import fold as fold_name
from flickboard.rules.text import N_, Message, message_of
from flickboard.tournament import brackets, roundrobin
from flickboard.tournament.results import match_format, result_problem
from flickboard.tournament.standings import DEFAULT_CHAIN, SWISS_CHAIN, TIEBREAKS, Played, Shootout, Table, table

FORMATS = ("round-robin", "swiss", "single-elimination", "double-elimination", "pools")
BRACKETS = ("single-elimination", "double-elimination")
SOURCES = ("board", "phone", "organiser")
# A match's states (Match.state), said in a refusal as words of the catalogues.
STATES = (N_("waiting"), N_("ready"), N_("done"), N_("walkover"), N_("bye"), N_("void"))
ACTS = (
    "entrant",
    "withdraw",
    "disqualify",
    "rename",
    "substitute",
    "stage",
    "pair",
    "assign",
    "unassign",
    "abandon",
    "result",
    "walkover",
    "correct",
    "shootout",
    "shootout-round",
    "undo",
)
SHOOTOUT_MATCH = "shootout"  # the Pichenotte match format of a tie-break shoot-out match (R-1-B)
PENDING = "\x00pending"  # a bracket slot whose entrant is not known yet
EMPTY = "\x00empty"  # a bracket slot no entrant will ever fill (a bye)
MAX_NAME = 60
# A refusal said by more than one check.
SPACES = N_("'{name}': one space between the words of a name, none around it")
ALIKE = N_("there is already an entrant named {name} (names that differ only in case or accents)")


class ActError(ValueError):
    """An act that cannot be taken now; str() says why in one sentence."""


@dataclass
class Entrant:
    name: str
    players: tuple[str, ...]
    seed: int | None
    club: str | None
    status: str = "active"  # "withdrawn", "disqualified"
    reason: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass
class Outcome:
    winner: str
    walkover: bool
    entry: int  # the act that gave it (the latest correction)
    games: tuple[int, int] | None = None
    points: tuple[int, int] | None = None
    twenties: tuple[int, int] | None = None
    confirmed: bool = False  # the twenties are confirmed (a board's game journal, or the organiser says so)
    shootout: tuple[int, int] | None = None
    source: str = "organiser"
    evidence: dict[str, Any] | None = None
    reason: str | None = None
    replaced: tuple[int, ...] = ()  # earlier acts this one corrected


@dataclass
class Match:
    id: str  # "<stage>/<label>"
    stage: str
    label: str  # "R2-3" (round 2, pair 3), "P1/R2-3" (pool 1), "W1-2", "L2-1", "GF1", "GF2"
    round: int
    pool: int | None = None
    sides: list[str] = field(default_factory=lambda: [PENDING, PENDING])
    sources: tuple[brackets.Source, brackets.Source] | None = None
    board: str | None = None
    outcome: Outcome | None = None
    state: str = "waiting"  # "ready", "done", "walkover" (an entrant is out), "bye", "void"
    winner: str = PENDING
    loser: str = PENDING
    format: str | None = None  # the match format, when not the stage's: "shootout" for a tie-break shoot-out

    @property
    def shootout(self) -> bool:
        """A tie-break shoot-out match (a `shootout-round`), outside the stage's own standings."""
        return self.format == SHOOTOUT_MATCH

    @property
    def decided(self) -> bool:
        return self.state in ("done", "walkover", "bye", "void")

    @property
    def known(self) -> bool:
        return all(s not in (PENDING, EMPTY) for s in self.sides)


@dataclass
class ShootoutRound:
    """A twenties shoot-out among tied entrants played as matches: every pair of them once (two: one match)."""

    number: int  # 1, 2, ... in the stage
    entrants: tuple[str, ...]  # the tied group, in its standings order
    matches: list[str]  # match ids "<stage>/SO<number>-<k>"
    entry: int


@dataclass
class Stage:
    name: str
    format: str
    options: dict[str, Any]
    game: str
    rules: str
    match: str | None
    tiebreaks: tuple[str, ...]
    entrants: list[str]  # in seeding order
    intake: dict[str, Any] | None
    entry: int
    matches: dict[str, Match] = field(default_factory=dict)  # by id, in playing order
    rounds: list[list[str]] = field(default_factory=list)  # match ids per round (round robin, pools, Swiss)
    byes: list[tuple[int, str]] = field(default_factory=list)  # (round, entrant)
    pools: list[list[str]] = field(default_factory=list)
    shootouts: list[Shootout] = field(default_factory=list)  # entered as counts (`shootout` acts)
    shootout_rounds: list[ShootoutRound] = field(default_factory=list)  # played as matches (`shootout-round` acts)
    closed_by: str | None = None  # the later stage that took its qualifiers

    @property
    def complete(self) -> bool:
        if self.format == "swiss" and len(self.rounds) < self.options["rounds"]:
            return False
        return all(m.decided for m in self.matches.values())


def _text(v: Any, what: str, empty: bool = False) -> str:
    if type(v) is not str or (not v.strip() and not empty) or len(v) > 200 or "\x00" in v:
        raise ActError(Message("{what} must be a text of at most 200 characters", what=what))
    return v


def _name(v: Any, what: str) -> str:
    if type(v) is not str or not v.strip() or v != v.strip() or len(v) > MAX_NAME or "/" in v or "\x00" in v:
        said = N_("{what} must be a name of 1 to {n} characters, without '/' or outer spaces")
        raise ActError(Message(said, what=what, n=MAX_NAME))
    return v


def _int(v: Any, what: str, low: int | None = 0) -> int:
    if type(v) is not int or (low is not None and v < low):
        if low is None:
            raise ActError(Message("{what} must be a whole number", what=what))
        raise ActError(Message("{what} must be a whole number of at least {low}", what=what, low=low))
    return v


def _two(v: Any, what: str, low: int | None = 0) -> tuple[int, int] | None:
    if v is None:
        return None
    if type(v) is not list or len(v) != 2:
        raise ActError(Message("{what} must be two whole numbers, one per side, or null", what=what))
    return (_int(v[0], what, low), _int(v[1], what, low))


class Event:
    """The state of a tournament after its acts. Read it; change it only through `apply` (the fold)."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.rejected: list[tuple[int, str]] = []  # journal entries the fold could not take, with why
        self.count = 0  # the last entry number folded
        self._clear()

    def _clear(self) -> None:
        self.entrants: dict[str, Entrant] = {}
        self.stages: dict[str, Stage] = {}
        self.matches: dict[str, Match] = {}
        self.applied: list[tuple[int, dict[str, Any]]] = []  # the acts in effect, in order
        self.undone: list[int] = []  # acts taken back (and the undo acts that took them)

    # -- the fold ------------------------------------------------------------------------------------------

    def check(self, act: Mapping[str, Any]) -> None:
        """Raise ActError if `act` cannot be taken now; change nothing. An act being taken now is also held to what
        people's names and results may say (`_entering`); a journal folds as it was written."""
        rec = dict(act)
        self._handler(rec)
        problem = self._entering(rec)
        if problem:
            raise ActError(problem)

    def _entering(self, act: dict[str, Any]) -> Message | None:
        """Why an act that the fold would take is still not to be taken now: a name that cannot be a name in every
        game (rules/names.py), or one too like another entrant's; a result whose numbers contradict its winner or
        its match format (results.py)."""
        kind = act.get("act")
        if kind == "entrant":
            for n in (act["name"], *(act.get("players") or ())):
                problem = name_problem(n)
                if problem:
                    return problem
                if clean(n) != n:
                    return Message(SPACES, name=n)
            key = fold_name(act["name"])
            same = next((e for e in self.entrants if fold_name(e) == key), None)
            if same is not None:
                return Message(ALIKE, name=same)
            players = act.get("players") or [act["name"]]
            if len({fold_name(p) for p in players}) != len(players):
                return Message("a doubles team needs two different players")
            return None
        if kind in ("rename", "substitute"):
            new = act["name"] if kind == "rename" else act["in"]
            problem = name_problem(new)
            if problem:
                return problem
            if clean(new) != new:
                return Message(SPACES, name=new)
            if kind == "rename":
                same = next((e for e in self.entrants if fold_name(e) == fold_name(new) and e != act["entrant"]), None)
                if same is not None:
                    return Message(ALIKE, name=same)
            else:
                partner = [p for p in self.entrants[act["entrant"]].players if p != act["out"]]
                if any(fold_name(p) == fold_name(new) for p in partner):
                    return Message("{player} already plays in {entrant}", player=new, entrant=act["entrant"])
            return None
        if kind in ("result", "correct") and act.get("walkover") is not True:
            m = self.matches[act["match"]]
            st = self.stages[m.stage]
            team = len(self.entrants[m.sides[0]].players)
            try:
                fmt = match_format(st.game, st.rules, m.format or st.match, 2 * team)
            except ValueError as e:
                return Message("the match format of {match} cannot be read: {why}", match=m.id, why=message_of(e))
            return result_problem(act, (m.sides[0], m.sides[1]), fmt, act.get("source") == "board")
        return None

    def apply(self, record: Mapping[str, Any]) -> None:
        """Take one journal record (an act with its "n"): the state changes, or ActError and it does not."""
        rec = dict(record)
        n = rec.pop("n", self.count + 1)
        self.count = max(self.count, n)
        if rec.get("act") == "undo":
            ref = rec.get("ref")
            if not self.applied or ref != self.applied[-1][0]:
                last = self.applied[-1][0] if self.applied else None
                said = N_("undo takes back the last act still in effect (entry {last}), not entry {ref}")
                raise ActError(Message(said, last=last, ref=ref))
            keep = self.applied[:-1]
            undone = [*self.undone, ref, n]
            self._clear()
            for m, r in keep:
                self._handler(r, m)()
                self.applied.append((m, r))
            self.undone = undone
            return
        self._handler(rec, n)()
        self.applied.append((n, rec))

    def _handler(self, act: dict[str, Any], n: int = 0) -> Callable[[], None]:
        kind = act.get("act")
        if kind == "undo":
            if not self.applied:
                raise ActError(Message("there is no act to undo"))
            if act.get("ref") != self.applied[-1][0]:
                said = N_("undo takes back the last act still in effect: entry {entry}")
                raise ActError(Message(said, entry=self.applied[-1][0]))
            return lambda: None
        if kind not in ACTS:
            raise ActError(Message("unknown act {act}: one of {acts}", act=repr(str(kind)[:20]), acts=", ".join(ACTS)))
        handler: Callable[[dict[str, Any], int], Callable[[], None]] = getattr(self, "_" + str(kind).replace("-", "_"))
        return handler(act, n)

    # -- entrants ------------------------------------------------------------------------------------------

    def _entrant(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        name = _name(act.get("name"), Message("an entrant's name"))
        if name in self.entrants:
            raise ActError(Message("there is already an entrant named {name}", name=name))
        players = act.get("players") or [name]
        if type(players) is not list or len(players) not in (1, 2):
            raise ActError(Message("an entrant is one player (singles) or a team of two (doubles)"))
        players = [_name(p, Message("a player's name")) for p in players]
        if len(set(players)) != len(players):
            raise ActError(Message("a doubles team needs two different players"))
        seed = act.get("seed")
        if seed is not None:
            seed = _int(seed, Message("a seed"), 1)
            if any(e.seed == seed for e in self.entrants.values()):
                raise ActError(Message("seed {seed} is already taken", seed=seed))
        club = act.get("club")
        if club is not None:
            club = _text(club, Message("a club"))
        entrant = Entrant(name, tuple(players), seed, club)

        def do() -> None:
            self.entrants[name] = entrant

        return do

    def _out(self, act: dict[str, Any], status: str) -> Callable[[], None]:
        name = act.get("entrant")
        e = self.entrants.get(name) if type(name) is str else None
        if e is None:
            raise ActError(Message("there is no entrant named {name}", name=str(name)[:MAX_NAME]))
        if not e.active:
            raise ActError(
                Message("{name} is already {status}", name=e.name, status=Message(e.status))
            )  # (its words are in the catalogues)
        reason = _text(act.get("reason", ""), Message("a reason"), empty=True)

        def do() -> None:
            e.status, e.reason = status, reason or None
            for st in self.stages.values():
                self._refresh(st)

        return do

    def _rename(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        """An entrant's name changed (a typo at registration, a team's name): everywhere it stands, from now on. A
        singles entrant is its one player, renamed with it."""
        e = self._entrant_of(act.get("entrant"))
        new = _name(act.get("name"), Message("the new name"))
        if new == e.name:
            raise ActError(Message("{name} is already named so", name=e.name))
        if new in self.entrants:
            raise ActError(Message("there is already an entrant named {name}", name=new))
        old = e.name

        def do() -> None:
            self.entrants = {(new if k == old else k): v for k, v in self.entrants.items()}
            e.name = new
            if e.players == (old,):
                e.players = (new,)
            self._replace_name(old, new)

        return do

    def _substitute(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        """A doubles team's player replaced by another (the team keeps its name, its place and its results)."""
        e = self._entrant_of(act.get("entrant"))
        if len(e.players) != 2:
            raise ActError(Message("{name} is a singles entrant: rename it instead", name=e.name))
        out = act.get("out")
        if out not in e.players:
            said = N_("{player} is not a player of {entrant}: {a} and {b}")
            raise ActError(Message(said, player=str(out)[:MAX_NAME], entrant=e.name, a=e.players[0], b=e.players[1]))
        new = _name(act.get("in"), Message("the new player"))
        if new in e.players:
            raise ActError(Message("{player} already plays in {entrant}", player=new, entrant=e.name))

        def do() -> None:
            e.players = tuple(new if p == out else p for p in e.players)

        return do

    def _entrant_of(self, name: Any) -> Entrant:
        e = self.entrants.get(name) if type(name) is str else None
        if e is None:
            raise ActError(Message("there is no entrant named {name}", name=str(name)[:MAX_NAME]))
        return e

    def _replace_name(self, old: str, new: str) -> None:
        """An entrant's name, `old`, written `new` wherever the event holds it (its stages, matches, results)."""

        def swap(v: str) -> str:
            return new if v == old else v

        for st in self.stages.values():
            st.entrants = [swap(x) for x in st.entrants]
            st.pools = [[swap(x) for x in pool] for pool in st.pools]
            st.byes = [(r, swap(x)) for r, x in st.byes]
            st.shootouts = [replace(s, entrants=tuple(swap(x) for x in s.entrants)) for s in st.shootouts]
            for so in st.shootout_rounds:
                so.entrants = tuple(swap(x) for x in so.entrants)
        for m in self.matches.values():
            m.sides = [swap(x) for x in m.sides]
            m.winner, m.loser = swap(m.winner), swap(m.loser)
            if m.outcome is not None:
                m.outcome.winner = swap(m.outcome.winner)

    def _withdraw(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        return self._out(act, "withdrawn")

    def _disqualify(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        return self._out(act, "disqualified")

    # -- stages --------------------------------------------------------------------------------------------

    def _stage(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        name = _name(act.get("name"), Message("a stage's name"))
        if name in self.stages:
            raise ActError(Message("there is already a stage named {stage}", stage=name))
        fmt = act.get("format")
        if fmt not in FORMATS:
            raise ActError(Message("a stage's format is one of {formats}", formats=", ".join(FORMATS)))
        options = act.get("options") or {}
        if type(options) is not dict:
            raise ActError(Message("a stage's options must be an object"))
        options = self._options(str(fmt), options)
        chain = act.get("tiebreaks")
        if chain is None:  # the usual chain of the format; an empty list is no tie-break at all
            chain = list(SWISS_CHAIN if fmt == "swiss" else DEFAULT_CHAIN)
        if type(chain) is not list or any(k not in TIEBREAKS for k in chain) or len(set(chain)) != len(chain):
            raise ActError(Message("the tie-breaks are a list of different ones of {keys}", keys=", ".join(TIEBREAKS)))
        entrants = act.get("entrants")
        if type(entrants) is not list or any(type(e) is not str for e in entrants):
            raise ActError(Message("a stage lists its entrants in seeding order"))
        intake = act.get("intake")
        expected = self.intake(intake)
        if sorted(entrants) != sorted(expected) or len(set(entrants)) != len(entrants):
            if intake is None:
                raise ActError(
                    Message("a stage's entrants must be every active entrant ({n}), each once", n=len(expected))
                )
            said = N_("a stage's entrants must be the qualifiers of stage {stage} ({n}), each once")
            raise ActError(Message(said, stage=intake["from"], n=len(expected)))
        if len(entrants) < 2:
            raise ActError(Message("a stage needs at least 2 entrants"))
        if fmt == "pools" and len(entrants) < 2 * options["pools"]:
            raise ActError(
                Message("{pools} pools need at least {n} entrants", pools=options["pools"], n=2 * options["pools"])
            )
        game, rules, match = self._game(act, [self.entrants[e] for e in entrants])
        order = list(entrants)
        stage = Stage(name, str(fmt), options, game, rules, match, tuple(chain), order, dict(intake or {}) or None, n)

        def do() -> None:
            self.stages[name] = stage
            if intake:
                self.stages[intake["from"]].closed_by = name
            self._build(stage)
            self._refresh(stage)

        return do

    @staticmethod
    def _options(fmt: str, options: dict[str, Any]) -> dict[str, Any]:
        allowed = {"swiss": {"rounds"}, "double-elimination": {"reset"}, "pools": {"pools"}}.get(fmt, set())
        extra = set(options) - allowed
        if extra:
            raise ActError(Message("{format} takes no option {option}", format=fmt, option=repr(sorted(extra)[0])))
        if fmt == "swiss":
            return {"rounds": _int(options.get("rounds"), Message("a Swiss stage's rounds"), 1)}
        if fmt == "double-elimination":
            reset = options.get("reset", True)
            if type(reset) is not bool:
                raise ActError(
                    Message(
                        "reset (a second grand final if the losers bracket's champion wins the first) is true or false"
                    )
                )
            return {"reset": reset}
        if fmt == "pools":
            return {"pools": _int(options.get("pools"), Message("the number of pools"), 2)}
        return {}

    @staticmethod
    def _game(act: dict[str, Any], entrants: list[Entrant]) -> tuple[str, str, str | None]:
        """The stage's game, rule set and match format, checked by setting up one match of it."""
        try:
            if act.get("game") is not None and type(act.get("game")) is not str:
                raise ActError(Message("a stage's game is a text (pichenotte, quebec, flicochet)"))
            game = games.game_name(act.get("game"))
            cls = games.get(game)
            rules = act.get("rules") or cls.default_rules
            match = act.get("match")
            if type(rules) is not str or (match is not None and type(match) is not str):
                raise ActError(Message("a stage's rules and match format are texts"))
            size = {len(e.players) for e in entrants}
            if len(size) != 1:
                raise ActError(Message("a stage's entrants must be all singles or all doubles teams"))
            players = [f"P{i + 1}" for i in range(2 * size.pop())]
            if "match" in cls.setup_options:
                games.create(game, players, rules=rules, match=match)
            else:
                games.create(game, players, rules=rules, target=match)
        except (games.GameError, ValueError) as e:
            if isinstance(e, ActError):
                raise
            raise ActError(Message("the stage's game cannot be played: {why}", why=message_of(e))) from None
        return game, rules, match

    def intake(self, intake: Any) -> list[str]:
        """Who may enter a stage: every active entrant (`intake` None), or {"from": stage, "top": N}: the first N
        active entrants of a finished round robin or Swiss stage, or the first N of each pool (all the pool winners,
        then the runners-up, ..., each place ranked by wins, point difference, points, then pool order)."""
        if intake is None:
            return [e.name for e in self.entrants.values() if e.active]
        if type(intake) is not dict or set(intake) != {"from", "top"}:
            raise ActError(Message('an intake is {"from": STAGE, "top": N}'))  # no values: the braces are said as is
        src = self.stages.get(intake["from"]) if type(intake["from"]) is str else None
        if src is None:
            raise ActError(Message("there is no stage named {stage}", stage=str(intake["from"])[:MAX_NAME]))
        top = _int(intake["top"], Message("the number of qualifiers"), 1)
        if src.closed_by is not None:
            said = N_("stage {stage} already sent its qualifiers to stage {next}")
            raise ActError(Message(said, stage=src.name, next=src.closed_by))
        if not src.complete:
            raise ActError(Message("stage {stage} is not finished", stage=src.name))
        if src.format in BRACKETS:
            raise ActError(Message("a stage after an elimination bracket is not supported; start it from the entrants"))
        groups = [self.table(src, p) for p in range(len(src.pools))] if src.format == "pools" else [self.table(src)]
        places: list[list[tuple[Any, ...]]] = []
        for gi, t in enumerate(groups):
            active = [r for r in t.rows if self.entrants[r.entrant].active]
            if len(active) < top:
                said = N_("stage {stage} has only {n} active entrants to qualify")
                raise ActError(Message(said, stage=src.name, n=len(active)))
            cut = {r.entrant for r in active[:top]}
            for tied in t.unresolved:
                inside = [e for e in tied if e in cut]
                outside = [e for e in tied if e not in cut and self.entrants[e].active]
                if inside and outside:
                    said = N_(
                        "the qualifying place is tied between {tied}: play a twenties shoot-out among them (R-1-B: "
                        "`flickboard tournament shootout FILE STAGE` makes its matches), or put one in the tie-break "
                        "chain"
                    )
                    raise ActError(Message(said, tied=", ".join(tied)))
            for place, r in enumerate(active[:top]):
                while len(places) <= place:
                    places.append([])
                places[place].append((-r.wins, -r.diff, -r.points_for, gi, r.entrant))
        return [row[-1] for place in places for row in sorted(place)]

    def _build(self, st: Stage) -> None:
        def add(m: Match) -> None:
            st.matches[m.id] = m
            self.matches[m.id] = m

        if st.format in ("round-robin", "pools"):
            if st.format == "pools":
                st.pools = roundrobin.pools(st.entrants, st.options["pools"])
            for p, members in enumerate(st.pools or [st.entrants]):
                for r, pairs in enumerate(roundrobin.circle(members), 1):
                    while len(st.rounds) < r:
                        st.rounds.append([])
                    k = 0
                    for a, b in pairs:
                        if a is None or b is None:
                            st.byes.append((r, a or b or ""))
                            continue
                        k += 1
                        label = (f"P{p + 1}/" if st.format == "pools" else "") + f"R{r}-{k}"
                        add(Match(f"{st.name}/{label}", st.name, label, r, p if st.format == "pools" else None, [a, b]))
                        st.rounds[r - 1].append(f"{st.name}/{label}")
        elif st.format in BRACKETS:
            slots = (
                brackets.single(len(st.entrants))
                if st.format == "single-elimination"
                else brackets.double(len(st.entrants), st.options["reset"])
            )
            for s in slots:
                add(Match(f"{st.name}/{s.id}", st.name, s.id, s.round, sources=s.sources))

    # -- playing -------------------------------------------------------------------------------------------

    def _stage_of(self, name: Any) -> Stage:
        st = self.stages.get(name) if type(name) is str else None
        if st is None:
            raise ActError(Message("there is no stage named {stage}", stage=str(name)[:MAX_NAME]))
        return st

    def _pair(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        st = self._stage_of(act.get("stage"))
        if st.format != "swiss":
            said = N_("stage {stage} is a {format}: its matches follow from its start and its results")
            raise ActError(Message(said, stage=st.name, format=st.format))
        r = len(st.rounds) + 1
        if act.get("round") != r:
            raise ActError(Message("the next round of stage {stage} is round {round}", stage=st.name, round=r))
        if r > st.options["rounds"]:
            said = N_("stage {stage} has played its {rounds} rounds")
            raise ActError(Message(said, stage=st.name, rounds=st.options["rounds"]))
        if st.closed_by:
            raise ActError(Message("stage {stage} is over", stage=st.name))
        if any(not m.decided for m in st.matches.values()):
            said = N_("round {round} of stage {stage} still has matches to play")
            raise ActError(Message(said, round=r - 1, stage=st.name))
        pairs, bye = act.get("pairs"), act.get("bye")
        if type(pairs) is not list or any(type(p) is not list or len(p) != 2 for p in pairs):
            raise ActError(Message("a round's pairs are a list of [entrant, entrant]"))
        playing = [e for e in st.entrants if self.entrants[e].active]
        named = [x for p in pairs for x in p] + ([bye] if bye is not None else [])
        if any(type(x) is not str for x in named) or sorted(named) != sorted(playing):
            raise ActError(
                Message("round {round} must pair every active entrant of stage {stage} once", round=r, stage=st.name)
            )
        if (bye is not None) != (len(playing) % 2 == 1):
            raise ActError(Message("a bye is given exactly when the count of entrants still playing is odd"))
        met = self.met(st)
        for a, b in pairs:
            if frozenset((a, b)) in met:
                said = N_("{a} and {b} have already met in stage {stage}: a Swiss stage has no rematch")
                raise ActError(Message(said, a=a, b=b, stage=st.name))
        if bye is not None and bye in {e for _, e in st.byes}:
            raise ActError(Message("{entrant} has already had a bye in stage {stage}", entrant=bye, stage=st.name))

        def do() -> None:
            ids = []
            for k, (a, b) in enumerate(pairs, 1):
                label = f"R{r}-{k}"
                m = Match(f"{st.name}/{label}", st.name, label, r, None, [a, b])
                st.matches[m.id] = self.matches[m.id] = m
                ids.append(m.id)
            st.rounds.append(ids)
            if bye is not None:
                st.byes.append((r, bye))
            self._refresh(st)

        return do

    def met(self, st: Stage) -> set[frozenset[str]]:
        """The pairs of entrants that have met in a stage (a match paired counts, played or not)."""
        return {frozenset(m.sides) for m in st.matches.values() if m.known}

    def _match_of(self, act: dict[str, Any]) -> Match:
        mid = act.get("match")
        m = self.matches.get(mid) if type(mid) is str else None
        if m is None:
            raise ActError(Message("there is no match {match}", match=str(mid)[:80]))
        if self.stages[m.stage].closed_by:
            said = N_("stage {stage} is over: its qualifiers went on to stage {next}")
            raise ActError(Message(said, stage=m.stage, next=self.stages[m.stage].closed_by))
        return m

    def _assign(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        m = self._match_of(act)
        board = _name(act.get("board"), Message("a board"))
        if m.state != "ready":
            raise ActError(Message("match {match} is not ready to play ({state})", match=m.id, state=Message(m.state)))

        def do() -> None:
            m.board = board

        return do

    def _unassign(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        """A match taken off its board and back to waiting for one (the board refused it, or the organiser moves
        it), with the reason."""
        m = self._match_of(act)
        if m.board is None:
            raise ActError(Message("match {match} is not on a board", match=m.id))
        if m.decided:
            said = N_("match {match} is decided ({state}): it stays where it was played")
            raise ActError(Message(said, match=m.id, state=Message(m.state)))
        _text(act.get("reason", ""), Message("a reason"), empty=True)

        def do() -> None:
            m.board = None

        return do

    def _abandon(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        """The organiser's word that the unfinished game on a board (its game journal, as its scoreboard names it) may
        be left unfinished, so the board's next match opens over it (the hall never replaces a game otherwise)."""
        _name(act.get("board"), Message("a board"))
        journal_path = act.get("journal")
        if type(journal_path) is not str or not journal_path or len(journal_path) > 1024 or "\x00" in journal_path:
            raise ActError(Message("abandon names the game to leave: the journal its board's scoreboard shows"))
        _text(act.get("reason", ""), Message("a reason"), empty=True)
        return lambda: None

    def abandoned(self, board: str) -> set[str]:
        """The game journals the organiser said may be left unfinished on this board."""
        return {
            str(rec["journal"]) for _, rec in self.applied if rec.get("act") == "abandon" and rec.get("board") == board
        }

    def _outcome(self, act: dict[str, Any], m: Match, n: int, walkover: bool) -> Outcome:
        if not m.known:
            raise ActError(Message("match {match} does not have its two entrants yet", match=m.id))
        winner = act.get("winner")
        if winner not in m.sides:
            said = N_("the winner of match {match} is {a} or {b}")
            raise ActError(Message(said, match=m.id, a=m.sides[0], b=m.sides[1]))
        if walkover:
            reason = _text(act.get("reason", ""), Message("a reason"), empty=True)
            return Outcome(str(winner), True, n, reason=reason or None)
        if act.get("sides") != m.sides:
            said = N_("a result names the match's sides in its order: {a}, {b}")
            raise ActError(Message(said, a=m.sides[0], b=m.sides[1]))
        source = act.get("source")
        if source not in SOURCES:
            raise ActError(Message("a result's source is one of {sources}", sources=", ".join(SOURCES)))
        evidence = act.get("evidence")
        if evidence is not None and (
            type(evidence) is not dict
            or type(evidence.get("journal")) is not str
            or not evidence["journal"]
            or any(type(v) not in (str, int) for v in evidence.values())
        ):
            # no values: the braces are said as they are
            raise ActError(Message('a result\'s evidence is {"journal": PATH, ...} with texts and numbers'))
        if source == "board" and evidence is None:
            raise ActError(Message("a result from a board carries its game journal as evidence"))
        confirmed = act.get("twenties_confirmed", False)
        if type(confirmed) is not bool:
            raise ActError(Message("twenties_confirmed is true or false"))
        twenties = _two(act.get("twenties"), Message("twenties"))
        if confirmed and twenties is None:
            raise ActError(Message("confirmed twenties need the twenties"))
        shootout = _two(act.get("shootout"), Message("a shoot-out"))
        if m.shootout:
            w = m.sides.index(str(winner))
            if shootout is None or shootout[w] <= shootout[1 - w]:
                raise ActError(
                    Message(
                        "match {match} is a twenties shoot-out: its result gives both sides' twenties (shootout), "
                        "the winner's the higher",
                        match=m.id,
                    )
                )
        return Outcome(
            str(winner),
            False,
            n,
            games=_two(act.get("games"), Message("games")),
            points=_two(act.get("points"), Message("points"), None),
            twenties=twenties,
            confirmed=confirmed,
            shootout=shootout,
            source=str(source),
            evidence=dict(evidence) if evidence else None,
        )

    def _record(self, act: dict[str, Any], n: int, walkover: bool) -> Callable[[], None]:
        m = self._match_of(act)
        if m.outcome is not None or m.decided:
            said = N_("match {match} already has a result ({state}); a change is a correction")
            raise ActError(Message(said, match=m.id, state=Message(m.state)))
        if m.state != "ready":
            raise ActError(Message("match {match} is not ready to play ({state})", match=m.id, state=Message(m.state)))
        out = self._outcome(act, m, n, walkover)

        def do() -> None:
            m.outcome = out
            self._refresh(self.stages[m.stage])

        return do

    def _result(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        return self._record(act, n, False)

    def _walkover(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        return self._record(act, n, True)

    def _correct(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        m = self._match_of(act)
        old = m.outcome
        if old is None:
            raise ActError(Message("match {match} has no result to correct", match=m.id))
        out = self._outcome(act, m, n, act.get("walkover") is True)
        out.reason = _text(act.get("reason", ""), Message("a reason"), empty=True) or None
        out.replaced = (*old.replaced, old.entry)
        st = self.stages[m.stage]
        if out.winner != old.winner:
            for later in st.matches.values():
                uses = later.sources and any(s[1] == m.label and s[0] != "seed" for s in later.sources)
                if uses and later.outcome is not None:
                    said = N_(
                        "match {later} was played after {match} with its winner or loser: correct or undo it first"
                    )
                    raise ActError(Message(said, later=later.id, match=m.id))

        def do() -> None:
            m.outcome = out
            self._refresh(st)

        return do

    def _shootout(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        st = self._stage_of(act.get("stage"))
        who, twenties = act.get("entrants"), act.get("twenties")
        if type(who) is not list or any(type(e) is not str for e in who) or len(who) < 2 or len(set(who)) != len(who):
            raise ActError(Message("a shoot-out is between two or more different entrants"))
        if any(e not in st.entrants for e in who):
            raise ActError(Message("everyone in a shoot-out of stage {stage} is an entrant of it", stage=st.name))
        if type(twenties) is not list or len(twenties) != len(who):
            raise ActError(Message("a shoot-out gives each entrant's twenties"))
        counts = tuple(_int(t, Message("twenties")) for t in twenties)
        if act.get("source", "organiser") not in SOURCES:
            raise ActError(Message("a shoot-out's source is one of {sources}", sources=", ".join(SOURCES)))
        so = Shootout(tuple(who), counts, entry=n)

        def do() -> None:
            st.shootouts.append(so)

        return do

    def shootout_groups(self, st: Stage) -> list[list[str]]:
        """The groups of a stage's standings still level at the end of its chain (so at its `shootout` key), each
        of its active entrants in standings order, when two or more are active: those a shoot-out must break."""
        if st.format in BRACKETS:
            return []
        tables = [self.table(st, p) for p in range(len(st.pools))] if st.format == "pools" else [self.table(st)]
        playing = {e for r in self.shootouts_playing(st) for e in r.entrants}
        out = []
        for t in tables:
            for group in t.unresolved:
                active = [e for e in group if self.entrants[e].active]
                if len(active) >= 2 and not playing & set(active):
                    out.append(active)
        return out

    def shootouts_playing(self, st: Stage) -> list[ShootoutRound]:
        """A stage's shoot-out rounds with a match still to play."""
        return [r for r in st.shootout_rounds if not all(st.matches[i].decided for i in r.matches)]

    @staticmethod
    def played_out(st: Stage) -> bool:
        """Every match of the stage's own is decided (a Swiss stage: after its last round); shoot-outs aside."""
        if st.format == "swiss" and len(st.rounds) < st.options["rounds"]:
            return False
        return all(m.decided for m in st.matches.values() if not m.shootout)

    def _shootout_round(self, act: dict[str, Any], n: int) -> Callable[[], None]:
        st = self._stage_of(act.get("stage"))
        who = act.get("entrants")
        if type(who) is not list or any(type(e) is not str for e in who):
            raise ActError(Message("a shoot-out round lists its entrants by name"))
        if st.format in BRACKETS:
            said = N_("stage {stage} is a bracket: a match decides every place, with no tie to break")
            raise ActError(Message(said, stage=st.name))
        if "shootout" not in st.tiebreaks:
            raise ActError(Message("the tie-break chain of stage {stage} has no shootout", stage=st.name))
        if st.game != "pichenotte":
            said = N_(
                "stage {stage} plays {game}: a shoot-out match is played on the Pichenotte engine; "
                "enter the shoot-out's twenties instead"
            )
            raise ActError(Message(said, stage=st.name, game=st.game))
        if st.closed_by:
            said = N_("stage {stage} is over: its qualifiers went on to stage {next}")
            raise ActError(Message(said, stage=st.name, next=st.closed_by))
        if not self.played_out(st):
            said = N_("stage {stage} still has matches to play: its standings are not final")
            raise ActError(Message(said, stage=st.name))
        for busy in self.shootouts_playing(st):
            if set(busy.entrants) & set(who):
                said = N_("shoot-out round {round} of stage {stage} ({entrants}) is still being played")
                raise ActError(Message(said, round=busy.number, stage=st.name, entrants=", ".join(busy.entrants)))
        r = len(st.shootout_rounds) + 1
        if act.get("round") != r:
            said = N_("the next shoot-out round of stage {stage} is round {round}")
            raise ActError(Message(said, stage=st.name, round=r))
        groups = self.shootout_groups(st)
        if who not in groups:
            if not groups:
                said = N_("a shoot-out round is among a group still level in stage {stage} (now: none)")
                raise ActError(Message(said, stage=st.name))
            said = N_("a shoot-out round is among a group still level in stage {stage} (now: {level})")
            raise ActError(Message(said, stage=st.name, level="; ".join(", ".join(g) for g in groups)))
        pairs = act.get("pairs")
        if pairs != [list(p) for p in combinations(who, 2)]:
            raise ActError(Message("a shoot-out round pairs every two of its entrants once, in their order"))
        ids = [f"{st.name}/SO{r}-{k}" for k in range(1, len(pairs) + 1)]
        rnd = ShootoutRound(r, tuple(who), ids, n)

        def do() -> None:
            for k, (a, b) in enumerate(pairs, 1):
                label = f"SO{r}-{k}"
                m = Match(f"{st.name}/{label}", st.name, label, r, None, [a, b], format=SHOOTOUT_MATCH)
                st.matches[m.id] = self.matches[m.id] = m
            st.shootout_rounds.append(rnd)
            self._refresh(st)

        return do

    def shootouts(self, st: Stage) -> list[Shootout]:
        """Every finished shoot-out of a stage for its chain: those entered as counts, and each shoot-out round
        whose matches are all decided (wins, and twenties summed over its matches), in journal order."""
        out = list(st.shootouts)
        for rnd in st.shootout_rounds:
            ms = [st.matches[i] for i in rnd.matches]
            if not all(m.decided for m in ms):
                continue
            wins = dict.fromkeys(rnd.entrants, 0)
            twenties = dict.fromkeys(rnd.entrants, 0)
            for m in ms:
                if m.winner in wins:
                    wins[m.winner] += 1
                if m.outcome is not None and m.outcome.shootout is not None and m.state == "done":
                    for side, t in zip(m.sides, m.outcome.shootout, strict=True):
                        twenties[side] += t
            out.append(
                Shootout(
                    rnd.entrants,
                    tuple(twenties[e] for e in rnd.entrants),
                    tuple(wins[e] for e in rnd.entrants),
                    rnd.entry,
                )
            )
        return out

    # -- what follows from the acts ------------------------------------------------------------------------

    def _refresh(self, st: Stage) -> None:
        """Fill a stage's bracket slots from its results and decide what needs no match (byes, walkovers)."""
        res: dict[str, tuple[str, str]] = {}
        for m in st.matches.values():
            if m.sources is not None:
                m.sides = [self._slot(st, src, res) for src in m.sources]
            if m.label == "GF2":
                gf1 = res["GF1"]
                first = st.matches[f"{st.name}/GF1"]
                if gf1[0] == PENDING:
                    m.state, m.winner, m.loser = "waiting", PENDING, PENDING
                elif gf1[0] != first.sides[1] or first.state != "done":
                    m.state, m.winner, m.loser = "void", EMPTY, EMPTY  # the winners bracket's champion won GF1
                else:
                    self._decide(m)
            else:
                self._decide(m)
            res[m.label] = (m.winner, m.loser)

    @staticmethod
    def _slot(st: Stage, src: brackets.Source, res: Mapping[str, tuple[str, str]]) -> str:
        kind, ref = src
        if kind == "seed":
            assert isinstance(ref, int)
            return st.entrants[ref] if ref < len(st.entrants) else EMPTY
        return res[str(ref)][0 if kind == "winner" else 1]

    def _decide(self, m: Match) -> None:
        a, b = m.sides
        if m.outcome is not None and m.known:
            w = m.outcome.winner
            m.state, m.winner, m.loser = "done", w, b if w == a else a
            return
        if PENDING in (a, b):
            m.state, m.winner = "waiting", PENDING
            m.loser = EMPTY if EMPTY in (a, b) else PENDING
        elif a == EMPTY or b == EMPTY:
            who = b if a == EMPTY else a
            m.state, m.loser = ("void" if who == EMPTY else "bye"), EMPTY
            m.winner = who if who == EMPTY or self.entrants[who].active else EMPTY
        else:
            out = [s for s in (a, b) if not self.entrants[s].active]
            if len(out) == 2:
                m.state, m.winner, m.loser = "void", EMPTY, EMPTY
            elif out:
                m.state, m.loser = "walkover", out[0]
                m.winner = b if out[0] == a else a
            else:
                m.state, m.winner, m.loser = "ready", PENDING, PENDING

    # -- reading -------------------------------------------------------------------------------------------

    @staticmethod
    def progress(st: Stage) -> tuple[int, int]:
        """(matches played, matches there are to play) of a stage: a bye is no match, nor a match that will never be
        played (a grand final's reset that is not needed); a walkover counts as played."""
        real = [m for m in st.matches.values() if m.state not in ("bye", "void")]
        return sum(1 for m in real if m.state in ("done", "walkover")), len(real)

    def table(self, st: Stage, pool: int | None = None) -> Table:
        """The standings of a round robin, a Swiss stage or one pool (`pool`, 0-based)."""
        members = st.pools[pool] if pool is not None else st.entrants
        played: list[Played] = []
        for m in st.matches.values():
            if m.pool != pool or m.shootout or not m.known or m.state not in ("done", "walkover"):
                continue
            o = m.outcome
            played.append(
                Played(
                    m.sides[0],
                    m.sides[1],
                    m.winner,
                    o.points if o else None,
                    o.twenties if o and o.confirmed else None,
                    o.twenties if o else None,
                )
            )
        for _, e in st.byes:
            if e in members:
                played.append(Played(e, None, e, bye_wins=st.format == "swiss"))
        status = {e: self.entrants[e].status for e in members}
        return table(members, played, st.tiebreaks, self.shootouts(st), status)

    def champion(self, st: Stage) -> str | None:
        """The winner of an elimination stage, once known."""
        if st.format not in BRACKETS:
            return None
        ms = list(st.matches.values())
        last = ms[-1]
        if last.label == "GF2" and last.state == "void":
            last = ms[-2]
        return last.winner if last.decided and last.winner not in (PENDING, EMPTY) else None

    def placings(self, st: Stage) -> list[tuple[int | None, str]]:
        """(place, entrant) of an elimination stage: the champion 1st, then by the round each was knocked out in
        (the same round: the same place, behind everyone still in); None for those still in it, listed first."""
        key: dict[str, int] = {}
        for m in st.matches.values():
            if not m.decided or m.loser in (PENDING, EMPTY):
                continue
            eliminated = st.format == "single-elimination" or m.label.startswith(("L", "GF2"))
            if m.label == "GF1":
                eliminated = m.winner == m.sides[0] or f"{st.name}/GF2" not in st.matches
            if eliminated:
                key[m.loser] = m.round
        champ = self.champion(st)
        if champ is not None:
            key[champ] = 1 << 30
        still_in = sum(1 for e in st.entrants if e not in key and self.entrants[e].active)
        out: list[tuple[int | None, str]] = []
        for e in st.entrants:
            k = key.get(e)
            out.append((None if k is None else 1 + still_in + sum(1 for v in key.values() if v > k), e))
        out.sort(key=lambda p: (p[0] is not None, p[0] or 0, st.entrants.index(p[1])))  # those still in first
        return out

    def ranking(self, st: Stage) -> list[tuple[int | None, str]]:
        """(place, entrant) within one stage: a bracket's placings; a table's ranks (level entrants share one); pools
        by their place in the pool first (every pool's winner, then the runners-up, ...), each place ordered by
        wins, point difference, points, then pool order, as `intake` seeds them."""
        if st.format in BRACKETS:
            return self.placings(st)
        if st.format != "pools":
            return [(r.rank, r.entrant) for r in self.table(st).rows]
        rows = []
        for gi in range(len(st.pools)):
            for place, r in enumerate(self.table(st, gi).rows):
                rows.append((place, -r.wins, -r.diff, -r.points_for, gi, r.entrant))
        rows.sort()
        return [(i + 1, row[-1]) for i, row in enumerate(rows)]

    def final_standings(self) -> list[tuple[int | None, str, str]]:
        """(place, entrant, stage) for the whole event: the last stage's ranking, then those who did not reach it by
        their ranking in the stage before, and so on (entrants who played no stage are left out). A place is None
        while the stage that gives it is still being played."""
        out: list[tuple[int | None, str, str]] = []
        placed: set[str] = set()
        for st in reversed(self.stages.values()):
            ranking = [(p, e) for p, e in self.ranking(st) if e not in placed]
            still_in = sum(1 for p, _ in ranking if p is None)
            offset = len(out)
            for p, e in ranking:
                better = None if p is None else still_in + sum(1 for q, _ in ranking if q is not None and q < p)
                out.append((None if better is None else offset + 1 + better, e, st.name))
            placed |= set(st.entrants)
        return out


def fold(records: Iterable[Mapping[str, Any]], name: str = "") -> Event:
    """The event after `records` (journal entries, each with its "n"). An entry the fold cannot take is listed in
    `rejected` with why (a checked journal never holds one; a hand-edited one might) and changes nothing."""
    ev = Event(name)
    for rec in records:
        try:
            ev.apply(rec)
        except ActError as e:
            ev.rejected.append((int(rec.get("n", 0)), str(e)))
    return ev
