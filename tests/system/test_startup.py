"""A command loads what it needs and nothing more, so that it answers at once (docs/performance.md, figure 9 times it).

Each command runs as a user runs it, in a process of its own, and reports every module it had loaded when it
finished: `--help` and `rules list` load no MQTT client, no web server, no graph library, no prompt library, and
`enter`, `scoreboard --once` and the tournament commands only what their own work needs. Deterministic: modules are
counted, not timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from flickboard.cli.bridge import start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.sim.broker import Broker

# Run a command through the entry point and print, on the last line, every module loaded by then.
PROBE = """
import contextlib, io, json, sys
from flickboard.cli.main import main
out = io.StringIO()
try:
    with contextlib.redirect_stderr(io.StringIO()):
        code = main(sys.argv[1:], out=out)
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""

# Third-party libraries that take a tenth of a second or more to load, and what needs them.
WEB = ("starlette", "uvicorn", "httptools", "segno")  # flickboard web
GRAPHS = ("networkx",)  # a graph library: the Swiss pairing has its own matching (flickboard.tournament.matching)
MQTT = ("paho",)  # a broker connection
PROMPT = ("prompt_toolkit",)  # an interactive prompt
SERIAL = ("serial",)  # a board's USB port
HEAVY = (*WEB, *GRAPHS, *MQTT, *PROMPT, *SERIAL)


def loaded(*argv: str, cwd: Path) -> tuple[object, str, set[str]]:
    p = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout.strip().splitlines()[-1])
    return doc["code"], doc["out"], set(doc["modules"])


def offending(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The forbidden packages (and modules of the package) that were loaded."""
    return sorted({f for f in forbidden for m in modules if m == f or m.startswith(f + ".")})


def test_help_loads_no_command(tmp_path: Path) -> None:
    code, _, modules = loaded("--help", cwd=tmp_path)
    assert code == 0
    ours = ("flickboard.rules.games", "flickboard.core", "flickboard.board", "flickboard.tournament")
    assert offending(modules, (*HEAVY, *ours, "flickboard.displays", "flickboard.sim")) == []


@pytest.mark.parametrize("argv", [["rules", "list"], ["rules", "show", "beginner"], ["replay", "--sample"]])
def test_the_rules_load_no_link_page_or_tournament(argv: list[str], tmp_path: Path) -> None:
    code, out, modules = loaded(*argv, cwd=tmp_path)
    assert code == 0 and out.strip()
    assert offending(modules, (*HEAVY, "flickboard.board", "flickboard.tournament", "flickboard.displays")) == []
    if argv[0] == "rules":  # the registry of the games alone: no journal, no session
        assert offending(modules, ("flickboard.core", "orjson")) == []


def test_a_subcommands_help_loads_only_that_command(tmp_path: Path) -> None:
    code, _, modules = loaded("web", "--help", cwd=tmp_path)
    assert code == 0
    assert offending(modules, (*WEB, *GRAPHS, *PROMPT, "flickboard.tournament", "flickboard.board")) == []


def test_tournament_commands_load_no_graph_library_even_to_pair_a_swiss_round(tmp_path: Path) -> None:
    event = str(tmp_path / "open.jsonl")
    run = lambda *a: loaded("tournament", *a, cwd=tmp_path)  # noqa: E731
    assert run("new", event, "--name", "Open")[0] == 0
    for name in ("Ana", "Ben", "Cy", "Di"):
        assert run("add", event, name)[0] == 0
    code, _, modules = run("start", event, "swiss", "--format", "swiss", "--rounds", "3")
    assert code == 0
    assert offending(modules, (*HEAVY, "flickboard.board", "flickboard.displays")) == []
    for action in (["standings", event], ["show", event], ["bracket", event]):
        code, out, modules = run(*action)
        assert code in (0, 2), out
        assert offending(modules, (*HEAVY, "flickboard.board", "flickboard.displays")) == [], action
    code, out, modules = run("pair", event, "swiss")
    assert code == 0 and "Ana" in out
    assert "flickboard.tournament.matching" in modules  # the pairing ran
    assert offending(modules, (*HEAVY, "flickboard.board", "flickboard.displays")) == []


def test_enter_and_scoreboard_load_the_broker_client_and_no_more(broker: Broker, tmp_path: Path) -> None:
    running = start_bridge(
        BridgeConfig(
            mqtt=parse_mqtt_url(broker.url),
            boards=("t1",),
            journals=str(tmp_path / "journals"),
            players=("Ana", "Ben"),
            client_id="startup-test-bridge",
        )
    )
    try:
        assert running.mqtt is not None and running.mqtt.wait_ready(10)
        not_here = (*WEB, *GRAPHS, *PROMPT, *SERIAL, "flickboard.board", "flickboard.tournament", "flickboard.sim")
        code, out, modules = loaded("enter", "--mqtt", broker.url, "--board", "t1", "shot", "zone", cwd=tmp_path)
        assert code == 0 and out.startswith("[1] "), out
        assert offending(modules, not_here) == []
        code, out, modules = loaded("scoreboard", "--mqtt", broker.url, "--board", "t1", "--once", cwd=tmp_path)
        assert code == 0 and "Ana" in out, out
        assert offending(modules, not_here) == []
        # a scoreboard's text is read from the document: no game, no session (host/core/render.py)
        assert offending(modules, ("flickboard.rules.pichenotte.engine", "flickboard.core.session")) == []
    finally:
        running.stop()
