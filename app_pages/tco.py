"""Rent or own: cost per useful GPU-hour on demand, reserved and owned; break-evens, tornado, uncertainty."""

import streamlit as st

from ui import tco_charts, tco_view
from ui.catalog import offers, table
from ui.format import money
from ui.scenario import get_scenario, update_scenario

scenario = get_scenario()
display, section = scenario.display, scenario.tco
st.title("Rent or own")
st.caption("Three ways to get a GPU-hour of work: rent on demand, rent reserved capacity for a term, or buy and "
           "run the hardware. Defaults: one 8-GPU H100 SXM server in an EU data centre. Inputs are in EUR.")

catalog_offers = offers(None, display.usd_per_eur)
tco_view.draw_presets(catalog_offers, table("gpu_specs"), display)
inputs, errors = tco_view.draw_inputs(section)
if inputs is None:
    st.error("Fix the highlighted inputs to see the results.", icon=":material/error:")
    st.stop()

result = tco_view.evaluate_tco(inputs)
verdict = tco_view.verdict(inputs, display)
st.subheader(verdict.headline)
st.markdown(verdict.detail)
c = result.cost_per_useful_gpu_hour_eur
m1, m2, m3 = st.columns(3)
m1.metric("Rent on demand, per useful GPU-hour", money(c["on_demand"], display))
m2.metric("Rent reserved, per useful GPU-hour", money(c["reserved"], display))
m3.metric("Own, per useful GPU-hour", money(c["owned"], display))

left, right = st.columns(2)
left.plotly_chart(tco_charts.cost_vs_utilisation(tco_view.utilisation_sweep(inputs), result, display),
                  width="stretch", key="tco_break_even_chart")
right.plotly_chart(tco_charts.cumulative(result, display), width="stretch", key="tco_cumulative")
left, right = st.columns(2)
left.plotly_chart(tco_charts.breakdown(result, display), width="stretch", key="tco_breakdown")
pct = right.slider("Tornado: move each input by ±", 0.05, 0.5, section.tornado_pct, 0.05, format="%.2f", key="tco_tornado_pct")
right.plotly_chart(tco_charts.tornado_chart(tco_view.cached_tornado(inputs, pct)), width="stretch", key="tco_tornado")

st.subheader("Uncertainty")
with st.expander("Ranges drawn for the Monte Carlo (edit them)", expanded=False):
    ranges = st.data_editor(tco_view.ranges_frame(inputs), hide_index=True, width="stretch", key="tco_ranges",
                            disabled=["input"])
draws = st.select_slider("Draws", [10_000, 20_000, 50_000, 100_000], value=section.mc_draws if section.mc_draws in
                         (10_000, 20_000, 50_000, 100_000) else 20_000, key="tco_draws")
update_scenario(tco=get_scenario().tco.model_copy(update={"mc_draws": draws, "tornado_pct": pct}))
try:
    with st.spinner("Drawing scenarios…"):
        mc, bands = tco_view.cached_monte_carlo(inputs, tuple(ranges.itertuples(index=False, name=None)), draws)
except ValueError as exc:
    st.error(f"The Monte Carlo ranges are not valid: {exc}")
else:
    p = mc.percentiles_eur_per_useful_gpu_hour["owned"]
    st.markdown(f"Over {mc.n_draws:,} draws, owning beats renting on demand at {inputs.utilisation_fraction:.0%} "
                f"utilisation in **{mc.probability_owned_beats_on_demand:.0%}** of cases; owned cost per useful "
                f"GPU-hour p10 {money(p['p10'], display)} · p50 {money(p['p50'], display)} · p90 {money(p['p90'], display)}.")
    st.plotly_chart(tco_charts.monte_carlo_bands(bands, inputs.utilisation_fraction, display), width="stretch",
                    key="tco_mc_bands")

with st.expander("Assumptions behind these numbers (value, unit, source)"):
    st.dataframe(tco_view.assumptions_frame(inputs), hide_index=True, width="stretch")
