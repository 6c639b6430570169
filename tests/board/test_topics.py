"""MQTT topics and clients have one owner: host/mqtt.py. No other module of the host or the bench spells
`flickboard/...` in code (docstrings may describe a topic) or makes a paho client; and the topics it builds are the
ones the docs name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flickboard import mqtt

ROOT = Path(__file__).resolve().parents[2]


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of every docstring node of the module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def spelled_topics(path: Path, base: Path = ROOT) -> list[str]:
    """`file:line` of every string in code that begins like a topic (`flickboard/`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    hits: set[tuple[int, str]] = set()  # (an f-string's first part is a string too: counted once per line)
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
        if text is not None and text.startswith("flickboard/"):
            hits.add((node.lineno, f"{path.relative_to(base)}:{node.lineno}"))
    return [name for _, name in sorted(hits)]


def test_no_module_but_host_mqtt_spells_a_topic() -> None:
    files = [p for d in ("host", "bench") for p in (ROOT / d).rglob("*.py") if "node_modules" not in p.parts]
    assert len(files) > 40
    found = [hit for p in files if p != ROOT / "host" / "mqtt.py" for hit in spelled_topics(p)]
    assert found == [], f"topics spelled outside host/mqtt.py: {found}"


def test_every_mqtt_client_comes_from_one_factory() -> None:
    """Credentials, TLS, the will, reconnects and TCP_NODELAY are set up in one place: `flickboard.mqtt.client`."""
    made = []
    for p in (ROOT / "host").rglob("*.py"):
        if p == ROOT / "host" / "mqtt.py" or "node_modules" in p.parts:
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Client":
                made.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert made == [], f"paho clients made outside host/mqtt.py: {made}"


def test_the_check_finds_a_spelled_topic(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""flickboard/<board>/raw in a docstring is fine."""\nT = f"flickboard/{1}/raw"\nU = "flickboard/x"\n'
    )
    assert spelled_topics(sample, tmp_path) == ["sample.py:2", "sample.py:3"]


def test_every_board_topic_is_in_the_docs() -> None:
    docs = (ROOT / "docs" / "mqtt.md").read_text() + (ROOT / "docs" / "protocol.md").read_text()
    for kind in mqtt.BOARD_KINDS:
        assert f"flickboard/<board>/{kind}" in docs, kind
    assert mqtt.BRIDGE_STATUS in docs and mqtt.BRIDGE_HEALTH in docs


@pytest.mark.parametrize(
    ("topic", "parsed"),
    [
        ("flickboard/t1/raw", ("t1", "raw")),
        ("flickboard/bridge/status", None),
        ("flickboard/t1/other", None),
        ("flickboard/a b/raw", None),
        ("flickboard/t1/raw/x", None),
        ("elsewhere/t1/raw", None),
    ],
)
def test_a_board_topic_read_back(topic: str, parsed: tuple[str, str] | None) -> None:
    assert mqtt.parse_board_topic(topic) == parsed
    if parsed:
        assert mqtt.board_topic(*parsed) == topic
    with pytest.raises(ValueError):
        mqtt.board_topic("t1", "nonsense")
