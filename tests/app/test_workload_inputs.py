"""Issue #32.5: the Workload page's widget keys derive from WorkloadSection's fields (ui.workload_inputs.INPUTS).

Every input is one row (field path, cast, display scale, conversion); the prefill (section -> widgets) and the
read-back (widgets -> section) both loop over the table, so a section shown and read back unchanged is the
same section, and a widget shows the unit its label promises.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from pydantic import BaseModel

import ui.workload_inputs as wi
from engine.workload import InferenceService, TrainingJob
from tests.app.conftest import open_page
from ui.scenario import WorkloadSection, widget_key
from ui.workload_inputs import INPUT, INPUTS, LAYOUT_KEY, WidgetField, section_from_widgets, widget_values

DEFAULT = WorkloadSection()


def wl(path: str) -> str:
    return widget_key("wl", path)


def _same(a: object, b: object) -> bool:
    """Equal, floats up to the one rounding of a conversion (33.3e6 tokens a day shown as 33.3 million read back
    as 33299999.999999996)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-15)
    return a == b and type(a) is type(b)


def round_trip(section: WorkloadSection) -> WorkloadSection:
    return section_from_widgets(widget_values(section), section)


def test_every_key_in_the_table_is_the_derived_key_of_a_real_field():
    for row in INPUTS:
        assert row.key == wl(row.path) == "_wl_" + row.path.replace(".", "_")
        *parents, name = row.path.split(".")
        model: type[BaseModel] = WorkloadSection
        for part in parents:
            model = model.model_fields[part].annotation  # type: ignore[assignment]
        assert name in model.model_fields, row.path
    keys = [row.key for row in INPUTS]
    assert len(set(keys)) == len(keys) == len(INPUT)
    assert LAYOUT_KEY not in keys and wi.PUBLISHED_TOKENS_KEY not in keys and wi.SCOPE_KEY == wl("scope")
    assert set(widget_values(DEFAULT)) == {*keys, LAYOUT_KEY}
    assert wl("training.n_gpus") == "_wl_training_n_gpus"  # the key bench/ and its CSS class st-key-... use


@pytest.mark.parametrize("path", ["training.n_gpu", "trainin.n_gpus", "inference.training_tokens",
                                  "tokens_per_day.x", "mode.training", "n_gpus"])
def test_a_misspelt_field_raises_key_error(path):
    with pytest.raises(KeyError):
        wl(path)
    with pytest.raises(KeyError):
        WidgetField(path)  # a row of the table is checked when the module loads


def test_a_widget_takes_only_a_key_of_the_table():
    assert "lora_rank" in TrainingJob.model_fields  # a real field, but the page has no input for it
    with pytest.raises(KeyError):
        wi._key("training.lora_rank")


def test_the_default_section_survives_prefill_and_read_back():
    assert round_trip(DEFAULT) == DEFAULT


def test_the_widgets_show_the_units_their_labels_promise():
    """A scale that is wrong both ways would still round-trip: the shown values pin each row's unit."""
    section = DEFAULT.model_copy(update={"restart_s": 900.0})
    shown = widget_values(section)
    expected = {
        "training.n_params": 70.0,  # "Model size (billion parameters)"
        "training.training_tokens": 20.0,  # "Training tokens (billions)"
        "training.global_batch_tokens": 0.131072,  # "Global batch (million tokens)"
        "restart_s": 15.0,  # "Restart time (minutes)"
        "inference.n_params": 70.0,
        "inference.target_utilisation_fraction": 60.0,  # "Utilisation (% of paid GPU time serving)"
        "tokens_per_day": 100.0,  # "Tokens per day (millions)"
    }
    assert {row.path for row in INPUTS if row.scale != 1} == set(expected)
    assert {path: shown[wl(path)] for path in expected} == pytest.approx(expected)
    # a field the widget shows without a number of its own
    assert shown[wl("training.tensor_parallel_degree")] == 8 and shown[LAYOUT_KEY] == "auto"
    assert shown[wl("training.virtual_pipeline_stages")] == 0 and shown[wl("training.n_gpus_reserved")] == 0


def _edited() -> WorkloadSection:
    """Every input away from its default: manual layout, typed batch, spares, a custom model."""
    training = TrainingJob.model_validate(dict(
        DEFAULT.training.model_dump(exclude={"global_batch_tokens", "is_global_batch_default"}),
        model_name="custom", n_params=13.3e9, n_layers=None, d_model=None, kv_dim=None, training_tokens=333e9,
        n_gpus=32, is_fp8_ready=True, global_batch_tokens=4.5e6, sequence_length_tokens=8192, job_kind="pretraining",
        software_stack="megatron", tensor_parallel_degree=4, pipeline_parallel_degree=2, context_parallel_degree=2,
        virtual_pipeline_stages=3, recompute="full", is_tp_comm_overlapped=True, gradient_bytes_per_param=4.0,
        is_state_sharded=False, n_gpus_reserved=40))
    inference = DEFAULT.inference.model_copy(update=dict(
        model_name="custom", n_params=13.3e9, n_layers=40, n_kv_heads=4, head_dim=64, weight_bytes_per_param=1.0,
        is_fp8_ready=True, serving_stack="tensorrt_llm", kv_cache_bytes_per_element=1.0, prompt_tokens=333,
        output_tokens=77, batch_size=3, target_utilisation_fraction=0.375))
    return DEFAULT.model_copy(update=dict(
        preset="custom", training=training, inference=inference, missing_fabric="assume_default",
        price_type="spot", tokens_per_day=33.3e6, batch_auto=False, latency_target_s=2.5,
        failures_per_million_gpu_hours=7.7, restart_s=137.0, pue_ratio=1.23))


@pytest.mark.parametrize("mode", ["training", "inference"])
def test_every_input_survives_prefill_and_read_back(mode):
    section = WorkloadSection.model_validate(_edited().model_copy(update={"mode": mode}).model_dump())
    back = round_trip(section)
    differ = [(row.path, row.value_of(back), row.value_of(section)) for row in INPUTS
              if not _same(row.value_of(back), row.value_of(section))]
    assert differ == []
    assert back.training == section.training  # and the job as a whole (the other mode's is kept as it was)


def test_the_round_trip_sees_a_read_back_that_forgets_the_scale(monkeypatch):
    """The check above can fail: restart time read back in minutes, not seconds."""
    row = INPUT["restart_s"]
    forgetful = dataclasses.replace(row, read=lambda values: float(values[row.key]))
    monkeypatch.setattr(wi, "INPUTS", tuple(forgetful if r is row else r for r in INPUTS))
    assert round_trip(DEFAULT) != DEFAULT
    assert round_trip(DEFAULT).restart_s == pytest.approx(DEFAULT.restart_s / 60)


def test_the_read_back_follows_the_layout_and_batch_switches():
    """Degrees typed under the auto layout and a batch typed under the rule are not read back."""
    section = _edited()
    values = widget_values(section)
    assert values[LAYOUT_KEY] == "manual"
    values[LAYOUT_KEY] = "auto"
    values[wl("training.is_global_batch_default")] = True
    values[wl("training.n_gpus_reserved")] = 0
    job = section_from_widgets(values, section).training
    assert (job.tensor_parallel_degree, job.pipeline_parallel_degree, job.context_parallel_degree) == (None, None, 1)
    assert job.is_global_batch_default and job.global_batch_tokens != section.training.global_batch_tokens
    assert job.n_gpus_reserved is None


def _keys_on(at) -> tuple[set[str], set[str]]:
    """The Workload keys in the session state, and those of the widgets drawn."""
    state = {k for k in at.session_state._state.filtered_state if isinstance(k, str) and k.startswith("_wl")}
    kinds = (at.button, at.multiselect, at.number_input, at.segmented_control, at.selectbox, at.toggle)
    return state, {w.key for kind in kinds for w in kind if w.key and w.key.startswith("_wl")}


def test_every_key_on_the_running_page_is_a_table_key_or_a_named_one(catalog_path):
    """No stray key: each ``_wl`` key is a row's, a named one or an offer-scope widget's; each row has a widget."""
    at = open_page("app_pages/workload.py")
    state, drawn = _keys_on(at)
    at.segmented_control(key=wl("mode")).set_value("inference").run()
    assert not at.exception
    state_i, drawn_i = _keys_on(at)
    table = {row.key for row in INPUTS}
    named = {LAYOUT_KEY, wi.PUBLISHED_TOKENS_KEY}
    stray = {k for k in state | state_i | drawn | drawn_i if k not in table | named
             and not k.startswith(wi.SCOPE_KEY + "_")}
    assert stray == set()
    # every row's widget is drawn in one mode or the other; the typed batch only while the default rule is off
    assert table - drawn - drawn_i == {wl("training.global_batch_tokens")}
    assert table <= state | state_i  # the prefill gave every widget its value


def test_a_mixture_of_experts_keeps_its_total_parameters_in_inference():
    """The read-back of an inference service on a MoE preset keeps all experts' parameters and the hidden size
    (memory holds all 235 B of Qwen3-235B-A22B, compute uses the 22 B active): they have no widget of their own, and
    the read-back used to drop them, sizing memory for 22 B. A custom size drops them (not that preset's model)."""
    moe = InferenceService.from_preset("qwen3-235b-a22b", prompt_tokens=1000, output_tokens=200, batch_size=16)
    section = DEFAULT.model_copy(update={"mode": "inference", "preset": "qwen3-235b-a22b", "inference": moe})
    back = round_trip(section).inference
    assert back.n_params_total == 235e9 and back.d_model == moe.d_model and back.n_params == 22e9
    values = widget_values(section)
    values[wl("inference.n_params")] = 30.0  # billions: a custom model
    custom = section_from_widgets(values, section).inference
    assert custom.n_params == 30e9 and custom.n_params_total is None
