"""Uncertainty of the rent-or-own answer: Monte Carlo over uncertain inputs and a tornado of the break-even.

Both run the horizon kernel of :mod:`engine.tco.horizon` on arrays of scenarios (no per-draw model), so
they answer the same question as the page's verdict: the cost per useful GPU-hour over the chosen horizon.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.fast import percentiles_linear
from engine.tco.horizon import COMPARE_INTO, COMPARE_PARAMS, Option, Pair, break_even_utilisation
from engine.tco.inputs import (
    EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH,
    EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH,
    FIELDS,
    OPTIONAL_FIELDS,
    TcoInputs,
    clip_to_bounds,
    unit_of,
    validate_arrays,
)

#: Draws per block in :func:`monte_carlo` (each block holds one row per ranged input).
_MONTE_CARLO_BLOCK_DRAWS = 8192
#: uint32 -> uniform on [0, 1).
_UNIT_PER_UINT32 = 2.0**-32
#: Inputs that cannot be given a Monte Carlo range: whole-month counts and the optional reserved inputs.
_NOT_RANGED = ("horizon_months", "reserved_term_months", "cluster_gpus")

#: Default Monte Carlo spreads: field -> (low, high, how, source). ``how`` is ``"relative"`` (multipliers of
#: the base value) or ``"absolute"`` (a published range, widened to include the base value). The mode of the
#: triangular distribution is the base value. Users edit the ranges on the page.
DEFAULT_MONTE_CARLO_SPREADS: dict[str, tuple[float, float, str, str]] = {
    "price_on_demand_eur_per_gpu_hour": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "server_capex_eur_per_gpu": (0.85, 1.15, "relative", "assumption: +-15 % on the SemiAnalysis ~$190k"),
    "networking_capex_eur_per_gpu": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "storage_capex_eur_per_gpu": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "depreciation_years": (3.0, 6.0, "absolute", "critics' 2-3 yr economic life to 6 yr book life (filings)"),
    "cost_of_capital_fraction_per_year": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "residual_value_fraction": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "idle_power_fraction": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "pue": (1.1, 1.58, "absolute", "Google 1.10 (2021) to Uptime industry average 1.58 (2023)"),
    "electricity_eur_per_kwh": (
        EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH, EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH,
        "absolute", "Eurostat H1-2024, 500-2,000 MWh: Finland 0.0928 to Ireland 0.256 EUR/kWh",
    ),
    "colocation_eur_per_kw_month": (0.9, 1.2, "relative", "assumption: -10 %/+20 % (CBRE: +12.6 % y/y NA)"),
    "maintenance_fraction_of_capex_per_year": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "staff_fte": (0.5, 2.0, "relative", "assumption: half to double"),
    "labour_cost_eur_per_hour": (0.8, 1.35, "relative", "about Eurostat EU 33.5 to NL 45.2 EUR/h at the default"),
}


def default_monte_carlo_ranges(base: TcoInputs | None = None) -> dict[str, tuple[float, float, float]]:
    """Default ``(low, mode, high)`` per uncertain input, built from :data:`DEFAULT_MONTE_CARLO_SPREADS`.

    Relative spreads multiply the base value; absolute (published) ranges are widened to contain it.
    Values are clipped to the field bounds. The mode is the base value.

    Examples
    --------
    >>> default_monte_carlo_ranges()["pue"]
    (1.1, 1.56, 1.58)
    """
    base = TcoInputs() if base is None else base
    out = {}
    for name, (low, high, how, _source) in DEFAULT_MONTE_CARLO_SPREADS.items():
        mode = float(getattr(base, name))
        if how == "relative":
            low, high = low * mode, high * mode
        low, high = min(low, mode), max(high, mode)
        low, high = clip_to_bounds(name, np.array([low, high])).tolist()
        out[name] = (float(low), mode, float(high))
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """Spread of the cost per useful GPU-hour under uncertain inputs.

    Attributes
    ----------
    n_draws, seed, distribution
        How the draws were made (``"triangular"`` or ``"uniform"``).
    ranges : dict of str to (low, mode, high)
        The ranges drawn from; other inputs are fixed at the base scenario.
    percentiles_eur_per_useful_gpu_hour : dict of str to dict of str to float
        Per option: ``{"p10": .., "p50": .., "p90": ..}`` [EUR per useful GPU-h].
    probability_owned_beats_on_demand, probability_owned_beats_reserved, probability_reserved_beats_on_demand
        Share of draws where the first option is strictly cheaper per useful GPU-hour [-].
    samples_eur_per_useful_gpu_hour : dict of str to numpy.ndarray
        Every draw per option, shape (n_draws,), for histograms.
    """

    n_draws: int
    seed: int | None
    distribution: str
    ranges: dict[str, tuple[float, float, float]]
    percentiles_eur_per_useful_gpu_hour: dict[str, dict[str, float]]
    probability_owned_beats_on_demand: float
    probability_owned_beats_reserved: float
    probability_reserved_beats_on_demand: float
    samples_eur_per_useful_gpu_hour: dict[str, np.ndarray]



def _draw(rng: np.random.Generator, low: np.ndarray, mode: np.ndarray, high: np.ndarray, triangular: bool,
          width: int) -> np.ndarray:
    r"""``(k, width)`` independent draws, one row per ranged input: uniform(a, b) or triangular(a, c, b).

    Each 64-bit output of the generator gives two 32-bit uniforms U, V (resolution 2^-32). Uniform is
    ``a + (b - a) U``; triangular uses the MINMAX method of Stein and Keblis [1]_,
    ``X = a + (b - c) min(U, V) + (c - a) max(U, V)``.

    References
    ----------
    .. [1] W. E. Stein and M. F. Keblis, "A new method to simulate the triangular distribution",
       Mathematical and Computer Modelling 49(5-6):1143-1147, 2009; explained in
       https://blogs.sas.com/content/iml/2015/07/22/sim-triangular-distrib.html
    """
    low, mode, high = (np.asarray(x, dtype=float)[:, None] for x in (low, mode, high))
    bits = rng.integers(0, 2**64, size=(low.shape[0], width), dtype=np.uint64).view(np.uint32)  # (k, 2 width)
    u, v = bits[:, :width], bits[:, width:]
    if not triangular:
        return u * ((high - low) * _UNIT_PER_UINT32) + low
    return (np.minimum(u, v) * ((high - mode) * _UNIT_PER_UINT32) + np.maximum(u, v) * ((mode - low) * _UNIT_PER_UINT32)
            + low)

def monte_carlo(
    base: TcoInputs | None = None,
    ranges: Mapping[str, Sequence[float]] | None = None,
    n_draws: int = 100_000,
    seed: int | None = 0,
    distribution: str = "triangular",
) -> MonteCarloResult:
    r"""Monte Carlo of the cost per useful GPU-hour of each option at the base utilisation.

    Each input in ``ranges`` is drawn independently; the draws go through the horizon kernel of
    :func:`engine.tco.horizon.compare_options_per_useful_gpu_hour` in blocks of 8,192, no per-draw pydantic model. The ends
    of every range are bound-checked with :func:`validate_arrays`; as every field's bounds form an
    interval, that checks every draw.

    Parameters
    ----------
    base : TcoInputs, optional
        The scenario; its value of each ranged input is the default mode (default ``TcoInputs()``).
    ranges : mapping of str to (low, high) or (low, mode, high), optional
        Per input [units of the field]. ``(low, high)`` takes the base value as the mode (clipped into the
        range). ``low == high`` fixes the input. Default :func:`default_monte_carlo_ranges`.
        ``horizon_months``, ``reserved_term_months`` and ``cluster_gpus`` cannot be ranged (whole counts);
        ``price_reserved_eur_per_gpu_hour`` only when the base has a committed price.
    n_draws : int
        Number of draws, >= 1.
    seed : int or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    distribution : {"triangular", "uniform"}
        Triangular(low, mode, high) or uniform(low, high) per input.

    Returns
    -------
    MonteCarloResult

    Notes
    -----
    Triangular draws use the MINMAX method [1]_, :math:`X = a + (b - c)\min(U, V) + (c - a)\max(U, V)`
    with 32-bit uniforms from ``numpy.random.default_rng(seed)`` (PCG64); same seed, same numpy, same
    result. Percentiles are exact and equal ``numpy.percentile`` (linear interpolation). The probability
    that owning beats renting on demand is the share of draws in which the owned total over the horizon is
    below the on-demand total (equivalently, per useful GPU-hour). Without a committed price the reserved
    percentiles and probabilities are NaN.

    References
    ----------
    .. [1] W. E. Stein and M. F. Keblis, "A new method to simulate the triangular distribution",
       Mathematical and Computer Modelling 49(5-6):1143-1147, 2009; explained in
       https://blogs.sas.com/content/iml/2015/07/22/sim-triangular-distrib.html

    Examples
    --------
    >>> mc = monte_carlo(n_draws=2_000, seed=1)
    >>> p = mc.percentiles_eur_per_useful_gpu_hour["owned"]
    >>> p["p10"] <= p["p50"] <= p["p90"]
    True
    >>> 0.0 <= mc.probability_owned_beats_on_demand <= 1.0
    True
    """
    base = TcoInputs() if base is None else base
    if distribution not in ("triangular", "uniform"):
        raise ValueError(f"distribution must be 'triangular' or 'uniform', got {distribution!r}")
    if int(n_draws) < 1:
        raise ValueError(f"n_draws must be >= 1, got {n_draws}")
    n_draws = int(n_draws)
    chosen = default_monte_carlo_ranges(base) if ranges is None else ranges
    used: dict[str, tuple[float, float, float]] = {}
    for name, spec in chosen.items():
        if name not in FIELDS:
            raise ValueError(f"unknown input {name!r} in Monte Carlo ranges")
        if name in _NOT_RANGED:
            raise ValueError(f"{name} cannot be given a Monte Carlo range (a whole count)")
        if name in OPTIONAL_FIELDS and not base.has_reserved_price:
            raise ValueError(f"{name} cannot be ranged: this scenario has no committed price")
        spec = tuple(float(v) for v in spec)
        if len(spec) == 2:
            low, high = spec
            mode = min(max(float(getattr(base, name)), low), high)
        elif len(spec) == 3:
            low, mode, high = spec
        else:
            raise ValueError(f"range for {name} must be (low, high) or (low, mode, high), got {spec}")
        if not low <= mode <= high:
            raise ValueError(f"range for {name} must satisfy low <= mode <= high, got {(low, mode, high)}")
        used[name] = (low, mode, high)
    # The bounds of every field are intervals, so checking both ends of each range checks every draw.
    params = validate_arrays(base, **{name: [low, high] for name, (low, _mode, high) in used.items()})
    names = list(used)
    lows, modes, highs = (np.array([used[name][j] for name in names]) for j in range(3))
    rng = np.random.default_rng(seed)
    samples = {option.value: np.empty(n_draws) for option in Option}
    arrays = [params[name] for name in COMPARE_PARAMS]
    position = {name: k for k, name in enumerate(COMPARE_PARAMS)}
    rows = [(row, position[name]) for row, name in enumerate(names) if name in position]
    scratch = np.empty((COMPARE_INTO.n_scratch, _MONTE_CARLO_BLOCK_DRAWS))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for start in range(0, n_draws, _MONTE_CARLO_BLOCK_DRAWS):
            stop = min(start + _MONTE_CARLO_BLOCK_DRAWS, n_draws)
            drawn = _draw(rng, lows, modes, highs, distribution == "triangular", stop - start)
            for row, k in rows:
                arrays[k] = drawn[row]
            COMPARE_INTO.fn({key: values[start:stop] for key, values in samples.items()},
                            [buffer[:stop - start] for buffer in scratch], *arrays, costs_only=True)
    percentiles = {}
    for option in Option:
        if option is Option.RESERVED and not base.has_reserved_price:
            percentiles[option.value] = {"p10": math.nan, "p50": math.nan, "p90": math.nan}
            continue
        p10, p50, p90 = percentiles_linear(samples[option.value], (10, 50, 90))
        percentiles[option.value] = {"p10": p10, "p50": p50, "p90": p90}
    od, res, own = samples["on_demand"], samples["reserved"], samples["owned"]
    return MonteCarloResult(
        n_draws=n_draws,
        seed=seed,
        distribution=distribution,
        ranges=used,
        percentiles_eur_per_useful_gpu_hour=percentiles,
        probability_owned_beats_on_demand=float(np.mean(own < od)),
        probability_owned_beats_reserved=float(np.mean(own < res)) if base.has_reserved_price else math.nan,
        probability_reserved_beats_on_demand=float(np.mean(res < od)) if base.has_reserved_price else math.nan,
        samples_eur_per_useful_gpu_hour=samples,
    )


#: Inputs that move the on-demand-vs-owned break-even utilisation (tornado default).
TORNADO_FIELDS = (
    "price_on_demand_eur_per_gpu_hour", "rental_price_decline_fraction_per_year",
    *(name for name in COMPARE_PARAMS[6:] if name != "cluster_gpus"), "cluster_gpus",
)


@dataclass(frozen=True)
class TornadoBar:
    """Effect of one input moved down and up by ``pct`` on the break-even utilisation (on demand vs owned)."""

    name: str
    unit: str
    base_value: float
    low_value: float
    high_value: float
    break_even_at_low: float
    break_even_at_high: float
    swing: float


@dataclass(frozen=True)
class TornadoResult:
    """Tornado of the on-demand-vs-owned break-even utilisation; ``bars`` sorted by swing, largest first."""

    base_break_even_utilisation_fraction: float
    pct: float
    bars: tuple[TornadoBar, ...]


def tornado(
    base: TcoInputs | None = None, pct: float = 0.2, fields: Sequence[str] | None = None
) -> TornadoResult:
    r"""Move each input by :math:`\pm` ``pct`` and report the break-even utilisation, on demand vs owned.

    All :math:`2k + 1` scenarios (base plus each of ``k`` inputs low and high) are stacked as arrays and go
    through :func:`break_even_utilisation` in one vectorised call.

    Parameters
    ----------
    base : TcoInputs, optional
        Base scenario (default ``TcoInputs()``).
    pct : float
        Relative change [-], 0 < pct < 1 (0.2 = +-20 %). Moved values are clipped to the field bounds.
    fields : sequence of str, optional
        Inputs to move (default :data:`TORNADO_FIELDS`, the inputs the break-even depends on). Inputs whose
        base value is 0 are skipped: a relative change of zero is zero.

    Returns
    -------
    TornadoResult
        Bars sorted by swing :math:`|u^*_{high} - u^*_{low}|` (largest first, ties by name); a swing is
        ``inf`` when one side cannot break even (:math:`u^* = \infty`).

    Examples
    --------
    >>> result = tornado(TcoInputs(), pct=0.2)
    >>> result.bars[0].name
    'price_on_demand_eur_per_gpu_hour'
    >>> round(result.base_break_even_utilisation_fraction, 4)  # over the default 5-year horizon
    0.3265
    """
    base = TcoInputs() if base is None else base
    if not 0 < pct < 1:
        raise ValueError(f"pct must be in (0, 1), got {pct}")
    names = list(TORNADO_FIELDS if fields is None else fields)
    unknown = sorted(set(names) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown input(s) {unknown} for the tornado")
    names = [name for name in names if float(getattr(base, name)) != 0.0]
    n_scenarios = 2 * len(names) + 1
    base_values = base.as_arrays()
    arrays = {name: np.full(n_scenarios, float(base_values[name])) for name in names}
    moved: dict[str, tuple[float, float]] = {}
    for k, name in enumerate(names):
        value = float(base_values[name])
        low, high = clip_to_bounds(name, np.array([value * (1 - pct), value * (1 + pct)])).tolist()
        arrays[name][1 + 2 * k] = low
        arrays[name][2 + 2 * k] = high
        moved[name] = (low, high)
    params = validate_arrays(base, **arrays)
    u_star = np.broadcast_to(break_even_utilisation(Pair.ON_DEMAND_VS_OWNED, **params), (n_scenarios,))
    bars = []
    for k, name in enumerate(names):
        at_low, at_high = float(u_star[1 + 2 * k]), float(u_star[2 + 2 * k])
        swing = 0.0 if at_low == at_high else abs(at_high - at_low)
        bars.append(
            TornadoBar(
                name=name,
                unit=unit_of(name),
                base_value=float(base_values[name]),
                low_value=moved[name][0],
                high_value=moved[name][1],
                break_even_at_low=at_low,
                break_even_at_high=at_high,
                swing=swing,
            )
        )
    bars.sort(key=lambda bar: (-bar.swing, bar.name))
    return TornadoResult(base_break_even_utilisation_fraction=float(u_star[0]), pct=float(pct), bars=tuple(bars))
