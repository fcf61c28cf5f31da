"""The one label registry (issues #19, #32): every label, unit and format a page, chart or export shows, keyed by
the field, column or value it names. Views import their labels from here; no other module defines a label table
(``tests/test_one_of_each.py``).

* :mod:`ui.labels.fields` -- field and column names with their label, unit and format (:data:`LABELS`):
  :func:`label`, :func:`unit`, :func:`label_with_unit`, :func:`fmt` (a value with its unit, money in the display
  currency), :func:`path_label` (a flattened scenario input), :func:`in_words`, :func:`criterion_label`.
* :mod:`ui.labels.pages` -- each page's own words for its input widgets, options, grid columns, chart series and
  rule lists (``TCO_INPUT_LABELS``, ``SCORING_CONSTRAINT_LABELS``, ``PLACEMENT_GRID_LABELS``, ...).
"""

from __future__ import annotations

from ui.labels.fields import (
    LABELS,
    NAMED_WORDS,
    NOT_STATED,
    SECTIONS,
    VALUE_WORDS,
    Label,
    criterion_label,
    fmt,
    in_words,
    label,
    label_with_unit,
    lookup,
    path_label,
    readable_columns,
    readable_names,
    unit,
)
from ui.labels.pages import (
    BRIEF_RULE_LABELS,
    FABRIC_POLICY_LABELS,
    GRAD_BYTES_LABELS,
    HARDWARE_TEXT,
    JOB_KIND_LABELS,
    KV_BYTES_LABELS,
    LAYOUT_LABELS,
    PLACEMENT_GRID_LABELS,
    RECOMPUTE_LABELS,
    RESIDENCY_LABELS,
    SCORING_BASIS_LABELS,
    SCORING_CONSTRAINT_LABELS,
    SCORING_METHOD_LABELS,
    SCORING_MISSING_LABELS,
    SERVING_STACK_LABELS,
    TABLE_LABELS,
    TCO_INPUT_LABELS,
    TCO_LAYER_NAMES,
    TCO_OPTION_NAMES,
    TCO_OPTION_VERBS,
    TCO_PAIR_LABELS,
    TRAINING_STACK_LABELS,
    WEIGHT_BYTES_LABELS,
    WORKLOAD_INPUTS,
    WORKLOAD_PRICE_LABELS,
    hardware_text,
)

__all__ = [
    "BRIEF_RULE_LABELS", "FABRIC_POLICY_LABELS", "GRAD_BYTES_LABELS", "HARDWARE_TEXT", "hardware_text", "JOB_KIND_LABELS", "KV_BYTES_LABELS", "LABELS",
    "LAYOUT_LABELS", "NAMED_WORDS", "NOT_STATED", "PLACEMENT_GRID_LABELS", "RECOMPUTE_LABELS", "RESIDENCY_LABELS",
    "SCORING_BASIS_LABELS", "SCORING_CONSTRAINT_LABELS", "SCORING_METHOD_LABELS", "SCORING_MISSING_LABELS",
    "SECTIONS", "SERVING_STACK_LABELS", "TABLE_LABELS", "TCO_INPUT_LABELS", "TCO_LAYER_NAMES", "TCO_OPTION_NAMES",
    "TCO_OPTION_VERBS", "TCO_PAIR_LABELS", "TRAINING_STACK_LABELS", "VALUE_WORDS", "WEIGHT_BYTES_LABELS",
    "WORKLOAD_INPUTS", "WORKLOAD_PRICE_LABELS", "Label", "criterion_label", "fmt", "in_words", "label",
    "label_with_unit", "lookup", "path_label", "readable_columns", "readable_names", "unit",
]
