"""`watch` on the emulated Pico (host/sim/rp2): the real rp2 port streams a reply each time a beam changes, from its
hard pin IRQs through the detectors, and stops when told (tests/firmware/test_fw_watch.py: the unix port)."""

from __future__ import annotations

from rp2_board import Host, flashed

from flickboard.sim.rp2 import Pico


def test_watch_streams_the_beams_on_the_real_rp2_port() -> None:
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        first = host.command("watch", s=60)
        assert first.fields["ok"] is True and first.fields["d"]["s"] == 60, first.fields
        idle = first.fields["d"]["sensors"]
        assert idle["hole"] == "clear" and idle["ditch3"] == "clear" and idle["baseline"] == [], idle
        wid = first.fields["id"]
        t0 = board.hold() + 50_000
        board.schedule_beam("hole", t0, 100_000)
        board.schedule_beam("ditch3", t0 + 200_000, 100_000)
        board.go("fast")

        def stream() -> list[dict[str, object]]:
            return [
                m.fields["d"]["sensors"]
                for m in host.msgs
                if m.kind == "reply" and m.fields.get("c") == "watch" and m.fields.get("id") == wid
            ]

        host.collect(lambda: len(stream()) >= 5)
        assert stream() == [
            idle,
            {**idle, "hole": "broken"},
            idle,
            {**idle, "ditch3": "broken"},
            idle,
        ], stream()
        stop = host.command("watch", s=0)
        assert stop.fields["ok"] is True and stop.fields["d"]["s"] == 0
