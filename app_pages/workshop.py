"""Workshop: client workspaces; save and load scenarios, share a link, compare scenarios side by side, group
weighting, export for the client."""

import streamlit as st

from ui import group_view, quotes_view
from ui import workshop_view as view
from ui.catalog import get_store
from ui.scenario import get_scenario

store = get_store()
join_code = st.query_params.get(group_view.JOIN_PARAM)
if join_code:  # a participant on their own device
    group_view.participant_form(store, join_code)
    st.stop()
st.title("Workshop")
st.caption("A scenario holds every input on every page. Save it in the client's workspace, share it as a link, "
           "compare it with others, and hand the client a workbook and a report.")
workspace, record = view.workspace_bar(store)
tab_save, tab_compare, tab_group, tab_quotes, tab_export = st.tabs(["Save, load and share", "Compare scenarios",
                                                                   "Group weighting", "Quotes", "Export"])
with tab_save:
    view.save_load_share(store, get_scenario(), workspace, record)
with tab_compare:
    view.compare(store, workspace, get_scenario().display)
with tab_group:
    group_view.consultant_view(store, workspace)
with tab_quotes:
    quotes_view.quotes_tab(store, workspace, get_scenario())
with tab_export:
    view.export(store, get_scenario(), record)
