"""The arithmetic of the IR LED driver, the LED resistors and the power budget (hardware/README.md shows it).

    python hardware/electrical.py

Every figure from a datasheet is named with its part and table. The LEDs run from 5 V (USB VBUS or the board's
5 V input: 4.75-5.25 V); the MCU's pins and everything they read run at 3.3 V.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

V5_MIN, V5_MAX = 4.75, 5.25  # USB VBUS, USB 2.0 specification
V33 = 3.3

# Vishay TSAL6200 (doc. 81010): absolute maximum ratings I_F 100 mA continuous, I_FM 200 mA (t_p/T = 0.5,
# t_p = 100 µs); basic characteristics V_F 1.35 V typ / 1.6 V max at 100 mA, radiant intensity I_e 60 mW/sr typ at
# 100 mA (about proportional to I_F below that). At the 4-30 mA used here V_F is about 1.1-1.3 V (its V_F-I_F curve).
TSAL6200_IF_MAX = 100.0  # mA
TSAL6200_IFM = 200.0  # mA at 50 % duty
TSAL6200_VF_LOW, TSAL6200_VF_HIGH = 1.1, 1.6
TSAL6200_IE_PER_MA = 0.6  # mW/sr per mA, typical

# ON Semiconductor 2N3904: h_FE min 30 at I_C = 100 mA, 60 at 50 mA (V_CE = 1 V); V_CE(sat) specified at
# I_C / I_B = 10 (0.2 V at 10 mA, 0.3 V at 50 mA). A switch is designed for that forced gain, not for h_FE.
FORCED_BETA = 10.0
VBE_SAT = 0.85  # V, 2N3904 V_BE(sat) max at 50 mA / 5 mA

# Alpha & Omega AO3400A (SOT-23 N-MOSFET): V_GS(th) 0.65-1.45 V; R_DS(on) max 48 mΩ at V_GS = 2.5 V (32 mΩ at
# 4.5 V); C_iss about 630 pF. Infineon IRLML6344 is a drop-in alternative (V_GS(th) 0.5-1.1 V, 37 mΩ at 2.5 V).
MOSFET = {"part": "AO3400A", "vgs_th_max": 1.45, "rds_on_2v5": 0.048, "ciss_pf": 630.0}

# RP2040 datasheet, GPIO electrical characteristics: default drive strength 4 mA, V_OH >= 2.62 V at that current
# (IOVDD 3.3 V). ESP32 datasheet: V_OH >= 0.8 x VDD (2.64 V), default drive ~20 mA.
GPIO_VOH_MIN = 2.62
RP2040_DRIVE_MA = 4.0


# Vishay TSSP4038 (light-barrier receiver): internal pull-up to its supply of about 33 kΩ (block diagram); output
# voltage low V_OSL at most 100 mV at I_OSL = 0.5 mA; output current 5 mA absolute maximum.
TSSP_PULLUP = 33e3  # Ω
TSSP_VOL_MAX = 0.1  # V at 0.5 mA
TSSP_IOSL_SPEC = 0.5e-3  # A
# A beam's OUT wire: about 100-150 pF for 1-1.5 m of cable (about 100 pF/m between a wire and its twisted GND) plus
# the input it drives (about 10 pF: 74HC132 C_I 3.5 pF, an RP2040 or ESP32 pad 5-10 pF).
CABLE_PF_MAX = 150.0
INPUT_PF = 10.0
# The beam pull-up in the box (R_PU on HOLE_A, HOLE_B and DITCH1-4): an unplugged cable reads "broken" (-> `stuck`),
# never a floating CMOS input, and the edge is faster than with the receiver's 33 kΩ alone.
BEAM_PULLUP = 10e3  # Ω
# 74HC inputs without hysteresis allow an input transition time of at most 1000 ns at V_CC 2.0 V and 500 ns at 4.5 V
# (TI SN74HC32, recommended operating conditions, Δt/Δv): about 0.5-1 µs at 3.3 V. Slower, the input lingers near its
# threshold, the output can oscillate, and each oscillation is an edge for the IRQ (`chatter`, `count`).
HC_INPUT_TRANSITION_NS = 500.0
# NXP 74HC132 (quad 2-input NAND, Schmitt-trigger inputs; Rev. 3, Table 10, transfer characteristics, 25 °C):
# V_T+ max 1.5 V at V_CC 2.0 V and 3.15 V at 4.5 V; V_T- min 0.3 V and 0.9 V; V_H min 0.2 V and 0.4 V. Between the two
# supplies the limits are taken on the straight line (a Schmitt input has no transition-time limit: it is made for
# slow inputs).
HC132 = {2.0: {"vt_plus_max": 1.5, "vt_minus_min": 0.3, "vh_min": 0.2},
         4.5: {"vt_plus_max": 3.15, "vt_minus_min": 0.9, "vh_min": 0.4}}  # fmt: skip


def hc132_at(vcc: float = V33) -> dict[str, float]:
    lo, hi = HC132[2.0], HC132[4.5]
    f = (vcc - 2.0) / 2.5
    return {k: lo[k] + (hi[k] - lo[k]) * f for k in lo}


def rise_time_us(pullup: float | None = BEAM_PULLUP, cable_pf: float = CABLE_PF_MAX) -> float:
    """10-90 % rise time of a receiver's OUT when it lets go (beam broken): 2.2 R C, R its 33 kΩ (and the box's
    pull-up in parallel)."""
    r = TSSP_PULLUP if pullup is None else 1 / (1 / TSSP_PULLUP + 1 / pullup)
    return 2.2 * r * (cable_pf + INPUT_PF) * 1e-12 * 1e6


def sink_ma(pullup: float = BEAM_PULLUP) -> float:
    """What the receiver's output sinks while the beam is clear: the box's pull-up and its own 33 kΩ."""
    return (V33 / pullup + V33 / TSSP_PULLUP) * 1000


def schmitt_margins(vcc: float = V33) -> tuple[float, float]:
    """(volts between a blocked receiver's high and V_T+ max, volts between its low and V_T- min)."""
    t = hc132_at(vcc)
    return V33 - t["vt_plus_max"], t["vt_minus_min"] - TSSP_VOL_MAX


# Strip regulator: 16 SM351RT at up to 5 mA (80 mA) from 5 V to 3.3 V in a closed channel under the board.
# MCP1700 in SOT-23: R_θJA 336 °C/W (Microchip DS20001826, temperature specifications); in SOT-89 153 °C/W.
# Microchip MCP1703A (16 V, 250 mA, same family) in SOT-223: R_θJA 62 °C/W (DS20005122).
STRIP_MA = 80.0
REGULATORS = {"MCP1700 SOT-23": 336.0, "MCP1700 SOT-89": 153.0, "MCP1703A SOT-223": 62.0}


def regulator_rise_c(theta_ja: float, i_ma: float = STRIP_MA, v_in: float = V5_MAX) -> float:
    return (v_in - V33) * i_ma / 1000 * theta_ja


@dataclass(frozen=True)
class Led:
    name: str
    resistor: float  # Ω, in series with the LED, between +5 V and the driver's drain

    def peak_ma(self, worst: str = "typ", v_drive: float = 0.0) -> float:
        """LED current (mA) while the carrier is high: (V5 - V_F - V_DS) / R."""
        if worst == "high":
            return (V5_MAX - TSAL6200_VF_LOW - v_drive) / self.resistor * 1000
        if worst == "low":
            return (V5_MIN - TSAL6200_VF_HIGH - v_drive) / self.resistor * 1000
        return (5.0 - 1.25 - v_drive) / self.resistor * 1000


LEDS = (
    Led("hole", 10000.0),
    Led("ditch1", 150.0),
    Led("ditch2", 150.0),
    Led("ditch3", 150.0),
    Led("ditch4", 150.0),
)
HOLE2 = Led("hole2", 10000.0)  # the second hole beam's LED, on its own 56 kHz driver Q2 (cross-talk, below)
DUTY = 16384 / 65536  # the profiles' ir_carrier.duty_u16


def total_peak_ma(leds: tuple[Led, ...] = (*LEDS, HOLE2), worst: str = "high") -> float:
    return sum(led.peak_ma(worst) for led in leds)


def bjt_base_ma(r_base: float, v_gpio: float = V33) -> float:
    return (v_gpio - VBE_SAT) / r_base * 1000


def bjt_saturates(r_base: float, ic_ma: float, v_gpio: float = V33) -> bool:
    """True when the base current gives a forced gain of at most 10 (the datasheet's saturation condition)."""
    return ic_ma / bjt_base_ma(r_base, v_gpio) <= FORCED_BETA


def mosfet_ok(v_gate: float = GPIO_VOH_MIN) -> bool:
    """The gate is driven well past the worst-case threshold, and R_DS(on) is specified at or under the drive."""
    return v_gate >= 1.5 * MOSFET["vgs_th_max"] and v_gate >= 2.5


def mosfet_drop_v(i_ma: float) -> float:
    return i_ma / 1000 * MOSFET["rds_on_2v5"]


def gate_time_constant_us(r_gate: float = 220.0) -> float:
    return r_gate * MOSFET["ciss_pf"] * 1e-12 * 1e6


def carrier_fundamental(duty: float = DUTY) -> float:
    """Amplitude of the 38 kHz fundamental of a rectangular LED current, as a fraction of its peak: (2/π) sin(π D).
    The receiver's band-pass filter passes the fundamental only."""
    return 2 / math.pi * math.sin(math.pi * duty)


# ---- Cross-talk between the two hole beams ------------------------------------------------------------------------
# Both hole beams cross one 35 mm tube at 90°. A puck standing on edge parallel to beam B and beside it blocks beam A
# only (that is why beam B exists); LED B then lights the face of that puck that receiver A looks at, at a grazing
# angle, and the puck scatters it into receiver A. If receiver A answers LED B's light, the beam that a puck blocks
# reads clear and the upright puck (rule A-4) is missed. `crosstalk()` computes that light and the fix.
#
# Receiver threshold: Vishay gives the minimum irradiance E_e min of its light-barrier receivers for a test signal of
# 50 % duty bursts at f0 (TSSP960, doc. 82868: 0.7 mW/m² typical, 1.2 maximum; the TSSP4038 and TSSP4056 share the
# family's test signal: read the figure of the parts you buy). No minimum is given, so the most sensitive part is
# taken as half the typical.
EE_MIN_TYP = 0.7e-3  # W/m²
EE_MIN_MAX = 1.2e-3
EE_MOST_SENSITIVE = EE_MIN_TYP / 2
# The receiver's band-pass ("Frequency dependence of responsivity", E_e min / E_e against f/f0): under 0.1 where the
# plotted curve ends (f/f0 0.7 and 1.3). 38 kHz light into a 56 kHz receiver is f/f0 0.68, 56 kHz into a 38 kHz one
# 1.47, and every harmonic further out: each is taken at that 0.1, the filter only falls beyond it.
OFF_BAND = 0.1
CARRIER_A_HZ, CARRIER_B_HZ = 38000, 56000
# TSAL6200: half-intensity angle ±17° (doc. 81010); its pattern is taken as cos^m, m giving 0.5 at 17°.
LED_HALF_DEG = 17.0
# A puck's face at 940 nm: diffuse, reflectance taken as white paper's 0.8, above any pale wood's or a label's.
PUCK_REFLECTANCE = 0.8
TUBE_MM = 35.0
RECEIVER_LENS_MM = 3.0  # the receiver's lens, taken as 3 mm across (the 6 x 7 mm package's dome)


@dataclass(frozen=True)
class HoleOptics:
    """One design of the two hole beams. led: the hole LEDs' resistor; aperture_mm, setback_mm: the black tube in
    front of each receiver (its bore and how far the receiver's face sits behind the tube's inner wall; 0 = the
    receiver flush in a plain hole, seeing the whole tube); carriers: the two beams' frequencies."""

    led: Led
    aperture_mm: float
    setback_mm: float
    carriers: tuple[int, int] = (CARRIER_A_HZ, CARRIER_A_HZ)

    def acceptance_deg(self) -> float:
        """Half-angle of the cone the receiver sees: the steepest ray from one edge of the tube's mouth to the far
        edge of a lens as wide as the bore (a receiver flush with the wall sees ±90°; its own ±45° half-sensitivity
        is not counted)."""
        if self.setback_mm <= 0:
            return 90.0
        return math.degrees(math.atan(self.aperture_mm / self.setback_mm))


# Before: 1 kΩ (3.1-4.2 mA), the receivers in plain holes, one 38 kHz carrier. After: the second beam on 56 kHz (a
# TSSP4056), each hole receiver 30 mm behind a 2 mm bore (a black tube), and 10 kΩ (0.32-0.41 mA). Each alone is
# not enough (HOLE_STEPS); together they leave a factor of about 6 each way.
HOLE_BEFORE = HoleOptics(Led("hole", 1000.0), 0.0, 0.0)
HOLE_AFTER = HoleOptics(LEDS[0], 2.0, 30.0, (CARRIER_A_HZ, CARRIER_B_HZ))
HOLE_STEPS = {
    "one 38 kHz carrier, plain holes, 1 kΩ (before)": HOLE_BEFORE,
    "56 kHz for the second beam only": HoleOptics(HOLE_BEFORE.led, 0.0, 0.0, HOLE_AFTER.carriers),
    "2 mm bores 30 mm deep and 10 kΩ, one carrier": HoleOptics(HOLE_AFTER.led, 2.0, 30.0),
    "all three (the design)": HOLE_AFTER,
}


def _led_pattern(cos_theta: float) -> float:
    m = math.log(0.5) / math.log(math.cos(math.radians(LED_HALF_DEG)))
    return max(cos_theta, 0.0) ** m


def carrier_drive(led_hz: int, receiver_hz: int, duty: float = DUTY) -> float:
    """What a receiver tuned to receiver_hz sees of an LED switched at led_hz with this duty, as a share of the
    datasheet's test signal of the same peak (a 50 % square wave at f0, fundamental 2/π): the matched fundamental at
    full response, every other harmonic (up to the 7th) at OFF_BAND."""
    total = 0.0
    for k in range(1, 8):
        a = 2 / (k * math.pi) * abs(math.sin(k * math.pi * duty))
        total += a * (1.0 if k * led_hz == receiver_hz else OFF_BAND)
    return total / (2 / math.pi)


def upright_face_offsets() -> tuple[float, float]:
    """How far (mm) from the tube's axis the face of an upright puck that leaves beam B clear can lie: the puck (9 mm
    thick) clears beam B's 3 mm aperture, and its 26.5 mm chord at the beam's depth (7 mm under its top: 2 √(16² - 9²))
    fits the bore."""
    half_chord = math.sqrt(16.0**2 - 9.0**2)
    far = math.sqrt((TUBE_MM / 2) ** 2 - half_chord**2) - 9.0  # the near face when the far face touches the wall
    return 1.5, far


def puck_scatter(optics: HoleOptics, face_mm: float, worst: str = "high", n: int = 120) -> float:
    """Irradiance (W/m², peak of the carrier) that receiver A gets from LED B by way of an upright puck, in the worst
    place: the puck blocks beam A between LED A and receiver A, its face towards receiver A face_mm from the tube's
    axis on LED A's side, lit at a grazing angle by LED B. The face is a Lambertian reflector (radiance ρ E / π); the
    receiver integrates E_face ρ/π cos² / s² over the part of the face inside its acceptance cone."""
    r = TUBE_MM / 2
    ie = optics.led.peak_ma(worst) * TSAL6200_IE_PER_MA * 1e-3  # W/sr on the LED's axis
    tan_a = math.tan(math.radians(min(optics.acceptance_deg(), 89.9)))
    dist = r + optics.setback_mm + face_mm  # receiver A's face to the puck's face, along beam A
    h = 32.0 / n
    total = 0.0
    for i in range(n):
        y = -16.0 + (i + 0.5) * h  # along beam B, from the axis
        for j in range(n):
            z = -25.0 + (j + 0.5) * h  # depth from the beams' plane; the puck's centre is 9 mm under it
            if y * y + (z + 9.0) ** 2 > 256.0 or face_mm**2 + y * y > r * r:
                continue
            if math.hypot(y, z) > dist * tan_a:
                continue
            ly = y + r  # from LED B, on the wall, shining along +y
            rl = math.sqrt(face_mm**2 + ly * ly + z * z)
            e_face = ie * _led_pattern(ly / rl) * (face_mm / rl) / (rl * 1e-3) ** 2
            s2 = dist * dist + y * y + z * z
            total += PUCK_REFLECTANCE / math.pi * e_face * (dist * dist / s2) / (s2 * 1e-6) * (h * 1e-3) ** 2
    return total


def direct_irradiance(optics: HoleOptics, worst: str = "low") -> float:
    """Irradiance (W/m², peak of the carrier) at a receiver from its own LED across the tube (the LED at the inner
    wall), counting only the part of the receiver's lens that a bore narrower than it leaves lit."""
    d = (TUBE_MM + optics.setback_mm) * 1e-3
    fill = 1.0 if optics.setback_mm <= 0 else min(1.0, optics.aperture_mm / RECEIVER_LENS_MM) ** 2
    return optics.led.peak_ma(worst) * TSAL6200_IE_PER_MA * 1e-3 / d**2 * fill


def crosstalk(optics: HoleOptics) -> dict[str, float]:
    """The margins of a hole-beam design, as multiples of the receiver's threshold:
    clear: its own LED at the lowest current against the least sensitive receiver (a clear beam must read clear);
    crosstalk: the other LED's light off an upright puck at the highest current, through the band-pass, against the
    most sensitive receiver (over 1: the blocked beam reads clear)."""
    a, b = optics.carriers
    own = direct_irradiance(optics) * carrier_fundamental() / (2 / math.pi) / EE_MIN_MAX
    scatter = max(puck_scatter(optics, f) for f in upright_face_offsets())
    leak = max(carrier_drive(b, a), carrier_drive(a, b))
    return {
        "acceptance_deg": optics.acceptance_deg(),
        "led_ma": optics.led.peak_ma("high"),
        "direct_mw_m2": direct_irradiance(optics) * 1e3,
        "scatter_mw_m2": scatter * 1e3,
        "clear": own,
        "crosstalk": scatter * leak / EE_MOST_SENSITIVE,
    }


def hall_budget_ma(count: int, per_sensor_ma: float) -> float:
    return count * per_sensor_ma


def main() -> int:
    geo = json.loads((HERE / "geometry.json").read_text(encoding="utf-8"))
    old_ic = total_peak_ma(LEDS, "typ")
    print(
        f"old driver: 2N3904 with 1 kΩ: I_B {bjt_base_ma(1000):.2f} mA for I_C {old_ic:.0f} mA, forced gain "
        f"{old_ic / bjt_base_ma(1000):.0f} (saturates: {bjt_saturates(1000, old_ic)})"
    )
    peak = total_peak_ma()
    print(
        f"new driver: {MOSFET['part']}, gate from a pin at >= {GPIO_VOH_MIN} V "
        f"(threshold max {MOSFET['vgs_th_max']} V): ok {mosfet_ok()}; {peak:.0f} mA peak -> "
        f"{mosfet_drop_v(peak) * 1000:.1f} mV; gate RC "
        f"{gate_time_constant_us():.2f} µs against a 26 µs carrier period"
    )
    for led in (*LEDS, HOLE2):
        print(
            f"  {led.name}: {led.resistor:.0f} Ω -> {led.peak_ma('low'):.1f}-{led.peak_ma('high'):.1f} mA peak, "
            f"{led.peak_ma('high') * DUTY:.1f} mA average (limit {TSAL6200_IF_MAX:.0f} mA)"
        )
    print(
        f"  carrier duty {DUTY:.0%}: fundamental {carrier_fundamental():.2f} of the peak "
        f"(50 %: {carrier_fundamental(0.5):.2f})"
    )
    print(
        f"receiver edge (beam broken) over {CABLE_PF_MAX:.0f} pF: {rise_time_us(None):.1f} µs on its 33 kΩ alone, "
        f"{rise_time_us():.1f} µs with the box's {BEAM_PULLUP / 1e3:.0f} kΩ; a 74HC input without hysteresis allows "
        f"{HC_INPUT_TRANSITION_NS / 1000:.1f} µs -> Schmitt inputs (74HC132)"
    )
    up, down = schmitt_margins()
    t = hc132_at()
    print(
        f"74HC132 at 3.3 V: V_T+ <= {t['vt_plus_max']:.2f} V ({up:.2f} V under a broken beam's 3.3 V), V_T- >= "
        f"{t['vt_minus_min']:.2f} V ({down:.2f} V over a clear beam's {TSSP_VOL_MAX} V), "
        f"hysteresis >= {t['vh_min']:.2f} V; "
        f"the receiver sinks {sink_ma():.2f} mA while clear (V_OL <= 0.1 V up to {TSSP_IOSL_SPEC * 1e3:.1f} mA)"
    )
    for name, theta in REGULATORS.items():
        print(f"strip regulator {name}: {regulator_rise_c(theta):.0f} °C over the channel's air at {STRIP_MA:.0f} mA")
    lo, hi = upright_face_offsets()
    print(
        f"hole beams' cross-talk: an upright puck blocking one beam, its face {lo:.1f}-{hi:.1f} mm from the axis, lit "
        f"by the other LED (reflectance {PUCK_REFLECTANCE}); receiver threshold {EE_MIN_TYP * 1e3:.1f} mW/m² typ, "
        f"{EE_MIN_MAX * 1e3:.1f} max, {EE_MOST_SENSITIVE * 1e3:.2f} taken for the most sensitive; off-band "
        f"{OFF_BAND} (38 kHz into the 56 kHz receiver: {carrier_drive(38000, 56000):.3f} of a matched test signal)"
    )
    for name, o in HOLE_STEPS.items():
        c = crosstalk(o)
        print(
            f"  {name}: LED {c['led_ma']:.2f} mA peak, acceptance ±{c['acceptance_deg']:.1f}°; own LED at its lowest "
            f"{c['direct_mw_m2']:.1f} mW/m² -> clear x{c['clear']:.1f}; off the puck {c['scatter_mw_m2']:.2f} mW/m² "
            f"-> cross-talk x{c['crosstalk']:.2f} of the threshold"
        )
    count = sum(r["per_quadrant"] for r in geo["hall"]["rows"]) * len(geo["quadrant_centres"])
    print(f"hall strip: {count} sensors x 5 mA = {hall_budget_ma(count, 5.0):.0f} mA from the 5 V input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
