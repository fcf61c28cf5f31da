"""Formatting at the display boundary: currency conversion of EUR columns, money columns, ages.

One of each (issue #32): :data:`SYMBOL` is the one currency-symbol table, :func:`money` the one money text (the
label registry's :func:`ui.labels.fmt`, the exports and every page call it), :func:`money_column` the one money
column format, :func:`assumption_table` the one builder of an assumption table (every page and export), and a
missing value is what :func:`engine.assumptions.is_missing` says it is."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from typing import Literal, cast

import numpy as np
import pandas as pd
import streamlit as st

from engine.assumptions import is_missing
from engine.money import from_eur
from ui.scenario import DisplaySettings

#: Currency code -> symbol: the one table (pages, charts, exports and the label registry read it).
SYMBOL = {"EUR": "€", "USD": "$"}
Currency = Literal["EUR", "USD"]


def symbol(currency: str) -> str:
    """The symbol of ``currency`` ("€", "$"); a currency without one shows its code and a space ("CHF ")."""
    return SYMBOL.get(currency, currency + " ")


def money_column(label: str, display: DisplaySettings, help: str | None = None, decimals: int = 2):
    return st.column_config.NumberColumn(label, format=f"{symbol(display.currency)}%.{decimals}f", help=help)


def money(value_eur: float | None, display: DisplaySettings, decimals: int = 2, *, missing: str = "—") -> str:
    """An amount in EUR as text in the display currency ("€1,234.50", "$1,285"); ``missing`` for a gap."""
    if is_missing(value_eur):
        return missing
    amount = float(from_eur(cast(float, value_eur), display.currency, display.usd_per_eur))  # stated: a number
    return f"{symbol(display.currency)}{amount:,.{decimals}f}"


def display_in(currency: str, usd_per_eur: float) -> DisplaySettings:
    """Display settings for callers that hold the currency and the rate separately (the label registry, the
    exports); not validated again (they come from a validated scenario)."""
    return DisplaySettings.model_construct(currency=cast(Currency, currency), usd_per_eur=usd_per_eur)


#: Columns of an assumption table: the parameter, its value, its unit, where the value comes from.
ASSUMPTION_COLUMNS = ("name", "value", "unit", "source")


def assumption_table(rows: Iterable[tuple[str, object, str, str]], *, number_format: str = ".4g",
                     whole_numbers: bool = False, yes_no: bool = False, missing: str | None = None,
                     as_text: bool = True, text: Callable[[str, object], str] | None = None,
                     label: Callable[[str], str] | None = None,
                     columns: tuple[str, str, str, str] = ASSUMPTION_COLUMNS) -> pd.DataFrame:
    """The one builder of an assumption table (Scoring, Workload cost, Placement, Rent or own, the exports): one
    row per ``(name, value, unit, source)``.

    ``label`` turns a name into what the table shows (default: the name). With ``as_text`` the value is written:
    ``missing`` for a gap (when given), else ``text(name, value)`` (when given), else "yes"/"no" for a flag (with
    ``yes_no``), a float (and with ``whole_numbers`` an int) in ``number_format``, anything else as ``str``.
    Without ``as_text`` values stay as they are (None for a gap), for spreadsheets.

    >>> assumption_table([("pue", 1.5612, "-", "Uptime"), ("gpus", 1024, "GPU", "user input")]).value.tolist()
    ['1.561', '1024']
    >>> assumption_table([("gpus", 1024, "GPU", "user input"), ("price", float("nan"), "EUR", "offer")],
    ...                  number_format=",.6g", whole_numbers=True, missing="not given").value.tolist()
    ['1,024', 'not given']
    """
    def written(name: str, value: object) -> object:
        if not as_text:
            return None if is_missing(value) else value
        if missing is not None and is_missing(value):
            return missing
        if text is not None:
            return text(name, value)
        if yes_no and isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float) or (whole_numbers and isinstance(value, int)):
            return format(value, number_format)
        return str(value)

    return pd.DataFrame([(label(n) if label else n, written(n, v), u, s) for n, v, u, s in rows], columns=list(columns))


def to_display_currency(values_eur, display: DisplaySettings) -> np.ndarray:
    """EUR amounts (any array-like) as a float array in the display currency."""
    return np.asarray(from_eur(np.asarray(values_eur, dtype=float), display.currency, display.usd_per_eur), dtype=float)


def eur_columns_to_display(df: pd.DataFrame, columns: list[str], display: DisplaySettings) -> pd.DataFrame:
    """Copy of ``df`` whose ``*_eur_*`` columns are converted to the display currency (names kept)."""
    out = df.copy()
    for col in columns:
        out[col] = from_eur(out[col].astype(float).to_numpy(), display.currency, display.usd_per_eur)
    return out


def age_days(as_of_date: pd.Series, today: dt.date | None = None) -> pd.Series:
    today = pd.Timestamp(today or dt.date.today())
    return (today - pd.to_datetime(as_of_date)).dt.days


def age_label(days: pd.Series, stale_after_days: int = 180) -> pd.Series:
    return days.map(lambda d: "—" if is_missing(d) else (f"⚠ stale · {int(d)} d" if d > stale_after_days else f"{int(d)} d"))


#: Characters that mean something inside a line of Markdown (links, images, emphasis, code, HTML, entities,
#: Streamlit's :colour[..] and :icon: directives, LaTeX, strikethrough, tables); a block marker (-, +, =, #, >,
#: "1.") matters only at the start, handled separately. Hyphens and dots inside a name stay as typed.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\](){}<>!:$~|&#])")
#: Where GitHub-flavoured Markdown turns bare text into a link (http://, www., e-mail addresses): that step runs on
#: the text after escapes are resolved, so a word joiner (U+2060, invisible) is put inside the trigger instead.
_AUTOLINK = re.compile(r"(?i)(?<=https)(?=:)|(?<=http)(?=:)|(?<=www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def plain(text: object) -> str:
    """User text (a name, a link parameter, a catalog note) made safe to place inside Markdown: every character
    with a meaning inside a line is backslash-escaped (CommonMark lets any ASCII punctuation be escaped), so
    images, links, HTML, emphasis, Streamlit colour/icon directives (``:red[..]``, ``:material/..:``) and LaTeX
    (``$``) all show as the characters typed, and a leading list or heading marker is escaped; bare URLs and
    e-mail addresses are kept from becoming links by an invisible word joiner; line breaks become spaces so a
    name cannot start a new block."""
    one_line = " ".join(str(text).split())
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, one_line))
    if escaped[:1] in ("-", "+", "="):  # would start a list item or a heading underline
        return "\\" + escaped
    return re.sub(r"^(\d+)\.", r"\1\\.", escaped)  # "1." would start an ordered list ("1)": ")" is escaped)


