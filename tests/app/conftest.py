"""Shared AppTest helper: the app opened on one page, through app.py (navigation, sidebar, scenario)."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def open_page(page: str, *, timeout: float = 90) -> AppTest:
    """Run app.py, switch to ``page`` (e.g. "app_pages/tco.py") and check it ran without an exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at
