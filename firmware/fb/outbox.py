"""Outbox: a fixed ring of un-acknowledged reliable lines, resent in order until the host acks them.

Capacity is fixed at construction (two pre-allocated lists); nothing grows. When full, add() drops the
OLDEST line, counts it, and widens the single lost range (first..last). That range is reported by one
`gap` message (encode_gap(first, last) -> line), yielded first by pending() until the host acks a seq
>= last. Consecutive drops merge into the same range, so there is never more than one gap message.
"""


class Outbox:
    def __init__(self, capacity, boot_id, encode_gap=None):
        if capacity < 1:
            raise ValueError("outbox capacity must be >= 1")
        self.capacity = capacity
        self.boot_id = boot_id
        self._seqs = [0] * capacity
        self._lines = [None] * capacity
        self._head = 0  # index of the oldest entry
        self._n = 0
        self.dropped = 0  # lines dropped on overflow since boot
        self.acked = 0  # highest seq acknowledged by the host (never above the last seq added)
        self.last_seq = 0
        self.ignored_acks = 0  # acks for another boot
        self.gap_first = 0  # lost range, 0 when none is pending
        self.gap_last = 0
        self._encode_gap = encode_gap
        self._gap_line = None

    def depth(self):
        return self._n

    def add(self, seq, line):
        """Keep a line until acked. Returns True when the oldest line was dropped to make room."""
        dropped = False
        if self._n == self.capacity:
            old = self._seqs[self._head]
            self._lines[self._head] = None
            self._head = (self._head + 1) % self.capacity
            self._n -= 1
            self.dropped += 1
            if self.gap_first == 0:
                self.gap_first = old
            self.gap_last = old
            self._gap_line = None
            dropped = True
        i = (self._head + self._n) % self.capacity
        self._seqs[i] = seq
        self._lines[i] = line
        self._n += 1
        self.last_seq = seq
        return dropped

    def ack(self, boot_id, upto):
        """Cumulative ack: drop every line with seq <= upto. Returns how many went, or -1 (other boot)."""
        if boot_id != self.boot_id:
            self.ignored_acks += 1
            return -1
        if upto > self.last_seq:
            upto = self.last_seq  # an ack beyond anything sent cannot cover lines not yet written
        if upto <= self.acked:
            return 0  # duplicate or stale: nothing to do
        self.acked = upto
        n = 0
        while self._n and self._seqs[self._head] <= upto:
            self._lines[self._head] = None
            self._head = (self._head + 1) % self.capacity
            self._n -= 1
            n += 1
        if self.gap_first and upto >= self.gap_last:
            self.gap_first = 0
            self.gap_last = 0
            self._gap_line = None
        return n

    def gap(self):
        """(first, last) of the lost range still to report, or None."""
        if self.gap_first:
            return (self.gap_first, self.gap_last)
        return None

    def gap_line(self):
        if not self.gap_first or self._encode_gap is None:
            return None
        if self._gap_line is None:
            self._gap_line = self._encode_gap(self.gap_first, self.gap_last)
        return self._gap_line

    def pending(self):
        """Lines to (re)send, oldest first: the gap message (if any), then every un-acked line."""
        g = self.gap_line()
        if g is not None:
            yield g
        for k in range(self._n):
            yield self._lines[(self._head + k) % self.capacity]

    def after(self, seq):
        """(seq, line) of every un-acked line newer than seq, oldest first (for links that stream)."""
        for k in range(self._n):
            i = (self._head + k) % self.capacity
            if self._seqs[i] > seq:
                yield self._seqs[i], self._lines[i]

    def oldest_seq(self):
        return self._seqs[self._head] if self._n else 0
