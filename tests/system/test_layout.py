"""The import rules of the layout (README, "Where things live"), held by walking every module's imports.

Data flows board → link → protocol → bridge → journal → fold (rules, evidence) → documents → topics → displays:
- `rules` imports nothing from `host`;
- `host/core` (journal, session, evidence, documents) only `rules`, itself and the JSON module;
- `host/board` the core, itself and the shared modules;
- `host/tournament` (the director's journal and fold) itself, the rules registry, the core's journal and the JSON
  module; its one I/O module, `hall.py` (the director's link to the boards over MQTT), also the shared `mqtt` and
  `config`, and still nothing of the bridge or the commands;
- `host/displays` the shared modules, itself, the rules registry and the core's documents (the scoreboard, its
  text and the manual-entry request), never the bridge or the links; its tournament pages (`tournament_web`) also
  the tournament director (their acts go through its `Director`, the boards through its `Hall`) and the journal's
  lock error;
- the shared modules (`config`, `mqtt`, `jsontext`, `lifecycle`, `errors`) only each other;
- `host/cli` and `host/sim` compose the rest.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = {"host.config", "host.mqtt", "host.jsontext", "host.lifecycle", "host.errors"}
DOCUMENTS = {"host.core.scoreboard", "host.core.render", "host.core.render_games", "host.core.entries"}


def allowed(module: str, imported: str) -> bool:
    """May `module` import `imported` (both dotted, `imported` inside this repository)?"""
    inside = lambda pkg: imported == pkg or imported.startswith(pkg + ".")  # noqa: E731
    if module.startswith("rules"):
        return inside("rules")
    if imported.startswith("rules"):
        return module not in SHARED
    if module in SHARED:
        return imported in SHARED
    if module.startswith("host.core"):
        return inside("host.core") or imported == "host.jsontext"
    if module.startswith("host.board"):
        return inside("host.board") or inside("host.core") or imported in SHARED
    if module.startswith("host.tournament"):
        io = ("host.mqtt", "host.config") if module == "host.tournament.hall" else ()
        return inside("host.tournament") or imported in ("host.core.journal", "host.jsontext", *io)
    if module == "host.displays.tournament_web" and (inside("host.tournament") or imported == "host.core.journal"):
        return True  # the tournament's pages act through its director, follow its hall (and the journal's lock error)
    if module.startswith("host.displays"):
        return inside("host.displays") or imported in SHARED or imported in DOCUMENTS
    return module.startswith(("host.cli", "host.sim", "host.__init__"))


def modules() -> list[tuple[str, Path]]:
    out = []
    for top in ("host", "rules"):
        for p in sorted((ROOT / top).rglob("*.py")):
            if "node_modules" in p.parts:
                continue
            out.append((".".join(p.relative_to(ROOT).with_suffix("").parts), p))
    return out


def imports_of(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) of every import in the file, `from x import y` as x.y when y is a module here."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, 0) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            for a in node.names:
                full = f"{base}.{a.name}" if base else a.name
                is_module = (ROOT / Path(*full.split("."))).with_suffix(".py").exists() or (
                    ROOT / Path(*full.split("."))
                ).is_dir()
                found.append((node.lineno, full if is_module else base, node.level))
    return found


def test_the_layout_has_the_packages_of_the_data_flow() -> None:
    for pkg in ("core", "board", "displays", "sim", "cli"):
        assert (ROOT / "host" / pkg / "__init__.py").is_file(), pkg
    assert len(modules()) > 60


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_imports_follow_the_data_flow(module: str, path: Path) -> None:
    wrong = []
    for line, imported, level in imports_of(path):
        if level:  # inside a game's package a relative import stays inside rules; in host, names are written in full
            if module.startswith("host"):
                wrong.append(f"line {line}: a relative import (write host.… in full)")
            continue
        if imported.split(".")[0] not in ("host", "rules"):
            continue
        if not allowed(module, imported):
            wrong.append(f"line {line}: {imported}")
    assert not wrong, f"{module} may not import: {wrong}"


def test_the_rules_catch_a_wrong_import() -> None:
    assert not allowed("host.core.session", "host.board.bridge")
    assert not allowed("host.displays.web", "host.board.links")
    assert not allowed("rules.games", "host.core.session")
    assert not allowed("host.mqtt", "host.board.protocol")
    assert not allowed("host.tournament.event", "host.mqtt") and allowed("host.tournament.hall", "host.mqtt")
    assert not allowed("host.tournament.hall", "host.board.bridge") and not allowed("host.tournament.hall", "host.cli")
    assert allowed("host.displays.tournament_web", "host.tournament.hall")
    assert not allowed("host.displays.web", "host.tournament") and not allowed(
        "host.displays.tournament_web", "host.board"
    )
    assert allowed("host.board.bridge", "host.core.session") and allowed("host.sim.demo", "host.cli.bridge")


def test_the_tests_are_grouped_like_the_product() -> None:
    """tests/<part>/test_*.py, helpers in tests/support/ found through pytest's pythonpath: no test changes
    sys.path itself, and no test sits loose at the top."""
    tests = ROOT / "tests"
    assert (tests / "conftest.py").is_file()
    assert sorted(p.name for p in tests.glob("test_*.py")) == []
    groups = {p.parent.name for p in tests.rglob("test_*.py")}
    names = [p.name for p in tests.rglob("test_*.py")]
    # pytest imports a test file by its base name (no __init__.py here): two alike stop the whole run at collection
    assert not {n for n in names if names.count(n) > 1}, "two test files share a name"
    assert groups == {"rules", "core", "board", "displays", "firmware", "system", "tournament"}, groups
    edits = []
    for p in tests.rglob("test_*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):  # a test file is no helper: shared code is in support/
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                edits += [f"{p.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.startswith("test_")]
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and ast.unparse(node.func.value) == "sys.path"
            ):
                edits.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert edits == [], f"tests that change sys.path or import another test: {edits}"
