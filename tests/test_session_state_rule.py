"""No page module touches ``st.session_state`` (issue #32.5).

A page (app.py, app_pages/*.py) reads and writes the scenario through :func:`ui.scenario.get_scenario` and
:func:`ui.scenario.update_scenario`, and any other session state through a public function of the ui module that
owns that state (e.g. :func:`ui.providers_view.keep_comparison_picks`), so every key has one owner.

The pages are read with :mod:`ast`: ``st.session_state`` (any alias of streamlit, at any depth),
``from streamlit import session_state`` and ``getattr(st, "session_state")`` all count.

Widgets that hold a scenario section's fields one to one take their keys from :func:`ui.scenario.widget_key`; no
other ui module spells such a key by hand (a hand-kept key table is what #32.5 removes).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

from ui.scenario import WIDGET_FIELDS, widget_key

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


# --- widget keys derive from the section's field names -----------------------------------------------------------


def field_paths(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every field of ``model`` and, dotted, of the models nested in it (``"training.n_gpus"``)."""
    paths = []
    for name, info in model.model_fields.items():
        paths.append(prefix + name)
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            paths += field_paths(info.annotation, f"{prefix}{name}.")
    return paths


def spelled_widget_keys(source: str) -> list[str]:
    """String literals in ``source`` that are a derived widget key (``"_tco_horizon_months"``) written by hand."""
    derived = {widget_key(section, path) for section, model in WIDGET_FIELDS.items() for path in field_paths(model)}
    return sorted(node.value for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and node.value in derived)


def test_widget_key_derives_the_key_from_the_field_and_rejects_unknown_names():
    assert widget_key("tco", "horizon_months") == "_tco_horizon_months"
    with pytest.raises(KeyError, match="horizon_month"):
        widget_key("tco", "horizon_month")  # a typo fails, never a widget nobody reads
    with pytest.raises(KeyError):
        widget_key("scoring", "method")  # a section without derived keys


def test_no_ui_module_or_page_spells_a_derived_key_by_hand():
    modules = [*PAGES, *sorted((ROOT / "ui").rglob("*.py"))]
    found = {str(p.relative_to(ROOT)): keys for p in modules if (keys := spelled_widget_keys(p.read_text()))}
    assert found == {}, "use ui.scenario.widget_key(section, field) instead of the literal key"


def test_the_spelled_key_check_sees_a_hand_kept_table():
    source = ('KEYS = {"cluster_gpus": "_tco_cluster_gpus", "x": "_tco_not_a_field"}\n'
              'k = widget_key("tco", "horizon_months")\n'
              'GPUS = "_wl_training_n_gpus"\n')  # a field of the section's nested training job
    assert spelled_widget_keys(source) == ["_tco_cluster_gpus", "_wl_training_n_gpus"]
