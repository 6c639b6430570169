"""The event for other programs and for the record: the results and the standings as CSV, the JSON document, and
the whole event as one archive. Pure functions of the fold, and one writer (`write_archive`).

- `results_csv(event)`: one row per match (and per Swiss bye), in playing order: its stage, round, pool, board,
  sides, state, winner and every number of its result, each pair split into the two sides' columns (side_a first,
  as the match lists its sides), where the result came from, its evidence, and the entries it corrected.
- `standings_csv(event)`: the whole event's final standings ("table" = "event", "stage" = the stage that ranked
  the entrant), then each stage's own ("stage" = its name): a round robin's or a Swiss stage's table ("table" =
  "stage", every tie-break column), each pool's table ("pool", with "pool" = 1, 2, ...), a bracket's placings
  ("bracket").
- `evidence(event)`: the game journals the results name as evidence, in order, each once.
- `write_archive(path, journal_bytes, base)`: a zip of the tournament journal as it is on disk (complete lines
  only), every game journal its results name as evidence (`games/...`), the JSON document (`event.json`, the
  canonical bytes of `document.dumps`), both CSVs, and `manifest.json`: each file's sha256 and size, which evidence
  path became which file, and the evidence that could not be found. Every stored date is fixed, so the same journal
  and the same game journals make the same archive, byte for byte.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tempfile
import zipfile
from typing import Any

from flickboard.jsontext import canonical
from flickboard.tournament.director import read
from flickboard.tournament.document import dumps
from flickboard.tournament.event import BRACKETS, EMPTY, PENDING, Event, Match, Stage

ARCHIVE_FORMAT = "flickboard-tournament-archive"
ARCHIVE_VERSION = 1
_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: the archive holds no clock

RESULT_FIELDS = (
    "stage",
    "match",
    "round",
    "pool",
    "board",
    "side_a",
    "side_b",
    "state",
    "winner",
    "walkover",
    "games_a",
    "games_b",
    "points_a",
    "points_b",
    "twenties_a",
    "twenties_b",
    "twenties_confirmed",
    "shootout_a",
    "shootout_b",
    "source",
    "evidence",
    "entry",
    "corrects",
    "reason",
)
STANDING_FIELDS = (
    "table",
    "pool",
    "rank",
    "entrant",
    "players",
    "club",
    "status",
    "stage",
    "played",
    "wins",
    "losses",
    "byes",
    "points_for",
    "points_against",
    "diff",
    "twenties",
    "twenties_reported",
    "buchholz",
    "median_buchholz",
    "tied",
    "decided_by",
)


def _who(name: str) -> str:
    return "" if name in (PENDING, EMPTY) else name


def _pair(v: tuple[int, int] | None) -> tuple[Any, Any]:
    return (v[0], v[1]) if v else ("", "")


def _csv(fields: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("true" if v is True else "false" if v is False else v) for k, v in r.items()})
    return buf.getvalue()


def _match_row(st: Stage, m: Match) -> dict[str, Any]:
    o = m.outcome
    games, points, twenties, so = (
        (_pair(o.games), _pair(o.points), _pair(o.twenties), _pair(o.shootout)) if o else (("", ""),) * 4
    )
    return {
        "stage": st.name,
        "match": m.id,
        "round": m.round,
        "pool": "" if m.pool is None else m.pool + 1,
        "board": m.board or "",
        "side_a": _who(m.sides[0]),
        "side_b": _who(m.sides[1]),
        "state": m.state,
        "winner": _who(m.winner),
        "walkover": m.state == "walkover" or bool(o and o.walkover),
        "games_a": games[0],
        "games_b": games[1],
        "points_a": points[0],
        "points_b": points[1],
        "twenties_a": twenties[0],
        "twenties_b": twenties[1],
        "twenties_confirmed": bool(o and o.confirmed),
        "shootout_a": so[0],
        "shootout_b": so[1],
        "source": o.source if o else "",
        "evidence": (o.evidence or {}).get("journal", "") if o else "",
        "entry": o.entry if o else "",
        "corrects": " ".join(str(n) for n in o.replaced) if o else "",
        "reason": (o.reason or "") if o else "",
    }


def result_rows(event: Event) -> list[dict[str, Any]]:
    """The rows of `results_csv`: a round robin's, a pool's or a Swiss stage's matches round by round, each round's
    byes after its matches ("<stage>/R<round>-bye"); a bracket's in playing order (its byes are matches)."""
    rows: list[dict[str, Any]] = []
    for st in event.stages.values():
        if not st.rounds:
            rows += [_match_row(st, m) for m in st.matches.values()]
            continue
        for r, ids in enumerate(st.rounds, 1):
            rows += [_match_row(st, st.matches[i]) for i in ids]
            for rr, e in st.byes:
                if rr == r:
                    row = _bye_row(st.name, r, e, st.format == "swiss")
                    pool = next((p + 1 for p, members in enumerate(st.pools) if e in members), None)
                    if pool is not None:
                        row.update(pool=pool, match=f"{st.name}/P{pool}/R{r}-bye")
                    rows.append(row)
    return rows


def _bye_row(stage: str, r: int, entrant: str, wins: bool) -> dict[str, Any]:
    """A round's bye: a win in a Swiss stage, nothing in a round robin."""
    row: dict[str, Any] = dict.fromkeys(RESULT_FIELDS, "")
    row.update(stage=stage, match=f"{stage}/R{r}-bye", round=r, side_a=entrant, state="bye")
    row.update(winner=entrant if wins else "", walkover=False, twenties_confirmed=False)
    return row


def results_csv(event: Event) -> str:
    """Every match's result (and every Swiss bye), one CSV row each."""
    return _csv(RESULT_FIELDS, result_rows(event))


def standing_rows(event: Event) -> list[dict[str, Any]]:
    def who(name: str) -> dict[str, Any]:
        e = event.entrants[name]
        return {"entrant": name, "players": " & ".join(e.players), "club": e.club or "", "status": e.status}

    rows: list[dict[str, Any]] = []
    for place, name, stage in event.final_standings():
        rows.append({"table": "event", "rank": "" if place is None else place, "stage": stage, **who(name)})
    for st in event.stages.values():
        if st.format in BRACKETS:
            for place, name in event.placings(st):
                rows.append({"table": "bracket", "rank": "" if place is None else place, "stage": st.name, **who(name)})
            continue
        tables = [(p + 1, event.table(st, p)) for p in range(len(st.pools))] if st.pools else [("", event.table(st))]
        for pool, t in tables:
            for r in t.rows:
                d = r.doc()
                d.pop("status")
                kind = "pool" if pool else "stage"
                rows.append({**d, "table": kind, "pool": pool, "stage": st.name, **who(r.entrant)})
    return [{k: r.get(k, "") if r.get(k) is not None else "" for k in STANDING_FIELDS} for r in rows]


def standings_csv(event: Event) -> str:
    """The final standings, then every stage's table or placings, one CSV row per entrant and table."""
    return _csv(STANDING_FIELDS, standing_rows(event))


def evidence(event: Event) -> list[str]:
    """The game journals the results in effect name as evidence, each once, in the order of the matches."""
    seen: list[str] = []
    for m in event.matches.values():
        path = (m.outcome.evidence or {}).get("journal") if m.outcome else None
        if isinstance(path, str) and path not in seen:
            seen.append(path)
    return seen


def complete_lines(data: bytes) -> bytes:
    """A journal's bytes up to its last complete line (a live director may be halfway through the next one)."""
    end = data.rfind(b"\n")
    return data[: end + 1] if end >= 0 else b""


def fold_bytes(data: bytes) -> Event:
    """The event a tournament journal's bytes hold (through a private copy: the journal reader reads files)."""
    with tempfile.TemporaryDirectory(prefix="flickboard-archive-") as tmp:
        path = os.path.join(tmp, "tournament.jsonl")
        with open(path, "wb") as f:
            f.write(data)
        return read(path)


def _member(path: str, used: set[str]) -> str:
    base = "".join(c if c.isalnum() or c in "-_." else "-" for c in os.path.basename(path)) or "journal"
    name, k = f"games/{base}", 1
    while name in used:
        k += 1
        stem, dot, ext = base.rpartition(".")
        name = f"games/{stem or base}-{k}{dot}{ext if stem else ''}"
    used.add(name)
    return name


def resolve(path: str, base: str) -> str | None:
    """Where an evidence path is on disk: as it is when absolute; otherwise beside the tournament journal (`base`),
    then from the current folder. None when it is in neither."""
    if os.path.isabs(path):
        return path if os.path.isfile(path) else None
    for where in (os.path.join(base, path), path):
        if os.path.isfile(where):
            return where
    return None


def write_archive(path: str, journal_bytes: bytes, base: str) -> dict[str, Any]:
    """Write the event's archive to `path` (a zip) from the tournament journal's bytes (its complete lines are
    archived) and `base`, the folder the journal is in (relative evidence paths are looked up there first). Returns
    the manifest. OSError if a file cannot be read or written."""
    data = complete_lines(journal_bytes)
    event = fold_bytes(data)
    files: list[tuple[str, bytes]] = [
        ("tournament.jsonl", data),
        ("event.json", dumps(event)),
        ("results.csv", results_csv(event).encode("utf-8")),
        ("standings.csv", standings_csv(event).encode("utf-8")),
    ]
    used = {name for name, _ in files}
    journals: dict[str, str] = {}
    missing: list[str] = []
    for ev in evidence(event):
        where = resolve(ev, base)
        if where is None:
            missing.append(ev)
            continue
        with open(where, "rb") as f:
            content = f.read()
        member = _member(ev, used)
        journals[ev] = member
        files.append((member, content))
    manifest = {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "name": event.name,
        "entries": event.count,
        "files": [{"path": n, "sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)} for n, b in files],
        "evidence": journals,
        "missing": missing,
    }
    files.append(("manifest.json", (canonical(manifest) + "\n").encode("utf-8")))
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, content in files:
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, content)
    os.replace(tmp, path)
    return manifest
