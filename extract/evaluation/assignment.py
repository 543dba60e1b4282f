"""The maximum-weight one-to-one assignment (the Hungarian algorithm) that pairs gold and
predicted items."""

from __future__ import annotations

from typing import Optional, Sequence


def max_weight_assignment(weights: Sequence[Sequence[Optional[float]]]) -> list[tuple[int, int]]:
    """Pairs (row, col) of a maximum-weight one-to-one assignment (None = not allowed)."""
    n_rows = len(weights)
    n_cols = len(weights[0]) if n_rows else 0
    size = max(n_rows, n_cols)
    if not n_rows or not n_cols:
        return []
    cost = [[-(weights[i][j] or 0.0) if i < n_rows and j < n_cols else 0.0
             for j in range(size)] for i in range(size)]
    # Hungarian algorithm with potentials (1-based), minimising cost.
    inf = float("inf")
    u, v, p, way = [0.0] * (size + 1), [0.0] * (size + 1), [0] * (size + 1), [0] * (size + 1)
    for i in range(1, size + 1):
        p[0], j0 = i, 0
        minv, used = [inf] * (size + 1), [False] * (size + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, size + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(size + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    pairs = [(p[j] - 1, j - 1) for j in range(1, size + 1) if p[j]]
    return sorted((i, j) for i, j in pairs
                  if i < n_rows and j < n_cols and weights[i][j] is not None)
