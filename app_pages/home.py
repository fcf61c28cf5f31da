"""Home: what the app answers, how big and how fresh the catalog is, and where to go next."""

import datetime as dt

import streamlit as st

from catalog.coverage import PRICE_FRESH_DAYS, shortlist_summary
from catalog.store import STALE_AFTER_DAYS
from ui import brief, charts
from ui.catalog import coverage, get_store, headline_coverage, offers, summary
from ui.catalog_counts import catalog_counts
from ui.format import age_days
from ui.scenario import get_scenario

display = get_scenario().display
get_store()
st.title("GPU Cloud Advisor")
st.markdown(
    "Where should your AI training and inference run? Compare **sourced** GPU cloud offers (SXM or PCIe, "
    "NVLink, InfiniBand or Ethernet, EU residency and jurisdiction), see what a GPU-hour really costs, and "
    "plan a hybrid of dedicated, burst and development capacity. Every number shows its source and age."
)

brief.draw_editor()

s = summary()
all_offers = offers(None, display.usd_per_eur)
counts = catalog_counts(all_offers, get_scenario().brief)  # the definitions every page counts with (#27.17)
c1, c2, c3, c4 = st.columns(4)
c1.metric("Providers with offers", counts.catalog.providers,
          help=f"{s['providers']} providers on record; those without an offer are not counted")
c2.metric("Offers", counts.catalog.offers, help=f"{s['current_prices']} current prices; newest observation "
          f"{s['newest_price']}")
c3.metric(f"Stale prices (> {STALE_AFTER_DAYS} d)", counts.catalog.stale_prices,
          help=f"Offers whose newest current price was retrieved more than {STALE_AFTER_DAYS} days ago. The Editor's "
               f"re-verification list also holds {s['stale_providers']} provider and {s['stale_offers']} offer rows",
          delta_color="off")
c4.metric("Offers meeting the brief", counts.in_scope.offers,
          help=f"From {counts.in_scope.providers} providers; {counts.in_scope.stale_prices} with a stale price")

short = shortlist_summary(all_offers, dt.date.today())
st.subheader("EU-sovereign H100/H200 shortlist")
k1, k2, k3 = st.columns(3)
k1.metric("EU-parent H100/H200 SXM offers", short["eu_parent_h100_h200_sxm"],
          help="Offers of providers whose ultimate parent is under EU law (sourced parent company)")
k2.metric("… stating fabric, data centre and a current price", short["eu_parent_h100_h200_sxm_with_fabric_and_price"],
          help=f"Inter-node fabric and data-centre country stated, price observed within {PRICE_FRESH_DAYS} days")
k3.metric("… of these on InfiniBand", short["eu_parent_h100_h200_sxm_infiniband"])
names = dict(zip(all_offers["provider_id"], all_offers["provider_name"], strict=False))
st.caption("EU-parent providers with an H100/H200/B200 offer that states fabric, data-centre country and a current "
           f"price: {', '.join(names.get(p, p) for p in short['providers']) or 'none'}. The other offers lack a sourced "
           "fabric, country or recent price; the Providers page shows which fact is missing.")

st.subheader("Ask the catalog")
QUESTIONS = [
    ("providers", "dns", "Providers & offers: who offers H100 SXM with InfiniBand in the EU, at what price?"),
    ("tco", "savings", "Rent or own: above which utilisation does a dedicated cluster beat renting?"),
    ("workload", "speed", "Workload cost: what does this training job or a million tokens cost on each offer?"),
    ("scoring", "leaderboard", "Provider scoring: which provider fits our priorities, and how sure is that?"),
    ("placement", "hub", "Hybrid placement: what to commit, what to burst, what must stay in the EU?"),
    ("workshop", "groups", "Workshop: save, share and compare scenarios; export for the client"),
    ("editor", "edit_note", "Catalog editor: keep prices and specs true, with history and sources"),
]
cols = st.columns(2)
for i, (page, icon, question) in enumerate(QUESTIONS):
    cols[i % 2].page_link(f"app_pages/{page}.py", label=question, icon=f":material/{icon}:")

left, right = st.columns(2)
all_offers = all_offers.assign(age_days=lambda d: age_days(d["as_of_date"]))
left.plotly_chart(charts.freshness(all_offers, STALE_AFTER_DAYS), width="stretch", key="home_freshness")
right.plotly_chart(charts.coverage(coverage()), width="stretch", key="home_coverage")
st.caption("Missing values are shown as missing: a page that needs one says which offers it left out and why.")

with st.expander("Where the facts this app differentiates on stand", icon=":material/fact_check:"):
    head = headline_coverage().assign(share=lambda d: d["have"] / d["of"].where(d["of"] > 0))
    st.dataframe(
        head, hide_index=True, width="stretch", key="home_headline",
        column_config={
            "fact": st.column_config.TextColumn("Fact", width="large"),
            "have": st.column_config.NumberColumn("Stated", format="%d"),
            "of": st.column_config.NumberColumn("Of", format="%d"),
            "share": st.column_config.ProgressColumn("Share", min_value=0.0, max_value=1.0, format="percent"),
        },
    )
    st.caption("Counts of rows whose source states the fact. `make data-report` prints the same table, coverage per "
               "provider and the rows to refresh next.")
