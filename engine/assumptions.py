"""Assumptions shown next to results, and what "not stated" means for a catalog value.

* :class:`Assumption` -- one value a result depends on: name, value, unit, source (and an optional
  description). Every engine result carries a tuple of them (``ScoringResult``, ``PlacementPlan``,
  ``TrainingResult``, ``TcoResult``, ...) and pages show them as a table.
* :func:`assumed` -- the one pydantic field helper for a sourced default: the unit and the source travel
  with the field (``json_schema_extra``), and :func:`assumptions_of` reads a model's fields back as
  :class:`Assumption` rows, in field order.
* :func:`is_missing` -- the one missing-value predicate, used wherever a catalog row is read (the adapters of
  :mod:`engine.adapters`, the hard constraints of :mod:`engine.scoring`): a value it calls missing is shown
  as "not stated", never read as 0, and never passes a constraint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

__all__ = ["Assumption", "assumed", "assumptions_of", "is_missing"]


@dataclass(frozen=True)
class Assumption:
    """One value a result depends on, shown next to the result.

    Attributes
    ----------
    name : str
        Parameter name (units in the name where it has one).
    value : object
        The value used (a number, a text, a flag).
    unit : str
        Unit of ``value`` (``"-"`` for a ratio, ``""`` for a choice).
    source : str
        Where the value comes from: a publication, a catalog row, "user input", "assumption" with why.
    description : str, optional
        What the parameter means, when the source alone does not say (TCO inputs); else ``""``.

    Examples
    --------
    >>> a = Assumption("pue_ratio", 1.56, "-", "Uptime Institute 2024 survey")
    >>> a.row()
    ('pue_ratio', 1.56, '-', 'Uptime Institute 2024 survey')
    """

    name: str
    value: object
    unit: str
    source: str
    description: str = ""

    def row(self) -> tuple[str, object, str, str]:
        """``(name, value, unit, source)``: the four columns of a page's assumption table."""
        return self.name, self.value, self.unit, self.source


def assumed(default: Any, unit: str, source: str, *, description: str | None = None, **bounds: Any) -> Any:
    """A pydantic field for a sourced default: ``unit`` and ``source`` are kept in ``json_schema_extra``.

    The field's ``description`` is ``description`` when given (a TCO input's meaning, shown as help on the
    page), else the source. ``bounds`` are pydantic's (``gt``, ``ge``, ``le``, ...).

    Examples
    --------
    >>> from pydantic import BaseModel
    >>> class Model(BaseModel):
    ...     pue_ratio: float = assumed(1.56, "-", "Uptime Institute 2024 survey", ge=1)
    >>> assumptions_of(Model())
    (Assumption(name='pue_ratio', value=1.56, unit='-', source='Uptime Institute 2024 survey', description=''),)
    """
    return Field(default, description=description or source, json_schema_extra={"unit": unit, "source": source},
                 **bounds)


def assumptions_of(model: BaseModel) -> tuple[Assumption, ...]:
    """Every field of ``model`` as an :class:`Assumption` (unit and source from :func:`assumed`), in field order.

    A field declared without :func:`assumed` has unit ``"-"`` and its description as the source. The
    description is kept only where it differs from the source.
    """
    rows = []
    for name, info in type(model).model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        description = info.description or ""
        source = str(extra.get("source", description))
        rows.append(Assumption(name, getattr(model, name), str(extra.get("unit", "-")), source,
                               description if description != source else ""))
    return tuple(rows)


def is_missing(value: object) -> bool:
    """Whether a catalog value is absent.

    Missing: ``None``; a float NaN (Python or numpy); numpy ``NaT`` (datetime64 or timedelta64); pandas ``NA``
    and ``NaT`` (recognised by type name, so pandas is not imported); any other scalar that is not equal to
    itself (``Decimal("NaN")``).

    Not missing: every other value, including ``""``, ``"unknown"``, ``0``, ``False`` and containers. Whether a
    category such as ``"unknown"`` means "not stated" is the caller's rule (:data:`engine.scoring.NOT_STATED`).

    Examples
    --------
    >>> import math
    >>> [is_missing(v) for v in (None, math.nan, np.float32("nan"), np.datetime64("NaT"))]
    [True, True, True, True]
    >>> [is_missing(v) for v in ("", "unknown", 0, 0.0, False, "nan")]
    [False, False, False, False, False, False]
    """
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas.NA, pandas.NaT
        return True
    if isinstance(value, str | bytes | bool | int | np.integer | np.bool_):
        return False
    try:
        return bool(value != value)  # NaN-like scalars of other types (Decimal("NaN"))
    except (TypeError, ValueError):  # no truth value (arrays, pandas-like objects): a value, not a gap
        return False
