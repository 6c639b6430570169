"""A maximum-weight matching of a general graph: Edmonds' blossom algorithm in its primal-dual form, O(n³).

The Swiss pairings (swiss.py) are one such matching over the entrants still playing. It lives here, in a few
hundred lines of plain Python, so that a tournament command starts at once: a graph library takes longer to import
than the pairing takes to compute (docs/performance.md, figure 9).

`max_weight_matching(n, edges, max_cardinality)` takes vertices 0..n-1 and edges (i, j, weight) with integer weights,
and returns `mate`: mate[v] is v's partner, or -1. With `max_cardinality`, the matching has as many edges as any
matching of the graph, and among those the greatest weight.

How it works, in short. Every vertex has a dual value (its price) and every blossom (an odd cycle shrunk to one
vertex) has one too; an edge may be used only while it is tight (its two prices add up to its weight, counted twice).
Each stage grows alternating trees from the unmatched vertices through tight edges: the tree's even vertices are
"S", its odd ones "T". Two S vertices of one tree joined by a tight edge close an odd cycle: it becomes a blossom, an
S vertex of its own. Two S vertices of different trees joined by a tight edge give an augmenting path: the matching
grows by one edge along it and the stage ends. When no tight edge helps, the prices move by the largest step that
keeps every edge's slack at or above zero (S prices down, T prices up): a new edge becomes tight, or a T blossom's
price reaches zero and it is opened again, or (without `max_cardinality`) an S price reaches zero and the matching is
the best there is.

Edges are numbered k; edge k has two ends, 2k (at its first vertex) and 2k + 1 (at its second), and `end ^ 1` is the
other end of the same edge. A vertex's or a blossom's label remembers the end through which it was reached.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

FREE, S, T = 0, 1, 2
SEEN = 4  # a mark on a label while two paths are traced back to find where they meet


def max_weight_matching(n: int, edges: Sequence[tuple[int, int, int]], max_cardinality: bool = False) -> list[int]:
    """mate[v] for each vertex 0..n-1 (-1: unmatched) of a maximum-weight matching; see the module's text."""
    return _Matcher(n, edges).solve(max_cardinality)


class _Matcher:
    def __init__(self, n: int, edges: Sequence[tuple[int, int, int]]) -> None:
        for i, j, _w in edges:
            if not (0 <= i < n and 0 <= j < n) or i == j:
                raise ValueError(f"an edge ({i}, {j}) must join two different vertices among 0..{n - 1}")
        self.n = n
        self.weight = [w for _i, _j, w in edges]
        self.end_vertex = [v for i, j, _w in edges for v in (i, j)]  # the vertex at each end
        self.ends_at: list[list[int]] = [[] for _ in range(n)]  # for each vertex, the far ends of its edges
        for k, (i, j, _w) in enumerate(edges):
            self.ends_at[i].append(2 * k + 1)
            self.ends_at[j].append(2 * k)
        top = max([0, *self.weight])
        nodes = 2 * n  # vertices are 0..n-1; blossoms take numbers n..2n-1
        self.mate = [-1] * n  # the far end of a vertex's matched edge
        self.label = [FREE] * nodes
        self.label_end = [-1] * nodes  # the end (on the labelling side) of the edge a label came through
        self.in_blossom = list(range(n))  # the outermost blossom holding each vertex
        self.parent = [-1] * nodes
        self.children: list[list[int]] = [[] for _ in range(nodes)]  # a blossom's cycle, its base's first
        self.links: list[list[int]] = [[] for _ in range(nodes)]  # links[b][i]: the end in children[i] of the
        # edge from children[i] to children[i + 1] (cyclically)
        self.base = list(range(n)) + [-1] * n
        self.best_edge = [-1] * nodes  # the least-slack edge to an S blossom (see _scan)
        self.best_edges: list[list[int] | None] = [None] * nodes  # a blossom's least-slack edge to each S blossom
        self.spare = list(range(n, nodes))  # blossom numbers not in use
        self.dual = [top] * n + [0] * n
        self.tight = [False] * len(self.weight)  # edges known to have zero slack this stage
        self.queue: list[int] = []  # S vertices whose edges are still to be looked at

    # -- small helpers

    def slack(self, k: int) -> int:
        return self.dual[self.end_vertex[2 * k]] + self.dual[self.end_vertex[2 * k + 1]] - 2 * self.weight[k]

    def leaves(self, b: int) -> Iterator[int]:
        if b < self.n:
            yield b
            return
        for c in self.children[b]:
            yield from self.leaves(c)

    def _label(self, w: int, label: int, end: int) -> None:
        """Label vertex w's outermost blossom, reached through `end`; a T blossom labels its base's mate S."""
        b = self.in_blossom[w]
        assert self.label[w] == FREE and self.label[b] == FREE
        self.label[w] = self.label[b] = label
        self.label_end[w] = self.label_end[b] = end
        self.best_edge[w] = self.best_edge[b] = -1
        if label == S:
            self.queue.extend(self.leaves(b))
        else:
            partner_end = self.mate[self.base[b]]
            assert partner_end >= 0
            self._label(self.end_vertex[partner_end], S, partner_end ^ 1)

    def _meeting_point(self, v: int, w: int) -> int:
        """Trace the trees back from S vertices v and w: the base of the blossom they close, or -1 when they are
        in different trees (an augmenting path)."""
        marked = []
        found = -1
        while v != -1 or w != -1:
            b = self.in_blossom[v]
            if self.label[b] & SEEN:
                found = self.base[b]
                break
            assert self.label[b] == S
            marked.append(b)
            self.label[b] = S | SEEN
            if self.label_end[b] == -1:  # the root of its tree
                v = -1
            else:
                t = self.in_blossom[self.end_vertex[self.label_end[b]]]
                assert self.label[t] == T
                v = self.end_vertex[self.label_end[t]]
            if w != -1:
                v, w = w, v
        for b in marked:
            self.label[b] = S
        return found

    # -- blossoms

    def _make_blossom(self, base: int, k: int) -> None:
        """Shrink the odd cycle that tight edge k (between two S vertices of one tree) closes, down to `base`."""
        v, w = self.end_vertex[2 * k], self.end_vertex[2 * k + 1]
        bb, bv, bw = self.in_blossom[base], self.in_blossom[v], self.in_blossom[w]
        b = self.spare.pop()
        self.base[b] = base
        self.parent[b] = -1
        self.parent[bb] = b
        cycle: list[int] = []
        links: list[int] = []
        while bv != bb:  # from v's side back to the base
            self.parent[bv] = b
            cycle.append(bv)
            links.append(self.label_end[bv])
            bv = self.in_blossom[self.end_vertex[self.label_end[bv]]]
        cycle.append(bb)
        cycle.reverse()
        links.reverse()
        links.append(2 * k)
        while bw != bb:  # from w's side back to the base
            self.parent[bw] = b
            cycle.append(bw)
            links.append(self.label_end[bw] ^ 1)
            bw = self.in_blossom[self.end_vertex[self.label_end[bw]]]
        self.children[b], self.links[b] = cycle, links
        assert self.label[bb] == S
        self.label[b] = S
        self.label_end[b] = self.label_end[bb]
        self.dual[b] = 0
        for x in self.leaves(b):
            if self.label[self.in_blossom[x]] == T:  # a T vertex inside an S blossom is S now: look at its edges
                self.queue.append(x)
            self.in_blossom[x] = b
        # The new blossom's least-slack edge to each other S blossom, from its children's lists.
        best_to = [-1] * (2 * self.n)
        for c in cycle:
            known = self.best_edges[c]
            lists = [known] if known is not None else [[e // 2 for e in self.ends_at[x]] for x in self.leaves(c)]
            for edge_list in lists:
                for e in edge_list:
                    i, j = self.end_vertex[2 * e], self.end_vertex[2 * e + 1]
                    if self.in_blossom[j] == b:
                        i, j = j, i
                    bj = self.in_blossom[j]
                    if (
                        bj != b
                        and self.label[bj] == S
                        and (best_to[bj] == -1 or self.slack(e) < self.slack(best_to[bj]))
                    ):
                        best_to[bj] = e
            self.best_edges[c] = None
            self.best_edge[c] = -1
        self.best_edges[b] = [e for e in best_to if e != -1]
        best = -1
        for e in self.best_edges[b] or ():
            if best == -1 or self.slack(e) < self.slack(best):
                best = e
        self.best_edge[b] = best

    def _open(self, b: int, end_of_stage: bool) -> None:
        """Undo blossom b: its children become outermost again. Within a stage (b is a T blossom whose price reached
        zero) the children on the even path from where b was entered to its base are labelled T and S in turn."""
        for c in self.children[b]:
            self.parent[c] = -1
            if c < self.n:
                self.in_blossom[c] = c
            elif end_of_stage and self.dual[c] == 0:
                self._open(c, end_of_stage)
            else:
                for x in self.leaves(c):
                    self.in_blossom[x] = c
        if not end_of_stage and self.label[b] == T:
            self._relabel_children(b)
        self.label[b] = self.label_end[b] = -1
        self.children[b], self.links[b] = [], []
        self.base[b] = -1
        self.best_edges[b] = None
        self.best_edge[b] = -1
        self.spare.append(b)

    def _relabel_children(self, b: int) -> None:
        children, links = self.children[b], self.links[b]
        size = len(children)
        entry = self.in_blossom[self.end_vertex[self.label_end[b] ^ 1]]
        j = children.index(entry)
        # Walk to the base the way that is an even number of steps: forward from an odd position, back from an even
        # one. Forward, the edge to the next child is links[j] from this side; back, it is links[j - 1] from the other.
        if j & 1:
            j -= size
            step, back = 1, 0
        else:
            step, back = -1, 1
        end = self.label_end[b]
        while j != 0:
            self.label[self.end_vertex[end ^ 1]] = FREE
            self.label[self.end_vertex[links[j - back] ^ back ^ 1]] = FREE
            self._label(self.end_vertex[end ^ 1], T, end)
            self.tight[links[j - back] // 2] = True
            j += step
            end = links[j - back] ^ back
            self.tight[end // 2] = True
            j += step
        c = children[j]  # the base child: T, and its base's mate outside b is already S
        self.label[self.end_vertex[end ^ 1]] = self.label[c] = T
        self.label_end[self.end_vertex[end ^ 1]] = self.label_end[c] = end
        self.best_edge[c] = -1
        j += step
        while children[j] != entry:  # the other way round: a child reached from outside this stage is T again
            c = children[j]
            if self.label[c] == S:
                j += step
                continue
            reached = next((x for x in self.leaves(c) if self.label[x] != FREE), -1)
            if reached != -1:
                assert self.label[reached] == T and self.in_blossom[reached] == c
                self.label[reached] = FREE
                self.label[self.end_vertex[self.mate[self.base[c]]]] = FREE
                self._label(reached, T, self.label_end[reached])
            j += step

    def _shift_base(self, b: int, v: int) -> None:
        """Swap matched and unmatched edges along the even path inside blossom b from vertex v to its base, so that
        v becomes b's base."""
        t = v
        while self.parent[t] != b:
            t = self.parent[t]
        if t >= self.n:
            self._shift_base(t, v)
        children, links = self.children[b], self.links[b]
        size = len(children)
        i = j = children.index(t)
        if i & 1:
            j -= size
            step, back = 1, 0
        else:
            step, back = -1, 1
        while j != 0:
            j += step
            t = children[j]
            end = links[j - back] ^ back
            if t >= self.n:
                self._shift_base(t, self.end_vertex[end])
            j += step
            t = children[j]
            if t >= self.n:
                self._shift_base(t, self.end_vertex[end ^ 1])
            self.mate[self.end_vertex[end]] = end ^ 1
            self.mate[self.end_vertex[end ^ 1]] = end
        self.children[b] = children[i:] + children[:i]
        self.links[b] = links[i:] + links[:i]
        self.base[b] = self.base[self.children[b][0]]
        assert self.base[b] == v

    def _augment(self, k: int) -> None:
        """Grow the matching along the path through tight edge k, which joins the S vertices of two trees."""
        for s, end in ((self.end_vertex[2 * k], 2 * k + 1), (self.end_vertex[2 * k + 1], 2 * k)):
            while True:
                bs = self.in_blossom[s]
                assert self.label[bs] == S
                if bs >= self.n:
                    self._shift_base(bs, s)
                self.mate[s] = end
                if self.label_end[bs] == -1:  # the root: a vertex that was unmatched
                    break
                t = self.end_vertex[self.label_end[bs]]
                bt = self.in_blossom[t]
                assert self.label[bt] == T and self.base[bt] == t
                s = self.end_vertex[self.label_end[bt]]
                inside = self.end_vertex[self.label_end[bt] ^ 1]
                if bt >= self.n:
                    self._shift_base(bt, inside)
                self.mate[inside] = self.label_end[bt]
                end = self.label_end[bt] ^ 1

    # -- the stages

    def _scan(self) -> bool:
        """Look at the queued S vertices' edges: True when the matching grew."""
        while self.queue:
            v = self.queue.pop()
            assert self.label[self.in_blossom[v]] == S
            for far in self.ends_at[v]:
                k, w = far // 2, self.end_vertex[far]
                bv, bw = self.in_blossom[v], self.in_blossom[w]
                if bv == bw:
                    continue
                slack = 0
                if not self.tight[k]:
                    slack = self.slack(k)
                    if slack <= 0:
                        self.tight[k] = True
                if self.tight[k]:
                    if self.label[bw] == FREE:
                        self._label(w, T, far ^ 1)
                    elif self.label[bw] == S:
                        base = self._meeting_point(v, w)
                        if base >= 0:
                            self._make_blossom(base, k)
                        else:
                            self._augment(k)
                            return True
                    elif self.label[w] == FREE:  # w's blossom is T and w itself not yet: keep how it was reached
                        self.label[w] = T
                        self.label_end[w] = far ^ 1
                elif self.label[bw] == S:  # the least-slack edge between these two S blossoms, for a later step
                    if self.best_edge[bv] == -1 or slack < self.slack(self.best_edge[bv]):
                        self.best_edge[bv] = k
                elif self.label[w] == FREE and (self.best_edge[w] == -1 or slack < self.slack(self.best_edge[w])):
                    self.best_edge[w] = k  # the least-slack edge from an S vertex to w
        return False

    def _step_prices(self, max_cardinality: bool) -> bool:
        """Move the prices by the largest step that keeps every slack >= 0; False when the matching is final."""
        n = self.n
        kind, delta, edge, blossom = 0, 0, -1, -1
        if not max_cardinality:
            kind, delta = 1, min(self.dual[:n])
        for v in range(n):  # an edge from a free vertex to an S vertex
            if self.label[self.in_blossom[v]] == FREE and self.best_edge[v] != -1:
                d = self.slack(self.best_edge[v])
                if kind == 0 or d < delta:
                    kind, delta, edge = 2, d, self.best_edge[v]
        for b in range(2 * n):  # an edge between two S blossoms
            if self.parent[b] == -1 and self.label[b] == S and self.best_edge[b] != -1:
                slack = self.slack(self.best_edge[b])
                assert slack % 2 == 0, "integer weights keep the slack between two S vertices even"
                d = slack // 2
                if kind == 0 or d < delta:
                    kind, delta, edge = 3, d, self.best_edge[b]
        for b in range(n, 2 * n):  # a T blossom whose price would go below zero
            if (
                self.base[b] >= 0
                and self.parent[b] == -1
                and self.label[b] == T
                and (kind == 0 or self.dual[b] < delta)
            ):
                kind, delta, blossom = 4, self.dual[b], b
        if kind == 0:  # max_cardinality, and nothing more can be tightened: the matching is final
            kind, delta = 1, max(0, min(self.dual[:n]))
        for v in range(n):
            label = self.label[self.in_blossom[v]]
            if label == S:
                self.dual[v] -= delta
            elif label == T:
                self.dual[v] += delta
        for b in range(n, 2 * n):
            if self.base[b] >= 0 and self.parent[b] == -1:
                if self.label[b] == S:
                    self.dual[b] += delta
                elif self.label[b] == T:
                    self.dual[b] -= delta
        if kind == 1:
            return False
        if kind == 2:
            self.tight[edge] = True
            i, j = self.end_vertex[2 * edge], self.end_vertex[2 * edge + 1]
            if self.label[self.in_blossom[i]] == FREE:
                i, j = j, i
            assert self.label[self.in_blossom[i]] == S
            self.queue.append(i)
        elif kind == 3:
            self.tight[edge] = True
            i = self.end_vertex[2 * edge]
            assert self.label[self.in_blossom[i]] == S
            self.queue.append(i)
        else:
            self._open(blossom, False)
        return True

    def solve(self, max_cardinality: bool) -> list[int]:
        n = self.n
        if not self.weight:
            return [-1] * n
        for _stage in range(n):
            self.label = [FREE] * (2 * n)
            self.best_edge = [-1] * (2 * n)
            self.best_edges[n:] = [None] * n
            self.tight = [False] * len(self.weight)
            self.queue = []
            for v in range(n):
                if self.mate[v] == -1 and self.label[self.in_blossom[v]] == FREE:
                    self._label(v, S, -1)
            grew = False
            while True:
                if self._scan():
                    grew = True
                    break
                if not self._step_prices(max_cardinality):
                    break
            if not grew:
                break
            for b in range(n, 2 * n):  # S blossoms whose price is zero open at the end of a stage
                if self.parent[b] == -1 and self.base[b] >= 0 and self.label[b] == S and self.dual[b] == 0:
                    self._open(b, True)
        return [self.end_vertex[e] if e >= 0 else -1 for e in self.mate]
