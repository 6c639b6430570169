"""The baseline strip of magnetic switches: its scan and its pucks (main loop only, never in an IRQ).

HallStrip(cfg, emit, backend): segments read directly or through 74HC4067 multiplexers (channel by channel:
all signal pins at each select setting), scanned by poll(now); each segment's occupancy must hold settle_ms
before it counts. A puck covers a run of one to three neighbouring segments (within one quadrant), and events
are per puck: a run that empties gives `shot_start` {"q", "seg"}; after a shot has started, a run that appears
within rest_window_ms gives `baseline_rest` {"q", "seg"}. `seg` is the run's middle segment (a puck lifted off
after its baseline_rest names the segment of that rest); `t` is when the change began. A run that grows,
shrinks or shifts by a segment is the same puck. Quadrant of segment i: i * quadrants // count + 1.
"""

from fb.compat import busy_us, const

_SELECT_SETTLE_US = const(5)  # after changing a 74HC4067's select lines, before reading its signal pin
_SCAN_US = const(10000)  # how often the hall strips are scanned: a puck rests for hundreds of ms, settle_ms is 60
# A puck's sensors all go off within a few ms when it is flicked; their settled states can change a scan or two apart.
_SAME_PUCK_US = const(50000)
# The CPU's scan through multiplexers: step k goes to channel gray(k) = k ^ (k >> 1) by writing one select line,
# FLIP[k] = 2 * that line + its new level. Step 0 comes back from gray(15) = 8, where the last scan ended (and where
# none began: all select lines are written low at start, which is channel 0 already). Bytes, not a list of tuples:
# a table in the module's code, nothing built per strip.
GRAY = b"\x00\x01\x03\x02\x06\x07\x05\x04\x0c\x0d\x0f\x0e\x0a\x0b\x09\x08"
FLIP = b"\x06\x01\x03\x00\x05\x01\x02\x00\x07\x01\x03\x00\x04\x01\x02\x00"


class HallStrip:
    def __init__(self, cfg, emit, backend):
        self.name = cfg["name"]
        self.emit = emit
        n = self.count = cfg["count"]
        self.quadrants = cfg.get("quadrants", 4)
        self.settle = cfg.get("settle_ms", 60) * 1000
        self.active = 0 if cfg.get("active_low", True) else 1
        pull = "up" if self.active == 0 else None
        self.direct = bool(cfg.get("pins"))  # one pin per sensor, else 74HC4067 multiplexers
        self.pins = []  # type: list
        self.select = []  # type: list
        self.signals = []  # type: list
        self.scanner = None  # a PIO + DMA scanner (fb.pins.MuxScanner), or None: the CPU scans
        if self.direct:
            self.pins = [backend.make_input(p, pull) for p in cfg["pins"]]
            self.port = backend.make_port(cfg["pins"], self.pins)
        else:
            mux = cfg["mux"]
            if mux.get("enable") is not None:
                backend.make_output(mux["enable"], 0)  # 74HC4067 /E is active low
            sig = mux["signal"]
            if isinstance(sig, int):
                sig = [sig]
            if 16 * len(sig) < n:
                raise ValueError(self.name + ": " + str(n) + " segments need " + str((n + 15) // 16) + " mux signals")
            self.signals = [backend.make_input(p, pull) for p in sig]
            # On an RP2040 a PIO state machine and a DMA channel walk the multiplexers (fb.pins.make_mux_scanner);
            # elsewhere (the ESP32, the simulated board) the CPU does, below.
            make = getattr(backend, "make_mux_scanner", None)
            if make is not None:
                self.scanner = make(mux["select"], sig, _SCAN_US, _SELECT_SETTLE_US)
            if self.scanner is None:
                self.select = [backend.make_output(p, 0) for p in mux["select"]]
            self.port = backend.make_port(sig, self.signals)
        self._width = len(self.pins) if self.direct else len(self.signals)  # bits in one reading of the port
        self._seen_at = [-1] * (1 if self.direct else 16)  # the port's last reading, per select setting
        self._settling = bytearray(1 if self.direct else 16)  # 1: a segment there has not settled yet
        self._settled = bytearray(len(self._settling))  # (all settled: compared with _settling, no allocation)
        self.stable = bytearray(n)  # debounced occupancy
        self.raw = bytearray(n)  # latest reading
        self.since = [0] * n  # when raw last changed
        self.scanned = False
        self.rest_window = cfg.get("rest_window_ms", 2500) * 1000
        self.shot_at = None  # when the latest shot started: an arrival within rest_window is a puck coming to rest
        # rested[i]: 1 + the segment its baseline_rest named, while a puck that came to rest covers segment i (its
        # leaving is its removal, not a shot); 0 elsewhere.
        self.rested = bytearray(n)
        # The most neighbouring sensors one puck turns on (hardware/hall_pairs.py gives it for the strip's design):
        # a wider run is pucks side by side.
        self.puck_max = cfg.get("puck_max", 3)
        self._runs = []  # the runs of the last change: (first, last, how many pucks it holds)
        self._left = None  # (t, first, last, anchor) of the last puck that left and was not a rested one's removal
        self._came = None  # (t, first, last) of the last puck that came to rest (its segment: the middle one)
        self._slot = -1  # the _SCAN_US period of the last scan
        self._f = {"q": 0, "seg": 0}

    def quadrant(self, seg):
        return seg * self.quadrants // self.count + 1

    def poll(self, now):
        """Scan the strip once every _SCAN_US (on the multiples of it): a change is dated to the scan that saw it,
        at most _SCAN_US after it happened. Each select setting is one read of the port (every signal pin at once);
        only a reading that differs from the last one there, or a segment still settling, is looked at segment by
        segment. Through multiplexers the channels go in Gray-code order: one select line changes per step."""
        slot = now // _SCAN_US
        if slot == self._slot:
            return
        sc = self.scanner
        if sc is not None and not self.scanned and not sc.ready():
            return  # the PIO has not read every channel yet (just after boot): on a later pass
        self._slot = slot
        first = not self.scanned
        self.scanned = True
        changed = False
        if self.direct:
            if self._look(0, 0, 1, self.port.read(), now, first):
                changed = True
        elif sc is not None:
            # The PIO and DMA keep the latest reading of every channel in RAM: one comparison says whether any
            # changed since the last scan; only then (or while a segment settles) are channels looked at.
            fresh = sc.update()
            if fresh or first or self._settling != self._settled:
                seen = self._seen_at
                settling = self._settling
                for ch in range(16):
                    vec = sc.reading(ch)
                    if (vec != seen[ch] or settling[ch] or first) and self._look(ch, ch, 16, vec, now, first):
                        changed = True
        else:
            # The hot loop of the strip, kept to a few calls a step: one select line written (the Gray code's next
            # step), the settle wait, one read of the port; segment by segment only where something changed.
            port = self.port  # (its read() called as a method: a bound method taken out would be an allocation)
            seen = self._seen_at
            settling = self._settling
            select = self.select
            wait = busy_us
            for k in range(16):
                f = FLIP[k]
                select[f >> 1].value(f & 1)
                wait(_SELECT_SETTLE_US)
                vec = port.read()
                ch = GRAY[k]
                if (vec != seen[ch] or settling[ch] or first) and self._look(ch, ch, 16, vec, now, first):
                    changed = True
        if first:
            self._runs = self._counted(self.runs())
        elif changed:
            self._pucks(self.runs())

    def _counted(self, runs):
        """The runs with the pucks their width says they hold at least (a closure in poll would allocate its cell
        at every call)."""
        m = self.puck_max
        return [(a, b, 1 if b - a < m else 1 + (b - a) // m) for a, b in runs]

    def _look(self, slot, seg, step, vec, now, first):
        """The segments seg, seg + step, ... read as the bits of vec; True when one's settled occupancy changed."""
        if vec == self._seen_at[slot] and not self._settling[slot] and not first:
            return False
        self._seen_at[slot] = vec
        on = self.active
        raw = self.raw
        stable = self.stable
        n = self.count
        changed = False
        settling = 0
        bit = 1
        for _ in range(self._width):
            if seg >= n:
                break
            if self._seen(seg, 1 if (1 if vec & bit else 0) == on else 0, now, first):
                changed = True
            if raw[seg] != stable[seg]:
                settling = 1
            seg += step
            bit <<= 1
        self._settling[slot] = settling
        return changed

    def _seen(self, i, v, now, first):
        """Record one reading; True when the segment's settled occupancy changed."""
        if first:
            self.raw[i] = self.stable[i] = v
            self.since[i] = now
            return False
        if v != self.raw[i]:
            self.raw[i] = v
            self.since[i] = now
        if v != self.stable[i] and now - self.since[i] >= self.settle:
            self.stable[i] = v
            return True
        return False

    def runs(self):
        """The pucks on the strip: runs of neighbouring occupied segments, each within one quadrant, as
        (first, last). A puck's magnet switches one to three neighbouring sensors (or, centred over a sensor of an
        in-plane strip, the two either side of it alone: two runs; see _pucks)."""
        out = []
        start = -1
        for i in range(self.count):
            if self.stable[i]:
                if start >= 0 and self.quadrant(i) != self.quadrant(start):
                    out.append((start, i - 1))
                    start = -1
                if start < 0:
                    start = i
            elif start >= 0:
                out.append((start, i - 1))
                start = -1
        if start >= 0:
            out.append((start, self.count - 1))
        return out

    def _pucks(self, now_runs):
        """Events for the pucks that left and arrived since the last change, in time order.

        Each run of the last change carries how many pucks it holds (self._runs: (first, last, pucks)). One puck
        turns on at most puck_max neighbouring sensors (hardware/hall_pairs.py measures it on the field model), so
        a run wider than that holds two pucks or more: pucks side by side. Old and new runs that overlap are the same
        pucks (they wobble, and a run can split or merge as they settle), unless the new runs can hold fewer pucks
        than the old ones held: a run of pucks side by side that shrinks to puck_max or fewer sensors is down to one,
        and the one at the end that lost sensors left (a shot from beside a resting puck); when runs merge into one
        no wider than a puck, the old run that kept the least of its sensors left. A run that grows wider than its
        pucks can cover has gained one, at the end that grew."""
        since = self.since
        stable = self.stable
        rested = self.rested
        old = self._runs
        m = self.puck_max
        gone = []  # (t, first, last, anchor): a puck left; it covered first..last
        came = []  # (t, first, last): a puck arrived
        new = []
        i = j = 0
        no = len(old)
        nn = len(now_runs)
        while i < no or j < nn:
            # One group of overlapping old and new runs (each list is sorted and its runs disjoint).
            i0, j0 = i, j
            if j >= nn or (i < no and old[i][0] <= now_runs[j][0]):
                hi = old[i][1]
                i += 1
            else:
                hi = now_runs[j][1]
                j += 1
            while True:
                if i < no and old[i][0] <= hi:
                    if old[i][1] > hi:
                        hi = old[i][1]
                    i += 1
                elif j < nn and now_runs[j][0] <= hi:
                    if now_runs[j][1] > hi:
                        hi = now_runs[j][1]
                    j += 1
                else:
                    break
            if i == i0:  # new runs only: pucks arrived
                for a, b in now_runs[j0:j]:
                    came.append((_first(since, stable, a, b), a, b))
                    new.append((a, b, 1 if b - a < m else 1 + (b - a) // m))
                continue
            if j == j0:  # old runs only: pucks left
                for c, d, _k in old[i0:i]:
                    gone.append((_last(since, c, d), c, d, _take_anchor(rested, c, d)))
                continue
            pucks = 0
            for k in range(i0, i):
                pucks += old[k][2]
            oa = old[i0][0]
            ob = old[i - 1][1]
            na = now_runs[j0][0]
            nb = now_runs[j - 1][1]
            if j - j0 == 1:
                ks = [1 if nb - na < m else max(pucks, 1 + (nb - na) // m)]
            else:
                ks = [1 if b - a < m else 1 + (b - a) // m for a, b in now_runs[j0:j]]
                short = pucks - sum(ks)
                if short > 0:  # pucks side by side whose run split as they settled: the wide part holds them
                    for k in range(len(ks)):
                        a, b = now_runs[j0 + k]
                        if b - a >= m:
                            ks[k] += short
                            break
            held = sum(ks)
            if held < pucks:  # a puck left
                if i - i0 == 1:  # from the end that lost sensors
                    if ob - nb >= na - oa:
                        lo, hi = (nb + 1, ob) if nb < ob else (ob, ob)
                    else:
                        lo, hi = (oa, na - 1) if oa < na else (oa, oa)
                else:  # the old run that kept the least of its sensors
                    lo = hi = -1
                    best = 2.0
                    for c, d, _k in old[i0:i]:
                        kept = 0
                        for a, b in now_runs[j0:j]:
                            if a <= d and c <= b:
                                kept += min(b, d) - max(a, c) + 1
                        if kept / (d - c + 1) < best:
                            best = kept / (d - c + 1)
                            lo, hi = c, d
                gone.append((_last(since, lo, hi), lo, hi, _take_anchor(rested, lo, hi, na, nb)))
            elif held > pucks and i - i0 == 1 and j - j0 == 1:  # a puck joined at the end that grew
                if nb - ob >= oa - na:
                    came.append((_first(since, stable, ob + 1, nb), max(ob + 1, nb - m + 1), nb))
                else:
                    came.append((_first(since, stable, na, oa - 1), na, min(oa - 1, na + m - 1)))
            for k in range(j - j0):
                a, b = now_runs[j0 + k]
                if ks[k] == 1:  # one puck: a rested one stays rested, with its segment, across its new sensors
                    anchor = 0
                    for c, d, kc in old[i0:i]:
                        if c <= b and a <= d:
                            if kc > 1:  # of pucks side by side, the one on these sensors
                                c = max(a, c)
                                d = min(b, d)
                            for x in range(c, d + 1):
                                if rested[x]:
                                    anchor = rested[x]
                    if anchor:
                        for x in range(a, b + 1):
                            rested[x] = anchor
                new.append((a, b, ks[k]))
        for lv in gone:
            t, a, b, anchor = lv
            # A puck leaving the baseline. The host tells a shot from the removal of a puck that came to rest here
            # (the same segment as its baseline_rest); a removal does not restart the rest window, so the next
            # player placing a puck is not taken for a puck coming to rest.
            # What leaves within _SAME_PUCK_US of a puck that just left, one free segment or none from its sensors, is
            # that puck: its sensors settle a scan apart, and a puck centred over a sensor it leaves off lights the
            # two either side of it as two runs.
            pl = self._left
            if pl is not None and t - pl[0] <= _SAME_PUCK_US and a <= pl[2] + 2 and b >= pl[1] - 2:
                continue
            self._left = lv
            if anchor:
                self._say("shot_start", t, anchor - 1)
            else:
                self.shot_at = t
                self._say("shot_start", t, (a + b) // 2)
        for arr in came:
            t, a, b = arr
            # A puck arriving soon after a shot came to rest there; later, a player placed one to shoot. What arrives
            # within _SAME_PUCK_US of a puck that came to rest, one free segment or none from it, is that puck.
            pc = self._came
            if pc is not None and t - pc[0] <= _SAME_PUCK_US and a <= pc[2] + 2 and b >= pc[1] - 2:
                seg = (pc[1] + pc[2]) // 2
                for j in range(a, b + 1):
                    rested[j] = seg + 1
                continue
            if self.shot_at is not None and t - self.shot_at <= self.rest_window:
                seg = (a + b) // 2
                for j in range(a, b + 1):
                    rested[j] = seg + 1
                self._came = arr
                self._say("baseline_rest", t, seg)
        self._runs = new

    def rebase(self, d):
        since = self.since
        for i in range(self.count):
            since[i] -= d
        if self.shot_at is not None:
            self.shot_at -= d
        p = self._left
        if p is not None:
            self._left = (p[0] - d, p[1], p[2], p[3])
        pc = self._came
        if pc is not None:
            self._came = (pc[0] - d, pc[1], pc[2])
        self._slot = -1

    def _say(self, kind, t_us, seg):
        f = self._f
        f["q"] = self.quadrant(seg)
        f["seg"] = seg
        self.emit(kind, self.name, t_us, f)

    def occupied(self):
        return [i for i in range(self.count) if self.stable[i]]


def _first(since, stable, a, b):
    """When the earliest occupied segment of a..b became so."""
    t = None
    for j in range(a, b + 1):
        if stable[j] and (t is None or since[j] < t):
            t = since[j]
    return since[a] if t is None else t


def _last(since, a, b):
    """When the latest of segments a..b last changed."""
    t = since[a]
    for j in range(a, b + 1):
        if since[j] > t:
            t = since[j]
    return t


def _take_anchor(rested, a, b, keep_a=0, keep_b=-1):
    """The rest (1 + its segment) a puck that covered a..b came to, 0 if none; its sensors are no longer rested. A rest
    whose segment lies in keep_a..keep_b is the puck still there (its mark spread to a neighbour's sensors while
    the two settled): not this puck's."""
    anchor = 0
    for j in range(a, b + 1):
        r = rested[j]
        if r:
            if not keep_a <= r - 1 <= keep_b:
                anchor = r
            rested[j] = 0
    return anchor
