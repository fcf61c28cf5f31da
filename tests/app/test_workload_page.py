"""AppTest of the Workload cost page on the seed catalog: it ranks offers, FP8 readiness speeds up only GPUs
with an FP8 peak, invalid input gives a message (no traceback), inference runs, inputs survive a page change."""

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import open_page
from tests.app.synthetic import add_h100_price_outlier
from ui.scenario import widget_key
from ui.workload_inputs import LAYOUT_KEY
from ui.workload_view import pareto_front

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "app_pages/workload.py"


def wl(path: str) -> str:
    """Key of the Workload input holding ``path`` of the scenario's WorkloadSection."""
    return widget_key("wl", path)


@pytest.fixture
def at(catalog_path) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception
    return app


def ranking(app: AppTest):
    """The ranking table (the page's first dataframe), indexed by offer."""
    return app.dataframe[0].value.set_index("offer_id")


def test_workload_page_ranks_offers_on_first_load(at):
    assert not at.error
    table = ranking(at)
    assert len(table) >= 10
    assert table["cost_eur"].is_monotonic_increasing  # cheapest first
    assert (table["time"] > 0).all()
    verdict = next(m.value for m in at.markdown if m.value.startswith("**Cheapest:**"))
    assert "per job" in verdict and "left out" in verdict
    assert len(at.get("plotly_chart")) == 2  # scatter and breakdown
    # issue #17: layout, scaling efficiency and goodput per offer; all-in power stated
    assert table["layout"].str.startswith("TP ").all()
    assert ((table["efficiency_pct"] > 0) & (table["efficiency_pct"] <= 100)).all()
    assert ((table["goodput_pct"] > 0) & (table["goodput_pct"] <= 100)).all()
    assert any("all-in power" in m.value and "kW at the wall" in m.value for m in at.markdown)
    assert any("pipeline bubble" in c.value and "goodput" in c.value for c in at.caption)


def test_fp8_ready_changes_h100_costs_and_not_a100_costs(at):
    at.multiselect(key="_wl_scope_gpus").set_value([]).run()  # any GPU class: H100 and A100 side by side
    before = ranking(at)
    at.toggle(key=wl("training.is_fp8_ready")).set_value(True).run()
    assert not at.exception
    after = ranking(at).loc[before.index]
    h100 = before["gpu"].str.startswith("H100")
    a100 = before["gpu"].str.startswith("A100")
    assert h100.sum() >= 2 and a100.sum() >= 2
    assert (after.loc[h100, "cost_eur"] < before.loc[h100, "cost_eur"]).all()
    # FP8 shortens the compute part only: a communication-bound offer (e.g. Scaleway's H100-SXM-8 on a 20 Gbit/s
    # private network, issue #18 data) gains less than 10 %, a compute-bound one at least 10 %.
    compute_bound = h100 & (before["bound"] == "compute")
    assert compute_bound.sum() >= 2
    assert (after.loc[compute_bound, "cost_eur"] < before.loc[compute_bound, "cost_eur"] * 0.9).all()
    assert after.loc[h100, "uses_fp8"].all()
    np.testing.assert_allclose(after.loc[a100, "cost_eur"], before.loc[a100, "cost_eur"])
    assert not after.loc[a100, "uses_fp8"].any()


def test_invalid_input_shows_a_message_not_a_traceback(at):
    at.segmented_control(key=LAYOUT_KEY).set_value("manual").run()
    at.number_input(key=wl("training.tensor_parallel_degree")).set_value(3).run()  # 64 GPUs are not a multiple of 3
    assert not at.exception
    assert any("**GPUs** must be a multiple of the **tensor-parallel" in e.value for e in at.error)
    assert not at.dataframe  # nothing priced from an invalid input
    at.number_input(key=wl("training.tensor_parallel_degree")).set_value(8)
    at.number_input(key=wl("training.training_tokens")).set_value(2e7).run()  # 2e16 tokens > 1e16
    assert not at.exception
    assert any("**Training tokens** must be at most 10,000,000 billion" in e.value for e in at.error)
    at.number_input(key=wl("training.training_tokens")).set_value(100.0).run()
    assert not at.error and len(ranking(at)) >= 10


def test_assume_default_policy_prices_more_offers_and_lists_the_defaults(at):
    excluded = len(ranking(at))
    at.segmented_control(key=wl("missing_fabric")).set_value("assume_default").run()
    assert not at.exception
    table = ranking(at)
    assert len(table) > excluded
    assert (table["defaults_used"] != "—").any()
    left_out = at.dataframe[1].value
    assert {"left out", "priced with defaults"} <= set(left_out["status"])
    assert left_out["reason"].str.len().gt(0).all()


def test_inference_mode_ranks_by_cost_per_million_tokens(at):
    at.segmented_control(key=wl("mode")).set_value("inference").run()
    assert not at.exception and not at.error
    table = ranking(at)
    assert len(table) >= 10
    meets = table[table["meets_latency_target"]]
    assert meets["cost_eur"].is_monotonic_increasing
    assert (table["gpus_needed"] >= table["tensor_parallel_degree"]).all()
    assert any("per million tokens" in m.value for m in at.markdown)
    at.toggle(key=wl("batch_auto")).set_value(False).run()  # the typed batch size on every offer
    at.number_input(key=wl("inference.batch_size")).set_value(1).run()
    assert not at.exception
    assert (ranking(at)["request_latency_s"].min() < table["request_latency_s"].min())


def test_the_batch_search_is_never_dearer_than_the_typed_batch_within_the_latency_target(at):
    """#26 serving: an operator raises the concurrency cap while requests meet the latency target. With the search
    on (default), each offer's cost per million tokens is at most its cost at the typed batch (16, one of the caps
    tried) wherever that batch meets the target, and every offer reported as meeting the target does."""
    at.segmented_control(key=wl("mode")).set_value("inference").run()
    # a target that the typed batch meets on many offers, so the search has room above it
    at.number_input(key=wl("latency_target_s")).set_value(30.0).run()
    assert at.session_state["scenario"].workload.batch_auto
    searched = ranking(at)
    at.toggle(key=wl("batch_auto")).set_value(False).run()
    assert not at.exception and not at.session_state["scenario"].workload.batch_auto
    typed = ranking(at)
    target = at.session_state["scenario"].workload.latency_target_s
    both = typed.index[typed["meets_latency_target"].astype(bool)].intersection(searched.index)
    assert len(both) > 0
    assert (searched.loc[both, "cost_eur"] <= typed.loc[both, "cost_eur"] * (1 + 1e-9)).all()
    assert (searched.loc[both, "cost_eur"] < typed.loc[both, "cost_eur"] * 0.99).any()  # the search buys something
    ok = searched[searched["meets_latency_target"].astype(bool)]
    assert (ok["request_latency_s"] <= target).all() and (ok["concurrency"] >= 1).all()
    assert (typed["concurrency"] <= 16).all() and (searched["concurrency"] > 16).any()


def test_preset_fills_the_model_and_inputs_survive_a_page_change(at):
    at.selectbox(key=wl("preset")).set_value("llama-3-8b").run()
    assert at.number_input(key=wl("training.n_params")).value == pytest.approx(8.0)
    at.number_input(key=wl("training.n_gpus")).set_value(16).run()
    at.switch_page("app_pages/providers.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.number_input(key=wl("training.n_gpus")).value == 16
    assert at.number_input(key=wl("training.n_params")).value == pytest.approx(8.0)
    assert at.session_state["scenario"].workload.training.model_name == "llama-3-8b"


def test_usd_display_converts_job_costs(at):
    from ui.scenario import DisplaySettings

    # Same rate both times: the rate also converts USD-listed catalog prices to EUR.
    def costs(currency: str):
        display = DisplaySettings(currency=currency, usd_per_eur=1.2)
        at.session_state["scenario"] = at.session_state["scenario"].model_copy(update={"display": display})
        at.run()
        assert not at.exception
        return ranking(at)["cost_eur"]

    eur, usd = costs("EUR"), costs("USD")
    np.testing.assert_allclose(usd.loc[eur.index], eur * 1.2, rtol=1e-9)
    assert any("$" in m.value and "per job" in m.value for m in at.markdown)


def test_pareto_front_keeps_ties_and_drops_dominated_points():
    time = np.array([1.0, 2.0, 2.0, 3.0, 1.0, np.nan, 0.5])
    cost = np.array([5.0, 3.0, 4.0, 3.0, 5.0, 1.0, 9.0])
    assert pareto_front(time, cost).tolist() == [True, True, False, False, True, False, True]


def test_one_and_three_year_commitment_prices_rank_only_offers_with_that_term(at, catalog_path):
    import datetime as dt

    from catalog.store import CatalogStore, OfferFilter
    from engine.money import DEFAULT_USD_PER_EUR

    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    prices = frame.set_index("offer_id")
    on_demand = ranking(at)
    # Every 3-year price in the seed catalog is stale or on an offer without a stated fabric: left out unless the
    # user opts in with "Use price outliers" (issue #29.4; test_a_multi_year_price_on_a_stale_offer_is_left_out).
    at.toggle(key="_wl_scope_outliers").set_value(True).run()
    for choice, column in (("reserved-1y", "reserved_1y_eur_per_gpu_hour"), ("reserved-3y", "reserved_3y_eur_per_gpu_hour")):
        at.selectbox(key=wl("price_type")).set_value(choice).run()
        assert not at.exception
        table = ranking(at)
        assert len(table) > 0 and prices.loc[table.index, column].notna().all()
        np.testing.assert_allclose(table["price_eur_per_gpu_hour"], prices.loc[table.index, column])
        # A commitment is cheaper than the same offer on demand wherever both are priced.
        both = table.index.intersection(on_demand.index)
        assert len(both) and (table.loc[both, "cost_eur"] < on_demand.loc[both, "cost_eur"]).all()
    assert at.session_state["scenario"].workload.price_type == "reserved-3y"


def test_a_multi_year_price_on_a_stale_or_unstated_offer_is_left_out_unless_opted_in(at):
    """Issue 29 item 4: no multi-year commitment on a stale or unstated offer by default (the outlier opt-in)."""
    at.selectbox(key=wl("price_type")).set_value("reserved-3y").run()
    assert not at.exception
    reasons = " ".join(" ".join(map(str, d.value["reason"])) for d in at.dataframe if "reason" in d.value.columns)
    assert "no multi-year commitment on an offer with a stale price" in reasons
    ranked = [d.value for d in at.dataframe if "cost_eur" in d.value.columns and "offer_id" in d.value.columns]
    before = len(ranked[0]) if ranked else 0
    at.toggle(key="_wl_scope_outliers").set_value(True).run()
    assert len(ranking(at)) > before


def test_manual_layout_applies_to_every_offer_and_changes_the_scaling_loss(at):
    auto = ranking(at)
    at.segmented_control(key=LAYOUT_KEY).set_value("manual").run()
    at.number_input(key=wl("training.tensor_parallel_degree")).set_value(8)
    at.number_input(key=wl("training.pipeline_parallel_degree")).set_value(2).run()  # 16 GPUs (the client brief) = TP 8 x PP 2 x DP 1
    assert not at.exception and not at.error
    manual = ranking(at)
    assert manual["layout"].str.startswith("TP 8 · PP 2").all() and manual["layout"].str.contains("· DP 1 ·").all()
    both = manual.index.intersection(auto.index)
    assert len(both) >= 5 and not np.allclose(manual.loc[both, "time"], auto.loc[both, "time"])
    assert at.session_state["scenario"].workload.training.pipeline_parallel_degree == 2


def test_failure_rate_and_pue_inputs_move_goodput_and_energy(at):
    before = ranking(at)
    at.number_input(key=wl("failures_per_million_gpu_hours")).set_value(500.0).run()
    at.number_input(key=wl("pue_ratio")).set_value(1.1).run()
    assert not at.exception and not at.error
    after = ranking(at).loc[before.index]
    assert (after["goodput_pct"] < before["goodput_pct"]).all()
    assert (after["time"] > before["time"]).all()
    # energy per GPU-hour falls with the PUE (1.1 / 1.56) even though the job takes longer
    ratio = (after["energy_kwh"] / after["gpu_hours"]) / (before["energy_kwh"] / before["gpu_hours"])
    np.testing.assert_allclose(ratio, 1.1 / 1.56, rtol=1e-9)


# ---------------------------------------------------------------------------------------------------
# Issue 14, item 5: the client's residency rules; item 4: outliers; item 7: stale warning, labels
# ---------------------------------------------------------------------------------------------------


def _catalog(catalog_path):
    import datetime as dt

    import pandas as pd

    from catalog.store import CatalogStore, OfferFilter
    from engine.adapters import price_outlier_columns
    from engine.money import DEFAULT_USD_PER_EUR

    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    return pd.concat([frame, price_outlier_columns(frame)], axis=1).set_index("offer_id")


def _verdict(app: AppTest) -> str:
    return next(m.value for m in app.markdown if m.value.startswith("**Cheapest"))


def test_first_load_ranks_only_eu_data_centres_for_the_eu_client(at, catalog_path):
    """Default client: a German company that needs an EU/EEA data centre. The #1 was in us-east-1."""
    catalog = _catalog(catalog_path)
    table = ranking(at)
    assert len(table) > 0
    assert catalog.loc[table.index, "is_eu_datacenter"].fillna(False).astype(bool).all()
    assert at.toggle(key="_wl_scope_res_eu_resident_only").value
    left = at.dataframe[1].value
    outside = left[left["reason"].str.startswith("EU data centre: ")]
    assert len(outside) > 0  # the rest are listed with the reason, never dropped silently
    assert "EU/EEA data centre only" in _verdict(at)


def test_the_same_residency_rules_as_scoring_narrow_the_ranking(at, catalog_path):
    from engine.scoring import EU_EEA_COUNTRY_CODES

    catalog = _catalog(catalog_path)
    at.segmented_control(key=wl("mode")).set_value("inference").run()  # one node: most EU offers can be priced
    at.toggle(key="_wl_scope_res_eu_resident_only").set_value(False).run()
    everything = ranking(at)
    assert not catalog.loc[everything.index, "is_eu_datacenter"].fillna(False).astype(bool).all()
    at.toggle(key="_wl_scope_res_eu_jurisdiction_only").set_value(True)
    at.toggle(key="_wl_scope_res_eu_legal_seat_only").set_value(True).run()
    assert not at.exception
    table = ranking(at)
    assert 0 < len(table) < len(everything)
    rows = catalog.loc[table.index]
    assert (rows["parent_jurisdiction"] == "EU").all() and rows["legal_seat_country"].isin(EU_EEA_COUNTRY_CODES).all()
    residency = at.session_state["scenario"].workload.residency
    assert residency.eu_jurisdiction_only and residency.eu_legal_seat_only and not residency.eu_resident_only


def test_a_price_outlier_never_becomes_the_cheapest_unless_included(catalog_path):
    """Inference anywhere: the RunPod Community MI300X at about EUR 0.48/GPU-h gave 'EUR 0.53 per million tokens'.
    Here a synthetic EU H100 at EUR 0.25/GPU-h (with whatever the seed flags) must not headline unless used."""
    offer_id = add_h100_price_outlier(catalog_path)
    at = open_page(PAGE)
    catalog = _catalog(catalog_path)
    flagged = set(catalog.index[catalog["on_demand_is_outlier"]])
    assert offer_id in flagged
    at.segmented_control(key=wl("mode")).set_value("inference").run()
    at.toggle(key="_wl_scope_res_eu_resident_only").set_value(False).run()
    assert not at.exception
    assert not flagged & set(ranking(at).index)
    left = at.dataframe[1].value
    assert left["reason"].str.contains("price outlier: ").sum() == len(flagged)
    assert "price outlier" in _verdict(at)  # the count of flagged rows left out is stated
    at.toggle(key="_wl_scope_outliers").set_value(True).run()
    assert not at.exception
    with_outliers = ranking(at)
    assert offer_id in with_outliers.index
    assert with_outliers.loc[list(flagged & set(with_outliers.index)), "flags"].str.contains("price outlier").all()


def test_offers_differing_in_node_size_read_differently(at):
    table = ranking(at)
    assert "gpus_per_node" in table.columns
    labels = list(at.selectbox(key="wl_offer_training").options)
    assert len(labels) == len(set(labels)) == len(table)


def test_a_stale_headline_price_is_warned_about(at, catalog_path):
    catalog = _catalog(catalog_path)
    table = ranking(at)
    cheapest, fastest = table.index[0], table["time"].idxmin()
    from tests.app.staleness import stale_by_hand

    by_hand = stale_by_hand(catalog)
    assert ("⚠ **Stale price:**" in _verdict(at)) == bool(by_hand[cheapest] or by_hand[fastest])
    assert (table["flags"].str.contains("stale price") == by_hand.loc[table.index].to_numpy()).all()


def test_a_flagged_price_is_not_the_cheapest_job_unless_included(catalog_path):
    """The issue's case: the RunPod Community MI300X (about EUR 0.48/GPU-h) was 'Cheapest: ... per job'. A synthetic
    EU H100 at EUR 0.25/GPU-h stands in for it (the seed's own row may be corrected)."""
    offer_id = add_h100_price_outlier(catalog_path)
    at = open_page(PAGE)
    catalog = _catalog(catalog_path)
    flagged = set(catalog.index[catalog["on_demand_is_outlier"]])
    at.segmented_control(key=wl("missing_fabric")).set_value("assume_default").run()
    assert not at.exception
    table = ranking(at)
    assert not flagged & set(table.index)
    assert "Price outlier used" not in _verdict(at)
    at.toggle(key="_wl_scope_outliers").set_value(True).run()
    with_outliers = ranking(at)
    assert with_outliers.index[0] == offer_id  # once used, it is the cheapest job, and the headline says so
    assert "⚠ **Price outlier used:** Scaleway H100 SXM · 8 GPUs · test-region-de" in _verdict(at)
    assert at.session_state["scenario"].workload.scope.include_price_outliers


def test_front_labels_near_the_right_edge_sit_left_of_their_marker():
    # The slowest Pareto offer's label ran off the plot's right edge ("Sca…" in the screenshot).
    import pandas as pd

    from ui.scenario import DisplaySettings
    from ui.workload_charts import time_cost_scatter

    points = pd.DataFrame({
        "x": [14.0, 18.0, 20.0, 25.0], "y": [65e3, 90e3, 80e3, 30e3], "is_front": [True, False, False, True],
        "assumed_default": [False] * 4, "defaults_used": [""] * 4, "label": list("abcd"),
        "offer_id": ["azure", "o1", "o2", "scaleway"],
        "provider_name": ["Microsoft Azure (Cloud)", "x", "y", "Scaleway"], "gpu": ["H200 SXM", "", "", "H100 SXM"]})
    fig = time_cost_scatter(points, "days", "cost", DisplaySettings())
    front = next(t for t in fig.data if t.name.startswith("Pareto"))
    assert [p.split()[1] for p in front.textposition] == ["right", "left"]
    assert front.text[0].endswith("Microsoft Azure H200 SXM") and front.text[1].startswith("Scaleway H100 SXM")


def test_job_kind_and_stack_change_the_job_and_the_layout_and_runner_up_are_shown(at):
    """#26: LoRA on a frozen base costs ~4N FLOPs per token against 6N, so the same job is faster on every offer; the
    Megatron stack's FP8 utilisation beats the generic one; each offer shows its fastest layout and the runner-up."""
    full = ranking(at)
    assert full["runner_up"].str.contains("step time").any()
    assert any("Runner-up:" in c.value for c in at.caption)
    at.selectbox(key=wl("training.job_kind")).set_value("lora").run()
    assert not at.exception and not at.error
    lora = ranking(at)
    common = full.index.intersection(lora.index)
    assert len(common) >= 5
    assert (lora.loc[common, "time"] < full.loc[common, "time"]).all()
    assert any("LoRA fine-tune on" in m.value for m in at.markdown)
    at.toggle(key=wl("training.is_fp8_ready")).set_value(True).run()
    generic = ranking(at)
    at.selectbox(key=wl("training.software_stack")).set_value("megatron").run()
    megatron = ranking(at).loc[generic.index]
    h100 = generic["gpu"].str.startswith("H100")
    assert h100.sum() >= 2
    assert (megatron.loc[h100, "time"] < generic.loc[h100, "time"]).all()
    assert any("Megatron-LM / NeMo" in m.value for m in at.markdown)


def test_serving_stack_and_kv_precision_change_the_cost_per_million_tokens(at):
    """#26: vLLM pays a fixed time per layer and step that TensorRT-LLM does not; an FP8 KV cache fits more
    sequences, so cost per million tokens falls."""
    at.segmented_control(key=wl("mode")).set_value("inference").run()
    at.toggle(key=wl("batch_auto")).set_value(False).run()  # fixed batches: the effect of the stack alone
    at.number_input(key=wl("inference.batch_size")).set_value(1).run()
    vllm = ranking(at)
    at.selectbox(key=wl("inference.serving_stack")).set_value("tensorrt_llm").run()
    assert not at.exception and not at.error
    trt = ranking(at).loc[vllm.index]
    assert (trt["request_latency_s"] < vllm["request_latency_s"]).all()
    assert any("TensorRT-LLM: memory bandwidth at 67% of peak" in m.value for m in at.markdown)
    at.number_input(key=wl("inference.batch_size")).set_value(256).run()
    bf16_kv = ranking(at)
    at.selectbox(key=wl("inference.kv_cache_bytes_per_element")).set_value(1.0).run()
    fp8_kv = ranking(at).loc[bf16_kv.index]
    assert (fp8_kv["cost_eur"] <= bf16_kv["cost_eur"] + 1e-9).all() and (fp8_kv["cost_eur"] < bf16_kv["cost_eur"]).any()


def test_the_default_batch_rule_follows_the_job_kind_and_can_be_replaced_by_a_typed_batch(at):
    """Issue #26: the global batch follows the rule when the job kind changes (it used to keep the old value)."""
    from engine.workload.inputs import default_global_batch_tokens

    def stated_batch_m() -> float:
        line = next(m.value for m in at.markdown if "global batch" in m.value and "M tokens" in m.value)
        return float(line.split("global batch ")[1].split("M tokens")[0])

    at.toggle(key=wl("training.is_global_batch_default")).set_value(True).run()
    at.selectbox(key=wl("training.job_kind")).set_value("pretraining").run()
    ss = at.session_state
    rule = default_global_batch_tokens("pretraining", ss[wl("training.n_params")] * 1e9, ss[wl("training.training_tokens")] * 1e9,
                                       int(ss[wl("training.sequence_length_tokens")]), int(ss[wl("training.n_gpus")])) / 1e6
    assert stated_batch_m() == pytest.approx(rule, abs=0.006)
    at.selectbox(key=wl("training.job_kind")).set_value("lora").run()
    assert not at.exception
    assert stated_batch_m() == pytest.approx(32 * int(ss[wl("training.sequence_length_tokens")]) / 1e6, abs=0.006)  # 32 sequences
    assert stated_batch_m() != pytest.approx(rule, abs=0.006)
    at.toggle(key=wl("training.is_global_batch_default")).set_value(False).run()
    assert at.number_input(key=wl("training.global_batch_tokens")).value == pytest.approx(32 * int(ss[wl("training.sequence_length_tokens")]) / 1e6, abs=0.001)
    at.number_input(key=wl("training.global_batch_tokens")).set_value(4.0).run()
    at.selectbox(key=wl("training.job_kind")).set_value("pretraining").run()
    assert stated_batch_m() == pytest.approx(4.0)  # a typed batch stays typed
