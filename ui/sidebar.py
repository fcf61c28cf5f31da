"""The sidebar every page shares: display currency and the exchange rate (with its source and date)."""

from __future__ import annotations

import streamlit as st

from engine.money import DEFAULT_FX_AS_OF, DEFAULT_FX_SOURCE, DEFAULT_USD_PER_EUR
from ui.private_prices import draw_toggle as draw_private_toggle
from ui.quotes import draw_toggle as draw_quotes_toggle
from ui.scenario import USD_PER_EUR_RANGE, DisplaySettings, get_scenario, update_scenario

#: Larger type and tighter chrome for a projector (Streamlit's own classes are not stable; these target
#: plain elements and data-testids).
PRESENTATION_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 21px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; }
h1 { font-size: 3rem !important; } h2, h3 { font-size: 2rem !important; }
/* key numbers: the largest text on the screen after the page title, their labels smaller */
[data-testid="stMetric"] { container-type: inline-size; }  /* the value's size follows its own column */
[data-testid="stMetricValue"], [data-testid="stMetricValue"] div, [data-testid="stMetricValue"] p {
  font-size: clamp(1.7rem, 17cqw, 3.4rem) !important; line-height: 1.15 !important; height: auto !important;
  overflow: visible !important; text-overflow: clip !important; white-space: nowrap !important; }
/* a number never breaks inside (issue #27.15): a row of metric cards wraps onto a second row instead of squeezing
   each card below 12rem, and a row of charts stacks them when each would be narrower than 30rem */
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] > [data-testid="stVerticalBlock"]
  > [data-testid="stElementContainer"] > [data-testid="stMetric"]),
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"]) {
  flex-wrap: wrap !important; }
[data-testid="stColumn"]:has(> [data-testid="stVerticalBlock"] > [data-testid="stElementContainer"]
  > [data-testid="stMetric"]) { min-width: 12rem !important; flex: 1 1 12rem !important; }
[data-testid="stColumn"]:has([data-testid="stPlotlyChart"]) { min-width: 30rem !important; flex: 1 1 30rem !important; }
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] div, [data-testid="stMetricLabel"] p {
  font-size: 1.05rem !important; white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; height: auto !important; }
[data-testid="stMetricDelta"], [data-testid="stMetricDelta"] div, [data-testid="stMetricDelta"] p {
  font-size: 1.2rem !important; }
[data-testid="stMainBlockContainer"] { max-width: 100% !important; padding-left: 2rem; padding-right: 2rem; }
/* no text cut off with an ellipsis (widget labels, page links): it wraps instead */
.stMarkdownEllipsis, .stMarkdownEllipsis p, [data-testid="stPageLink"] p, [data-testid="stWidgetLabel"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
/* the page links in full: a wider sidebar and wrapping instead of an ellipsis */
section[data-testid="stSidebar"][data-collapsed="false"] { width: 25rem !important; min-width: 25rem !important; }
/* collapsed, it gives the page its whole width (the forced width above left 225 px of grey) */
[data-testid="stSidebarNav"] a, [data-testid="stSidebarNav"] a * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; height: auto !important; max-width: none !important; }
</style>"""
PRESENT_PARAM = "present"


def _store_display() -> None:
    update_scenario(
        display=DisplaySettings(currency=st.session_state["_currency"], usd_per_eur=st.session_state["_usd_per_eur"])
    )


def draw_sidebar() -> DisplaySettings:
    display = get_scenario().display
    # The widgets declare the scenario's values as their defaults. With the state pre-set via `setdefault` and no
    # declared `value`, a session opened from a share link on a busy server came back with the rate at the
    # widget's declared default, min_value 0.5 USD/EUR (5 of 6 sessions under two CPU burners), pricing every USD
    # offer 2.08x too high. tests/e2e/test_workshop_browser.py reproduces it.
    with st.sidebar:
        st.radio("Currency", ["EUR", "USD"], index=["EUR", "USD"].index(display.currency), key="_currency",
                 horizontal=True, on_change=_store_display,
                 help="Prices stay in the provider's own currency in the catalog; they are converted once, for display.")
        st.number_input(
            "Exchange rate (USD per EUR)", min_value=USD_PER_EUR_RANGE[0], max_value=USD_PER_EUR_RANGE[1],
            value=float(display.usd_per_eur), step=0.0001,
            format="%.4f", key="_usd_per_eur", on_change=_store_display,
            help=f"Default: {DEFAULT_USD_PER_EUR} = {DEFAULT_FX_SOURCE}, {DEFAULT_FX_AS_OF}. Enter today's ECB rate.",
        )
        if abs(st.session_state["_usd_per_eur"] - DEFAULT_USD_PER_EUR) < 1e-12:
            st.caption(f"ECB reference rate of {DEFAULT_FX_AS_OF}: set today's rate for current figures.")
        if st.query_params.get(PRESENT_PARAM) == "1" and "_presentation" not in st.session_state:
            st.session_state["_presentation"] = True  # ?present=1 opens a page ready for the projector
        presenting = st.toggle("Presentation mode", key="_presentation",
                               help="Larger type and chart text (at least 18 px) for a projector.")
        draw_private_toggle()  # signed-in editors only (issue #28.2)
        draw_quotes_toggle()  # only while a workspace with quotes is open (issue #29.7)
    if presenting:
        st.html(PRESENTATION_CSS)
    return get_scenario().display
