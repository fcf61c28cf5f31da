"""Rent or own: total cost over the chosen horizon on demand, reserved (only with a committed price) and owned;
per useful GPU-hour from those totals; break-evens, net cost to date, tornado, uncertainty."""

import pandas as pd
import streamlit as st

from engine.tco import evaluate_tco
from ui import brief, labels, tco_charts, tco_view
from ui.catalog import offer_prices, table
from ui.format import money
from ui.private_prices import LABEL as PRIVATE_LABEL
from ui.quotes import committed_quotes, is_quote_id, offers_with_quotes, quote_terms
from ui.scenario import TORNADO_RANGE, get_scenario, update_scenario
from ui.workshop import sync_url

scenario = get_scenario()
display, section = scenario.display, scenario.tco
st.title("Rent or own")
st.caption("What it costs to have your GPUs doing useful work over the horizon you choose: rent on demand, commit "
           "to a reserved term, or buy and run the hardware. Every figure on this page is for that one horizon.")
if display.currency != "EUR":
    st.info(f"Inputs on this page are in EUR; results are shown in {display.currency} at "
            f"{display.usd_per_eur:.4f} USD per EUR (sidebar).", icon=":material/currency_exchange:")

banner = st.container()
tco_view.init_widgets(section)
catalog_offers = offers_with_quotes(display.usd_per_eur)  # the catalog plus the workspace's quotes (issue #29.7)
offer_id, committed = tco_view.draw_presets(catalog_offers, table("gpu_specs"), display, offer_prices,
                                            tco_view.brief_offer_ids(catalog_offers, scenario.brief, display.usd_per_eur))
quoted = committed_quotes(catalog_offers, offer_id)  # quotes' committed prices, next to the offer's own
if len(quoted):
    committed = pd.concat([committed, quoted], ignore_index=True) if len(committed) else quoted
choice, reserved_price, reserved_term = tco_view.draw_committed_choice(offer_id, committed, section, display)
if is_quote_id(choice) or is_quote_id(offer_id):
    st.caption(quote_terms(catalog_offers, choice if is_quote_id(choice) else offer_id)
               + " Prices from a workspace quote stay in this workspace: the share link and the JSON file leave them "
               "out.", help="Saved scenarios of this workspace keep them.")
inputs, errors = tco_view.draw_inputs((reserved_price, reserved_term))
if inputs is None:
    st.error("Fix the highlighted inputs to see the results.", icon=":material/error:")
    st.stop()
private = tco_view.on_demand_price_is_private(catalog_offers, offer_id, inputs.price_on_demand_eur_per_gpu_hour)
section = tco_view.store_section(inputs, offer_id, choice, private)
if private:
    st.warning(f"The on-demand price is your private negotiated price ({PRIVATE_LABEL}): you included private prices "
               "(sidebar), so the share link, the JSON file and the exports carry it, marked as such. A viewer who "
               "opens the link gets the public price.", icon=":material/lock:")
with banner:
    brief.draw_banner("tco", brief.tco_differences(get_scenario()))

result = evaluate_tco(inputs)
verdict = tco_view.verdict(result, display, "workspace-quote" if is_quote_id(section.reserved_price_id)
                           else section.reserved_origin)
st.subheader(verdict.headline)
st.markdown(verdict.detail)
for note in verdict.notes:
    st.caption(note)
span = tco_view.span_text(inputs.horizon_months)
t, u = result.total_cost_eur, result.cost_per_useful_gpu_hour_eur
m1, m2, m3 = st.columns(3)
m1.metric(f"Rent on demand, total over {span}", money(t["on_demand"], display, 0),
          help="Only the useful hours are paid.")
m1.caption(f"{money(u['on_demand'], display)} per useful GPU-hour")
if "reserved" in result.available_options:
    m2.metric(f"Rent reserved, total over {span}", money(t["reserved"], display, 0),
              help="Every hour of every started term is paid.")
    m2.caption(f"{money(u['reserved'], display)} per useful GPU-hour")
else:
    m2.metric(f"Rent reserved, total over {span}", "not compared", help="No committed price stated for this offer.")
    m2.caption("no committed price stated for this offer")
m3.metric(f"Own, total over {span}", money(t["owned"], display, 0),
          help="Net of the resale value at the horizon end; includes the cost of capital.")
m3.caption(f"{money(u['owned'], display)} per useful GPU-hour · "
           f"{money(tco_view.upfront_capex_eur(result), display, 0)} to pay upfront")

left, right = st.columns(2)
left.plotly_chart(tco_charts.totals(result, display), width="stretch", key="tco_totals")
right.plotly_chart(tco_charts.cumulative(result, display), width="stretch", key="tco_cumulative")
left, right = st.columns(2)
left.plotly_chart(tco_charts.cost_vs_utilisation(tco_view.utilisation_sweep(inputs), result, display),
                  width="stretch", key="tco_break_even_chart")
pct = right.slider("Tornado: move each input by ±", *TORNADO_RANGE, section.tornado_pct, 0.05, format="%.2f", key="tco_tornado_pct")
right.plotly_chart(tco_charts.tornado_chart(tco_view.cached_tornado(inputs, pct), labels.TCO_INPUT_LABELS),
                   width="stretch", key="tco_tornado")

update_scenario(tco=get_scenario().tco.model_copy(update={"tornado_pct": pct}))


@st.fragment
def uncertainty(inputs, span: str, display) -> None:
    """The Monte Carlo block. Its own inputs (the ranges, the number of draws) rerun this block only, not the
    page (st.fragment, issue #31); everything it reads from the rest of the page comes in as arguments."""
    st.subheader("Uncertainty")
    with st.expander("Ranges drawn for the Monte Carlo (edit them)", expanded=False):
        ranges = st.data_editor(tco_view.ranges_frame(inputs), hide_index=True, width="stretch", key="tco_ranges",
                                disabled=["input"])
    mc_draws = get_scenario().tco.mc_draws
    draws = st.select_slider("Draws", [10_000, 20_000, 50_000, 100_000], value=mc_draws if mc_draws in
                             (10_000, 20_000, 50_000, 100_000) else 20_000, key="tco_draws")
    update_scenario(tco=get_scenario().tco.model_copy(update={"mc_draws": draws}))
    sync_url()  # app.py writes the URL after a full run only
    try:
        with st.spinner("Drawing scenarios…"):
            mc, bands = tco_view.cached_monte_carlo(inputs, tuple(ranges.itertuples(index=False, name=None)), draws)
    except ValueError as exc:
        st.error(f"The Monte Carlo ranges are not valid: {exc}")
    else:
        p = mc.percentiles_eur_per_useful_gpu_hour["owned"]
        st.markdown(f"Over {mc.n_draws:,} draws of the uncertain inputs, owning costs less than renting on demand over "
                    f"{span} at {inputs.utilisation_fraction:.0%} utilisation in **{mc.probability_owned_beats_on_demand:.0%}** "
                    f"of cases; owned cost per useful GPU-hour p10 {money(p['p10'], display)} · p50 {money(p['p50'], display)} · "
                    f"p90 {money(p['p90'], display)}.")
        st.plotly_chart(tco_charts.monte_carlo_bands(bands, inputs.utilisation_fraction, display), width="stretch",
                        key="tco_mc_bands")


uncertainty(inputs, span, display)

with st.expander("Assumptions behind these numbers (value, unit, source)"):
    st.caption(result.residual_value_rule)
    st.dataframe(tco_view.assumptions_frame(inputs, section), hide_index=True, width="stretch")
