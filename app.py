"""GPU Cloud Advisor: entry point. Frames and routes only; pages live in pages/."""

import streamlit as st

from ui.scenario import get_scenario
from ui.sidebar import draw_sidebar

st.set_page_config(page_title="GPU Cloud Advisor", page_icon=":material/memory:", layout="wide")
get_scenario()

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/providers.py", title="Providers & offers", icon=":material/dns:"),
]
page = st.navigation(PAGES)
draw_sidebar()
page.run()
