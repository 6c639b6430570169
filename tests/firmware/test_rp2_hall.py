"""The hall strip along the baseline on the emulated Pico (host/sim/rp2), played from the simulated board's scenario
format: a puck leaving the baseline is a `shot_start`, a puck coming to rest on it soon after is a `baseline_rest`, each
with its quadrant and segment. The strip as the shipped pico_w profile wires it, and as MUX_PROFILE does: behind two
74HC4067s sharing their select lines (32 segments, /E on a pin), as the ESP32 board does. The emulator answers the
select outputs with the chosen channel at once, in emulated time."""

from __future__ import annotations

from typing import Any

from rp2_board import MUX_PROFILE, Host, flashed

from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile

# A change is dated by the main-loop pass that first sees it: the time that pass began, which can be before the
# change (it happened while the pass ran) or after it (it happened between passes).
PASS_US = 50_000


def quadrant(seg: int, count: int) -> int:
    return seg * 4 // count + 1


def play_strip(board: Pico, count: int, start: list[int], moves: list[tuple[int, int, bool]]) -> list[dict[str, Any]]:
    """Pucks on `start` at boot, then (ms after t0, segment, present) moves; returns the hall events as dicts."""
    board.play({"hall_start": start, "events": []})  # before the app's first scan
    board.go("fast")
    with Host(board) as host:
        host.hello()
        t0 = board.hold() + 50_000
        events: list[dict[str, Any]] = [{"at_ms": -20, "beam": "hole", "dur_us": 1000}]  # a pass marks the time
        events += [{"at_ms": at, "hall": "baseline", "seg": seg, "present": p} for at, seg, p in moves]
        board.play({"events": events}, t0)
        board.go("fast")
        host.collect(lambda: len(host.events("shot_start")) + len(host.events("baseline_rest")) >= len(moves))
        offset = host.events("pass")[0].t_us - (t0 - 20_000)  # board µs = rig µs + offset
        out = []
        for m in sorted(host.events("shot_start") + host.events("baseline_rest"), key=lambda m: m.seq):
            out.append({"m": m.kind, **m.fields, "late_us": m.t_us - offset - t0})
        return out


def check(events: list[dict[str, Any]], count: int, moves: list[tuple[int, int, bool]]) -> None:
    assert [(e["m"], e["seg"], e["q"]) for e in events] == [
        ("baseline_rest" if present else "shot_start", seg, quadrant(seg, count)) for _, seg, present in moves
    ]
    for e, (at, _, _) in zip(events, moves, strict=True):
        assert abs(e["late_us"] - at * 1000) <= PASS_US, (e, at)


def moves_for(count: int) -> tuple[list[int], list[tuple[int, int, bool]]]:
    """Pucks at boot, then a shot from the first quadrant, a rest in the last, a shot from the third, a rest in the
    second, across the whole strip (every multiplexer of a long one)."""
    half, quarter = count // 2 + 1, count // 4 + 1
    return [2, half], [(0, 2, False), (300, count - 3, True), (600, half, False), (900, quarter, True)]


def test_pucks_leaving_and_resting_on_the_shipped_pico_w_strip() -> None:
    """The strip as hardware/profiles/pico_w.json wires it (direct pins or multiplexers)."""
    hall = next(s for s in load_profile("pico_w")["sensors"] if s["kind"] == "hall")
    count = hall["count"]
    start, moves = moves_for(count)
    with Pico(flash=flashed("pico_w"), pace="hold") as board:
        check(play_strip(board, count, start, moves), count, moves)
        # Issue 33: a PIO state machine walks the multiplexers (GPIO function 6/7: PIO0/PIO1), not the CPU.
        assert [board.pin(p)["func"] for p in hall["mux"]["select"]] in ([6] * 4, [7] * 4)
        assert all(board.pin(p)["output"] for p in hall["mux"]["select"])


def test_pucks_leaving_and_resting_through_two_multiplexers() -> None:
    count = 32
    start, moves = moves_for(count)
    with Pico(flash=flashed("pico_w_mux"), profile=MUX_PROFILE, pace="hold") as board:
        events = play_strip(board, count, start, moves)
        check(events, count, moves)
        # The firmware drives the mux: /E low, select lines as outputs.
        mux = next(s for s in MUX_PROFILE["sensors"] if s["kind"] == "hall")["mux"]
        assert board.output(mux["enable"]) == 0
        assert all(board.pin(p)["output"] for p in mux["select"])
