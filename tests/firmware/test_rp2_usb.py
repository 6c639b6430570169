"""A USB host that opens the board's port and does not read, on the emulated Pico (host/sim/rp2): the real rp2 port's
CDC write waits up to 500 ms for room, and the forty lines a `ping` asks for, written in one pass while nobody reads,
used to starve the watchdog. The board must go on capturing, never reset, and hand everything over once the host
reads again (a line the port cut short ends before the next one starts)."""

from __future__ import annotations

from rp2_board import IRQ_LATE_US, Host, flashed

from flickboard.sim.rp2 import Pico


def test_a_host_that_stops_reading_never_trips_the_watchdog_and_loses_nothing() -> None:
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board) as host:
        hello = host.hello()
        host.ack(hello)
        resets = len(board.resets)
        board.usb_reading(False)  # the port stays open (DTR up), nobody reads it
        t0 = board.now_us() + 200_000
        for k in range(40):  # forty hole passes over 4 s, heartbeats every second meanwhile
            board.schedule_beam("hole", t0 + k * 100_000, 3000)
        board.run_until(t0 + 5_000_000)
        host.send({"c": "ping"})  # it still writes: a ping asks for all 40 passes again, in one pass of the loop
        board.run_until(t0 + 14_000_000)  # 14 s unread: more than the 8 s watchdog, after the ping's burst too
        assert len(board.resets) == resets, f"the watchdog reset the board: {board.resets[resets:]}"
        board.usb_reading(True)
        board.go("realtime")
        status = host.command("status", timeout=60)
        assert status.fields["d"]["usb_skip"] > 0, status.fields
        host.send({"c": "ping"})  # the host resends nothing by itself: it asks for what is not acked
        host.collect(lambda: len(host.events("pass", hello.boot)) >= 40, timeout=60)
        passes = host.events("pass", hello.boot)
        assert [m.seq for m in passes] == list(range(2, 42)), "every pass, once, in order"
        assert all(abs(m.fields["dur_us"] - 3000) <= 5 for m in passes)
        spacing = [m.t_us - passes[0].t_us for m in passes]
        late = [got - k * 100_000 for k, got in enumerate(spacing)]
        assert all(abs(d) <= IRQ_LATE_US for d in late), f"their own times: {spacing}"
