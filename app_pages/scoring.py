"""Provider scoring: rank the offers on weighted criteria after the hard constraints; why #1 wins, how stable."""

import streamlit as st

from engine.scope import Residency
from ui import brief, offer_scope
from ui import scoring_view as view
from ui.scenario import get_scenario
from ui.scoring_inputs import draw_concentration, scoring_inputs
from ui.scoring_ranking import figures, monte_carlo, score

display = get_scenario().display
st.title("Provider scoring")
st.caption("Pick a preset, move the weights, switch the hard constraints. Constraints filter before ranking and are "
           "reported; a value the catalog does not state is shown as 'not stated' and handled by the rule you pick.")

banner = st.container()
section = scoring_inputs(display)
if section is None:
    st.stop()
with banner:
    brief.draw_banner("scoring", brief.scoring_differences(get_scenario()))
scored = score(section, display.usd_per_eur)
result = scored.result
excluded = view.excluded_table(scored)
st.caption(f":material/filter_alt: Ranked: {offer_scope.scope_summary(section.scope, Residency.of(section.constraints))}.")

if not result.ids:
    st.warning(view.nothing_ranked(scored, display), icon=":material/filter_alt_off:")
else:
    mc = monte_carlo(result, section.concentration)
    st.markdown(view.verdict(scored, mc, display))
    for note in view.notes(scored):
        st.caption(f":material/info: {note}")
    if scored.funnel or len(excluded):
        st.markdown(f"**{len(result.ids)} of {scored.n_offers} offers ranked.** Removed before ranking:\n\n"
                    + view.funnel_text(scored, display))
    frame, config = view.ranking_table(scored, display)
    by_provider, provider_config = view.provider_table(scored, display)
    tab_offers, tab_providers = st.tabs([f"By offer ({len(frame)})", f"By provider: best offer each ({len(by_provider)})"])
    tab_offers.dataframe(frame, column_config=config, hide_index=True, width="stretch",
                         height=38 + 35 * min(len(frame), 12), key="sc_ranking")
    tab_providers.dataframe(by_provider, column_config=provider_config, hide_index=True, width="stretch",
                            height=38 + 35 * min(len(by_provider), 12), key="sc_by_provider")
    tab_providers.caption("Each provider's best-scoring offer among those ranked, scored on the same scale as the "
                          "offer ranking: a provider with many node sizes or regions counts once.")

    figs = figures(scored, mc)
    left, right = st.columns([1.25, 1])
    left.plotly_chart(figs.contributions, width="stretch", key="sc_contributions")
    if result.method.value == "topsis":
        left.caption("TOPSIS scores are not a sum of parts: these bars show the weighted-sum view of the same "
                     "weights, to explain which criteria favour each offer.")
    right.plotly_chart(figs.radar, width="stretch", key="sc_radar")

    st.subheader("How stable is #1?")
    left, right = st.columns(2)
    if figs.intervals is not None:
        left.plotly_chart(figs.intervals, width="stretch", key="sc_intervals")
        left.caption("Each bar: the range of one weight, the others rescaled in proportion, in which #1 stays first "
                     "(exact for the weighted sum). Hover for who takes over past each end. Criteria that do not "
                     "separate the offers are left out: any weight of theirs keeps #1 first.")
    else:
        left.info("Exact weight intervals exist for the weighted sum, with at least two offers that differ on a "
                  "weighted criterion; the probability of first place also covers TOPSIS.", icon=":material/info:")
    with right:
        draw_concentration()
        st.plotly_chart(figs.p_first, width="stretch", key="sc_p_first")

with st.expander(f"Excluded before ranking: {len(excluded) or 'no'} offers" + (", each with its reasons" if len(excluded)
                 else ""), icon=":material/report:", expanded=not result.ids):
    st.dataframe(excluded, hide_index=True, width="stretch", key="sc_excluded", column_config={
        "Offer": st.column_config.TextColumn("Offer", width="medium"),
        "Removed by": st.column_config.TextColumn("Removed by", width="small"),
        "Reasons": st.column_config.TextColumn("Reasons", width="large")})

with st.expander("Assumptions and criterion mappings", icon=":material/menu_book:"):
    st.dataframe(view.criteria_frame(result, section.points()), hide_index=True, width="stretch", key="sc_criteria",
                 column_config={"Share": st.column_config.NumberColumn("Share", format="percent"),
                                "Share used": st.column_config.NumberColumn(
                                    "Share used", format="percent",
                                    help="In the scores: inert criteria set to 0, the rest rescaled to 100 %"),
                                "Mapping": st.column_config.TextColumn("Mapping", width="large")})
    st.dataframe(view.assumptions_frame(result), hide_index=True, width="stretch", key="sc_assumptions",
                 column_config={"source": st.column_config.TextColumn("Source", width="large")})
