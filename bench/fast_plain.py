"""The plain numpy versions of :mod:`engine.fast`'s tricks, drop-in replacements with the same signatures.

``bench/bench_fast.py`` swaps each into the kernel that calls the trick and times both; ``tests/engine/test_fast.py``
checks each trick equals its plain version on random inputs. Written the way a competent engineer would write the
same step without the trick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Plain: ``np.unique(rows, axis=0, ...)`` (groups in sorted order)."""
    _, first, inverse, mult = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), mult


def evaluate_in_blocks(fn: Callable[..., dict[str, np.ndarray]], arrays: Sequence[np.ndarray],
                       block: int = 0, into: object = None) -> dict[str, np.ndarray]:
    """Plain: one call on the whole arrays (``into``, the same kernel writing into buffers, is not used)."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = fn(*arrays)
    return {key: np.broadcast_to(value, shape).copy() for key, value in out.items()}


def percentiles_linear(values: np.ndarray, percentiles_pct: Sequence[float]) -> list[float]:
    """Plain: ``numpy.percentile``."""
    return [float(x) for x in np.percentile(values, percentiles_pct)]
