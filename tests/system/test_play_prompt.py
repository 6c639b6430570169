"""`flickboard play`'s prompt on a real terminal: prompt_toolkit, with Tab completing the notation of the match's game
and its player and side names, and a history; and `flickboard enter`'s, typing entries for a running bridge. The
completer alone; a PromptSession fed keys through prompt_toolkit's pipe input; and the real programs on a
pseudo-terminal that says it is an xterm, typing a partial word and Tab. On a dumb terminal, or without
prompt_toolkit, it is readline (tests/system/test_play_pty.py); from a pipe, plain lines
(tests/system/test_commands.py)."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from flickboard.cli.play import completion_words, completions, notation_completer, prompt_session
from flickboard.rules import games
from flickboard.sim.broker import Broker

ROOT = Path(__file__).resolve().parents[2]
PICHENOTTE = completion_words(games.create(None, ["Ana", "Ben"]))


def test_the_completions_of_partial_lines() -> None:
    assert completions(PICHENOTTE, "sh") == ["short ", "shot "]
    assert completions(PICHENOTTE, "shot zo") == ["zone ", "zones "]
    assert completions(PICHENOTTE, "shot hi") == ["hit "]
    assert completions(PICHENOTTE, "An") == ["Ana ", *(f"Ana:{f} " for f in sorted(_facts()))]
    assert completions(PICHENOTTE, "shot ben:d") == ["Ben:ditch "]  # any case
    assert completions(PICHENOTTE, "he") == ["help "]  # the prompt's own words: first word only
    assert completions(PICHENOTTE, "shot he") == []
    assert completions(PICHENOTTE, "cho") == ["choose "]
    assert "undo " in completions(PICHENOTTE, "") and "quit " in completions(PICHENOTTE, "")
    quebec = completion_words(games.create("quebec", ["Ann", "Bob"]))
    assert completions(quebec, "shot r") == ["red ", "rien ", "rouge ", "rouges "]  # the sheet's words too
    assert completions(quebec, "shot c") == [
        *("c10 ", "c5 ", "chien ", "color ", "colour ", "compteuse ", "compteuses ", "correct ", "corrige "),
        *("corriger ", "couleur ", "coup "),
    ]
    assert completions(quebec, "B") == ["Bob "]
    flicochet = completion_words(games.create("flicochet", ["Cy", "Di", "Ed"]))
    assert completions(flicochet, "E") == ["Ed ", "exit "] and completions(flicochet, "off E") == ["Ed "]


def _facts() -> set[str]:
    return {w.split(":", 1)[1] for w in PICHENOTTE if w.startswith("Ana:")}


def test_the_prompt_toolkit_completer() -> None:
    completer = notation_completer(PICHENOTTE)
    got = list(completer.get_completions(Document("shot zo"), CompleteEvent(completion_requested=True)))
    assert [(c.text, c.start_position, c.display_text) for c in got] == [("zone ", -2, "zone"), ("zones ", -2, "zones")]


def _typed(*chunks: str, prompts: int = 1) -> list[str]:
    """The lines a PromptSession returns for keys typed in `chunks`."""
    lines = []
    with create_pipe_input() as inp:
        session = prompt_session(PICHENOTTE, input=inp, output=DummyOutput())
        feed = threading.Thread(target=lambda: [(time.sleep(0.05), inp.send_text(c)) for c in chunks])
        feed.start()
        for _ in range(prompts):
            lines.append(session.prompt("> "))
        feed.join()
    return lines


@pytest.mark.parametrize(
    ("keys", "line"),
    [
        ("shot zo\t\r", "shot zone"),  # `zone` and `zones`: what they share
        ("shot hi\t\r", "shot hit "),  # one completion: the word and a space
        ("cho\tlea\t\r", "choose leave "),
        ("shot An\t\r", "shot Ana"),
        ("shot Ben:di\t\r", "shot Ben:ditch "),
        ("sh\t\t\r", "sho"),  # `short` and `shot` share `sho`; a second Tab shows them
        ("sh\t\t\t\r", "short "),  # the next Tab goes through them
        ("sh\t\t\t\t\r", "shot "),
        ("xyz\t\r", "xyz"),  # nothing to complete: nothing changes
    ],
)
def test_tab_in_a_prompt_session(keys: str, line: str) -> None:
    assert _typed(keys) == [line]  # all keys at once: Tab completes before the next key is read


def test_the_history_recalls_earlier_lines() -> None:
    assert _typed("shot hit\r", "undo\r", "\x1b[A\x1b[A\r", prompts=3) == ["shot hit", "undo", "shot hit"]


def _controlling_tty() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Xterm:
    """`flickboard play` on a pseudo-terminal that says it is an xterm; what it draws, escapes left in."""

    def __init__(self, cwd: Path, argv: list[str], **env: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        environ = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "INPUTRC": "/dev/null", **env}
        environ["PROMPT_TOOLKIT_NO_CPR"] = "1"  # nobody on this terminal answers a cursor position request
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=environ,
            start_new_session=True, preexec_fn=_controlling_tty,
        )  # fmt: skip
        os.close(slave)
        self.screen = b""
        self.mark = 0

    def expect(self, text: bytes, timeout: float = 10) -> bytes:
        """Wait until `text` shows after the mark; return what came up to it and move the mark past it."""
        deadline = time.monotonic() + timeout
        while text not in self.screen[self.mark :]:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left))
            data = b""
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    data = b""
            if not data and (left <= 0 or ready):
                pytest.fail(f"did not see {text!r}; the screen: {self.screen[-3000:]!r}")
            self.screen += data
        at = self.screen.index(text, self.mark) + len(text)
        seen, self.mark = self.screen[self.mark : at], at
        return seen

    def type(self, keys: str, pause: float = 0.15) -> None:
        time.sleep(pause)  # a person's pace
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        os.close(self.master)


FLICKBOARD = str(Path(sys.executable).with_name("flickboard"))


def test_the_real_program_completes_on_a_terminal(tmp_path: Path) -> None:
    t = Xterm(tmp_path, [FLICKBOARD, "play", "--players", "Ana", "Kim", "--journal", "j.jsonl"])
    try:
        t.expect(b"\x1b[?2004h")  # prompt_toolkit draws its prompt (bracketed paste on)
        t.type("shot z")
        t.type("\t")
        t.expect(b"one")  # the word completed on the screen: `zone` and `zones` share it
        t.type("\r")
        t.expect(b"ok [1] shot zone")
        t.expect(b"\x1b[?2004h")
        t.type("shot Ki")
        t.type("\t")
        t.expect(b"m")  # `Kim`, and `Kim:in`... share it
        t.type(" hi")
        t.type("\t")
        t.expect(b"t")
        t.type("\r")
        t.expect(b"ok [2] shot Kim hit")
        t.expect(b"\x1b[?2004h")
        t.type("un")
        t.type("\t")
        t.type("\r")
        t.expect(b"ok [3] undid entry 2")
        t.expect(b"\x1b[?2004h")
        t.type("\x1b[A")  # Up: the history
        t.type("\r")
        t.expect(b"ok [4] undid entry 1")
        t.expect(b"\x1b[?2004h")
        t.type("\x04")  # Ctrl-D leaves
        t.expect(b"Journal saved: j.jsonl")
        assert t.proc.wait(10) == 0
    finally:
        t.close()
    lines = (tmp_path / "j.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert [json.loads(line)["in"] for line in lines] == ["shot zone", "shot Kim hit", "undo", "undo"]


def test_without_prompt_toolkit_it_is_readline(tmp_path: Path) -> None:
    """prompt_toolkit missing: the same Tab completion through readline."""
    code = (
        "import sys; sys.modules['prompt_toolkit'] = None\n"  # import prompt_toolkit now raises ImportError
        "from flickboard.cli.main import main\n"
        "sys.exit(main(['play', '--players', 'Ana', 'Ben', '--journal', 'r.jsonl']))\n"
    )
    t = Xterm(tmp_path, [sys.executable, "-c", code])
    try:
        t.expect(b"> ")
        t.type("cho\tlea\t\r")  # nothing to choose: refused, but written whole
        t.expect(b"refused [1]")
        t.type("\x04")
        t.expect(b"Journal saved: r.jsonl")
        assert t.proc.wait(10) == 0
    finally:
        t.close()
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert [json.loads(line)["in"] for line in lines] == ["choose leave"]


def _bridge(broker: Broker, journals: Path) -> subprocess.Popen[str]:
    url = f"mqtt://{broker.host}:{broker.port}"
    args = ["bridge", "--mqtt", url, "--boards", "t1", "--journals", str(journals), "--players", "Ana", "Kim"]
    bridge = subprocess.Popen([FLICKBOARD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert bridge.stdout is not None and "flickboard bridge: mqtt" in bridge.stdout.readline()
    return bridge


def _stop(bridge: subprocess.Popen[str]) -> None:
    bridge.send_signal(signal.SIGTERM)
    bridge.wait(20)
    err = bridge.stderr.read() if bridge.stderr else ""
    assert "Traceback" not in err, err
    for f in (bridge.stdout, bridge.stderr):
        if f is not None:
            f.close()


def test_enter_at_a_terminal_completes_the_boards_game(broker: Broker, tmp_path: Path) -> None:
    """`flickboard enter` without an entry, at a terminal: the words of the board's game (from its retained
    scoreboard), its players' names and the bridge's own words complete; each entry is answered."""
    bridge = _bridge(broker, tmp_path / "journals")
    url = f"mqtt://{broker.host}:{broker.port}"
    t = Xterm(tmp_path, [FLICKBOARD, "enter", "--mqtt", url, "--board", "t1"])
    try:
        t.expect(b"entries for board t1: one per line")
        t.expect(b"\x1b[?2004h")
        t.type("shot z")
        t.type("\t")
        t.expect(b"one")
        t.type("\r")
        t.expect(b"[1] shot zone")
        t.expect(b"\x1b[?2004h")
        t.type("shot Ki")
        t.type("\t")
        t.expect(b"m")
        t.type(" hi\t\r")
        t.expect(b"[2] shot Kim hit")
        t.expect(b"\x1b[?2004h")
        t.type("revi\t\r")  # the bridge's own word: nothing to review
        t.expect(b"refused: ")
        t.expect(b"\x1b[?2004h")
        t.type("\x04")
        assert t.proc.wait(10) == 1  # one entry was refused
    finally:
        t.close()
        _stop(bridge)
    lines = next((tmp_path / "journals" / "t1").glob("*.jsonl")).read_text(encoding="utf-8").splitlines()[1:]
    assert [json.loads(line)["in"] for line in lines] == ["shot zone", "shot Kim hit", "reviewed"]


def test_enter_reads_entries_from_a_pipe(broker: Broker, tmp_path: Path) -> None:
    bridge = _bridge(broker, tmp_path / "journals")
    url = f"mqtt://{broker.host}:{broker.port}"
    try:
        p = subprocess.run(
            [FLICKBOARD, "enter", "--mqtt", url, "--board", "t1"],
            input="shot zone\n# a comment\n\nhit\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 0, p.stderr
        assert p.stdout.splitlines() == ["[1] shot zone", "[2] hit"]
        empty = subprocess.run(
            [FLICKBOARD, "enter", "--mqtt", url, "--board", "t1"], input="", capture_output=True, text=True, timeout=60
        )
        assert empty.returncode == 2 and "give the entry to send" in empty.stderr
    finally:
        _stop(bridge)
