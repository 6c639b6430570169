"""The entrants as the organiser registers them, one typed on the command line or every row of a CSV file, made into the
director's `entrant` acts."""

from __future__ import annotations

import csv
from typing import Any

from flickboard.errors import UserError
from flickboard.tournament import Event


def entrant_act(name: str, partner: str | None, seed: int | None, club: str | None) -> dict[str, Any]:
    """The act that registers one entrant: a doubles team is named "NAME & PARTNER"."""
    name, partner = name.strip(), (partner or "").strip() or None
    team = f"{name} & {partner}" if partner else name
    return {
        "act": "entrant",
        "name": team,
        "players": [name, partner] if partner else [name],
        "seed": seed,
        "club": (club or "").strip() or None,
    }


def entrant_text(act: dict[str, Any]) -> str:
    """A registered entrant in one line: the name, then its seed and club when it has them."""
    extra = [f"seed {act['seed']}"] if act["seed"] is not None else []
    extra += [str(act["club"])] if act["club"] else []
    return str(act["name"]) + (f" ({', '.join(extra)})" if extra else "")


def acts_from_csv(path: str) -> list[tuple[int, dict[str, Any]]]:
    """Every row of a registrations CSV (columns name, partner, seed, club; comma, semicolon or tab) as (its line
    number, its act)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read {path} ({e})") from None
    first = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first.count)  # a spreadsheet in another locale writes ; (or tabs)
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    rows = list(reader)
    if not rows:
        raise UserError(f"{path} is empty: its first line names the columns (name, partner, seed, club)")
    head = [h.strip().lower() for h in rows[0]]
    if "name" not in head:
        raise UserError(f"{path}: the first line names the columns, one of them 'name' (and partner, seed, club)")
    acts = []
    for lineno, cells in enumerate(rows[1:], 2):
        if not any(c.strip() for c in cells):
            continue
        row = dict(zip(head, cells, strict=False))
        seed_text = (row.get("seed") or "").strip()
        if seed_text and not seed_text.isdigit():
            raise UserError(f"{path} line {lineno}: the seed is a whole number (1 = best) or empty, not {seed_text!r}")
        act = entrant_act(
            row.get("name", ""), row.get("partner"), int(seed_text) if seed_text else None, row.get("club")
        )
        acts.append((lineno, act))
    if not acts:
        raise UserError(f"{path} has no entrants under its first line")
    return acts


def is_registered(ev: Event, act: dict[str, Any]) -> bool:
    """Is the entrant of `act` already registered exactly so (the same players, seed and club)?"""
    e = ev.entrants.get(act["name"])
    return e is not None and (list(e.players), e.seed, e.club) == (act["players"], act["seed"], act["club"])
