"""The simulated board's scenarios (firmware/fb/sim.py, host/sim/board_scenario.py), played on the emulated Pico.

A scenario's `events` become line changes at exact emulated times, `t0_us + at_ms * 1000`:
    {"at_ms": 100, "beam": "hole", "dur_us": 800}              the beam broken for 800 µs
    {"at_ms": 100, "beam": "hole", "dur_us": 800, "lost": "start"|"end"|"both"}
    {"at_ms": 400, "hall": "baseline", "seg": 3, "present": false}
and `hall_start` (segments with a puck on them) is applied at once. On the simulated board `lost` skips the IRQ of
an edge; on the rp2 port an IRQ is lost when edges come faster than MicroPython's GPIO handler acknowledges them
(about 0.2 µs after an edge): the handler then runs once for all of them. So here a lost edge comes with a glitch
just before it (the line flips at t - 100 ns and back at t - 50 ns): the PIO edge counter sees three edges where the
IRQ handler runs once, and reads the final level. `profile` must be the profile the board runs; `board_id`,
`heartbeat_ms`, `end_ms`, `holds`, `control`, `mqtt` and `stamps` are the simulator's own and are not used here.
"""

from __future__ import annotations

from typing import Any

from flickboard.sim.rp2.images import RigError
from flickboard.sim.rp2.parts import Level, Wiring

LOST_GLITCH_NS = (100, 50)  # the glitch before a lost edge: flips this long before the edge, and back


Change = tuple[int, int, Level]  # (emulated ns, line, level)


def initial(scenario: dict[str, Any], wiring: Wiring) -> list[tuple[int, Level]]:
    """The `hall_start` segments, for every hall strip of the profile (as the simulator does)."""
    out: list[tuple[int, Level]] = []
    for strip in wiring.halls.values():
        for seg in scenario.get("hall_start", []):
            out.append((wiring.hall_line(strip.name, int(seg)), strip.level(True)))
    return out


def timeline(scenario: dict[str, Any], wiring: Wiring, t0_ns: int) -> list[Change]:
    """Every event of the scenario as line changes, sorted by time."""
    out: list[Change] = []
    for ev in scenario.get("events", []):
        if not isinstance(ev, dict) or "at_ms" not in ev:
            raise RigError(f"a scenario event needs at_ms: {ev!r}")
        t = t0_ns + round(float(ev["at_ms"]) * 1_000_000)
        if "beam" in ev:
            beam = wiring.beam(str(ev["beam"]))
            dur = round(float(ev["dur_us"]) * 1000)
            if dur <= 0:
                raise RigError(f"a beam pass needs dur_us > 0: {ev!r}")
            lost = ev.get("lost")
            for when, broken, is_lost in (
                (t, True, lost in ("start", "both")),
                (t + dur, False, lost in ("end", "both")),
            ):
                if is_lost:
                    out.append((when - LOST_GLITCH_NS[0], beam.pin, beam.level(broken)))
                    out.append((when - LOST_GLITCH_NS[1], beam.pin, beam.level(not broken)))
                out.append((when, beam.pin, beam.level(broken)))
        elif "hall" in ev:
            strip = wiring.hall(str(ev["hall"]))
            for seg in range(int(ev["seg"]), int(ev["seg"]) + int(ev.get("width", 1))):  # a puck over `width` sensors
                out.append((t, wiring.hall_line(strip.name, seg), strip.level(bool(ev["present"]))))
        else:
            raise RigError(f"a scenario event is a beam or a hall change: {ev!r}")
    out.sort(key=lambda c: c[0])
    return out
