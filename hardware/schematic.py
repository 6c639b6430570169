"""Draw the Flickboard schematics with schemdraw: hardware/schematic.svg (the MCU box) and
hardware/schematic_board.svg (what sits in the board: one strip segment, a beam's two ends).

    python hardware/schematic.py            # rewrite both SVGs
    python hardware/schematic.py --check    # exit 1 when either SVG is not what this code draws

Pins come from hardware/profiles/pico_w.json, so a profile change shows here (the ESP32 wiring is a table in
hardware/README.md). Nets with the same name are connected; the connector pin numbers are the ones in the
README's pinout tables (CONNECTORS below). Pin numbers are drawn where every package has the same ones (Pico W,
74HC4067, TSSP4038); the regulator's and the switch's depend on the package: see their datasheets. Output is
deterministic for a given schemdraw version (pinned in
pyproject.toml).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import schemdraw
import schemdraw.elements as elm
from schemdraw import logic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import svgfile

HERE = Path(__file__).resolve().parent
OUT_BOX = HERE / "schematic.svg"
OUT_BOARD = HERE / "schematic_board.svg"

# Pico W pin numbers (Raspberry Pi Pico W datasheet, pinout): GPn -> physical pin.
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17, 14: 19,
    15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}  # fmt: skip

# Connector pinouts (cable from the MCU box to the board). Beam: JST-XH 5 pin; strip: 2 x 5 IDC (ribbon).
BEAM_PINS = ("3V3", "GND", "OUT", "+5V", "LED-")
STRIP_PINS = ("+5V", "GND", "S0", "S1", "S2", "S3", "GND", "SIG_A", "SIG_B", "GND")
CONNECTORS = {
    "beam": {"type": "JST-XH, 5 pins (B5B-XH-A on the box)", "pins": BEAM_PINS},
    "strip": {"type": "2 x 5 IDC box header, 2.54 mm, 10-way ribbon", "pins": STRIP_PINS},
    "power": {"type": "2-pin screw terminal or a USB-C power breakout", "pins": ("+5V", "GND")},
}
LED_R = {"hole": "10k", "ditch1": "150", "ditch2": "150", "ditch3": "150", "ditch4": "150", "hole2": "10k"}
# the LEDs' sinks: the second hole beam's LED on its own driver (Q2, 56 kHz), the others on Q1 (38 kHz)
LED_SINK = {"hole2": "IR_SINK2"}


def load_profile(name: str = "pico_w") -> dict[str, Any]:
    return dict(json.loads((HERE / "profiles" / f"{name}.json").read_text(encoding="utf-8")))


def _svg(d: schemdraw.Drawing) -> str:
    data = d.get_imagedata("svg")
    text = data.decode("utf-8") if isinstance(data, bytes) else str(data)
    return text if text.endswith("\n") else text + "\n"


def _tags(d: schemdraw.Drawing, header: elm.Header, nets: list[str] | tuple[str, ...], size: int = 8) -> None:
    for i, net in enumerate(nets):
        d += elm.Line().at(getattr(header, f"pin{i + 1}")).right(0.4)
        d += elm.Tag().right().label(net, fontsize=size)


def box(profile: dict[str, Any]) -> str:
    """The MCU box: Pico W, power input, LED driver, pull-ups, connectors."""
    beams = [s for s in profile["sensors"] if s["kind"] == "beam"]
    hall = next(s for s in profile["sensors"] if s["kind"] == "hall")
    mux = hall["mux"]
    sigs = mux["signal"] if isinstance(mux["signal"], list) else [mux["signal"]]
    gp_nets: list[tuple[int, str]] = [(s["pin"], s["name"].upper()) for s in beams]
    gp_nets += [(p, f"S{i}") for i, p in enumerate(mux["select"])]
    gp_nets += [(p, f"SIG{i}") for i, p in enumerate(sigs)]
    gp_nets += [(profile["safe_mode_pin"], "SAFE"), (profile["ir_carrier"]["pin"], "IR_PWM")]
    if profile.get("ir_carrier2"):
        gp_nets.append((profile["ir_carrier2"]["pin"], "IR_PWM2"))
    gp_nets.sort(key=lambda t: -PICO_PIN[t[0]])  # schemdraw stacks a side's pins from the bottom up
    schemdraw.use("svg")
    with schemdraw.Drawing(show=False) as d:
        d.config(fontsize=10, unit=1.5)
        d += elm.Label().at((6, 17)).label("Flickboard MCU box (Pico W profile)", fontsize=14)
        right = [elm.IcPin(name=f"GP{p}", pin=str(PICO_PIN[p]), side="right") for p, _ in gp_nets]
        left = [
            elm.IcPin(name="GND", pin="38", side="left"),
            elm.IcPin(name="3V3(OUT)", pin="36", side="left", anchorname="V33"),
            elm.IcPin(name="VSYS", pin="39", side="left"),
            elm.IcPin(name="VBUS", pin="40", side="left"),
        ]
        pico = elm.Ic(pins=left + right, pinspacing=0.7, edgepadH=0.6, edgepadW=4.0, leadlen=0.6)
        d += pico.at((12, 0)).label("Raspberry Pi\nPico W", "center", fontsize=12)
        for p, net in gp_nets:
            d += elm.Line().at(getattr(pico, f"GP{p}")).right(0.6)
            d += elm.Tag().right().label(net, fontsize=9)
        # power: USB from the host to VBUS, or the 5 V input through D1 to VSYS (the Pico datasheet's diode OR)
        d += elm.Line().at(pico.VBUS).left(2.5)
        d += elm.Label().label("USB from the host (data, and power when J1 is off)", loc="left", fontsize=9)
        d += elm.Line().at(pico.VSYS).left(1.0)
        d += elm.Schottky().left().reverse().label("D1 1N5819", fontsize=9)
        d += elm.Tag().left().label("+5V", fontsize=9)
        d += elm.Line().at(pico.V33).left(1.0)
        d += elm.Tag().left().label("3V3", fontsize=9)
        d += elm.Line().at(pico.GND).left(1.0)
        d += elm.Ground()
        j1 = elm.Header(rows=2, pinsleft=["1", "2"]).label(
            "J1 5 V in, 2 A\n(USB-C breakout: 5.1k\nfrom CC1 and CC2 to GND)", "top", fontsize=9
        )
        d += j1.at((2.6, 4))
        d += elm.Line().at(j1.pin1).right(0.5)
        d += elm.Tag().right().label("+5V", fontsize=9)
        d += elm.Line().at(j1.pin2).right(0.5)
        d += elm.Ground()
        c1 = elm.Capacitor(polar=True).at((5.6, 5.0)).down().label("C1 220µ", loc="bottom", fontsize=9)
        d += c1
        d += elm.Ground()
        d += elm.Tag().at(c1.start).up().label("+5V", fontsize=9)
        # safe-mode button
        btn = elm.Button().at((2.5, 0)).right().label("S1 safe mode", fontsize=9)
        d += btn
        d += elm.Ground()
        d += elm.Tag().at(btn.start).left().label("SAFE", fontsize=9)
        # IR LED drivers: a logic-level MOSFET switches the low side of the LEDs at the carrier; Q2 the second hole
        # beam's LED at 56 kHz, so that the two hole receivers (38 and 56 kHz) do not see each other's LED.
        for at, names, pwm, sink in (((2.5, -5), ("Q1", "R1", "R2"), "IR_PWM", "IR_SINK"),
                                     ((2.5, 10.5), ("Q2", "R23", "R24"), "IR_PWM2", "IR_SINK2")):  # fmt: skip
            r1 = elm.Resistor().at(at).right().label(f"{names[1]} 220", fontsize=9)
            d += r1
            d += elm.Tag().at(r1.start).left().label(pwm, fontsize=9)
            d += (gate := elm.Dot().at(r1.end))
            d += elm.Line().at(r1.end).right(0.8)
            q = elm.NFet(bulk=False).reverse().anchor("gate").label(f"{names[0]} AO3400A", loc="right", fontsize=9)
            d += q
            d += elm.Resistor().at(gate.center).down().label(f"{names[2]} 100k", loc="bottom", fontsize=9)
            d += elm.Ground()
            d += elm.Line().at(q.source).down(0.5)
            d += elm.Ground()
            d += elm.Line().at(q.drain).up(0.5)
            d += elm.Tag().up().label(sink, fontsize=9)
        # the two hole beams at 90°, OR-ed into the hole input: broken when either is broken. A 74HC132 (NAND gates
        # with Schmitt-trigger inputs): a receiver's edge takes microseconds through its cable, more than a plain
        # 74HC input allows (electrical.py). Gates A and B invert each beam, gate C is NAND(not A, not B) = A or B.
        ga = logic.Nand(inputs=2).at((3.0, -8.1)).right().label("U1A", "bottom", fontsize=8)
        gb = logic.Nand(inputs=2).at((3.0, -9.8)).right().label("U1B", "bottom", fontsize=8)
        d += ga
        d += gb
        for g_, net in ((ga, "HOLE_A"), (gb, "HOLE_B")):
            d += elm.Line().at(g_.in1).left(0.3)
            d += (join := elm.Dot())
            d += elm.Line().at(g_.in2).left(0.3)
            d += elm.Line().toy(join.center)
            d += elm.Line().at(join.center).left(0.5)
            d += elm.Tag().left().label(net, fontsize=9)
        gc = logic.Nand(inputs=2).at((6.6, -8.95)).right().label("U1C 74HC132", "top", fontsize=9)
        d += gc
        d += elm.Wire("-|").at(ga.out).to(gc.in1)
        d += elm.Wire("-|").at(gb.out).to(gc.in2)
        d += elm.Line().at(gc.out).right(0.5)
        d += elm.Tag().right().label("HOLE", fontsize=9)
        d += (
            elm.Label()
            .at((11.2, -10.2))
            .label(
                "U1D unused: inputs 12, 13 to GND.\nU1 VCC pin 14 to 3V3, GND pin 7; C2 100 nF at its pins", fontsize=8
            )
        )
        # reset: the Pico W has no reset button; RUN (pin 30) to GND restarts it
        rst = elm.Button().at((2.5, -2.4)).right().label("S2 reset (RUN, pin 30)", fontsize=9)
        d += rst
        d += elm.Ground()
        d += elm.Tag().at(rst.start).left().label("RUN", fontsize=9)
        # LED series resistors (in the box, easy to change): each beam's LED- pin to IR_SINK
        for k, (name, r) in enumerate(LED_R.items()):
            x = 12 + 2.0 * k
            d += elm.Tag().at((x, -4)).up().label(f"{name.upper()}_LED-", fontsize=8)
            d += elm.Resistor().at((x, -4)).down().label(f"R{3 + k} {r}", loc="bottom", fontsize=8)
            d += elm.Tag().down().label(LED_SINK.get(name, "IR_SINK"), fontsize=8)
        # pull-ups on the multiplexer signals
        for k in range(len(sigs)):
            x = 26 + 1.8 * k
            d += elm.Tag().at((x, -4)).up().label("3V3", fontsize=8)
            d += elm.Resistor().at((x, -4)).down().label(f"R{9 + k} 4.7k", loc="bottom", fontsize=8)
            d += elm.Tag().down().label(f"SIG{k}", fontsize=8)
        # pull-ups on every receiver output: an unplugged cable reads "broken" (then `stuck`), never a floating input
        for k, net in enumerate(("HOLE_A", "HOLE_B", *(s_["name"].upper() for s_ in beams if s_["name"] != "hole"))):
            x = 26 + 1.8 * (len(sigs) + k)
            d += elm.Tag().at((x, -4)).up().label("3V3", fontsize=8)
            d += elm.Resistor().at((x, -4)).down().label(f"R{17 + k} 10k", loc="bottom", fontsize=8)
            d += elm.Tag().down().label(net, fontsize=8)
        x = 26 + 1.8 * (len(sigs) + 6)
        d += elm.Tag().at((x, -4)).up().label("3V3", fontsize=8)
        d += elm.Capacitor().at((x, -4)).down().label("C2 100n (U1)", loc="bottom", fontsize=8)
        d += elm.Ground()
        # connectors to the board
        d += elm.Label().at((4, -11.2)).label("Cables to the board (pin 1 first)", fontsize=12)
        outs = {"HOLE": "HOLE_A", "HOLE2": "HOLE_B"}
        for k, s_ in enumerate([*beams, {"name": "hole2", "pin": None}]):
            name = s_["name"].upper()
            h = elm.Header(rows=5, pinsleft=[str(i + 1) for i in range(5)]).label(f"J_{name}", "top", fontsize=9)
            d += h.at((1 + 6.0 * k, -15))
            _tags(d, h, ("3V3", "GND", outs.get(name, name), "+5V", f"{name}_LED-"))
        for q_ in range(4):
            h = elm.Header(rows=10, pinsleft=[str(i + 1) for i in range(10)]).label(f"J_Q{q_ + 1}", "top", fontsize=9)
            d += h.at((1 + 9.0 * q_, -23))
            _tags(d, h, ("+5V", "GND", "S0", "S1", "S2", "S3", "GND", f"SIG{2 * q_}", f"SIG{2 * q_ + 1}", "GND"))
    return _svg(d)


def board(profile: dict[str, Any]) -> str:
    """In the board: one hall strip segment (16 switches, a multiplexer, a regulator) and a beam's two ends."""
    schemdraw.use("svg")
    with schemdraw.Drawing(show=False) as d:
        d.config(fontsize=10, unit=1.5)
        d += (
            elm.Label()
            .at((12, 23))
            .label("Strip segment: 8 of them, two per quadrant; segment k carries sensors 16k..16k+15", fontsize=13)
        )
        h = elm.Header(rows=10, pinsleft=[str(i + 1) for i in range(10)]).label("J from the box\n(2 x 5 IDC)", "top")
        d += h.at((0, 20))
        _tags(d, h, STRIP_PINS)
        # 3.3 V for the segment from the cable's 5 V
        reg = elm.Ic(
            pins=[
                elm.IcPin(name="GND", side="bottom"),
                elm.IcPin(name="VOUT", side="right"),
                elm.IcPin(name="VIN", side="left"),
            ],
            edgepadW=1.0,
            edgepadH=0.4,
        ).label("U2 MCP1700-3302E (SOT-23)", "top", fontsize=9)
        d += reg.right().at((10, 18))
        d += elm.Line().at(reg.VIN).left(1.0)
        d += (cin := elm.Dot())
        d += elm.Line().left(0.6)
        d += elm.Tag().left().label("+5V", fontsize=9)
        d += elm.Capacitor().at(cin.center).down().label("C1 1µ", loc="bottom", fontsize=9)
        d += elm.Ground()
        d += elm.Line().at(reg.GND).down(0.5)
        d += elm.Ground()
        d += elm.Line().at(reg.VOUT).right(1.0)
        d += (cout := elm.Dot())
        d += elm.Line().right(0.6)
        d += elm.Tag().right().label("3V3S", fontsize=9)
        d += elm.Capacitor().at(cout.center).down().label("C2 1µ", loc="bottom", fontsize=9)
        d += elm.Ground()
        # the multiplexer: channel c carries sensor 16k + c
        chan_pin = [9, 8, 7, 6, 5, 4, 3, 2, 23, 22, 21, 20, 19, 18, 17, 16]
        pins = [elm.IcPin(name=f"C{c}", pin=str(chan_pin[c]), side="right") for c in reversed(range(16))]
        pins += [
            elm.IcPin(name="E", pin="15", side="left", invert=True, anchorname="EN"),
            elm.IcPin(name="S3", pin="13", side="left"),
            elm.IcPin(name="S2", pin="14", side="left"),
            elm.IcPin(name="S1", pin="11", side="left"),
            elm.IcPin(name="S0", pin="10", side="left"),
            elm.IcPin(name="SIG", pin="1", side="left"),
            elm.IcPin(name="VCC", pin="24", side="top"),
            elm.IcPin(name="GND", pin="12", side="bottom"),
        ]
        u = elm.Ic(pins=pins, pinspacing=0.6, edgepadW=2.5, edgepadH=0.5, leadlen=0.6)
        d += u.right().at((10, 2)).label("U1 74HC4067", "center", fontsize=11)
        for name, net in (("SIG", "SIG_A / SIG_B (JP1)"), ("S0", "S0"), ("S1", "S1"), ("S2", "S2"), ("S3", "S3")):
            d += elm.Line().at(getattr(u, name)).left(0.6)
            d += elm.Tag().left().label(net, fontsize=8)
        d += elm.Line().at(u.EN).left(0.6)
        d += elm.Ground()
        d += elm.Line().at(u.VCC).up(0.6)
        d += elm.Tag().up().label("3V3S", fontsize=8)
        d += elm.Line().at(u.GND).down(0.5)
        d += elm.Ground()
        for c in range(16):
            d += elm.Line().at(getattr(u, f"C{c}")).right(0.6)
            d += elm.Tag().right().label(f"OUT{c}", fontsize=8)
        # the sixteen switches, all alike
        sw = elm.Ic(
            pins=[
                elm.IcPin(name="GND", side="bottom"),
                elm.IcPin(name="OUT", side="left"),
                elm.IcPin(name="VCC", side="top"),
            ],
            edgepadW=3.0,
            edgepadH=0.8,
        ).label("SM351RT", "center", fontsize=10)
        d += sw.right().at((25, 6))
        d += elm.Line().at(sw.OUT).left(0.6)
        d += elm.Tag().left().label("OUTc", fontsize=8)
        d += elm.Line().at(sw.VCC).up(0.6)
        d += (vcc := elm.Dot())
        d += elm.Tag().up().label("3V3S", fontsize=8)
        d += elm.Line().at(vcc.center).right(1.5)
        d += elm.Capacitor().down().label("100n", loc="bottom", fontsize=8)
        d += elm.Ground()
        d += elm.Line().at(sw.GND).down(0.5)
        d += elm.Ground()
        d += (
            elm.Label()
            .at((27, 1.5))
            .label(
                "x16: switch c on channel c (OUTc),\nlying flat, long side 45° to the\nbaseline, 100 nF each",
                fontsize=9,
            )
        )
        # a beam's two ends
        d += (
            elm.Label()
            .at((12, -9))
            .label("Beam ends (hole, ditch1-4, hole2): the receiver at one end, the LED at the other", fontsize=13)
        )
        bh = elm.Header(rows=5, pinsleft=[str(i + 1) for i in range(5)]).label("J from the box\n(JST-XH 5)", "top")
        d += bh.at((0, -12))
        _tags(d, bh, BEAM_PINS)
        rx = elm.Ic(
            pins=[
                elm.IcPin(name="GND", pin="2", side="bottom"),
                elm.IcPin(name="OUT", pin="1", side="right"),
                elm.IcPin(name="VS", pin="3", side="left"),
            ],
            edgepadW=3.0,
            edgepadH=0.8,
        ).label("TSSP4038\n(hole2: TSSP4056)", "center", fontsize=10)
        d += rx.right().at((14, -13))
        d += elm.Line().at(rx.VS).left(0.8)
        d += (vs := elm.Dot())
        d += elm.Resistor().left().label("100", fontsize=9)
        d += elm.Tag().left().label("3V3", fontsize=9)
        d += elm.Capacitor().at(vs.center).down().label("100n", loc="bottom", fontsize=9)
        d += elm.Ground()
        d += elm.Line().at(rx.GND).down(0.5)
        d += elm.Ground()
        d += elm.Line().at(rx.OUT).right(0.8)
        d += elm.Tag().right().label("OUT", fontsize=9)
        led = elm.LED().right().at((10, -19)).label("TSAL6200", fontsize=9)
        d += led
        d += elm.Tag().at(led.start).left().label("+5V", fontsize=9)
        d += elm.Tag().at(led.end).right().label("LED-", fontsize=9)
        d += elm.Label().at((24, -19)).label("(its resistor is in the box)", fontsize=9)
        d += (
            elm.Label()
            .at((24, -14))
            .label("hole, hole2: the receiver 30 mm behind\na 2 mm bore (a black tube)", fontsize=9)
        )
    return _svg(d)


def render() -> dict[Path, str]:
    profile = load_profile()
    return {OUT_BOX: box(profile), OUT_BOARD: board(profile)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the SVGs are up to date")
    return svgfile.write_or_check(render(), ap.parse_args(argv).check, "schematic.py")


if __name__ == "__main__":
    sys.exit(main())
