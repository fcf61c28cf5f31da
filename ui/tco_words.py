"""The Rent-or-own break-evens and the stop-early comparison in words, for the page and both exports.

A break-even utilisation is a number only where it exists in (0, 1); the engine's closed form is not clipped
(:func:`engine.tco.break_even_utilisation`), so 4.626 means "no break-even: owning is cheaper at every
utilisation", not 463 % (issue #27.2). The month from which owning is cheaper than on demand when you stop
early holds only because the hardware is assumed to resell at its book value (issue #27.10).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.tco import Pair, TcoResult
from ui.labels import TCO_PAIR_LABELS


@dataclass(frozen=True)
class BreakEven:
    pair: str
    label: str  # "Own vs rent on demand"
    value: float | None  # the break-even utilisation [-] where it lies strictly between 0 and 1, else None
    words: str  # what it means, always given




def _pct(u: float) -> str:
    return f"{u:.0%}"


def _words(pair: str, u: float, has_reserved: bool) -> tuple[float | None, str]:
    if pair != Pair.ON_DEMAND_VS_OWNED.value and not has_reserved:
        return None, "not compared (no committed price)"
    if pair == Pair.ON_DEMAND_VS_OWNED.value:
        if not math.isnan(u) and u <= 0:
            return None, "owning is cheaper than renting on demand at every utilisation"
        if math.isnan(u) or u >= 1:
            return None, "never: renting on demand is cheaper at every utilisation, even 100 %"
        return u, f"owning is cheaper than renting on demand above {_pct(u)} utilisation"
    if pair == Pair.ON_DEMAND_VS_RESERVED.value:
        if not math.isnan(u) and u <= 0:
            return None, "renting reserved is cheaper than on demand at every utilisation"
        if math.isnan(u) or u >= 1:
            return None, "never: renting on demand is cheaper than reserved at every utilisation, even 100 %"
        return u, f"renting reserved is cheaper than on demand above {_pct(u)} utilisation"
    # reserved vs owned: owning is cheaper below u*
    if math.isnan(u):
        return None, "owning and renting reserved cost the same at every utilisation"
    if u >= 1:
        return None, "owning is cheaper than renting reserved at every utilisation"
    if u <= 0:
        return None, "never: renting reserved is cheaper than owning at every utilisation"
    return u, f"owning is cheaper than renting reserved below {_pct(u)} utilisation, reserved above"


def break_evens(result: TcoResult) -> list[BreakEven]:
    """Every break-even of the horizon, in words (reserved pairs only with a committed price)."""
    has_reserved = "reserved" in result.available_options
    out = []
    for pair, label in TCO_PAIR_LABELS.items():
        if pair != Pair.ON_DEMAND_VS_OWNED.value and not has_reserved:
            continue
        value, words = _words(pair, float(result.break_even_utilisation_fraction.get(pair, math.nan)), has_reserved)
        out.append(BreakEven(pair, label, value, words))
    return out


def break_even_note(result: TcoResult) -> str:
    """One line for the page and the report: each break-even as a number where it exists, else in words."""
    parts = [f"{b.label}: **{_pct(b.value)}** ({b.words})" if b.value is not None else f"{b.label}: {b.words}"
             for b in break_evens(result)]
    return "Break-even utilisation over this horizon. " + "; ".join(parts) + "."


def key_break_even(result: TcoResult) -> float | str:
    """The own-vs-on-demand break-even for the key results: the fraction, or the words where there is none."""
    b = break_evens(result)[0]
    return b.value if b.value is not None else b.words


def stop_early_assumption(result: TcoResult) -> str:
    """The assumption behind "owning cheaper than on demand if you stop after month N", shown next to it."""
    i = result.inputs
    return (f"holds only if the hardware resells at its book value when you stop: a straight line from 100 % at "
            f"purchase to {i.residual_value_fraction:.0%} after {i.depreciation_years:g} years (IAS 16 "
            "straight-line method, an assumption); a used-hardware market paying less moves this month later")
