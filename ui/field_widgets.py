"""Widgets that hold one field of a scenario model each, as one table per page (issue #32.5).

A :class:`Bound` names the field (its section in :data:`ui.scenario.WIDGET_FIELDS` and the field name) and how
the widget shows it; its key is :func:`ui.scenario.widget_key` of the field, computed (and so checked against the
model) when the table is built. :func:`prefill` fills a page's widget state from the model, :func:`read_back` reads
the fields back, so a new input is one field, one table row and one widget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any

from pydantic import BaseModel

from ui.scenario import widget_key

#: Widget state: st.session_state, or a dict in tests.
State = MutableMapping[Any, Any]


def _same(value: Any) -> Any:
    return value


@dataclasses.dataclass(frozen=True)
class Bound:
    """One widget holding ``field`` of the model of ``section``: ``shown`` turns the field's value into the
    widget's (a display scale, a label), ``stored`` the widget's value back into the field's."""

    section: str
    field: str
    shown: Callable[[Any], Any] = _same
    stored: Callable[[Any], Any] = _same
    key: str = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", widget_key(self.section, self.field))  # KeyError for a misspelt field


def prefill(bounds: Iterable[Bound], model: BaseModel, state: State) -> None:
    """Give every widget of ``bounds`` that has no state yet the value of its field in ``model``."""
    for b in bounds:
        state.setdefault(b.key, b.shown(getattr(model, b.field)))


def overwrite(bounds: Iterable[Bound], model: BaseModel, state: State) -> None:
    """Set every widget of ``bounds`` to the value of its field in ``model`` (a preset or a reset)."""
    for b in bounds:
        state[b.key] = b.shown(getattr(model, b.field))


def read_back(bounds: Iterable[Bound], state: Mapping[Any, Any]) -> dict[str, Any]:
    """Field name -> value the widgets of ``bounds`` hold, in the model's terms."""
    return {b.field: b.stored(state[b.key]) for b in bounds}
