"""The import rules of the layout (README, "Where things live"), held by walking every module's imports.

The package is `flickboard`: its folders are `host/` (`flickboard`) and `rules/` (`flickboard.rules`), as
pyproject.toml maps them, and pyproject.toml lists every package. Data flows board → link → protocol → bridge →
journal → fold (rules, evidence) → documents → topics → displays:
- `flickboard.rules` imports nothing else of the package;
- `core` (journal, session, evidence, documents) only the rules, itself, the JSON module and the catalogues
  (`i18n`, which say its sentences in the players' language);
- `board` the core, itself and the shared modules;
- `tournament` (the director's journal and fold) itself, the rules registry, the core's journal and the JSON
  module; its one I/O module, `hall.py` (the director's link to the boards over MQTT), also the shared `mqtt` and
  `config`, and still nothing of the bridge or the commands;
- `displays` the shared modules, itself, the rules registry and the core's documents (the scoreboard, its text and
  the manual-entry request), never the bridge or the links; its tournament pages (`tournament_pages`) also the
  tournament director (their acts go through its `Director`, the boards through its `Hall`) and the journal's lock
  error;
- the shared modules (`config`, `mqtt`, `jsontext`, `lifecycle`, `errors`, `i18n`) only each other;
- `cli` and `sim` compose the rest.
Everywhere: no import circles (not even through an import deferred into a function), no import of another module's
`_private` names, and names written in full (`flickboard.…`) outside a game's own package.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = "flickboard.rules"
SHARED = {f"flickboard.{m}" for m in ("config", "mqtt", "jsontext", "lifecycle", "errors", "i18n", "i18n.catalogues")}
DOCUMENTS = {f"flickboard.core.{m}" for m in ("scoreboard", "render", "render_games", "entries")}


def inside(name: str, pkg: str) -> bool:
    return name == pkg or name.startswith(pkg + ".")


def allowed(module: str, imported: str) -> bool:
    """May `module` import `imported` (both dotted names of the `flickboard` package)?"""
    within = lambda pkg: inside(imported, pkg)  # noqa: E731
    if inside(module, RULES):
        return within(RULES)
    if within(RULES):
        return module not in SHARED
    if module in SHARED:
        return imported in SHARED
    if inside(module, "flickboard.core"):
        return within("flickboard.core") or imported in ("flickboard.jsontext", "flickboard.i18n")
    if inside(module, "flickboard.board"):
        return within("flickboard.board") or within("flickboard.core") or imported in SHARED
    if inside(module, "flickboard.tournament"):
        io = ("flickboard.mqtt", "flickboard.config") if module == "flickboard.tournament.hall" else ()
        return within("flickboard.tournament") or imported in ("flickboard.core.journal", "flickboard.jsontext", *io)
    if inside(module, "flickboard.displays.tournament_pages") and (
        within("flickboard.tournament") or imported == "flickboard.core.journal"
    ):
        return True  # the tournament's pages act through its director, follow its hall (and the journal's lock error)
    if inside(module, "flickboard.displays"):
        return within("flickboard.displays") or imported in SHARED or imported in DOCUMENTS
    return inside(module, "flickboard.cli") or inside(module, "flickboard.sim") or module == "flickboard"


FOLDERS = {"flickboard.rules": ROOT / "rules", "flickboard": ROOT / "host"}  # pyproject.toml's package-dir


def board_files() -> dict[str, Path]:
    """The board's files the package carries as data (host/board/files.py), not host code: the firmware's folder and
    every folder of its `fb` package, and the board profiles."""
    found = {"flickboard.firmware": ROOT / "firmware", "flickboard.firmware.profiles": ROOT / "hardware" / "profiles"}
    for init in sorted((ROOT / "firmware" / "fb").rglob("*.py")):
        folder = init.parent
        if "__pycache__" not in folder.parts:
            found[".".join(["flickboard.firmware", *folder.relative_to(ROOT / "firmware").parts])] = folder
    return found


def modules() -> list[tuple[str, Path]]:
    out = []
    for name, folder in FOLDERS.items():
        for p in sorted(folder.rglob("*.py")):
            if "node_modules" in p.parts:
                continue
            out.append((".".join([name, *p.relative_to(folder).with_suffix("").parts]), p))
    return out


def path_of(module: str) -> Path | None:
    """The folder or file of a module of the package (None: not one of its names)."""
    for name, folder in FOLDERS.items():
        if module == name or module.startswith(name + "."):
            return folder.joinpath(*module[len(name) + 1 :].split(".")) if module != name else folder
    return None


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
                where = path_of(full)
                is_module = where is not None and (where.with_suffix(".py").exists() or where.is_dir())
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
        if level:  # inside a game's package a relative import stays inside it; elsewhere names are written in full
            if not inside(module, RULES):
                wrong.append(f"line {line}: a relative import (write flickboard.… in full)")
            continue
        if imported.split(".")[0] in ("host", "rules"):
            wrong.append(f"line {line}: {imported} (the package is flickboard: host/ and rules/ are its folders)")
            continue
        if imported.split(".")[0] != "flickboard":
            continue
        if not allowed(module, imported):
            wrong.append(f"line {line}: {imported}")
    assert not wrong, f"{module} may not import: {wrong}"


def test_the_rules_catch_a_wrong_import() -> None:
    assert not allowed("flickboard.core.session", "flickboard.board.bridge")
    assert not allowed("flickboard.displays.web", "flickboard.board.links")
    assert not allowed("flickboard.rules.games", "flickboard.core.session")
    assert not allowed("flickboard.mqtt", "flickboard.board.protocol")
    assert not allowed("flickboard.tournament.event", "flickboard.mqtt") and allowed(
        "flickboard.tournament.hall", "flickboard.mqtt"
    )
    assert not allowed("flickboard.tournament.hall", "flickboard.board.bridge") and not allowed(
        "flickboard.tournament.hall", "flickboard.cli"
    )
    assert allowed("flickboard.displays.tournament_pages.pages", "flickboard.tournament.hall")
    assert not allowed("flickboard.displays.web", "flickboard.tournament") and not allowed(
        "flickboard.displays.tournament_pages.acts", "flickboard.board"
    )
    assert allowed("flickboard.board.bridge", "flickboard.core.session") and allowed(
        "flickboard.sim.demo", "flickboard.cli.bridge"
    )


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
    assert groups == {"rules", "core", "board", "displays", "firmware", "system", "tournament", "homeassistant"}, groups
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


def test_pyproject_lists_every_package_of_the_folders() -> None:
    """pyproject.toml lists the packages by hand (its folders are mapped, not found): a folder left off would be
    missing from an installed flickboard, and a name listed without its folder would stop the build. The board's
    files are listed too, each folder mapped where host/board/files.py finds it in an installed flickboard."""
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setup = doc["tool"]["setuptools"]
    assert {k: ROOT / v for k, v in setup["package-dir"].items()} == {**FOLDERS, **board_files()}
    folders = {m.removesuffix(".__init__") for m, p in modules() if p.name == "__init__.py"}
    assert sorted(setup["packages"]) == sorted(folders | set(board_files()))


def module_name(path: Path) -> str:
    """The dotted name of a file of the package (`…/__init__.py` is its package)."""
    for name, folder in FOLDERS.items():
        if path.is_relative_to(folder) and not (name == "flickboard" and path.is_relative_to(FOLDERS[RULES])):
            parts = [name, *path.relative_to(folder).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(path)


def package_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import of a module of the package in the file, wherever it is (a deferred
    import inside a function too), relative ones resolved; `names`: what a `from … import` takes from it."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names if inside(a.name, "flickboard")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            if not inside(base, "flickboard"):
                continue
            taken = []
            for a in node.names:
                where = path_of(f"{base}.{a.name}")
                if where is not None and (where.with_suffix(".py").exists() or where.is_dir()):
                    found.append((node.lineno, f"{base}.{a.name}", []))  # a module of the package, imported by name
                else:
                    taken.append(a.name)
            if taken:
                found.append((node.lineno, base, taken))
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for _, path in modules():
        me = module_name(path)
        graph.setdefault(me, set()).update(m for _, m, _ in package_imports(path) if m != me)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import one another, round in a circle (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_modules_import_one_another_in_a_circle() -> None:
    """No circles, not even one broken at run time by an import deferred into a function: each part of the flow
    knows only what comes before it (the pages that plug into the web server import it, never the other way)."""
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_another_modules_private_names() -> None:
    """A name that starts with `_` is its module's own: another module that needs it needs a public name."""
    wrong = []
    for _, path in modules():
        for line, imported, names in package_imports(path):
            wrong += [f"{path.relative_to(ROOT)}:{line}: {imported}.{n}" for n in names if n.startswith("_")]
            if imported.rsplit(".", 1)[-1].startswith("_") and not imported.endswith("__main__"):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {imported}")
    assert wrong == []
