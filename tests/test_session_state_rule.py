"""No page module touches ``st.session_state`` (issue #32.5).

A page (app.py, app_pages/*.py) reads and writes the scenario through :func:`ui.scenario.get_scenario` and
:func:`ui.scenario.update_scenario`, and any other session state through a public function of the ui module that
owns that state (e.g. :func:`ui.providers_view.keep_comparison_picks`), so every key has one owner.

The pages are read with :mod:`ast`: ``st.session_state`` (any alias of streamlit, at any depth),
``from streamlit import session_state`` and ``getattr(st, "session_state")`` all count.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]
NAME = "session_state"


def session_state_uses(source: str) -> list[int]:
    """Line numbers where ``source`` reads or writes Streamlit's session state."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == NAME:
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "streamlit" \
                and any(alias.name == NAME for alias in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and any(isinstance(a, ast.Constant) and a.value == NAME for a in node.args):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_pages_were_found():
    names = {p.name for p in PAGES}
    assert {"app.py", "providers.py", "workload.py", "tco.py", "scoring.py"} <= names


def test_no_page_module_touches_session_state():
    found = {str(p.relative_to(ROOT)): lines for p in PAGES if (lines := session_state_uses(p.read_text()))}
    assert found == {}, ("a page uses st.session_state: move the use into the ui module that owns the state, as a "
                         "public function with a docstring")


def test_the_check_sees_reads_writes_imports_and_getattr():
    source = ("import streamlit as st\n"
              "import streamlit\n"
              "x = st.session_state.get('a')\n"
              "def f():\n    st.session_state['b'] = 1\n"
              "streamlit.session_state.pop('c', None)\n"
              "from streamlit import session_state as ss\n"
              "y = getattr(st, 'session_state')\n"
              "if 'd' in st.session_state:\n    pass\n")
    assert session_state_uses(source) == [3, 5, 6, 7, 8, 9]
    # the scenario accessors, query parameters and a name that merely contains the word are fine
    assert session_state_uses("from ui.scenario import get_scenario\nimport streamlit as st\n"
                              "s = get_scenario()\nq = st.query_params.get('s')\nsession_state_key = 'x'\n") == []
