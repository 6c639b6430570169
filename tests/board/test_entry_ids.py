"""Why every entry carries an id (docs/mqtt.md, "The request"; issue 19, 8). MQTT's QoS 1 delivers at least once:
a bridge stopped after journaling an entry but before the broker had its acknowledgement is handed the same
message again when it starts. With an id the bridge finds the entry in the journal and answers it again; without
one it cannot tell the copy from a second entry. `flickboard enter` and the web page always send an id."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.config import parse_mqtt_url
from flickboard.core import journal
from flickboard.displays.web.config import WebConfig
from flickboard.displays.web.hub import Hub
from flickboard.sim.broker import Broker

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")


def bridge_on(folder: Path) -> Bridge:
    """A bridge on the journals in `folder`: a new one each time, as after a kill -9 and a restart."""
    return Bridge(folder, GameSetup("tournament-2019", ("Ana", "Ben")), ("t1",), None)


def entries(folder: Path) -> list[str]:
    path = next((folder / "t1").glob("*.jsonl"))
    return [r["in"] for r in journal.read(str(path)).records if r.get("src") == "manual"]


def test_a_redelivered_entry_with_an_id_is_answered_again_and_journaled_once(tmp_path: Path) -> None:
    first = bridge_on(tmp_path)
    payload = json.dumps({"id": "phone-41", "line": "shot in"}).encode()
    answer = first.mqtt_input("t1", payload)
    assert answer["ok"] and answer["entry"] is not None
    first.close()
    again = bridge_on(tmp_path)  # the broker hands the unacknowledged message over again
    repeat = again.mqtt_input("t1", payload)
    assert (repeat["ok"], repeat["entry"], repeat["id"]) == (True, answer["entry"], "phone-41")
    assert entries(tmp_path).count("shot in") == 1
    again.close()


def test_without_an_id_the_copy_is_a_second_entry(tmp_path: Path) -> None:
    """The risk an id-less client takes, shown: the same redelivery journals the entry twice."""
    first = bridge_on(tmp_path)
    payload = json.dumps({"line": "shot in"}).encode()
    assert first.mqtt_input("t1", payload)["ok"]
    first.close()
    again = bridge_on(tmp_path)
    assert again.mqtt_input("t1", payload)["ok"]
    assert entries(tmp_path).count("shot in") == 2
    again.close()


def test_enter_and_the_web_page_always_send_an_id(broker: Broker) -> None:
    """What `flickboard enter` and the web page put on the input topic, seen by a client of the broker."""
    seen: list[dict[str, object]] = []
    spy = mqtt.Client(CallbackAPIVersion.VERSION2)
    spy.on_message = lambda _c, _u, m: seen.append(json.loads(m.payload))
    listening = threading.Event()
    spy.on_subscribe = lambda *_a: listening.set()
    spy.connect(broker.host, broker.port)
    spy.subscribe("flickboard/t1/input", qos=1)
    spy.loop_start()
    assert listening.wait(10), "the spy's subscription was not acknowledged"
    hub = Hub(WebConfig(parse_mqtt_url(broker.url), answer_timeout=0.5), lambda _line: None)
    hub.start()
    try:
        assert hub.subscriber.wait_ready(10), "the hub did not connect"
        for args in (["hit"], ["--new", "--players", "Cy", "Di"]):
            enter = [FLICKBOARD, "enter", "--mqtt", broker.url, "--board", "t1", "--timeout", "0.5", *args]
            assert subprocess.run(enter, capture_output=True, timeout=30).returncode == 2  # no bridge answers
        assert hub.send("t1", {"line": "hit"})[0] == 504  # no bridge answers
        deadline = time.monotonic() + 10
        while len(seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(seen) == 3 and all(isinstance(r.get("id"), str) and r["id"] for r in seen), seen
        assert len({r["id"] for r in seen}) == 3  # a fresh one each time
    finally:
        hub.stop()
        spy.loop_stop()
        spy.disconnect()
