"""Formatting at the display boundary: currency conversion of EUR columns, money columns, ages."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import streamlit as st

from engine.money import from_eur
from ui.scenario import DisplaySettings

SYMBOL = {"EUR": "€", "USD": "$"}


def money_column(label: str, display: DisplaySettings, help: str | None = None, decimals: int = 2):
    return st.column_config.NumberColumn(label, format=f"{SYMBOL[display.currency]}%.{decimals}f", help=help)


def money(value_eur: float, display: DisplaySettings, decimals: int = 2) -> str:
    if value_eur is None or (isinstance(value_eur, float) and np.isnan(value_eur)):
        return "—"
    amount = float(from_eur(value_eur, display.currency, display.usd_per_eur))
    return f"{SYMBOL[display.currency]}{amount:,.{decimals}f}"


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
    return days.map(lambda d: "—" if pd.isna(d) else (f"⚠ stale · {int(d)} d" if d > stale_after_days else f"{int(d)} d"))


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
