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
    Led("hole", 1000.0),
    Led("ditch1", 150.0),
    Led("ditch2", 150.0),
    Led("ditch3", 150.0),
    Led("ditch4", 150.0),
)
HOLE2 = Led("hole2", 1000.0)
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
    count = sum(r["per_quadrant"] for r in geo["hall"]["rows"]) * len(geo["quadrant_centres"])
    print(f"hall strip: {count} sensors x 5 mA = {hall_budget_ma(count, 5.0):.0f} mA from the 5 V input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
