"""Providers & offers: who offers what, where, under which law, at what price, and from which source."""

import streamlit as st

from catalog.importer import export_csv, export_excel
from ui import brief, catalog_counts, charts, offer_scope
from ui.catalog import get_store, offers, provider_facts, table
from ui.format import plain
from ui.providers_view import (
    COMPARE_KEY,
    clear_filters,
    comparison_candidates,
    comparison_frame,
    comparison_options,
    filter_widgets,
    keep_comparison_picks,
    offer_table,
    seat_and_certification_filter,
    sort_offers,
    sovereignty_table,
    spec_table,
    suggested_comparison,
)
from ui.scenario import MAX_COMPARED_OFFERS, get_scenario

display = get_scenario().display
store = get_store()
st.title("Providers & offers")
st.caption("Every row links to its source and shows its age; values no source states are left empty, never guessed.")

brief.init_provider_filters(get_scenario().brief)
brief.draw_banner("providers", brief.provider_differences(get_scenario().brief))
options = {**store.filter_options(), "certifications": offer_scope.certification_options(offers(None, display.usd_per_eur))}
filters = filter_widgets(options, display)
result, sorted_by = sort_offers(seat_and_certification_filter(offers(filters, display.usd_per_eur)), filters.price_types)


def _offers() -> None:
    """The filtered offers: headline, table, downloads, price landscape."""
    if result.empty:
        st.info("**No offer matches these filters.** Remove a filter, or allow 'not stated' values: many sources "
                "do not document the inter-node fabric or the data-centre country.", icon=":material/filter_alt_off:")
        st.button("Clear all filters", on_click=clear_filters, key="prov_clear_empty")
    else:
        n_outliers = int(result["price_outlier"].sum())
        st.markdown(f"{catalog_counts.subset_line(result, 'under these filters', get_scenario().brief)} · "
                    f"{n_outliers} with a flagged price outlier · prices "
                    f"in {display.currency} at {display.usd_per_eur:.4f} USD/EUR · {sorted_by}")
        frame, config = offer_table(result, display)
        st.dataframe(frame, column_config=config, hide_index=True, width="stretch", height=420, key="prov_table",
                     placeholder="not stated")
        c1, c2, _ = st.columns([1, 1, 3])
        c1.download_button("Download these offers (CSV)", lambda: export_csv(frame), file_name="offers-filtered.csv",
                           mime="text/csv", key="prov_dl_csv")  # built on the click (deferred), not on every rerun
        if c2.button("Prepare Excel", key="prov_xlsx"):  # built on request: a workbook takes ~0.3 s
            c2.download_button("Download Excel", export_excel({"offers": frame}), file_name="offers-filtered.xlsx",
                               key="prov_dl_xlsx")
        st.plotly_chart(charts.price_landscape(result, display), width="stretch", key="prov_landscape")


def _compare() -> None:
    """Two to four offers side by side."""
    saved = list(get_scenario().providers.compare_offer_ids)
    candidates, outside = comparison_candidates(result, offers(None, display.usd_per_eur), saved)
    choices = comparison_options(candidates)
    kept = [offer for offer in saved if offer in choices]
    picked = st.multiselect(f"Pick 2 to {MAX_COMPARED_OFFERS} offers", list(choices), format_func=choices.get,
                            max_selections=MAX_COMPARED_OFFERS, default=kept or suggested_comparison(result),
                            key=COMPARE_KEY, on_change=keep_comparison_picks)
    if outside:
        st.caption(f"{len(outside)} of the compared offers lie outside the current filters (kept from the scenario "
                   "or its share link): " + ", ".join(plain(choices[o]) for o in outside) + ".")
    if len(picked) < 2:
        st.info("Pick at least two offers to compare them side by side.")
    else:
        chosen = candidates.set_index("offer_id").loc[picked].reset_index()
        st.plotly_chart(charts.price_comparison(chosen, display), width="stretch", key="prov_cmp_price")
        st.plotly_chart(charts.capability_comparison(chosen), width="stretch", key="prov_cmp_caps")
        st.dataframe(comparison_frame(chosen, display), width="stretch", key="prov_cmp_table")


def _law() -> None:
    """Legal seat, contracting entity and certifications of every provider."""
    providers = table("providers")
    facts = provider_facts()
    n = len(providers)
    seats = int(providers["legal_seat_country"].notna().sum())
    certified = int((providers["certifications"].fillna("") != "").sum())
    entities = int((facts["field"] == "legal_entity").sum())
    st.markdown(f"Of **{n} providers**, a source names the contracting entity of **{entities}**, the legal seat of "
                f"**{seats}** and certifications held by **{certified}**. *not found* means no consulted source "
                "stated it (not that none exists). Sovereignty depends on the parent's law as much as on the "
                "data-centre country: an EU site of a US-parented provider is *partial* residency.")
    frame, config = sovereignty_table(providers, facts)
    st.dataframe(frame, column_config=config, hide_index=True, width="stretch", key="prov_law_table",
                 placeholder="not stated")
    st.plotly_chart(charts.certification_matrix(providers), width="stretch", key="prov_cert_matrix")


def _specs() -> None:
    """The GPU datasheet table and its chart."""
    specs = table("gpu_specs")
    frame, config = spec_table(specs)
    st.dataframe(frame, column_config=config, hide_index=True, width="stretch", key="prov_specs",
                 placeholder="not stated")
    st.plotly_chart(charts.spec_scatter(specs), width="stretch", key="prov_spec_scatter")


# Only the open tab runs (on_change="rerun"): a filter change redraws the offers, not the other tabs' tables
# and charts (bench/bench_pages.py measures the rerun after a filter change).
tabs = st.tabs(["Offers", "Compare offers", "Legal seat & certifications", "GPU specs"], key="prov_tab",
               on_change="rerun")
for tab, draw in zip(tabs, (_offers, _compare, _law, _specs), strict=True):
    if tab.open:
        with tab:
            draw()
