"""GPU Cloud Advisor: entry point. Frames and routes only.

Pages live in app_pages/, not pages/: Streamlit (1.67) treats a folder named pages/ as a legacy multipage
app, and until the first visit of "/" on a fresh server a link to /providers ran the page without this
frame (no sidebar, no navigation). Tested in tests/e2e; see README "Map of the code".
"""

import streamlit as st

from ui.brief import draw_sidebar_summary
from ui.format import plain
from ui.private_prices import enforce as enforce_private_prices
from ui.scenario import get_scenario
from ui.sidebar import draw_sidebar
from ui.workshop import apply_link_from_url, sync_url

st.set_page_config(page_title="GPU Cloud Advisor", page_icon="🖥️", layout="wide")
link_error = apply_link_from_url()  # ?s=<share link>: load that scenario once per session
get_scenario()

PAGES = [
    st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("app_pages/providers.py", title="Providers & offers", icon=":material/dns:"),
    st.Page("app_pages/tco.py", title="Rent or own (TCO)", icon=":material/savings:"),
    st.Page("app_pages/workload.py", title="Workload cost", icon=":material/speed:"),
    st.Page("app_pages/scoring.py", title="Provider scoring", icon=":material/leaderboard:"),
    st.Page("app_pages/placement.py", title="Hybrid placement", icon=":material/hub:"),
    st.Page("app_pages/workshop.py", title="Workshop", icon=":material/groups:"),
    st.Page("app_pages/editor.py", title="Catalog editor", icon=":material/edit_note:"),
]
draw_sidebar()
page = st.navigation(PAGES)
enforce_private_prices()  # a private price stays only in a signed-in editor's session (issue #28.2)
draw_sidebar_summary()
if link_error:
    st.error(f"**The share link could not be opened.** {plain(link_error)}", icon=":material/link_off:")
page.run()
sync_url()  # the scenario into the URL (?s=...): a reload or the back button restores it
