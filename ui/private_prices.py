"""Private negotiated prices in what an editor makes for a client (issue #28.2).

The rule: pages, scenarios and exports use public prices only, for editors too, unless a signed-in editor
switches on "Include private prices in this scenario and its exports" (sidebar; the check is
:func:`ui.catalog.uses_private_prices`, part of every cache key). That choice is stored in the
scenario (``Scenario.private_prices``), as is every value taken from a private price
(``TcoSection.on_demand_price_private``), and every export labels the figures that rest on one with
:data:`LABEL`. A session that is not an editor's never keeps either: :func:`enforce` replaces the value with the
offer's public price and says so, whether the scenario came from a share link, a JSON file, a saved scenario or
an editor who signed out.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd
import streamlit as st

from engine.tco import TcoInputs
from ui.scenario import SCENARIO_KEY, Scenario, get_scenario, update_scenario, widget_key

#: The words every export puts next to a figure that rests on a private price.
LABEL = "private price, not for distribution"
TOGGLE_KEY = "_private_prices"
#: The scenario a non-editor's session got after private values were dropped (the notice shows while it is open).
NOTICE_KEY = "_private_prices_dropped"
#: The TCO page's widget of the on-demand price.
TCO_PRICE_WIDGET = widget_key("tco", "price_on_demand_eur_per_gpu_hour")
NOTICE = ("This scenario was made with private negotiated prices, which only the editors who hold them may see. "
          "They were left out: the public catalog price is used instead.")


def has_private(scenario: Scenario) -> bool:
    return bool(scenario.private_prices or scenario.tco.on_demand_price_private)


def drop_private(scenario: Scenario, public_on_demand: Callable[[str], float | None]) -> tuple[Scenario, bool]:
    """``scenario`` without private prices: the opt-in off and a TCO on-demand price taken from a private price
    replaced by the offer's public one (``public_on_demand(offer_id)``, EUR per GPU-hour), or by the default when
    the offer has none. Returns ``(scenario, whether anything was dropped)``."""
    if not has_private(scenario):
        return scenario, False
    tco = scenario.tco
    if tco.on_demand_price_private:
        offer_id = tco.on_demand_offer_id
        public = public_on_demand(offer_id) if offer_id else None
        if public is None or not math.isfinite(public):
            price, offer_id = TcoInputs.model_fields["price_on_demand_eur_per_gpu_hour"].default, None
        else:
            price = round(float(public), 4)
        inputs = tco.inputs.model_copy(update={"price_on_demand_eur_per_gpu_hour": price})
        tco = tco.model_copy(update={"inputs": inputs, "on_demand_price_private": False,
                                     "on_demand_offer_id": offer_id})
    return scenario.model_copy(update={"private_prices": False, "tco": tco}), True


def public_on_demand_eur(offer_id: str) -> float | None:
    """The offer's cheapest current public on-demand price in EUR per GPU-hour (the session's exchange rate)."""
    from ui.catalog import offer_prices

    prices = offer_prices(offer_id)
    rows = prices[prices.price_type == "on-demand"] if len(prices) else prices
    if not len(rows):
        return None
    usd_per_eur = get_scenario().display.usd_per_eur
    eur = [a if c == "EUR" else a / usd_per_eur for a, c in zip(rows.amount_per_gpu_hour, rows.currency, strict=True)]
    return float(min(eur))


def _replace(scenario: Scenario) -> None:
    st.session_state[SCENARIO_KEY] = scenario
    if TCO_PRICE_WIDGET in st.session_state:  # the TCO widget keeps its own state: give it the public price too
        st.session_state[TCO_PRICE_WIDGET] = scenario.tco.inputs.price_on_demand_eur_per_gpu_hour


def enforce() -> None:
    """Every run of app.py: a session that is not a signed-in editor's holds no private price (a share link, a
    JSON file, a saved scenario, or an editor who signed out or lost the role); say so while that scenario is
    open."""
    from ui.auth import is_editor

    scenario = get_scenario()
    if has_private(scenario) and not is_editor():
        scenario, _ = drop_private(scenario, public_on_demand_eur)
        _replace(scenario)
        st.session_state[NOTICE_KEY] = scenario
    if st.session_state.get(NOTICE_KEY) is not None:
        if st.session_state[NOTICE_KEY] == scenario:
            st.info(NOTICE, icon=":material/lock:")
        else:
            del st.session_state[NOTICE_KEY]


def for_viewer(scenario: Scenario) -> Scenario:
    """A scenario read for display (e.g. a saved one in the Workshop comparison) as this session may see it."""
    from ui.auth import is_editor

    return scenario if is_editor() else drop_private(scenario, public_on_demand_eur)[0]


def _toggled() -> None:
    on = bool(st.session_state[TOGGLE_KEY])
    if on:
        update_scenario(private_prices=True)
    else:  # switched off: nothing taken from a private price stays in the scenario
        _replace(drop_private(get_scenario(), public_on_demand_eur)[0])


def draw_toggle() -> None:
    """Sidebar, signed-in editors only: the explicit choice to use private prices in this scenario."""
    from ui.auth import is_editor

    if not is_editor():
        return
    st.toggle("Include private prices in this scenario and its exports", value=get_scenario().private_prices,
              key=TOGGLE_KEY, on_change=_toggled,
              help="Off: every page, share link, JSON file, saved scenario, workbook and report uses public prices. "
                   "On: your negotiated private prices are used, and every export labels the figures that rest on "
                   f"them \u201c{LABEL}\u201d. A viewer who opens the share link gets the public prices.")
    if get_scenario().private_prices:
        st.caption(f"Private prices are in use: the exports mark them \u201c{LABEL}\u201d.")


# --------------------------------------------------------------------------------------------------
# Exports
# --------------------------------------------------------------------------------------------------

def private_offer_ids(catalog: pd.DataFrame) -> set[str]:
    """Offers whose prices (as used on the pages) include a private price (``offer_id`` a column or the index)."""
    if "offer_id" not in catalog.columns and catalog.index.name == "offer_id":
        catalog = catalog.reset_index()
    if "has_private_price" not in catalog.columns or not len(catalog):
        return set()
    return set(catalog.loc[catalog["has_private_price"].fillna(False).astype(bool), "offer_id"])


def note_column(offer_ids, private: set[str]) -> list[str]:
    """The "Price note" column of an export table: :data:`LABEL` on rows priced on a private price."""
    return [LABEL if isinstance(i, str) and i in private else "" for i in offer_ids]
