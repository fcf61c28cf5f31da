"""Hybrid placement: per workload, how many GPUs to commit where, and where the rest bursts."""

import streamlit as st

from catalog.cells import neutralise_frame
from ui import brief, placement_compare
from ui import placement_charts as charts
from ui import placement_view as view
from ui.format import money, plain
from ui.placement_venues import single_host_note
from ui.quotes import offers_with_quotes
from ui.scenario import get_scenario

display = get_scenario().display
st.title("Hybrid placement")
st.caption("Describe the workloads. The planner commits GPUs where steady demand pays for them, bursts the rest on "
           "demand or spot, keeps sensitive data in EU venues, and compares the result with two simple baselines. "
           "One cheapest plan over all the catalog's offers (mixed-integer program, HiGHS); prices in EUR inside.")

catalog = offers_with_quotes(display.usd_per_eur)  # the catalog plus the workspace's quotes (issue #29.7)
banner = st.container()
section, problems = view.portfolio_inputs(catalog)
with banner:
    brief.draw_banner("placement", brief.placement_differences(get_scenario()))
if problems:
    st.error("**Some rows cannot be used; the plan below is for the last valid portfolio.**\n\n"
             + "\n".join(f"- {p}" for p in problems), icon=":material/error:")
solved = view.solve(section, catalog, display.usd_per_eur)

if solved.plan is None:
    st.error(view.infeasible_message(solved.problems, solved.too_large, solved, section, catalog),
             icon=":material/block:")
else:
    plan = solved.plan
    od, od_pct = view.savings(plan, solved.all_on_demand)
    dp, dp_pct = view.savings(plan, solved.dedicated)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Plan cost per month", money(plan.total_cost_eur_per_month, display, 0), border=True)
    m2.metric("Saved vs all on demand", money(od, display, 0), view.cost_delta(od_pct), delta_color="inverse",
              border=True, help="Every workload on its cheapest eligible on-demand offer: no commitment, no spot.")
    m3.metric("Saved vs dedicated for peak", money(dp, display, 0), view.cost_delta(dp_pct),
              delta_color="inverse", border=True, help="Every workload holds its peak GPUs around the clock at the "
              "cheapest eligible price (reserved, or on demand kept on).")
    m4.metric("Committed GPUs", f"{plan.total_committed_gpus}", border=True,
              help="GPUs paid every hour of the term; everything above them is paid as used.")
    st.markdown(view.summary(solved, section, display))
    for warning in view.plan_warnings(solved, section, catalog):
        st.warning(warning, icon=":material/warning:")
    st.caption(f":material/filter_alt: Venues: {len(solved.venues)} of {len(catalog)} catalog offers under the "
               f"client-wide rules ({view.rules_text(section)}); {solved.n_outlier_prices} flagged outlier price"
               f"{'s' * (solved.n_outlier_prices != 1)} not used; {single_host_note(catalog)}.")

    frame, config = view.plan_table(solved, catalog, display)
    # Workload names are the user's text: neutralised against spreadsheet formulas in every copy (#28.12).
    st.dataframe(neutralise_frame(frame), column_config=config, hide_index=True, width="stretch", key="pl_plan", row_height=72,
                 placeholder="—")
    labels = view.venue_labels(catalog)
    st.markdown("**Why each workload goes where it does** (rates in the reasons are EUR per GPU-hour)\n\n"
                + "\n".join(f"- **{plain(pl.workload)}**: {plain(view.readable(pl.reason, labels))}"
                            for pl in plan.placements))

    st.plotly_chart(charts.demand_week(plan, solved.week_demand_gpus), width="stretch", key="pl_demand")
    left, right = st.columns(2)
    left.plotly_chart(charts.savings(plan, solved.all_on_demand, solved.dedicated, display), width="stretch",
                      key="pl_savings")
    right.plotly_chart(charts.sensitivity(solved.sensitivity, display), width="stretch", key="pl_sensitivity")
    right.caption(view.sensitivity_note(solved, display))
    st.caption(f"Solver: {plan.solver_status}, {plan.solve_seconds * 1000:.0f} ms; "
               f"{solved.n_estimated_venues} offers carry an estimated reserved rate.")

    placement_compare.draw(section, catalog, display)

with st.expander("Assumptions behind these numbers (value, unit, source)", icon=":material/menu_book:"):
    st.dataframe(view.assumptions_frame(solved, section, display), hide_index=True, width="stretch",
                 key="pl_assumptions", column_config={"source": st.column_config.TextColumn("Source", width="large")})
