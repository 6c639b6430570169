"""The manual-entry request is read in one place (host/core/entries.py): the bridge's input topic and the web page give
the same one-line reason for the same bad request, and a good request comes out the same from both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.core.entries import MAX_INPUT, Request, RequestError, read_request

BAD = [
    b"not json",
    b"[1]",
    json.dumps({"line": "hit", "new": {"players": ["A", "B"]}}).encode(),
    json.dumps({"lines": "hit"}).encode(),
    json.dumps({"line": "x" * 201}).encode(),
    json.dumps({"line": "hit\nmiss"}).encode(),
    json.dumps({"line": "# a comment"}).encode(),
    json.dumps({"new": {"players": ["Al"]}}).encode(),
    json.dumps({"new": {"players": ["Al", "Bo"], "rules": "nope"}}).encode(),
    json.dumps({"new": {"players": ["Al", "Bo"], "rules": "officiel", "match": "wins:2"}}).encode(),
    json.dumps({"new": {"players": ["Al", "Bo"], "rules": "beginner", "target": "31"}}).encode(),
    json.dumps({"id": [1], "line": "hit"}).encode(),
    json.dumps({"new": {"players": ["Ana: two", "Bo"]}}).encode(),  # a name with the notation's marks
    json.dumps({"new": {"players": ["A" * 61, "Bo"]}}).encode(),
    b'{"line": "' + b"x" * MAX_INPUT + b'"}',
]


@pytest.mark.parametrize("payload", BAD, ids=range(len(BAD)))
def test_the_bridge_refuses_a_bad_request_with_the_reason_read_request_gives(payload: bytes, tmp_path: Path) -> None:
    with pytest.raises(RequestError) as e:
        read_request(payload)
    reason = str(e.value)
    assert reason and "\n" not in reason
    bridge = Bridge(tmp_path / "journals", GameSetup("tournament-2019", ("Ana", "Ben")))
    res = bridge.mqtt_input("t1", payload)
    assert (res["ok"], res["message"]) == (False, reason)
    assert bridge.inputs["invalid"] == 1 and not list(tmp_path.rglob("*.jsonl")), "nothing journaled"


def test_a_good_request() -> None:
    assert read_request(b'{"id": "a1", "line": "  hit "}') == Request("a1", line="hit")
    new = read_request(b'{"id": 7, "new": {"players": [" Ann ", "Bob"], "rules": "officiel", "target": 21}}')
    assert new == Request(7, new={"players": ["Ann", "Bob"], "rules": "officiel", "target": "21"})
    with pytest.raises(RequestError, match="unknown key 'id'"):
        read_request(b'{"id": "mine", "line": "hit"}', with_id=False)  # the web page adds its own id


def test_a_new_game_of_people_with_their_whole_names() -> None:
    new = read_request(json.dumps({"new": {"players": ["Marie-Claire O'Neil", "Zoé Lévesque"]}}).encode())
    assert new.new == {"players": ["Marie-Claire O'Neil", "Zoé Lévesque"]}
