"""Workload cost: what one training job, or one million generated tokens, costs on every catalog offer."""

import streamlit as st

from ui import brief
from ui import workload_charts as charts
from ui import workload_view as view
from ui.scenario import get_scenario
from ui.workload_inputs import workload_inputs
from ui.workload_pricing import batch_sweep, price_workload

display = get_scenario().display
st.title("Workload cost")
st.caption("Define a training job or an inference service; every catalog offer is priced with the same sourced "
           "model. Offers the model cannot price are listed with the reason, never dropped silently.")

banner = st.container()
section = workload_inputs()
if section is None:
    st.stop()
with banner:
    brief.draw_banner("workload", brief.workload_differences(get_scenario()))
priced = price_workload(section, display.usd_per_eur)

answer, assumed = st.columns([2.3, 1])
answer.markdown(view.verdict(priced, section, display))
metrics = view.headline_metrics(priced, section, display)
for col, (label, value, help_) in zip(answer.columns(len(metrics)), metrics, strict=True):
    col.metric(label, value, help=help_, border=True)
assumed.markdown(view.key_assumptions(section, display))

if not priced.ranked.empty:
    frame, config = view.ranking_table(priced, section, display)
    st.dataframe(frame, column_config=config, hide_index=True, width="stretch", height=420, key="wl_ranking",
                 placeholder="not stated")
    n_no_grid = int(priced.ranked["emissions_kg"].isna().sum())
    st.caption(f"Ranked {'by cost per job' if priced.mode == 'training' else 'offers meeting the latency target first, then by cost per million tokens'}"
               f"; prices in {display.currency}. Emissions are 'not stated' for {n_no_grid} offers whose data-centre country is not stated.")

left_out, config = view.left_out_table(priced)
n_out, n_assumed = int((left_out["status"] == "left out").sum()), int((left_out["status"] != "left out").sum())
with st.expander(f"Left out: {n_out} offers · priced with stated defaults: {n_assumed} offers", icon=":material/report:"):
    st.markdown("A missing catalog value is never guessed silently. Offers are left out when a value the workload "
                "needs is not stated, or priced with a stated default when you choose *Assume stated defaults* above.")
    st.dataframe(left_out, column_config=config, hide_index=True, width="stretch", key="wl_left_out",
                 placeholder="not stated")

if not priced.ranked.empty:
    choices = view.offer_choices(priced)
    offer_key = view.offer_picker_key(priced.mode, choices)
    chart_col, detail_col = st.columns([1.15, 1])
    with detail_col:
        offer_id = st.selectbox("Offer to break down", list(choices), format_func=choices.get, key=offer_key,
                                help="Defaults to the cheapest.")
        row = priced.ranked.set_index("offer_id").loc[offer_id]
        if priced.mode == "training":
            parts = view.breakdown_frame(row, display)
            st.plotly_chart(charts.training_breakdown(parts, display), width="stretch", key="wl_breakdown")
            st.caption(view.breakdown_caption(row))
        else:
            sweep = batch_sweep(section, display.usd_per_eur, offer_id)
            current = int(row["concurrency"]) if section.batch_auto else section.inference.batch_size
            st.plotly_chart(charts.batching_tradeoff(sweep, current, section.latency_target_s),
                            width="stretch", key="wl_batching")
            st.caption(view.inference_caption(row))
    x_title, y_title = view.axis_titles(priced, display)
    chart_col.plotly_chart(charts.time_cost_scatter(view.scatter_frame(priced, display), x_title, y_title, display,
                                                    offer_id), width="stretch", key="wl_scatter")

with st.expander(f"All assumptions and their sources ({len(priced.assumptions)})", icon=":material/menu_book:"):
    st.dataframe(priced.assumptions, hide_index=True, width="stretch", key="wl_assumptions", column_config={
        "name": "Parameter", "value": "Value", "unit": "Unit", "source": st.column_config.TextColumn("Source", width="large")})
