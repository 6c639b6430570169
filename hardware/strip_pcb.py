"""The baseline strip's segment board, as a KiCad 6 project a maker sends to a board house.

    python hardware/strip_pcb.py            # write hardware/pcb/strip_segment.kicad_pcb and .kicad_pro
    python hardware/strip_pcb.py --check    # exit 1 if the committed files differ from what this code writes

Every footprint, track and outline point is computed here from `geometry.json` through `hall_field.sensors`, so the
switches sit exactly where the coverage model puts them: on the row's radius, a pitch apart, each package turned to
the model's axis. `make pcb` then loads the file into KiCad's own pcbnew, fills the ground planes, runs KiCad's
design-rule check and plots the Gerbers and the drill file (`kicad_outputs.py`).

One board serves all eight segments: the 32 switches of a quadrant are equally spaced, so the second segment is the
first turned about the hole's centre by 16 pitches, and the quadrants are the first turned by 90°. The board is
drawn with the segment's middle at the top, (150, 100) on KiCad's page, the hole's centre `ROW` mm below it.

Sides. The switches and their capacitors face up, towards the underside of the playing surface (the sensing depth is
measured to them); so does everything else except the ribbon's 2 x 5 pin header, which is fitted from below and
soldered on top, so that the ribbon plugs in from under the board. The multiplexer (2.65 mm tall against the
switches' 1.1 mm) and the header's soldered pins need a pocket 2 mm deeper in the channel, 30 x 30 mm over the
segment's middle.

Pins (top view, from the parts' datasheets):
- SM351RT, SOT-23: taken as 1 VDD, 2 OUT, 3 GND, the order of Honeywell's other SOT-23 magnetic sensor ICs; it was
  not checked against Honeywell 32304118's package drawing when this board was drawn. Check it against the datasheet
  of the parts you buy before ordering boards: a wrong pin order here cannot be mended on the board.
- 74HC4067, SOIC-24 wide (TI CD74HC4067M96, SCHS209): 1 COM (SIG), 2-9 I7..I0, 10 S0, 11 S1, 12 GND, 13 S3, 14 S2,
  15 E (active low), 16-23 I15..I8, 24 VCC.
- MCP1700-3302E, SOT-23 (Microchip DS20001826): 1 GND, 2 VOUT, 3 VIN.
- The ribbon header: hardware/README.md, "Strip ribbons J_Q1-J_Q4".
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import hall_field as hf

HERE = Path(__file__).resolve().parent
OUT_DIR = HERE / "pcb"
NAME = "strip_segment"

PER_SEGMENT = 16
CENTRE_TOP = (150.0, 100.0)  # KiCad page position of the segment's middle on the row
U_TOP, U_BOTTOM = 6.5, -16.5  # the board's band: radial offsets (mm, outward positive) from the row's radius
TAB = (12.0, -31.0)  # the middle tab for the multiplexer, regulator and header: half-width, inner edge
RAIL_U = 3.0  # the 3.3 V rail along the row, top copper
PIN_PITCH = 1.27
MUX_TOP = -5.0  # radial offset of the multiplexer's pins 1 and 24
TRACK, POWER = 0.25, 0.5
VIA = (0.6, 0.3)  # diameter, drill


def _geometry() -> tuple[float, float, list[float]]:
    """The row's radius, the switches' axis (degrees from the tangent, clockwise) and the polar angles (degrees) of
    the first segment's switches in the model, quadrant 1, sensors 0..15."""
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    (row,) = strip.rows
    ss = [s for s in hf.sensors(geo, strip) if s.quadrant == 1][:PER_SEGMENT]
    return row.radius, row.axis_deg, [s.angle for s in ss]


ROW, AXIS_DEG, MODEL_ANGLES = _geometry()
MID_ANGLE = (MODEL_ANGLES[0] + MODEL_ANGLES[-1]) / 2
HOLE = (CENTRE_TOP[0], CENTRE_TOP[1] + ROW)  # the hole's centre on the page


def arc(s: float, u: float) -> tuple[float, float]:
    """Page position of the point `s` mm along the row from the segment's middle (clockwise: to the right) and `u` mm
    outward from the row's radius."""
    a = math.radians(270.0) + s / ROW
    r = ROW + u
    return HOLE[0] + r * math.cos(a), HOLE[1] + r * math.sin(a)


def flat(x: float, u: float) -> tuple[float, float]:
    """Page position in the straight frame at the segment's middle (for the parts there, within a few mm of it)."""
    return CENTRE_TOP[0] + x, CENTRE_TOP[1] - u


def model_to_page(angle_deg: float, radius: float) -> tuple[float, float]:
    """A point of the model (polar, about the hole's centre, quadrant 1's first segment) on this page."""
    a = math.radians(angle_deg - MID_ANGLE + 270.0)
    return HOLE[0] + radius * math.cos(a), HOLE[1] + radius * math.sin(a)


def switch_s(i: int) -> float:
    return math.radians(MODEL_ANGLES[i] - MID_ANGLE) * ROW


# ---- the board as data ---------------------------------------------------------------------------------------------


@dataclass
class Pad:
    number: str
    x: float  # footprint-local, mm
    y: float
    w: float
    h: float
    net: str
    shape: str = "rect"  # rect | roundrect | circle
    drill: float | None = None  # through-hole


@dataclass
class Footprint:
    ref: str
    value: str
    name: str
    at: tuple[float, float]
    rot: float  # degrees, KiCad's sense (counter-clockwise on the page)
    pads: list[Pad]
    body: tuple[float, float]  # courtyard half-sizes, footprint-local
    back: bool = False

    def pad_at(self, number: str) -> tuple[float, float]:
        p = next(p for p in self.pads if p.number == number)
        return local_to_page(self, -p.x if self.back else p.x, p.y)


def local_to_page(fp: Footprint, x: float, y: float) -> tuple[float, float]:
    t = math.radians(fp.rot)
    return fp.at[0] + x * math.cos(t) + y * math.sin(t), fp.at[1] - x * math.sin(t) + y * math.cos(t)


@dataclass
class Board:
    footprints: list[Footprint] = field(default_factory=list)
    tracks: list[tuple[tuple[float, float], tuple[float, float], float, str, str]] = field(default_factory=list)
    vias: list[tuple[tuple[float, float], str]] = field(default_factory=list)
    outline: list[tuple[str, tuple[tuple[float, float], ...]]] = field(default_factory=list)

    def path(self, pts: list[tuple[float, float]], net: str, layer: str = "F.Cu", width: float = TRACK) -> None:
        for a, b in itertools.pairwise(pts):
            if a != b:
                self.tracks.append((a, b, width, layer, net))

    def arc_path(self, s0: float, s1: float, u: float, net: str, layer: str = "F.Cu", width: float = TRACK) -> None:
        n = max(1, math.ceil(abs(s1 - s0) / 2.0))
        self.path([arc(s0 + (s1 - s0) * k / n, u) for k in range(n + 1)], net, layer, width)


def sot23(ref: str, value: str, at: tuple[float, float], rot: float, nets: tuple[str, str, str]) -> Footprint:
    pads = [
        Pad("1", -0.95, 1.1, 0.6, 1.0, nets[0]),
        Pad("2", 0.95, 1.1, 0.6, 1.0, nets[1]),
        Pad("3", 0.0, -1.1, 0.6, 1.0, nets[2]),
    ]
    return Footprint(ref, value, "SOT-23", at, rot, pads, (1.7, 1.85))


def chip(ref: str, value: str, size: str, at: tuple[float, float], rot: float, nets: tuple[str, str]) -> Footprint:
    half, w, h = {"0603": (0.8, 0.8, 0.95), "0805": (0.95, 1.0, 1.45)}[size]
    pads = [Pad("1", -half, 0.0, w, h, nets[0]), Pad("2", half, 0.0, w, h, nets[1])]
    return Footprint(ref, value, f"C_{size}", at, rot, pads, (half + w / 2 + 0.25, h / 2 + 0.25))


def switch_rotation(i: int) -> float:
    """KiCad rotation of switch i: the package's long side (pins 1-2) along the model's axis; of the two rotations
    that give that axis, the one with OUT (pin 2) nearer the hole, towards its track."""
    a = math.radians(270.0) + switch_s(i) / ROW
    axis_cw = math.degrees(a) + 90.0 + AXIS_DEG  # the axis, clockwise on the page
    best = None
    for rot in (-axis_cw, -axis_cw + 180.0):
        fp = sot23("U", "", arc(switch_s(i), 0.0), rot % 360.0, ("", "", ""))
        x, y = fp.pad_at("2")
        dist = math.hypot(x - HOLE[0], y - HOLE[1])
        if best is None or dist < best[0]:
            best = (dist, rot % 360.0)
    assert best is not None
    return round(best[1], 4)


def build() -> Board:
    b = Board()
    left_lane = {i: MUX_TOP - (8 - i) * PIN_PITCH for i in range(8)}  # switch i -> I_i on pin 9 - i
    right_lane = {j: MUX_TOP - (j - 7) * PIN_PITCH for j in range(8, 16)}  # switch j -> I_j on pin 31 - j
    # -- the switches, their capacitors, the rail and the lanes to the multiplexer
    rail_from = None
    for i in range(PER_SEGMENT):
        s = switch_s(i)
        sw = sot23(f"U{i + 3}", "SM351RT", arc(s, 0.0), switch_rotation(i), ("+3V3", f"CH{i}", "GND"))
        b.footprints.append(sw)
        vdd, out, gnd = sw.pad_at("1"), sw.pad_at("2"), sw.pad_at("3")
        b.path([vdd, _to_u(vdd, RAIL_U)], "+3V3")
        rail_from = _su(vdd)[0] if rail_from is None else rail_from
        # ground: a via beside the pad, away from the package
        gx, gy = gnd[0] + (gnd[0] - sw.at[0]) * 0.9, gnd[1] + (gnd[1] - sw.at[1]) * 0.9
        b.path([gnd, (gx, gy)], "GND")
        b.vias.append(((gx, gy), "GND"))
        # the capacitor across the rail, clockwise of the switch
        cap = chip(f"C{i + 5}", "100n", "0603", arc(s + 4.0, RAIL_U + 0.8), _radial_rot(s + 4.0), ("+3V3", "GND"))
        b.footprints.append(cap)
        b.vias.append((arc(s + 5.4, RAIL_U + 1.6), "GND"))
        b.path([cap.pad_at("2"), arc(s + 5.4, RAIL_U + 1.6)], "GND")
        # OUT: down to its lane, along it to the multiplexer's pin
        lane = left_lane[i] if i < 8 else right_lane[i]
        s_out, _u_out = _su(out)
        b.path([out, arc(s_out, lane)], f"CH{i}")
        end = -7.0 if i < 8 else 7.0
        b.arc_path(s_out, end, lane, f"CH{i}")
        b.path([arc(end, lane), flat(-4.65 if i < 8 else 4.65, lane)], f"CH{i}")
    assert rail_from is not None
    b.arc_path(rail_from, switch_s(PER_SEGMENT - 1) + 4.0, RAIL_U, "+3V3", width=POWER)
    # -- the multiplexer, its long side across the row
    mux_nets = ["SIG", *[f"CH{c}" for c in range(7, -1, -1)], "S0", "S1", "GND"]
    mux_nets += ["S3", "S2", "GND", *[f"CH{c}" for c in range(15, 7, -1)], "+3V3"]
    mux_pads = []
    for k in range(1, 25):
        if k <= 12:
            x, y = -4.65, (k - 6.5) * PIN_PITCH
        else:
            x, y = 4.65, (18.5 - k) * PIN_PITCH
        mux_pads.append(Pad(str(k), x, y, 2.0, 0.6, mux_nets[k - 1]))
    mux = Footprint(
        "U1",
        "74HC4067",
        "SOIC-24W_7.5x15.4mm_P1.27mm",
        flat(0.0, MUX_TOP - 5.5 * PIN_PITCH),
        0.0,
        mux_pads,
        (5.95, 8.0),
    )
    b.footprints.append(mux)

    def pin_u(k: int) -> float:
        return MUX_TOP - ((k - 1) if k <= 12 else (24 - k)) * PIN_PITCH

    # VCC straight up to the rail, with its capacitor
    b.path([flat(4.65, MUX_TOP), arc(4.65, RAIL_U)], "+3V3")
    c_mux = chip("C21", "100n", "0603", flat(3.85, -2.2), 0.0, ("GND", "+3V3"))
    c_mux.pads[1].x = 0.8
    b.footprints.append(c_mux)
    b.path([c_mux.pad_at("2"), flat(4.65, -2.2)], "+3V3")
    b.path([c_mux.pad_at("1"), flat(2.2, -2.2)], "GND")
    b.vias.append((flat(2.2, -2.2), "GND"))
    # ground pins 12 and 15 to vias outside the package
    b.path([flat(-4.65, pin_u(12)), flat(-7.2, pin_u(12))], "GND")
    b.vias.append((flat(-7.2, pin_u(12)), "GND"))
    b.path([flat(4.65, pin_u(15)), flat(7.2, pin_u(15))], "GND")
    b.vias.append((flat(7.2, pin_u(15)), "GND"))
    # -- the ribbon header, from below
    hy = (TAB[1] + U_BOTTOM) / 2 - 0.5
    hdr_nets = ["+5V", "GND", "S0", "S1", "S2", "S3", "GND", "SIG_A", "SIG_B", "GND"]
    hdr_pads = []
    for n in range(1, 11):
        col, row = (n - 1) // 2, (n - 1) % 2
        hdr_pads.append(
            Pad(
                str(n),
                (2 - col) * 2.54,
                (row - 0.5) * 2.54,
                1.7,
                1.7,
                hdr_nets[n - 1],
                "rect" if n == 1 else "circle",
                1.0,
            )
        )
    hdr = Footprint(
        "J1", "2x5 2.54 mm", "PinHeader_2x05_P2.54mm_Vertical", flat(0.0, hy), 0.0, hdr_pads, (6.6, 2.8), back=True
    )
    b.footprints.append(hdr)
    p = {n: hdr.pad_at(str(n)) for n in range(1, 11)}

    def x_(v: float) -> float:
        return CENTRE_TOP[0] + v

    # the select lines, under the multiplexer and down to the header
    b.path([flat(-4.65, pin_u(10)), flat(-1.2, pin_u(10)), flat(-1.2, hy + 3.0), p[3]], "S0")
    b.path(
        [
            flat(-4.65, pin_u(11)),
            flat(-2.4, pin_u(11)),
            flat(-2.4, hy + 4.0),
            flat(-3.81, hy + 2.6),
            flat(-3.81, hy - 0.0),
            p[4],
        ],
        "S1",
    )
    b.path([flat(4.65, pin_u(14)), flat(1.2, pin_u(14)), flat(1.2, hy + 3.0), p[5]], "S2")
    b.path([flat(4.65, pin_u(13)), flat(2.4, pin_u(13)), flat(2.4, hy + 5.0)], "S3")
    b.vias.append((flat(2.4, hy + 5.0), "S3"))
    b.path([flat(2.4, hy + 5.0), flat(1.27, hy + 3.6), flat(1.27, hy + 0.0), p[6]], "S3", "B.Cu")
    # SIG: from pin 1 through a via, under the board to the jumper, which sends it to SIG_A or SIG_B
    b.path([flat(-4.65, pin_u(1)), flat(-2.4, pin_u(1))], "SIG")
    b.vias.append((flat(-2.4, pin_u(1)), "SIG"))
    jy = hy + 4.0
    b.path([flat(-2.4, pin_u(1)), flat(0.0, pin_u(1) - 2.4), flat(0.0, jy + 3.0), flat(8.5, jy + 3.0)], "SIG", "B.Cu")
    b.vias.append((flat(8.5, jy + 3.0), "SIG"))
    jp = Footprint(
        "JP1",
        "SIG A|B",
        "SolderJumper-3_P1.3mm",
        flat(8.5, jy),
        0.0,
        [
            Pad("1", -1.3, 0.0, 1.0, 1.5, "SIG_A"),
            Pad("2", 0.0, 0.0, 1.0, 1.5, "SIG"),
            Pad("3", 1.3, 0.0, 1.0, 1.5, "SIG_B"),
        ],
        (2.3, 1.1),
    )
    b.footprints.append(jp)
    b.path([flat(8.5, jy + 3.0), jp.pad_at("2")], "SIG")
    b.path([jp.pad_at("1"), flat(7.2, jy - 1.4), flat(3.81, jy - 1.4), flat(3.81, hy - 0.0), p[8]], "SIG_A")
    b.path([jp.pad_at("3"), flat(9.8, hy + 1.27), p[9]], "SIG_B")
    # -- the regulator, from the header's +5V; its output capacitor sits on the rail
    reg = sot23("U2", "MCP1700-3302E", flat(-9.0, hy + 3.25), 180.0, ("GND", "+3V3", "+5V"))
    b.footprints.append(reg)
    vin, vout, rgnd = reg.pad_at("3"), reg.pad_at("2"), reg.pad_at("1")
    c_in = chip("C1", "1u", "0603", flat(-9.0, hy - 0.35), 0.0, ("GND", "+5V"))
    b.footprints.append(c_in)
    b.path([p[1], (p[1][0] - 1.5, p[1][1]), c_in.pad_at("2")], "+5V", width=POWER)
    b.path([c_in.pad_at("2"), vin], "+5V", width=POWER)
    g = c_in.pad_at("1")
    b.path([g, (g[0], g[1] + 1.5)], "GND")
    b.vias.append(((g[0], g[1] + 1.5), "GND"))
    b.path([rgnd, flat(-7.2, pin_u(12))], "GND")
    v1 = (vout[0], vout[1] - 2.3)
    b.path([vout, v1], "+3V3", width=POWER)
    b.vias.append((v1, "+3V3"))
    up = arc(-11.0, 1.6)
    b.path(
        [v1, (x_(-10.5), v1[1] - 0.55), (x_(-10.5), CENTRE_TOP[1] + 14.0), (up[0], CENTRE_TOP[1] + 12.0), up],
        "+3V3",
        "B.Cu",
        POWER,
    )
    b.vias.append((up, "+3V3"))
    b.path([up, arc(-11.0, RAIL_U)], "+3V3", width=POWER)
    c_out = chip("C2", "1u", "0603", arc(-14.4, RAIL_U + 0.8), _radial_rot(-14.4), ("+3V3", "GND"))
    b.footprints.append(c_out)
    b.vias.append((arc(-13.0, RAIL_U + 1.6), "GND"))
    b.path([c_out.pad_at("2"), arc(-13.0, RAIL_U + 1.6)], "GND")
    # -- outline: the band along the row, and the middle tab
    half = (PER_SEGMENT / 2) * (switch_s(1) - switch_s(0)) - 0.25
    t1 = TAB[1]
    t0 = TAB[0] * ROW / (ROW + U_BOTTOM)  # where the inner arc meets the tab's sides, x = ±TAB[0]
    b.outline = [
        ("arc", (arc(-half, U_TOP), arc(0.0, U_TOP), arc(half, U_TOP))),
        ("line", (arc(half, U_TOP), arc(half, U_BOTTOM))),
        ("arc", (arc(half, U_BOTTOM), arc((half + t0) / 2, U_BOTTOM), arc(t0, U_BOTTOM))),
        ("line", (arc(t0, U_BOTTOM), flat(TAB[0], t1))),
        ("line", (flat(TAB[0], t1), flat(-TAB[0], t1))),
        ("line", (flat(-TAB[0], t1), arc(-t0, U_BOTTOM))),
        ("arc", (arc(-t0, U_BOTTOM), arc(-(half + t0) / 2, U_BOTTOM), arc(-half, U_BOTTOM))),
        ("line", (arc(-half, U_BOTTOM), arc(-half, U_TOP))),
    ]
    # mounting holes, M2.5, near both ends
    for s in (-half + 4.0, half - 4.0):
        b.footprints.append(
            Footprint(
                "H" + ("1" if s < 0 else "2"),
                "M2.5",
                "MountingHole_2.7mm",
                arc(s, -9.0),
                0.0,
                [Pad("", 0.0, 0.0, 2.7, 2.7, "", "circle", 2.7)],
                (1.6, 1.6),
            )
        )
    return b


def _su(p: tuple[float, float]) -> tuple[float, float]:
    """(s, u) of a page point."""
    dx, dy = p[0] - HOLE[0], p[1] - HOLE[1]
    a = math.atan2(dy, dx) % (2 * math.pi)
    return (a - math.radians(270.0)) * ROW, math.hypot(dx, dy) - ROW


def _to_u(p: tuple[float, float], u: float) -> tuple[float, float]:
    return arc(_su(p)[0], u)


def _radial_rot(s: float) -> float:
    """KiCad rotation that lays a two-pad part's pads along the radius at s (pad 1 inside)."""
    a = math.degrees(math.radians(270.0) + s / ROW)  # outward direction, clockwise on the page
    return round(-a % 360.0, 4)


# ---- KiCad's file format -------------------------------------------------------------------------------------------


def _n(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def _xy(p: tuple[float, float]) -> str:
    return f"{_n(p[0])} {_n(p[1])}"


def kicad_pcb(b: Board) -> str:
    nets = sorted({p.net for f in b.footprints for p in f.pads if p.net} | {t[4] for t in b.tracks})
    ids = {n: k + 1 for k, n in enumerate(nets)}
    out = ["(kicad_pcb (version 20211014) (generator flickboard_strip_pcb)", "", "  (general (thickness 1.6))", ""]
    out.append('  (paper "A4")')
    out.append("  (title_block")
    out.append('    (title "Flickboard baseline strip segment: 16 SM351RT, 74HC4067, MCP1700")')
    out.append(f'    (comment 1 "Row radius {_n(ROW)} mm about the hole, which is at {_xy(HOLE)} on this page")')
    out.append('    (comment 2 "Generated by hardware/strip_pcb.py from hardware/geometry.json: edit those, not this")')
    out.append("  )")
    out.append("  (layers")
    for num, name, kind in [
        (0, "F.Cu", "signal"),
        (31, "B.Cu", "signal"),
        (34, "B.Paste", "user"),
        (35, "F.Paste", "user"),
        (36, "B.SilkS", "user"),
        (37, "F.SilkS", "user"),
        (38, "B.Mask", "user"),
        (39, "F.Mask", "user"),
        (44, "Edge.Cuts", "user"),
        (46, "B.CrtYd", "user"),
        (47, "F.CrtYd", "user"),
        (48, "B.Fab", "user"),
        (49, "F.Fab", "user"),
    ]:
        out.append(f'    ({num} "{name}" {kind})')
    out.append("  )")
    out.append("  (setup (pad_to_mask_clearance 0))")
    out.append('  (net 0 "")')
    for n in nets:
        out.append(f'  (net {ids[n]} "{n}")')
    for f in b.footprints:
        out.extend(_footprint(f, ids))
    for kind, pts in b.outline:
        if kind == "line":
            out.append(f'  (gr_line (start {_xy(pts[0])}) (end {_xy(pts[1])}) (layer "Edge.Cuts") (width 0.1))')
        else:
            out.append(
                f"  (gr_arc (start {_xy(pts[0])}) (mid {_xy(pts[1])}) (end {_xy(pts[2])})"
                ' (layer "Edge.Cuts") (width 0.1))'
            )
    out.append(f'  (gr_text "FB strip R{_n(ROW)}" (at {_xy(flat(0.0, -29.5))}) (layer "F.SilkS")')
    out.append("    (effects (font (size 1 1) (thickness 0.15))))")
    for a, c, w, layer, net in b.tracks:
        out.append(f'  (segment (start {_xy(a)}) (end {_xy(c)}) (width {_n(w)}) (layer "{layer}") (net {ids[net]}))')
    for at, net in b.vias:
        out.append(
            f'  (via (at {_xy(at)}) (size {_n(VIA[0])}) (drill {_n(VIA[1])}) (layers "F.Cu" "B.Cu") (net {ids[net]}))'
        )
    poly = _outline_polygon(b)
    for layer in ("F.Cu", "B.Cu"):
        out.append(f'  (zone (net {ids["GND"]}) (net_name "GND") (layer "{layer}") (hatch edge 0.508)')
        out.append("    (connect_pads (clearance 0.25))")
        out.append("    (min_thickness 0.25)")
        out.append("    (fill yes (thermal_gap 0.4) (thermal_bridge_width 0.4))")
        out.append("    (polygon (pts " + " ".join(f"(xy {_xy(p)})" for p in poly) + "))")
        out.append("  )")
    out.append(")")
    return "\n".join(out) + "\n"


def _outline_polygon(b: Board) -> list[tuple[float, float]]:
    """The board's outline as a polygon (arcs in 2 mm steps), for the ground zones."""
    half = (PER_SEGMENT / 2) * (switch_s(1) - switch_s(0)) - 0.25
    n = math.ceil(2 * half / 2.0)
    top = [arc(-half + 2 * half * k / n, U_TOP) for k in range(n + 1)]
    t0 = TAB[0] * ROW / (ROW + U_BOTTOM)
    right = [arc(half - (half - t0) * k / 20, U_BOTTOM) for k in range(21)]
    left = [arc(-t0 - (half - t0) * k / 20, U_BOTTOM) for k in range(21)]
    return [*top, *right, flat(TAB[0], TAB[1]), flat(-TAB[0], TAB[1]), *left]


def _footprint(f: Footprint, ids: dict[str, int]) -> list[str]:
    side = "B" if f.back else "F"
    out = [f'  (footprint "flickboard:{f.name}" (layer "{side}.Cu")']
    out.append(f"    (at {_xy(f.at)}{' ' + _n(f.rot) if f.rot else ''})")
    out.append(f'    (property "Reference" "{f.ref}") (property "Value" "{f.value}")')
    attr = "through_hole" if any(p.drill for p in f.pads) else "smd"
    if f.ref.startswith("H"):
        attr = "exclude_from_pos_files exclude_from_bom"
    out.append(f"    (attr {attr})")
    rot = f" {_n(f.rot)}" if f.rot else ""
    out.append(f'    (fp_text reference "{f.ref}" (at 0 {_n(-f.body[1] - 0.8)}{rot}) (layer "{side}.Fab")')
    out.append("      (effects (font (size 0.6 0.6) (thickness 0.1))))")
    out.append(f'    (fp_text value "{f.value}" (at 0 {_n(f.body[1] + 0.8)}{rot}) (layer "{side}.Fab")')
    out.append("      (effects (font (size 0.6 0.6) (thickness 0.1))))")
    w, h = f.body
    corners = [(-w, -h), (w, -h), (w, h), (-w, h), (-w, -h)]
    for a, c in itertools.pairwise(corners):
        out.append(f'    (fp_line (start {_xy(a)}) (end {_xy(c)}) (layer "{side}.CrtYd") (width 0.05))')
    for p in f.pads:
        net = f' (net {ids[p.net]} "{p.net}")' if p.net else ""
        if p.drill:
            kind = "np_thru_hole" if not p.net and not p.number else "thru_hole"
            layers = '"*.Cu" "*.Mask"'
            drill = f" (drill {_n(p.drill)})"
        else:
            kind, layers, drill = "smd", f'"{side}.Cu" "{side}.Paste" "{side}.Mask"', ""
        shape = "roundrect" if p.shape == "rect" and not p.drill else p.shape
        rr = " (roundrect_rratio 0.25)" if shape == "roundrect" else ""
        out.append(
            f'    (pad "{p.number}" {kind} {shape} (at {_n(-p.x if f.back else p.x)} {_n(p.y)}{rot})'
            f" (size {_n(p.w)} {_n(p.h)}){drill}"
            f" (layers {layers}){rr}{net})"
        )
    out.append("  )")
    return out


def kicad_pro() -> str:
    """The project file: the design rules the board is checked against (a common hobby board house's 2-layer
    capabilities are finer: 0.127 mm track and gap, 0.3 mm drill)."""
    pro = {
        "board": {
            "design_settings": {
                "defaults": {"board_outline_line_width": 0.1},
                "rules": {
                    "min_clearance": 0.2,
                    "min_track_width": 0.2,
                    "min_via_diameter": 0.6,
                    "min_through_hole_diameter": 0.3,
                    "min_hole_to_hole": 0.25,
                    "min_copper_edge_clearance": 0.3,
                    "min_hole_clearance": 0.25,
                },
            }
        },
        "meta": {"filename": f"{NAME}.kicad_pro", "version": 1},
        "net_settings": {
            "classes": [
                {
                    "name": "Default",
                    "clearance": 0.2,
                    "track_width": TRACK,
                    "via_diameter": VIA[0],
                    "via_drill": VIA[1],
                    "wire_width": 6,
                    "bus_width": 12,
                    "line_style": 0,
                    "schematic_color": "rgba(0, 0, 0, 0.000)",
                    "pcb_color": "rgba(0, 0, 0, 0.000)",
                    "diff_pair_gap": 0.25,
                    "diff_pair_via_gap": 0.25,
                    "diff_pair_width": 0.2,
                    "microvia_diameter": 0.3,
                    "microvia_drill": 0.1,
                }
            ],
            "meta": {"version": 2},
        },
    }
    return json.dumps(pro, indent=2) + "\n"


PARTS = {
    "SM351RT": "Honeywell SM351RT, magnetoresistive switch, SOT-23",
    "74HC4067": "TI CD74HC4067M96, 16-channel multiplexer, SOIC-24",
    "MCP1700-3302E": "Microchip MCP1700T-3302E/TT, 3.3 V LDO, SOT-23",
    "100n": "100 nF 16 V X7R, 0603",
    "1u": "1 uF 10 V X5R, 0603",
    "2x5 2.54 mm": "2 x 5 pin header, 2.54 mm, straight (fitted from below, hand-soldered)",
}


def assembly(b: Board) -> tuple[str, str]:
    """The bill of materials and the placement file (centroid, mm, degrees counter-clockwise, seen from the top) an
    assembly house asks for beside the Gerbers. Houses turn some packages by their own offsets: check the rotations
    in their preview, the switches above all (the coverage depends on their 45°)."""
    parts = [f for f in b.footprints if f.value in PARTS]
    groups: dict[str, list[str]] = {}
    for f in parts:
        groups.setdefault(f.value, []).append(f.ref)
    bom = ["Comment,Designator,Footprint,Quantity"]
    for value, refs in groups.items():
        fp = next(f.name for f in parts if f.value == value)
        bom.append(f'"{PARTS[value]}","{" ".join(refs)}",{fp},{len(refs)}')
    cpl = ["Designator,Mid X,Mid Y,Layer,Rotation"]
    for f in parts:
        cpl.append(f"{f.ref},{_n(f.at[0])},{_n(-f.at[1])},{'Bottom' if f.back else 'Top'},{_n(f.rot % 360.0)}")
    return "\n".join(bom) + "\n", "\n".join(cpl) + "\n"


def files() -> dict[Path, str]:
    board = build()
    bom, cpl = assembly(board)
    return {
        OUT_DIR / f"{NAME}.kicad_pcb": kicad_pcb(board),
        OUT_DIR / f"{NAME}.kicad_pro": kicad_pro(),
        OUT_DIR / f"{NAME}_bom.csv": bom,
        OUT_DIR / f"{NAME}_positions.csv": cpl,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed files are not what this writes")
    args = ap.parse_args(argv)
    stale = []
    for path, text in files().items():
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent)}")
    if stale:
        print("out of date (run python hardware/strip_pcb.py):", ", ".join(str(p) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
