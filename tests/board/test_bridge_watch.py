"""Each bridge's own topics and the display's BridgeWatch (host/mqtt.py), and the `bridge_id` setting
(host/config.py). Two bridges live on one broker in tests/system/test_two_bridges.py."""

from __future__ import annotations

import pytest

from flickboard.config import ConfigError, default_bridge_id, load_config
from flickboard.mqtt import (
    BRIDGE_STATUS,
    EVERY_BRIDGE,
    EVERY_BRIDGE_STATUS,
    HEALTH,
    STATUS,
    BridgeWatch,
    bridge_topic,
    parse_board_topic,
    parse_bridge_topic,
)


def test_the_bridge_topics() -> None:
    assert bridge_topic("hall", STATUS) == "flickboard/bridge/hall/status"
    assert bridge_topic("hall", HEALTH) == "flickboard/bridge/hall/health"
    assert bridge_topic(EVERY_BRIDGE, STATUS) == EVERY_BRIDGE_STATUS == "flickboard/bridge/+/status"
    for bad in ("a/b", "", "x" * 33, "#"):
        with pytest.raises(ValueError):
            bridge_topic(bad, STATUS)
    with pytest.raises(ValueError):
        bridge_topic("hall", "raw")
    assert parse_bridge_topic("flickboard/bridge/hall/status") == ("hall", "status")
    assert parse_bridge_topic("flickboard/bridge/hall/health") == ("hall", "health")
    for other in ("flickboard/bridge/status", "flickboard/hall/status", "flickboard/bridge/h all/status", "x/y"):
        assert parse_bridge_topic(other) is None
    # a board's topics never take a bridge's for a board's, nor the other way round
    assert parse_board_topic("flickboard/bridge/hall/status") is None and parse_board_topic(BRIDGE_STATUS) is None


def test_bridge_watch_answers_for_the_owner_of_each_scoreboard() -> None:
    w = BridgeWatch()
    assert set(BridgeWatch.TOPICS) == {EVERY_BRIDGE_STATUS, BRIDGE_STATUS}
    a, b = {"board": "t1", "bridge": "hall"}, {"board": "t2", "bridge": "annex"}
    old = {"board": "t3"}  # from a bridge older than per-bridge topics
    assert w.owner_online(a) is None and w.owner_online(old) is None  # nothing heard: not known
    assert w.feed("flickboard/bridge/hall/status", b"online") and w.feed("flickboard/bridge/annex/status", b"online")
    assert not w.feed("flickboard/t1/scoreboard", b"{}") and not w.feed("flickboard/bridge/hall/health", b"{}")
    assert w.owner_online(a) is True and w.owner_online(b) is True
    w.feed("flickboard/bridge/annex/status", b"offline")
    assert w.owner_online(a) is True and w.owner_online(b) is False  # only the annex's boards are stale
    assert w.bridges == {"hall": True, "annex": False}
    # the shared status answers only for documents that name no bridge
    w.feed(BRIDGE_STATUS, b"offline")
    assert w.owner_online(old) is False and w.owner_online(a) is True
    w.feed(BRIDGE_STATUS, b"online\n")
    assert w.owner_online(old) is True
    # junk is ignored, a cleared retained status forgets the bridge, a bad owner is not known
    assert w.feed("flickboard/bridge/hall/status", b"maybe") and w.online("hall") is True
    w.feed("flickboard/bridge/hall/status", b"")
    assert w.online("hall") is None and w.owner_online(a) is None
    assert w.owner_online({"bridge": "no/such"}) is None and w.owner_online({"bridge": 7}) is None
    assert w.owner_online("not a document") is None


def test_the_bridge_id_setting() -> None:
    assert load_config(None, env={}, cli={}).bridge_id == "flickboard-bridge"
    assert load_config(None, env={}, cli={"client_id": "club bridge.2"}).bridge_id == "club-bridge-2"
    assert load_config(None, env={"FLICKBOARD_BRIDGE_ID": "hall"}, cli={"client_id": "x"}).bridge_id == "hall"
    assert load_config(None, env={}, cli={"bridge_id": " annex_2 "}).bridge_id == "annex_2"
    assert default_bridge_id("b" * 64) == "b" * 32
    for bad in ("a/b", "a b", "x" * 33, "+"):
        with pytest.raises(ConfigError, match="--bridge-id: bad bridge id"):
            load_config(None, env={}, cli={"bridge_id": bad})
