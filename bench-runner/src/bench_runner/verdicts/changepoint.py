"""Change points in a series of nightly medians: E-divisive (Matteson and James, 2014, the
method Apache Otava builds on), pure and seeded.

For a split of ``x[0..n-1]`` into ``A = x[:t]`` (m values) and ``B = x[t:]`` (k values) the
energy statistic (exponent 1) is

    Q(t) = m k / (m + k) * ( 2/(m k) sum|a - b| - sum_{i<j}|a_i - a_j| / C(m, 2)
                                                - sum_{i<j}|b_i - b_j| / C(k, 2) )

with a within-term of 0 for a segment of one value (no pairs), so a shift that starts
tonight can be named too. The best split of a segment maximises Q; it is significant when
at most a fraction ``alpha`` of ``permutations`` random orderings of the segment reach a
maximum as large (p = (1 + reached) / (1 + permutations)). Segments are split recursively
(binary segmentation) until no split of any segment is significant. The permutations come
from one generator seeded with ``seed``: the same input gives the same change points.
"""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def energy_statistics(values: Sequence[float] | NDArray[np.float64]) -> NDArray[np.float64]:
    """``Q(t)`` for t = 1 .. n-1 (index t-1): every split into a non-empty head and tail."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n < 2:
        return np.zeros(0)
    distances = np.abs(x[:, None] - x[None, :])
    # prefix[a, b]: the sum of distances[:a, :b].
    prefix = np.zeros((n + 1, n + 1))
    prefix[1:, 1:] = distances.cumsum(axis=0).cumsum(axis=1)
    t = np.arange(1, n)
    m = t.astype(np.float64)
    k = (n - t).astype(np.float64)
    head = prefix[t, t]
    head_to_all = prefix[t, n]
    between = head_to_all - head
    tail = prefix[n, n] - 2 * head_to_all + head
    # Each pair counted twice in a block's sum; pairs of a one-value segment: none.
    within_head = np.divide(head, m * (m - 1), out=np.zeros(n - 1), where=m > 1)
    within_tail = np.divide(tail, k * (k - 1), out=np.zeros(n - 1), where=k > 1)
    energy = 2 * between / (m * k) - within_head - within_tail
    result: NDArray[np.float64] = m * k / (m + k) * energy
    return result


def best_split(values: Sequence[float] | NDArray[np.float64]) -> tuple[int, float]:
    """The split ``t`` (first index of the tail) with the largest Q, and that Q."""
    statistics = energy_statistics(values)
    best = int(np.argmax(statistics))
    return best + 1, float(statistics[best])


def split_p_value(
    values: NDArray[np.float64], observed: float, permutations: int, rng: np.random.Generator
) -> float:
    """How often a random ordering of ``values`` has a split at least as strong."""
    reached = sum(best_split(rng.permutation(values))[1] >= observed for _ in range(permutations))
    return (1 + reached) / (1 + permutations)


def change_points(
    values: Sequence[float], permutations: int = 199, alpha: float = 0.05, seed: int = 0
) -> list[int]:
    """Indices where a significant shift starts (the first value of the new level),
    ascending."""
    x = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    found: list[int] = []
    segments = [(0, len(x))]
    while segments:
        start, end = segments.pop()
        if end - start < 3 or np.ptp(x[start:end]) == 0:
            continue
        split, observed = best_split(x[start:end])
        if split_p_value(x[start:end], observed, permutations, rng) > alpha:
            continue
        found.append(start + split)
        segments += [(start, start + split), (start + split, end)]
    return sorted(found)
