"""Speed tricks of the engine, kept in one place, each with the plain version it must equal.

The kernels call these instead of writing the trick inline, so the formulas read plainly. Every function here has
a straightforward equivalent (``bench/fast_plain.py``) that ``tests/engine/test_fast.py`` compares it with on random
inputs, and ``bench/bench_fast.py`` (``make bench``) times its kernel both ways: a trick stays only while it saves at
least 10 % of its kernel's time (issue #32; measured 2026-12-04: ``evaluate_in_blocks`` 35 % of the 1M-point TCO
comparison, ``unique_rows`` 18 % of the TOPSIS weight Monte Carlo, ``percentiles_linear`` 15 % of the TCO Monte
Carlo; six other tricks saved 0-6 % and were written plainly in their kernels).

* :func:`unique_rows` -- skip the sort of ``np.unique(axis=0)`` when a random projection shows every row is
  distinct (plain: ``np.unique``).
* :func:`evaluate_in_blocks` -- run an elementwise function block by block so temporaries stay in cache
  (plain: one call on the whole arrays).
* :func:`percentiles_linear` -- exact percentiles by bracketing selection (plain: ``numpy.percentile``).

Only numpy is imported here: no engine module, so every kernel may use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["BLOCK_POINTS", "BlockKernel", "evaluate_in_blocks", "percentiles_linear", "unique_rows"]

def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique rows: (first position of each, inverse map, multiplicity).

    Skips the sort-based ``np.unique`` when a fixed random projection already shows every row is distinct
    (then the rows come back in their own order). Plain version: ``np.unique(rows, axis=0, return_index=True,
    return_inverse=True, return_counts=True)``, which groups the rows the same way (in sorted order).
    """
    n = rows.shape[0]
    proj = np.random.default_rng(20261202).standard_normal(size=(rows.shape[1],))
    h = np.zeros(n)
    for j in range(rows.shape[1]):  # column by column: identical rows give identical h, bit for bit
        h += rows[:, j] * proj[j]
    h.sort()
    if n < 2 or not (h[1:] == h[:-1]).any():
        return np.arange(n), np.arange(n), np.ones(n, dtype=int)
    _, first, inverse, mult = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), mult


#: Points per block in :func:`evaluate_in_blocks` (256 KiB per float64 temporary).
BLOCK_POINTS = 32_768


class BlockKernel(NamedTuple):
    """An elementwise kernel that writes its outputs into given arrays and keeps every intermediate in scratch
    buffers: ``fn(out, scratch, *arrays)`` with ``out`` a dict of ``keys`` to 1-d arrays of the block's length and
    ``scratch`` ``n_scratch`` 1-d buffers of that length. Its plain version is the allocating function it equals."""

    fn: Callable[..., None]
    keys: tuple[str, ...]
    n_scratch: int


def evaluate_in_blocks(fn: Callable[..., dict[str, np.ndarray]], arrays: Sequence[np.ndarray],
                       block: int = BLOCK_POINTS, into: BlockKernel | None = None) -> dict[str, np.ndarray]:
    """Evaluate the elementwise ``fn(*arrays)`` over blocks of points; same result as one call.

    Running a long chain of numpy operations block by block keeps each temporary at ``block`` elements
    instead of the full size, and is slightly faster because the temporaries stay in cache. Only used
    when every non-scalar input already has the full broadcast shape; otherwise ``fn`` runs once. With ``into``
    (the same kernel written into preallocated outputs and scratch buffers), the blocks allocate nothing: the
    allocator then hands back no memory between blocks, which here costs a page fault per 4 KiB touched again
    (issue #37). Plain version: ``{k: np.broadcast_to(v, shape).copy() for k, v in fn(*arrays).items()}``.
    """
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    size = math.prod(shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if size <= 2 * block or any(a.ndim and a.shape != shape for a in arrays):
            out = fn(*arrays)
            return {key: np.broadcast_to(value, shape).copy() for key, value in out.items()}
        flat = [a.reshape(-1) if a.ndim else a for a in arrays]
        result: dict[str, np.ndarray] = {}
        if into is not None:
            result = {key: np.empty(size) for key in into.keys}
            scratch = np.empty((into.n_scratch, block))
            for start in range(0, size, block):
                stop = min(start + block, size)
                into.fn({key: value[start:stop] for key, value in result.items()}, [s[:stop - start] for s in scratch],
                        *(a[start:stop] if a.ndim else a for a in flat))
            return {key: value.reshape(shape) for key, value in result.items()}
        for start in range(0, size, block):
            stop = min(start + block, size)
            part = fn(*(a[start:stop] if a.ndim else a for a in flat))
            for key, value in part.items():
                if key not in result:
                    result[key] = np.empty(size)
                result[key][start:stop] = value
    return {key: value.reshape(shape) for key, value in result.items()}


def percentiles_linear(values: np.ndarray, percentiles_pct: Sequence[float]) -> list[float]:
    """Exact percentiles of a 1-d array, same definition as ``numpy.percentile`` (method "linear").

    Selection by bracketing (in the spirit of Floyd and Rivest's SELECT): a sorted subsample gives two
    values that very probably enclose the wanted order statistic; one counting pass and one small partition
    then give it exactly. If the bracket misses, a full ``numpy.partition`` is used, so the result is
    always exact. About 3x faster than ``numpy.percentile`` on 10^5 values. Plain version:
    ``numpy.percentile(values, percentiles_pct)``.
    """
    n = values.size
    positions = [q / 100.0 * (n - 1) for q in percentiles_pct]
    ranks = sorted({r for pos in positions for r in (math.floor(pos), min(math.floor(pos) + 1, n - 1))})
    if n < 20_000:
        order = dict(zip(ranks, np.partition(values, ranks)[ranks].tolist(), strict=True))
    else:
        sample = np.sort(values[:: n // 4000])
        m = sample.size
        order = {}
        for rank in ranks:
            if rank in order:
                continue
            p = rank / (n - 1)
            centre = p * (m - 1)
            margin = 3.5 * math.sqrt(m * p * (1.0 - p)) + 3.0  # sample ranks: ~3.5 standard deviations
            low = sample[max(0, int(centre - margin))]
            high = sample[min(m - 1, int(centre + margin) + 1)]
            below = int(np.count_nonzero(values < low))
            inside = values[(values >= low) & (values <= high)]
            wanted = [r for r in ranks if below <= r < below + inside.size and r not in order]
            if rank not in wanted:  # the bracket missed (rare): exact fallback
                order[rank] = float(np.partition(values, rank)[rank])
                continue
            picked = np.partition(inside, [r - below for r in wanted])
            order.update({r: float(picked[r - below]) for r in wanted})
    out = []
    for pos in positions:
        lower_rank = math.floor(pos)
        t = pos - lower_rank
        a, b = order[lower_rank], order[min(lower_rank + 1, n - 1)]
        out.append(b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t)  # numpy's _lerp
    return out
