"""What "not stated" means for a catalog value: the one missing-value predicate of the engine.

:func:`is_missing` is used wherever a catalog row is read (the adapters of :mod:`engine.adapters`, the hard
constraints of :mod:`engine.scoring`): a value it calls missing is shown as "not stated", never read as 0,
and never passes a constraint.
"""

from __future__ import annotations

import numpy as np

__all__ = ["is_missing"]


def is_missing(value: object) -> bool:
    """Whether a catalog value is absent.

    Missing: ``None``; a float NaN (Python or numpy); numpy ``NaT`` (datetime64 or timedelta64); pandas ``NA``
    and ``NaT`` (recognised by type name, so pandas is not imported); any other scalar that is not equal to
    itself (``Decimal("NaN")``).

    Not missing: every other value, including ``""``, ``"unknown"``, ``0``, ``False`` and containers. Whether a
    category such as ``"unknown"`` means "not stated" is the caller's rule (:data:`engine.scoring.NOT_STATED`).

    Examples
    --------
    >>> import math
    >>> [is_missing(v) for v in (None, math.nan, np.float32("nan"), np.datetime64("NaT"))]
    [True, True, True, True]
    >>> [is_missing(v) for v in ("", "unknown", 0, 0.0, False, "nan")]
    [False, False, False, False, False, False]
    """
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas.NA, pandas.NaT
        return True
    if isinstance(value, str | bytes | bool | int | np.integer | np.bool_):
        return False
    try:
        return bool(value != value)  # NaN-like scalars of other types (Decimal("NaN"))
    except (TypeError, ValueError):  # no truth value (arrays, pandas-like objects): a value, not a gap
        return False
