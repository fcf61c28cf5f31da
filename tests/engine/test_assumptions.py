"""The engine's one missing-value predicate (engine.assumptions.is_missing): documented cases, agreement with
pandas on the values a catalog frame holds, and with both predicates it replaced."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.assumptions import is_missing

MISSING = [None, math.nan, float("nan"), np.nan, np.float32("nan"), np.float64("nan"), np.datetime64("NaT"),
           np.timedelta64("NaT"), pd.NA, pd.NaT, Decimal("NaN")]
PRESENT = ["", "unknown", "nan", "None", 0, 0.0, -0.0, False, True, 1, np.int64(0), np.bool_(False), math.inf,
           -math.inf, np.float32(1.5), dt.date(2026, 1, 1), dt.datetime(2026, 1, 1), np.datetime64("2026-01-01"),
           pd.Timestamp("2026-01-01"), Decimal("1.5"), b"", [], [math.nan], (), {}, np.array([math.nan, 1.0])]


@pytest.mark.parametrize("value", MISSING, ids=repr)
def test_absent_values_are_missing(value):
    assert is_missing(value) is True


@pytest.mark.parametrize("value", PRESENT, ids=repr)
def test_stated_values_are_not_missing(value):
    assert is_missing(value) is False


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_is_missing_exactly_when_it_is_nan(x):
    assert is_missing(x) == math.isnan(x)
    assert is_missing(np.float64(x)) == math.isnan(x)


def test_agrees_with_pandas_on_every_cell_of_a_catalog_like_frame():
    frame = pd.DataFrame({
        "price": [1.5, None, math.nan, 0.0],
        "flag": pd.array([True, None, False, pd.NA], dtype="boolean"),
        "text": ["EU", None, "", "unknown"],
        "day": pd.to_datetime(["2026-01-01", None, "2026-10-01", None]),
        "count": pd.array([1, None, 0, 3], dtype="Int64"),
    })
    for column in frame.columns:
        for cell in frame[column].tolist():
            assert is_missing(cell) == bool(pd.isna(cell)), (column, cell)


def _scoring_before(value: object) -> bool:
    """engine.scoring's predicate before it was unified (copied verbatim)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, np.datetime64):
        return bool(np.isnat(value))
    return False


def _placement_before(value: object) -> bool:
    """engine.placement's predicate before it was unified (copied verbatim)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:
        return True


CATALOG_CELLS = [v for v in MISSING + PRESENT
                 if not isinstance(v, Decimal | np.timedelta64 | list | tuple | dict | np.ndarray)]


@pytest.mark.parametrize("value", CATALOG_CELLS, ids=repr)
def test_same_answer_as_both_former_predicates_on_catalog_cells(value):
    """Values a catalog frame cell can hold (float, str, bool, int, dates, None, NA/NaT): no behaviour change."""
    assert is_missing(value) == _scoring_before(value) == _placement_before(value)


def test_where_the_former_predicates_disagreed_the_gap_is_missing():
    """Decimal NaN and timedelta NaT (no catalog column holds them): scoring said "stated", placement "missing"."""
    for value in (Decimal("NaN"), np.timedelta64("NaT")):
        assert _scoring_before(value) is False and _placement_before(value) is True
        assert is_missing(value) is True


# --- one Assumption type, one field helper -------------------------------------------------------------------


def test_every_result_and_defaults_table_uses_the_one_assumption_type():
    from engine import power, tco
    from engine.assumptions import Assumption
    from engine.placement import DEFAULT_ASSUMPTIONS as PLACEMENT_DEFAULTS
    from engine.scoring import Assumption as ScoringAssumption
    from engine.workload import DEFAULT_ASSUMPTIONS as WORKLOAD_DEFAULTS

    assert ScoringAssumption is tco.Assumption is Assumption
    tables = {
        "tco": tco.TcoInputs().assumptions(), "workload": WORKLOAD_DEFAULTS.table(),
        "placement": PLACEMENT_DEFAULTS.table(), "power": power.table(),
    }
    for name, rows in tables.items():
        assert rows and all(type(a) is Assumption for a in rows), name
        assert all(a.unit and len(a.source) > 3 for a in rows), name  # every default names its unit and source
    # TCO inputs keep a description apart from the source (shown as help on the page)
    assert all(a.description and a.description != a.source for a in tables["tco"])


def test_field_helper_keeps_unit_and_source_and_a_separate_description():
    from pydantic import BaseModel

    from engine.assumptions import assumed, assumptions_of

    class Model(BaseModel):
        rate_eur_per_gpu_hour: float = assumed(2.0, "EUR/GPU-h", "catalog offer x", description="price", gt=0)
        share_fraction: float = assumed(0.5, "-", "assumption: half")

    assert [a.row() for a in assumptions_of(Model(share_fraction=0.25))] == [
        ("rate_eur_per_gpu_hour", 2.0, "EUR/GPU-h", "catalog offer x"), ("share_fraction", 0.25, "-", "assumption: half")]
    assert [a.description for a in assumptions_of(Model())] == ["price", ""]
    assert Model.model_fields["share_fraction"].description == "assumption: half"
    with pytest.raises(ValueError):
        Model(rate_eur_per_gpu_hour=0.0)  # the bounds are pydantic's


def test_no_other_assumption_type_field_helper_or_missing_predicate_in_the_engine():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "engine"
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name.lstrip("_") in (
                    "Assumption", "assumed", "field", "is_missing"):
                found.append((path.relative_to(root).as_posix(), node.name))
            if isinstance(node, ast.keyword) and node.arg == "json_schema_extra":
                found.append((path.relative_to(root).as_posix(), "json_schema_extra"))
    assert sorted(found) == [("assumptions.py", "Assumption"), ("assumptions.py", "assumed"),
                             ("assumptions.py", "is_missing"), ("assumptions.py", "json_schema_extra")]
