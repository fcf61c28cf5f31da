"""The one Scenario: every input a result depends on, in ``st.session_state['scenario']``.

Pages read and write it through :func:`get_scenario` and :func:`update_scenario` only, so save/load,
share links, comparison and exports can later work on one object. Sections are added per page.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st
from pydantic import BaseModel, ConfigDict, Field

from engine.money import DEFAULT_USD_PER_EUR
from engine.tco import TcoInputs
from engine.workload import InferenceService, TrainingJob

SCENARIO_KEY = "scenario"
SCENARIO_VERSION = 1


class DisplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: Literal["EUR", "USD"] = "EUR"
    usd_per_eur: float = Field(default=DEFAULT_USD_PER_EUR, gt=0.1, lt=10.0, description="USD per EUR")


class TcoSection(BaseModel):
    """TCO page: the engine inputs plus which catalog rows filled them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    inputs: TcoInputs = TcoInputs()
    on_demand_offer_id: str | None = None
    reserved_offer_id: str | None = None
    gpu_spec_id: str | None = None
    mc_draws: int = Field(default=20_000, ge=1_000, le=200_000)
    tornado_pct: float = Field(default=0.2, gt=0, lt=1)


class WorkloadSection(BaseModel):
    """Workload cost page (owned by the Workload page; fields may grow)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["training", "inference"] = "training"
    preset: str = "llama-2-70b"
    training: TrainingJob = TrainingJob.from_preset("llama-2-70b", n_gpus=64)
    inference: InferenceService = InferenceService.from_preset("llama-2-70b", prompt_tokens=1000, output_tokens=200,
                                                               batch_size=16)
    missing_fabric: Literal["exclude", "assume_default"] = "exclude"


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = SCENARIO_VERSION
    display: DisplaySettings = DisplaySettings()
    tco: TcoSection = TcoSection()
    workload: WorkloadSection = WorkloadSection()


def get_scenario() -> Scenario:
    return st.session_state.setdefault(SCENARIO_KEY, Scenario())


def update_scenario(**sections: BaseModel) -> Scenario:
    """Replace whole sections (``update_scenario(display=DisplaySettings(...))``)."""
    scenario = get_scenario().model_copy(update=sections)
    st.session_state[SCENARIO_KEY] = scenario
    return scenario
