"""Price outliers: a price far from every other price of the same GPU model and price type.

A catalog row whose price is a small fraction of what every other source asks for the same GPU (the
RunPod Community MI300X at $0.50 per GPU-hour against $1.99 to $9.24 elsewhere, which the seed's own
collector notes as suspicious) must not become a headline "cheapest" answer unchecked. This module flags
such prices with a stated, robust rule; pages show the flag and the reason on every row and leave a flagged
price out of rankings and headline answers unless the user opts in.

The rule (:func:`flag_outliers`)
--------------------------------
For each GPU model and each price type separately, on the natural log of the price:

1. **Robust centre and spread.** The median ``m`` and the median absolute deviation ``MAD`` of the log
   prices of the group. Each provider's distinct price counts once (:func:`flag_outliers`'s ``dedupe``
   keys), so one provider listing the same price for 1-, 2-, 4- and 8-GPU nodes does not outvote the rest.
2. **Modified z-score** (Iglewicz & Hoaglin [1], [2]): ``M = 0.6745 (ln p - m) / MAD``. They recommend
   labelling ``|M| > 3.5`` as a potential outlier. When ``MAD = 0`` (half or more of the group share one
   price) any price off that value has ``|M| = inf``; step 3 then decides.
3. **Economic distance** (a judgement, stated on the page): the price is below a quarter of the group's
   median price, or above four times it. The modified z-score alone flags a 20 % difference when most
   rows of a group sit at one price (tight hyperscaler list prices); a factor of 4 is wider than the
   spread of list prices between neoclouds and hyperscalers for the same GPU in the seed catalog, and
   still catches the $0.50 MI300X row (about a twelfth of the MI300X median).
4. **Enough rows to judge.** A group needs at least :data:`MIN_GROUP_SIZE` prices; smaller groups are
   not judged (too few to say what is typical).

A price is flagged when 2 and 3 both hold. Working on log prices makes the rule scale-invariant: the
same rows are flagged in EUR and in USD, and after multiplying every price by any positive factor.

A flag is a warning, not a verdict: marketplace (community) rows are genuinely cheaper and may be right.
The flagged row stays in every table with its reason; the user can include it in the answers.

References
----------
.. [1] B. Iglewicz and D. C. Hoaglin, *How to Detect and Handle Outliers*, ASQC Basic References in
       Quality Control vol. 16, ASQ Quality Press, 1993 (modified z-score, cut-off 3.5).
.. [2] NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.5.17 "Detection of Outliers",
       https://www.itl.nist.gov/div898/handbook/eda/section3/eda35h.htm (quotes [1]).

See ``docs/like-for-like.md`` for the rule as the pages state it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "MODIFIED_Z_CONSTANT",
    "MODIFIED_Z_CUTOFF",
    "RATIO_CUTOFF",
    "MIN_GROUP_SIZE",
    "PRICE_TYPES",
    "OutlierResult",
    "flag_outliers",
    "flag_column",
    "reason_column",
]

#: 0.6745 = the 0.75 quantile of the standard normal: makes MAD a consistent estimate of sigma [1].
MODIFIED_Z_CONSTANT = 0.6745
#: |M| above this is a potential outlier (Iglewicz & Hoaglin [1], NIST [2]).
MODIFIED_Z_CUTOFF = 3.5
#: Price below median / 4 or above median x 4 (judgement, see the module docstring, step 3).
RATIO_CUTOFF = 4.0
#: Fewest prices of one GPU model and price type for the rule to judge them (judgement: with four or fewer
#: rows, the median is one or two rows and says little about what is typical).
MIN_GROUP_SIZE = 5

#: Price type -> column of the offers frame (``CatalogStore.list_offers``), in EUR per GPU-hour.
PRICE_TYPES: dict[str, str] = {
    "on-demand": "on_demand_eur_per_gpu_hour",
    "spot": "spot_eur_per_gpu_hour",
    "reserved": "reserved_eur_per_gpu_hour",
    "reserved-1y": "reserved_1y_eur_per_gpu_hour",
    "reserved-3y": "reserved_3y_eur_per_gpu_hour",
}


@dataclass(frozen=True)
class OutlierResult:
    """Per price, shape (n,): whether it is flagged and the figures behind the decision.

    Attributes
    ----------
    is_outlier : numpy.ndarray of bool
        Flagged (modified z beyond the cut-off and price beyond the ratio cut-off).
    modified_z : numpy.ndarray
        ``0.6745 (ln p - median) / MAD`` within the group; ``+-inf`` if MAD = 0 and the price is off the
        median; NaN where the price is missing or the group is too small.
    group_median : numpy.ndarray
        Median price of the group (in the prices' unit); NaN where not judged.
    ratio_to_median : numpy.ndarray
        price / group median [-]; NaN where not judged.
    group_size : numpy.ndarray of int
        Prices the group's median and MAD were taken over (after de-duplication).
    """

    is_outlier: np.ndarray
    modified_z: np.ndarray
    group_median: np.ndarray
    ratio_to_median: np.ndarray
    group_size: np.ndarray


def flag_outliers(
    prices: npt.ArrayLike,
    groups: Sequence[object],
    dedupe: Sequence[object] | None = None,
    *,
    z_cutoff: float = MODIFIED_Z_CUTOFF,
    ratio_cutoff: float = RATIO_CUTOFF,
    min_group_size: int = MIN_GROUP_SIZE,
) -> OutlierResult:
    """Flag prices far from the rest of their group (rule in the module docstring).

    Parameters
    ----------
    prices : array_like
        Shape (n,), positive; NaN = no price (never flagged, never counted).
    groups : sequence
        Shape (n,): the group of each price (GPU model); ``None`` rows are never judged.
    dedupe : sequence, optional
        Shape (n,): a key (provider) under which identical prices of one group count once for the median
        and the MAD. Default: every price counts.
    z_cutoff, ratio_cutoff : float, optional
        Modified z-score cut-off (3.5, Iglewicz & Hoaglin) and price ratio cut-off (4).
    min_group_size : int, optional
        Fewest (de-duplicated) prices a group needs to be judged.

    Returns
    -------
    OutlierResult

    Examples
    --------
    Nine prices around 3 and one at 0.4: the 0.4 is 0.13 of the median and its modified z-score is -15.

    >>> r = flag_outliers([3.0, 3.2, 2.9, 3.1, 3.3, 2.8, 3.0, 3.4, 2.7, 0.4], ["X"] * 10)
    >>> r.is_outlier.tolist()
    [False, False, False, False, False, False, False, False, False, True]
    >>> round(float(r.ratio_to_median[-1]), 3)
    0.133
    """
    p = np.asarray(prices, dtype=float)
    n = p.shape[0]
    g = np.asarray(["" if v is None else str(v) for v in groups], dtype=object)
    known_group = np.asarray([v is not None and str(v) != "" for v in groups], dtype=bool)
    keys = np.asarray(["" if v is None else str(v) for v in (dedupe if dedupe is not None else range(n))],
                      dtype=object)
    z = np.full(n, np.nan)
    median = np.full(n, np.nan)
    size = np.zeros(n, dtype=int)
    ok = np.isfinite(p) & (p > 0) & known_group
    with np.errstate(divide="ignore"):
        logp = np.where(ok, np.log(np.where(ok, p, 1.0)), np.nan)
    for group in np.unique(g[ok]):
        members = np.flatnonzero(ok & (g == group))
        # Each (key, price) pair once: the statistics of the group, not of one provider's node sizes.
        seen: set[tuple[str, float]] = set()
        first = []
        for i in members:
            pair = (keys[i], float(p[i]))
            if pair not in seen:
                seen.add(pair)
                first.append(i)
        sample = logp[np.asarray(first, dtype=int)]
        size[members] = sample.size
        if sample.size < min_group_size:
            continue
        m = float(np.median(sample))
        mad = float(np.median(np.abs(sample - m)))
        dev = logp[members] - m
        if mad > 0:
            z[members] = MODIFIED_Z_CONSTANT * dev / mad
        else:  # half the group at one price: any other price is infinitely far in MAD units
            z[members] = np.where(dev == 0, 0.0, np.copysign(np.inf, dev))
        median[members] = np.exp(m)
    ratio = p / median
    judged = np.isfinite(ratio)
    far = judged & ((ratio < 1.0 / ratio_cutoff) | (ratio > ratio_cutoff))
    is_outlier = far & (np.abs(np.nan_to_num(z, nan=0.0)) > z_cutoff)
    return OutlierResult(is_outlier, z, median, np.where(judged, ratio, np.nan), size)


def flag_column(price_column: str) -> str:
    """Name of the boolean column flagging ``price_column`` (``on_demand_eur_per_gpu_hour`` ->
    ``on_demand_is_outlier``)."""
    return price_column.removesuffix("_eur_per_gpu_hour") + "_is_outlier"


def reason_column(price_column: str) -> str:
    """Name of the text column explaining the flag of ``price_column``."""
    return price_column.removesuffix("_eur_per_gpu_hour") + "_outlier_reason"


def outlier_reason_text(price_type: str, gpu: str, ratio: float, z: float, n: int) -> str:
    """Currency-neutral: pages show the amounts in the display currency next to it."""
    side = "below a quarter of" if ratio < 1 else "above four times"
    z_text = "MAD 0" if np.isinf(z) else f"modified z {z:+.1f}"
    return (f"price outlier: this {price_type} price is {ratio:.0%} of the median of {n} {gpu} {price_type} "
            f"prices ({side} the median, {z_text} beyond ±{MODIFIED_Z_CUTOFF:g}; Iglewicz & Hoaglin rule)")


