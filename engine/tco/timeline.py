"""Month by month: the horizon totals of :mod:`engine.tco.horizon` for every horizon 1 .. H (net cost to date)
and the month where two options' curves cross.

Part of :mod:`engine.tco`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.tco.horizon import Option, horizon_cost_eur_per_gpu
from engine.tco.inputs import (
    TcoInputs,  # noqa: F401  (the worked examples build their inputs with it)
    take,
)


def _horizon_axis(params: Mapping[str, Any], where: str) -> tuple[int, dict[str, np.ndarray]]:
    (h,) = take(params, ("horizon_months",), where)
    if h.ndim != 0 or h < 1 or h != np.floor(h):
        raise ValueError(f"{where}: horizon_months must be a scalar integer >= 1, got {h}")
    months = int(h)
    expanded = {name: np.asarray(value, dtype=float)[..., None] for name, value in params.items()}
    expanded["horizon_months"] = np.arange(1.0, months + 1.0)
    return months, expanded


def cumulative_cost_eur(option: Option | str, /, **params: npt.ArrayLike) -> np.ndarray:
    r"""Net cost to date of a cluster of ``cluster_gpus`` GPUs: the total if you stopped after month k [EUR].

    Point :math:`k` (1-based) is :func:`horizon_cost_eur_per_gpu` with a horizon of :math:`k` months times
    the GPU count: owned hardware sold at its resale value then, a started reserved term paid to its end.
    The last point is the horizon total.

    Returns
    -------
    numpy.ndarray
        Shape ``S + (horizon_months,)`` [EUR]; NaN for reserved without a committed price.

    Examples
    --------
    >>> inputs = dict(TcoInputs().as_arrays(), horizon_months=2)
    >>> cumulative_cost_eur("on_demand", **inputs).round(2).tolist()  # 8 GPUs x 0.7 x 730 h x 4.32 per month
    [17660.16, 35320.32]
    """
    _months, expanded = _horizon_axis(params, "cumulative_cost_eur")
    (gpus,) = take(expanded, ("cluster_gpus",), "cumulative_cost_eur")
    return horizon_cost_eur_per_gpu(option, **expanded) * gpus


def break_even_month(
    option: Option | str = Option.OWNED, versus: Option | str = Option.ON_DEMAND, **params: npt.ArrayLike
) -> np.ndarray:
    r"""First month after which ``option`` has cost no more in total than ``versus`` (net cost to date).

    Returns
    -------
    numpy.ndarray
        Month count :math:`k \in \{1 \dots H\}` [month] (float), the smallest with
        :math:`C^{option}(k) \le C^{versus}(k)`; NaN when that never happens within ``horizon_months`` (or an
        option has no price). Shape ``S``, the broadcast shape of the parameters.

    Notes
    -----
    "First" is literal: the curves can cross back (e.g. at a replacement purchase or a new reserved term);
    :func:`cumulative_cost_eur` shows the whole story, and the verdict uses the horizon end.
    """
    cumulative_a = cumulative_cost_eur(option, **params)
    cumulative_b = cumulative_cost_eur(versus, **params)
    cheaper = cumulative_a <= cumulative_b
    first = np.argmax(cheaper, axis=-1).astype(float) + 1.0
    return np.where(cheaper.any(axis=-1), first, np.nan)
