"""The one Scenario: every input a result depends on, in ``st.session_state['scenario']``.

Pages read and write it through :func:`get_scenario` and :func:`update_scenario` only, so save/load,
share links, comparison and exports can later work on one object. Sections are added per page.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st
from pydantic import BaseModel, ConfigDict, Field

from engine.money import DEFAULT_USD_PER_EUR

SCENARIO_KEY = "scenario"
SCENARIO_VERSION = 1


class DisplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: Literal["EUR", "USD"] = "EUR"
    usd_per_eur: float = Field(default=DEFAULT_USD_PER_EUR, gt=0.1, lt=10.0, description="USD per EUR")


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = SCENARIO_VERSION
    display: DisplaySettings = DisplaySettings()


def get_scenario() -> Scenario:
    return st.session_state.setdefault(SCENARIO_KEY, Scenario())


def update_scenario(**sections: BaseModel) -> Scenario:
    """Replace whole sections (``update_scenario(display=DisplaySettings(...))``)."""
    scenario = get_scenario().model_copy(update=sections)
    st.session_state[SCENARIO_KEY] = scenario
    return scenario
