"""One of each (issue #32.2): a concept the pages share is defined in one module, and a second definition fails here.

* label tables (a field, column or value -> the words a page shows): only in the registry, :mod:`ui.labels`;
* the currency-symbol table and the money text formatter: only in :mod:`ui.format`;
* the missing-value predicate: only :func:`engine.assumptions.is_missing` (no other ``is_missing``-like function,
  no hand-written ``x != x`` or ``x is None or isna(x)`` in ``engine``, ``ui``, pages or ``app.py``; ``catalog`` may
  not import ``engine``, so its cells are read with pandas' ``pd.isna``, e.g. in :func:`catalog.cells.clean_value`);
* the clean-a-cell helper: only :func:`catalog.cells.clean_value` (``catalog`` may not import ``ui``);
* the assumption-table builder: only :func:`ui.format.assumption_table`;
* ``HOURS_PER_YEAR`` (and the 8,760 hours it stands for): only :mod:`engine.units`.

Every check reads the source with :mod:`ast` and is shown to find a synthetic second definition.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable

import pytest

from tests.test_import_graph import MODULES

TREES = {name: ast.parse(path.read_text(), filename=str(path)) for name, path in MODULES.items()}
#: The display layer, where label tables live: ui, the pages and app.py.
DISPLAY = tuple(name for name in MODULES if name == "app" or name.split(".")[0] in ("ui", "app_pages"))


def _hits(find: Callable[[ast.AST], Iterable[str]], modules: Iterable[str]) -> dict[str, list[str]]:
    """Module -> what ``find`` reports in it (modules with nothing left out)."""
    found = {name: list(find(TREES[name])) for name in modules}
    return {name: hits for name, hits in found.items() if hits}


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _functions(tree: ast.AST) -> Iterable[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


# --- label tables ----------------------------------------------------------------------------------------------------

#: A table named as labels ("..._LABEL(S)", "..._NAMES", "..._WORDS", "..._TITLE(S)").
LABEL_NAME = re.compile(r"(LABELS?|NAMES|WORDS|TITLES?)$")
#: Longest text a label has; longer texts are help or explanations (they stay next to their widgets).
MAX_LABEL_CHARS = 80


def _text(value: ast.expr) -> str | None:
    """The display text of a table value: a string, an f-string, or the first item of a tuple ("label", unit, ...)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr):
        return ast.unparse(value)
    if isinstance(value, ast.Tuple) and value.elts:
        return _text(value.elts[0])
    return None


def label_tables(tree: ast.AST) -> list[str]:
    """Module-level label tables: a dict (or dict comprehension) named as labels, or a dict literal of at least two
    constant keys whose values are all short display texts (at least one with a space or a capital letter, which
    identifiers, widget keys, column names and colours lack)."""
    found = []
    for node in getattr(tree, "body", []):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        value = node.value.left if isinstance(node.value, ast.BinOp) else node.value  # {...} | {...}
        named = isinstance(value, ast.Dict | ast.DictComp) and any(LABEL_NAME.search(n) for n in names)
        keys, texts = (value.keys, [_text(v) for v in value.values]) if isinstance(value, ast.Dict) else ([], [])
        by_content = (len(texts) >= 2 and all(isinstance(k, ast.Constant) for k in keys)
                      and all(t is not None and len(t) <= MAX_LABEL_CHARS for t in texts)
                      and any(" " in t or t != t.lower() for t in texts if t is not None))
        if named or by_content:
            found.append(f"{', '.join(names)} (line {node.lineno})")
    return found


def test_label_tables_live_only_in_the_registry():
    outside = _hits(label_tables, [m for m in DISPLAY if not m.startswith("ui.labels")])
    assert outside == {}, "a label table belongs in ui.labels (the views import it from there)"
    inside = _hits(label_tables, [m for m in DISPLAY if m.startswith("ui.labels")])
    assert {"ui.labels.fields", "ui.labels.pages"} <= set(inside)  # the check sees the registry's own tables
    assert any(h.startswith("TCO_INPUT_LABELS") for h in inside["ui.labels.pages"])


def test_the_label_table_check_finds_a_second_table_and_leaves_other_dicts_alone():
    source = ('COLUMNS = {"name": "Workload", "mean_gpus": "Mean GPUs"}\n'
              'OPTION_NAMES = {k: v.title() for k, v in OPTIONS.items()}\n'
              'FIELDS = {"n_params": ("Model size", "billion", 1e9), "n_gpus": ("GPUs", "", 1)}\n'
              'COLOURS = {"on_demand": "#2563eb", "spot": "#f59e0b"}\n'
              '_WIDGET = {"provider": "q_provider", "gpu_model": "q_gpu"}\n'
              'PRICE_COLUMN = {"on-demand": "on_demand_eur_per_gpu_hour", "spot": "spot_eur_per_gpu_hour"}\n'
              'HELP = {"a": "' + "a long explanation " * 5 + '", "b": "another one"}\n'
              'TERMS = {"3 years": 3, "1 year": 1}\n')
    assert [h.split(" ")[0] for h in label_tables(ast.parse(source))] == ["COLUMNS", "OPTION_NAMES", "FIELDS"]


# --- currency symbols and money text ---------------------------------------------------------------------------------

CURRENCY_CODES = {"EUR", "USD", "GBP", "CHF"}
#: Functions that write an amount of money as text.
MONEY_FORMATTER = re.compile(r"^_*(fmt_|format_)?money(_text|_str)?$")


def currency_symbol_tables(tree: ast.AST) -> list[str]:
    """Dict literals (anywhere, also inline) mapping a currency code to a symbol."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in CURRENCY_CODES
                                              for k in node.keys):
            symbols = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if symbols and all(len(s) <= 3 and not s.isalnum() for s in symbols):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:60]}")
    return found


def money_formatters(tree: ast.AST) -> list[str]:
    return [f"{f.name} (line {f.lineno})" for f in _functions(tree) if MONEY_FORMATTER.match(f.name)]


def test_one_currency_symbol_table_and_one_money_formatter():
    assert list(_hits(currency_symbol_tables, MODULES)) == ["ui.format"]
    formatters = _hits(money_formatters, MODULES)
    assert list(formatters) == ["ui.format"] and [h.split(" ")[0] for h in formatters["ui.format"]] == ["money"]


def test_the_currency_and_money_checks_find_a_second_definition():
    source = ('SYMBOLS = {"EUR": "€", "USD": "$"}\n'
              'def fmt_money(v, c):\n    return {"EUR": "€", "USD": "US$"}.get(c, c) + f"{v:,.2f}"\n'
              'def money_column(label):\n    return label\n'
              'NAMES = {"EUR": "euro", "USD": "US dollar"}\n')
    tree = ast.parse(source)
    assert len(currency_symbol_tables(tree)) == 2  # the table and the inline one; currency names are no symbols
    assert money_formatters(tree) == ["fmt_money (line 2)"]  # a column format is another kind


# --- the missing-value predicate -------------------------------------------------------------------------------------

MISSING_PREDICATE = re.compile(r"^_*is_(missing|nan|na|null|blank)$")
NAN_CALLS = {"isna", "isnull", "notna", "notnull", "isnan", "isnat"}
#: Where a hand-written check is not the rule's business: catalog may not import engine (it reads cells with
#: pd.isna), and the benchmarks re-implement formulas on purpose (their plain versions).
NOT_CHECKED = ("catalog", "bench")


def missing_predicates(tree: ast.AST) -> list[str]:
    """Functions named like a missing-value predicate."""
    return [f"{f.name} (line {f.lineno})" for f in _functions(tree) if MISSING_PREDICATE.match(f.name)]


def hand_written_missing_checks(tree: ast.AST) -> list[str]:
    """``x != x`` / ``x == x`` (a NaN test), and ``x is None or ... isna(x)`` (a missing test written out)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq | ast.NotEq) \
                and ast.unparse(node.left) == ast.unparse(node.comparators[0]):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.BoolOp):
            nones = {ast.unparse(v.left) for v in node.values if isinstance(v, ast.Compare) and len(v.ops) == 1
                     and isinstance(v.ops[0], ast.Is | ast.IsNot) and isinstance(v.comparators[0], ast.Constant)
                     and v.comparators[0].value is None}
            if any(isinstance(c, ast.Call) and _call_name(c) in NAN_CALLS and c.args and ast.unparse(c.args[0]) in nones
                   for v in node.values for c in ast.walk(v)):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return sorted(found, key=lambda hit: int(hit.split(":")[0].removeprefix("line ")))


def test_one_missing_value_predicate():
    predicates = _hits(missing_predicates, MODULES)
    assert list(predicates) == ["engine.assumptions"], predicates
    assert [h.split(" ")[0] for h in predicates["engine.assumptions"]] == ["is_missing"]
    checked = [m for m in MODULES if m.split(".")[0] not in NOT_CHECKED]
    assert "ui.format" in checked and "engine.scoring.matrix" in checked
    hand_written = _hits(hand_written_missing_checks, checked)
    assert list(hand_written) == ["engine.assumptions"], (
        "use engine.assumptions.is_missing, the one missing-value predicate: " + repr(hand_written))


def test_the_missing_checks_find_a_second_predicate_and_hand_written_checks():
    source = ("def _is_missing(value):\n    return value is None or (isinstance(value, float) and math.isnan(value))\n"
              "def f(v):\n    return 'n/a' if v != v else v\n"
              "def g(value):\n    return value is not None and not pd.isna(value)\n"
              "def h(a, b):\n    return a is None or np.isnan(b) or a == b\n")
    tree = ast.parse(source)
    assert missing_predicates(tree) == ["_is_missing (line 1)"]
    assert [h.split(":")[0] for h in hand_written_missing_checks(tree)] == ["line 2", "line 4", "line 6"]


# --- clean a cell ----------------------------------------------------------------------------------------------------

CLEAN_HELPER = re.compile(r"^_*clean(_value|_cell|_row)?$")


def clean_helpers(tree: ast.AST) -> list[str]:
    return [f"{f.name} (line {f.lineno})" for f in _functions(tree) if CLEAN_HELPER.match(f.name)]


def test_one_clean_value_helper():
    helpers = _hits(clean_helpers, MODULES)
    assert list(helpers) == ["catalog.cells"] and [h.split(" ")[0] for h in helpers["catalog.cells"]] == ["clean_value"]
    users = {m for m, tree in TREES.items() if any(isinstance(n, ast.Name) and n.id == "clean_value"
                                                   for n in ast.walk(tree))}
    assert {"catalog.refresh", "ui.editor_view", "ui.placement_view"} <= users


def test_the_clean_check_finds_a_second_helper():
    source = "def _clean(value):\n    return None if value is None else value\ndef cleanup():\n    pass\n"
    assert clean_helpers(ast.parse(source)) == ["_clean (line 1)"]


# --- the assumption table --------------------------------------------------------------------------------------------


def _unit_and_source(node: ast.AST) -> bool:
    """A dict with unit and source keys, or a list/tuple with unit and source among its names (any case)."""
    keys = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, ast.List | ast.Tuple) else []
    return {"unit", "source"} <= {k.value.lower() for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def assumption_table_builders(tree: ast.AST) -> list[str]:
    """Functions that build a DataFrame with both a unit and a source column: a dict of rows or a column list with
    both, written in the function or named by a module-level constant it uses."""
    columns = {t.id for node in getattr(tree, "body", []) if isinstance(node, ast.Assign) and _unit_and_source(node.value)
               for t in node.targets if isinstance(t, ast.Name)}
    found = []
    for f in _functions(tree):
        if not any(isinstance(c, ast.Call) and _call_name(c) == "DataFrame" for c in ast.walk(f)):
            continue
        if any(_unit_and_source(n) or (isinstance(n, ast.Name) and n.id in columns) for n in ast.walk(f)):
            found.append(f"{f.name} (line {f.lineno})")
    return found


def test_one_assumption_table_builder():
    builders = _hits(assumption_table_builders, MODULES)
    assert list(builders) == ["ui.format"], builders
    assert [h.split(" ")[0] for h in builders["ui.format"]] == ["assumption_table"]


def test_the_assumption_table_check_finds_a_second_builder():
    source = ("def assumptions_frame(result):\n"
              "    return pd.DataFrame([{'name': a.name, 'value': a.value, 'unit': a.unit, 'source': a.source}\n"
              "                         for a in result.assumptions])\n"
              "def priced(rows):\n    return pd.DataFrame(rows, columns=['name', 'value', 'unit', 'source'])\n"
              "def rows(results):\n    return [{'Result': k, 'Unit': 'EUR', 'Source': ''} for k in results]\n"
              "def sheet(rows):\n    return pd.DataFrame([{'Unit': u} for u in rows] + [{'Source': s} for s in rows])\n"
              "COLUMNS = ('name', 'value', 'unit', 'source')\n"
              "def table(rows):\n    return pd.DataFrame(rows, columns=list(COLUMNS))\n")
    assert assumption_table_builders(ast.parse(source)) == [
        "assumptions_frame (line 1)", "priced (line 4)", "table (line 11)"]


# --- hours per year --------------------------------------------------------------------------------------------------


def hours_per_year_definitions(tree: ast.AST) -> list[str]:
    """Assignments to HOURS_PER_YEAR, and the number 8,760 (a year in hours written out)."""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "HOURS_PER_YEAR" for t in targets):
            found.append(f"HOURS_PER_YEAR = (line {node.lineno})")
        if isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 8760:
            found.append(f"8760 (line {node.lineno})")
    return found


def test_hours_per_year_is_defined_once():
    definitions = _hits(hours_per_year_definitions, MODULES)
    assert list(definitions) == ["engine.units"], definitions
    assert sum(h.startswith("HOURS_PER_YEAR =") for h in definitions["engine.units"]) == 1


@pytest.mark.parametrize("source", ["HOURS_PER_YEAR = 8760.0\n", "HOURS = 8760\n",
                                    "class A:\n    HOURS_PER_YEAR: float = 24 * 365\n"])
def test_the_hours_check_finds_a_second_definition(source):
    assert hours_per_year_definitions(ast.parse(source))
