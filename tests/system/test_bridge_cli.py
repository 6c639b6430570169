"""The bridge's commands as a user runs them: `flickboard bridge` (entries typed at its terminal), `flickboard enter`
and `flickboard scoreboard` against a real Mosquitto; plain one-line errors, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.sim.broker import Broker

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FLICKBOARD, *args], capture_output=True, text=True, timeout=timeout)


def one_line_error(p: subprocess.CompletedProcess[str], *words: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flickboard: "), p.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_bridge_needs_a_link_and_says_so() -> None:
    one_line_error(run("bridge"), "give a board link")


def test_no_board_on_usb_is_one_clear_line(tmp_path: Path) -> None:
    one_line_error(run("bridge", "--serial", "auto", "--journals", str(tmp_path)), "no Flickboard found on USB")


def test_bad_settings_are_one_line_naming_their_source(tmp_path: Path) -> None:
    one_line_error(run("bridge", "--config", str(tmp_path / "nope.toml"), "--mqtt", "mqtt://x"), "not found")
    one_line_error(run("bridge", "--mqtt", "http://x"), "--mqtt")
    bad = tmp_path / "b.toml"
    bad.write_text('players = ["Solo"]\nmqtt = "mqtt://127.0.0.1:1"\n')
    one_line_error(run("bridge", "--config", str(bad)), "2 to 6 players")
    one_line_error(run("bridge", "--mqtt", "mqtt://127.0.0.1:1", "--rules", "chess"), "chess")


def test_integrations_with_nothing_enabled_say_so() -> None:
    one_line_error(run("integrations", "--mqtt", "mqtt://127.0.0.1:1"), "enable at least one of --homeassistant")


def test_enter_without_a_bridge_times_out_plainly(broker: Broker) -> None:
    url = f"mqtt://127.0.0.1:{broker.port}"
    one_line_error(run("enter", "--mqtt", url, "--board", "b1", "--timeout", "1", "hit"), "no answer from a bridge")
    one_line_error(run("scoreboard", "--mqtt", url, "--board", "b1", "--once", "--timeout", "1"), "no scoreboard")


def test_a_scorer_at_the_bridge_terminal_and_on_a_phone(broker: Broker, tmp_path: Path) -> None:
    url = f"mqtt://127.0.0.1:{broker.port}"
    statuses: list[bytes] = []
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="status-watch")
    c.on_connect = lambda cl, *_: cl.subscribe("flickboard/bridge/status", 1)
    c.on_message = lambda _c, _u, m: statuses.append(bytes(m.payload))
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    bridge = subprocess.Popen(
        [
            FLICKBOARD,
            "bridge",
            "--mqtt",
            url,
            "--boards",
            "t1",
            "--journals",
            str(tmp_path),
            "--players",
            "Ana",
            "Ben",
            "--stdin",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert bridge.stdin is not None and bridge.stdout is not None
    try:
        assert "flickboard bridge: mqtt" in bridge.stdout.readline()
        bridge.stdin.write("shot zone\n")
        bridge.stdin.flush()
        lines = [bridge.stdout.readline() for _ in range(3)]  # the journal, the hint, then the answer
        assert lines[-1].startswith("[1] shot zone"), lines
        deadline = time.monotonic() + 10
        while b"online" not in statuses and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b"online" in statuses, f"the bridge's online status was not seen: {statuses}"
        entered = run("enter", "--mqtt", url, "--board", "t1", "hit")  # Ben's shot, from a phone
        assert entered.returncode == 0 and entered.stdout.startswith("[2] ") and "hit" in entered.stdout
        refused = run("enter", "--mqtt", url, "--board", "t1", "shot", "Ben", "hit")
        assert refused.returncode == 1 and "refused: " in refused.stdout and "Ana's shot" in refused.stdout
        board = run("scoreboard", "--mqtt", url, "--board", "t1", "--once")
        assert board.returncode == 0 and "Ana vs Ben" in board.stdout and "board t1" in board.stdout
        big = run("scoreboard", "--mqtt", url, "--board", "t1", "--once", "--big", "--color", "always")
        assert big.returncode == 0 and "█" in big.stdout and "\x1b[1;36mANA" in big.stdout, big.stdout
        bridge.stdin.write("undo\n")  # typed at the bridge: the same journal
        bridge.stdin.close()  # end of input: the bridge stops cleanly
        assert bridge.wait(20) == 0
    finally:
        if bridge.poll() is None:
            bridge.kill()
        c.loop_stop()
    err = bridge.stderr.read() if bridge.stderr else ""
    assert "Traceback" not in err
    recs = [json.loads(ln) for ln in next(tmp_path.glob("t1/*.jsonl")).read_text().splitlines()[1:]]
    assert [r["in"] for r in recs] == ["shot zone", "hit", "shot Ben hit", "undo"]
    assert statuses[-1] == b"offline", statuses  # stopping says so (the last will covers a crash)


def test_enter_new_starts_another_game_on_the_board(broker: Broker, tmp_path: Path) -> None:
    """`enter --new --rules …` changes a board's game; the rule set names it (Flicochet here, seed 004)."""
    url = f"mqtt://127.0.0.1:{broker.port}"
    bridge = subprocess.Popen(
        [FLICKBOARD, "bridge", "--mqtt", url, "--boards", "t2", "--journals", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert bridge.stdout is not None and "flickboard bridge: mqtt" in bridge.stdout.readline()
        new = run(
            "enter", "--mqtt", url, "--board", "t2", "--new", "--rules", "flicochet", "--players", "Ann", "Bob",
            "--target", "3",
        )  # fmt: skip
        assert new.returncode == 0, (new.stdout, new.stderr)
        bad = run("enter", "--mqtt", url, "--board", "t2", "--new", "--rules", "officiel", "--players", "A", "B",
                  "--match", "wins:2")  # fmt: skip
        assert bad.returncode == 1 and "match format, not an option of Québec Pichenottes" in bad.stdout, bad.stdout
        assert run("enter", "--mqtt", url, "--board", "t2", "flick").returncode == 0
        board = run("scoreboard", "--mqtt", url, "--board", "t2", "--once", "--plain")
        assert board.returncode == 0, board.stderr
        assert "Flicochet · base game · to 3 · red (Ann) vs white (Bob)" in board.stdout, board.stdout
        assert "Bob (white) to flick" in board.stdout or "1 flick(s)" in board.stdout, board.stdout
    finally:
        bridge.terminate()
        bridge.wait(20)
    assert "Traceback" not in (bridge.stderr.read() if bridge.stderr else "")


def test_the_broker_password_from_a_file_or_the_environment_never_in_ps(tmp_path: Path) -> None:
    """`flickboard scoreboard` and `flickboard web` (and enter, integrations: the same options) log in with a
    password kept in a file or in the environment: the running command's arguments, which anyone on the machine can
    read in `ps`, hold no password (issue 19, 7). A wrong or missing one is refused in one line."""
    import contextlib
    import os
    import secrets
    import urllib.request

    from flickboard.sim.broker import free_port, mosquitto

    secret = secrets.token_urlsafe(12)
    pwfile = tmp_path / "passwords"
    made = subprocess.run(["mosquitto_passwd", "-b", "-c", str(pwfile), "display", secret], capture_output=True)
    assert made.returncode == 0, made.stderr
    with mosquitto(f"allow_anonymous false\npassword_file {pwfile}\n") as b:
        doc = json.loads(
            (Path(__file__).parents[2] / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```")[0]
        )
        pub = mqtt.Client(CallbackAPIVersion.VERSION2)
        pub.username_pw_set("display", secret)
        pub.connect(b.host, b.port)
        pub.loop_start()
        pub.publish(
            "flickboard/t1/scoreboard", json.dumps({**doc, "board": "t1"}), qos=1, retain=True
        ).wait_for_publish(5)
        url = f"mqtt://display@{b.host}:{b.port}"
        mine = tmp_path / "display.pw"
        mine.write_text(secret + "\n")
        once = run("scoreboard", "--mqtt", url, "--password-file", str(mine), "--board", "t1", "--once", "--plain")
        assert once.returncode == 0 and "t1" in once.stdout, once.stderr
        env = {**os.environ, "FLICKBOARD_MQTT_PASSWORD": secret}
        follow = subprocess.Popen(
            [FLICKBOARD, "scoreboard", "--mqtt", url, "--board", "t1", "--plain"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert follow.stdout is not None
            assert "t1" in follow.stdout.readline() + follow.stdout.readline()  # logged in: the scoreboard came
            cmdline = Path(f"/proc/{follow.pid}/cmdline").read_bytes()
            assert secret.encode() not in cmdline and b"display@" in cmdline
        finally:
            follow.terminate()
            follow.communicate(timeout=10)
        port = free_port()
        web = subprocess.Popen(
            [FLICKBOARD, "web", "--mqtt", url, "--password-file", str(mine), "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 20
            boards = ""
            while "t1" not in boards and time.monotonic() < deadline:
                time.sleep(0.1)
                with contextlib.suppress(OSError):
                    boards = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/boards", timeout=2).read().decode()
            assert "t1" in boards, "the web server never logged in to read the board's scoreboard"
            assert secret.encode() not in Path(f"/proc/{web.pid}/cmdline").read_bytes()
        finally:
            web.terminate()
            web.communicate(timeout=10)
        mine.write_text("wrong\n")
        one_line_error(
            run("scoreboard", "--mqtt", url, "--password-file", str(mine), "--board", "t1", "--once"), "refused"
        )
        one_line_error(run("scoreboard", "--mqtt", url, "--board", "t1", "--once"), "refused")
        pub.loop_stop()
