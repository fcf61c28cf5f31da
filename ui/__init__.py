"""Streamlit glue shared by the pages: cached catalog access, the scenario in session state, the shared
sidebar, formatting helpers and plotly chart builders."""
