"""Display of the Workload cost page (kept here so the page stays thin): the verdict, the headline numbers, the
ranking, the offers left out (and why), the Pareto front of time versus cost, the time breakdown and the assumptions
with their sources. Amounts arrive in EUR (:mod:`ui.workload_pricing`) and are converted to the display currency
at the last step (:mod:`ui.format`). The inputs are :mod:`ui.workload_inputs`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import streamlit as st

from catalog.store import STALE_AFTER_DAYS
from engine import power
from engine.workload import (
    EMISSIONS_NOT_COMPUTED,
)
from engine.workload.serving_stacks import SERVING_STACK_SPECS
from engine.workload.stacks import TRAINING_STACK_SPECS
from engine.workload.training import stack_utilisation
from ui import offer_scope
from ui.format import SYMBOL, eur_columns_to_display, money, money_column, plain
from ui.labels import FABRIC_POLICY_LABELS, JOB_KIND_LABELS
from ui.scenario import DisplaySettings, WorkloadSection
from ui.workload_pricing import Priced, assumptions_for


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """True where no other point is at least as low in both ``x`` and ``y`` and lower in one (both minimised).

    Points with a NaN are never on the front; identical points share their status. O(n log n).

    Examples
    --------
    >>> pareto_front(np.array([1.0, 2.0, 2.0, 3.0, 1.0]), np.array([5.0, 3.0, 4.0, 3.0, 5.0])).tolist()
    [True, True, False, False, True]
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    out = np.zeros(x.shape, dtype=bool)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.any():
        pts, inverse = np.unique(np.column_stack([x[ok], y[ok]]), axis=0, return_inverse=True)  # sorted by x, then y
        best_before = np.minimum.accumulate(np.concatenate([[np.inf], pts[:-1, 1]]))
        out[ok] = (pts[:, 1] < best_before)[inverse.ravel()]
    return out


def _duration(hours: float) -> str:
    return f"{hours:,.1f} hours" if hours < 48 else f"{hours / 24:,.1f} days"


def _name(row: pd.Series) -> str:
    return f"{row['provider_name']} {row['gpu']} · {row['gpus_per_node']} · {row['region']}"


def _stale_note(rows: pd.DataFrame) -> str:
    """A warning when a headline rests on a stale price ('' when none does)."""
    stale = rows[rows["price_is_stale"].astype(bool)].drop_duplicates("offer_id")
    if stale.empty:
        return ""
    names = " and ".join(f"{_name(r)} (price of {r['price_date']})" for _, r in stale.iterrows())
    return (f"\n\n⚠ **Stale price:** {names}: retrieved more than {STALE_AFTER_DAYS} days ago; check the source "
            "before relying on it.")


def _outlier_note(rows: pd.DataFrame) -> str:
    """A warning when a headline rests on a flagged price outlier the user chose to use ('' when none does)."""
    flagged = rows[rows["flags"].str.contains("price outlier")].drop_duplicates("offer_id")
    if flagged.empty:
        return ""
    names = " and ".join(_name(r) for _, r in flagged.iterrows())
    return (f"\n\n⚠ **Price outlier used:** {names}: far below (or above) every other price of this GPU model "
            "(see its reason under Providers); it is used because you switched *Use price outliers* on.")


def _left_out_counts(priced: Priced) -> str:
    left = priced.left_out["reason"].astype(str)
    n_outlier = int(left.str.contains("price outlier").sum())
    n_scope = int(left.str.contains(_SCOPE_PATTERN).sum()) - n_outlier
    parts = [f"{n_scope} outside the client's requirements" if n_scope > 0 else "",
             f"{n_outlier} price outlier{'s' * (n_outlier != 1)} (not used unless you include outliers)" if n_outlier
             else ""]
    parts = [p for p in parts if p]
    return f" ({', '.join(parts)})" if parts else ""


#: Reasons engine.scoring.apply_constraints gives (the client's requirements and price outliers).
_SCOPE_PATTERN = r"^(?:EU data centre|parent jurisdiction|legal seat|certifications|GPU class|GPU model|memory|price outlier)"


def verdict(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> str:
    """The answer in plain language, in the display currency."""
    ranked, n = priced.ranked, len(priced.offers)
    counts = (f"{len(ranked)} of {n} offers priced at their {section.price_type} price"
              f"{f' ({int(ranked.assumed_default.sum())} with stated defaults)' if ranked.assumed_default.any() else ''}; "
              f"{n - len(ranked)} left out{_left_out_counts(priced)}, each with its reason below. "
              f"Offers: {offer_scope.scope_summary(section.scope, section.residency)}.")
    if ranked.empty:
        top = priced.left_out["reason"].value_counts().head(2)
        return ("**No offer can run this workload as specified.** Most common reasons: "
                + "; ".join(f"{plain(r)} ({c} offers)" for r, c in top.items()) + f".\n\n{counts}")
    fastest_by = "time_hours" if priced.mode == "training" else "request_latency_s"
    cheap, fast = ranked.iloc[0], ranked.loc[ranked[fastest_by].idxmin()]  # type: ignore[call-overload]  # a label
    if priced.mode == "training":
        text = f"**Cheapest:** {_name(cheap)} at **{money(cheap.cost_eur, display, 0)} per job**, {_duration(cheap.time_hours)}. "
        text += ("It is also the fastest." if fast.offer_id == cheap.offer_id else
                 f"**Fastest:** {_name(fast)}: **{_duration(fast.time_hours)}**, {money(fast.cost_eur, display, 0)} per job.")
        return f"{text}{_stale_note(pd.DataFrame([cheap, fast]))}{_outlier_note(pd.DataFrame([cheap, fast]))}\n\n{counts}"
    target = section.latency_target_s
    if cheap.meets_latency_target:
        text = (f"**Cheapest within the {target:g} s latency target:** {_name(cheap)} at **{money(cheap.cost_eur, display)} "
                f"per million tokens** ({cheap.request_latency_s:.1f} s per request, {cheap.tensor_parallel_degree:.0f} "
                f"GPU{'s' if cheap.tensor_parallel_degree > 1 else ''} per replica, {cheap.concurrency:.0f} "
                f"sequence{'s' if cheap.concurrency != 1 else ''} in flight{batch_note(section)}). {section.tokens_per_day / 1e6:,.0f}M tokens a day take "
                f"{cheap.gpus_needed:,.0f} GPUs: **{money(cheap.cost_eur_per_day, display, 0)} per day**, "
                f"**{money(cheap.cost_eur_per_million_tokens_at_volume, display)} per million tokens at your volume** "
                f"(paid GPU-hours ÷ tokens served; {money(cheap.cost_eur, display)} at {load_text(section)}). ")
    else:
        at = "at any batch of 1 to 256" if section.batch_auto else f"at batch {section.inference.batch_size}"
        fix = "raise the target or shorten the requests" if section.batch_auto else "lower the batch size or raise the target"
        text = (f"**No offer meets the {target:g} s latency target {at}:** {fix}. Cheapest anyway: {_name(cheap)} at {money(cheap.cost_eur, display)} "
                f"per million tokens. ")
    text += f"**Lowest latency:** {_name(fast)}, {fast.request_latency_s:.1f} s at {money(fast.cost_eur, display)} per million tokens."
    return f"{text}{_stale_note(pd.DataFrame([cheap, fast]))}{_outlier_note(pd.DataFrame([cheap, fast]))}\n\n{counts}"


def batch_note(section: WorkloadSection) -> str:
    """How the concurrency cap was set, for the verdict."""
    return (": the cheapest cap within the latency target" if section.batch_auto
            else f": your batch size {section.inference.batch_size}")


def key_assumptions(section: WorkloadSection, display: DisplaySettings) -> str:
    a = assumptions_for(section)
    wall_kw = float(power.facility_power_kw_per_gpu(700.0, 1.0, a.power_model()))
    t = section.training
    spec = TRAINING_STACK_SPECS[t.software_stack]
    serving = SERVING_STACK_SPECS[section.inference.serving_stack]
    u_bf16, u_fp8 = stack_utilisation(t, a)
    layout = ("per offer, the fastest layout that fits its memory (searched)" if t.tensor_parallel_degree is None else
              f"TP {t.tensor_parallel_degree} · CP {t.context_parallel_degree} · PP {t.pipeline_parallel_degree} · "
              f"DP {t.fixed_data_parallel_degree}")
    v_text = "searched" if t.virtual_pipeline_stages is None else f"{t.virtual_pipeline_stages}"
    lines = ([f"{JOB_KIND_LABELS[t.job_kind]} on {spec.label}; layout: {layout}; interleaved stages per GPU: {v_text}",
              f"global batch {t.global_batch_tokens / 1e6:.2f}M tokens"
              + (" (default rule: DeepSeek LLM batch law for pre-training, 32 sequences for fine-tuning)"
                 if t.is_global_batch_default else ""),
              f"while computing, {u_bf16:.0%} of the BF16 peak ({u_fp8:.0%} of FP8) with {spec.label} "
              f"({spec.calibrated_on}); bubbles and exposed communication on top",
              f"DP gradient reduction hidden up to {a.overlap_fraction:.0%}, only behind the last micro-batch; "
              f"TP {'overlap ' + format(a.tp_overlap_fraction, '.0%') if t.is_tp_comm_overlapped else 'not overlapped'}",
              f"{section.failures_per_million_gpu_hours:g} failures per million GPU-hours, {section.restart_s / 60:g} min "
              "restarts, Daly-optimal checkpoints"]
             if section.mode == "training" else
             [(f"{serving.label}: memory bandwidth at {serving.bandwidth_fraction:.0%} of peak for every precision, "
               f"{serving.overhead_s_per_layer * 1e6:.0f} µs fixed per layer and decode step ({serving.calibrated_on}); "
               f"compute at {a.inference_mfu_fraction:.0%} of peak"
               if serving.bandwidth_fraction is not None else
               f"compute at {a.inference_mfu_fraction:.0%} of peak, memory bandwidth at {a.inference_mbu_fraction:.0%} "
               f"(16-bit weights) / {a.inference_mbu_fp8_fraction:.0%} (8-bit)"),
              f"KV cache in {section.inference.kv_cache_bytes_per_element:g} B per element",
              f"{a.inference_memory_usable_fraction:.0%} of GPU memory for weights + KV cache; tensor parallel up to "
              f"{a.max_tensor_parallel_degree} GPUs; continuous batching",
              f"GPUs busy {section.inference.target_utilisation_fraction:.0%} of paid time"])
    lines += [f"all-in power: GPU TDP + {a.server_non_gpu_fraction_of_tdp:.0%} server share, drawing on average "
              f"{power.AVERAGE_DRAW_FRACTION_OF_RATED:.0%} of that rating, x PUE {a.pue_ratio:g} "
              f"(an H100: {wall_kw:.2f} kW at the wall); grid intensity by country (2021)",
              f"missing fabric data: **{FABRIC_POLICY_LABELS[section.missing_fabric].lower()}**",
              f"{section.price_type} prices, {display.currency} at {display.usd_per_eur:.4f} USD/EUR"]
    return "**Assumptions**\n" + "\n".join(f"- {line}" for line in lines)


def _time_unit(hours: pd.Series) -> tuple[str, float]:
    return ("hours", 1.0) if hours.median() < 48 else ("days", 24.0)


def ranking_table(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """The ranked offers for ``st.dataframe`` (costs in the display currency) and the column configuration."""
    sym = SYMBOL[display.currency]
    eur_cols = ["cost_eur", "price_eur_per_gpu_hour"] + (
        ["cost_eur_per_day", "cost_eur_per_million_tokens_at_volume"] if priced.mode == "inference" else [])
    out = eur_columns_to_display(priced.ranked, eur_cols, display)
    out["defaults_used"] = out["defaults_used"].replace("", "—")
    common = {
        "provider_name": st.column_config.TextColumn("Provider", pinned=True),
        "gpu": st.column_config.TextColumn("GPU", pinned=True),
        "form_factor": st.column_config.TextColumn("Form"),
        "gpus_per_node": st.column_config.TextColumn("GPUs/node"),
        "region": st.column_config.TextColumn("Region"),
    }
    tail = {
        "flags": st.column_config.TextColumn("Flags", help="⚠ price outlier (used only when you include outliers) · "
                                             f"⚠ stale price: retrieved more than {STALE_AFTER_DAYS} days ago"),
        "bound": st.column_config.TextColumn("Bound by", help="What limits the speed: compute, memory bandwidth or communication"),
        "price_eur_per_gpu_hour": money_column("Per GPU-hour", display, f"{section.price_type} price used"),
        "defaults_used": st.column_config.TextColumn("Stated defaults used", help="Catalog values this offer lacks, "
                                                     "replaced by the defaults listed under Assumptions"),
        "source_url": st.column_config.LinkColumn("Source", display_text="source ↗"),
        "offer_id": None,
    }
    if priced.mode == "training":
        unit, div = _time_unit(priced.ranked["time_hours"])
        out["time"] = out["time_hours"] / div
        middle = {
            "cost_eur": st.column_config.NumberColumn("Cost per job", format=f"{sym}%,.0f", help="GPU-hours x price per GPU-hour"),
            "time": st.column_config.NumberColumn(f"Time ({unit})", format="%.1f", help="Wall-clock time of the job"),
            "gpu_hours": st.column_config.NumberColumn("GPU-hours", format="%,.0f"),
            "layout": st.column_config.TextColumn("Layout", help="Tensor x context x pipeline x data parallel degrees, "
                                                  "interleaving, sharding and recomputation (auto: the fastest that "
                                                  "fits this GPU's memory)"),
            "runner_up": st.column_config.TextColumn("Runner-up layout", help="The second fastest layout that fits, how "
                                                     "much slower its step is and where its time goes"),
            "efficiency_pct": st.column_config.NumberColumn(
                "Scaling eff.", format="%.0f%%", help="Share of a step spent computing: the rest is pipeline bubble "
                "and communication that could not be hidden"),
            "goodput_pct": st.column_config.NumberColumn(
                "Goodput", format="%.1f%%", help="Share of wall-clock time that advances training: failures, "
                "checkpoints and restarts take the rest (Young/Daly)"),
            "mfu_pct": st.column_config.NumberColumn("MFU", format="%.0f%%",
                                                     help="Model FLOPs / (peak x step time), failures excluded"),
            "energy_kwh": st.column_config.NumberColumn("Energy (kWh)", format="%,.0f",
                                                        help="All-in: GPU at load + server's non-GPU share, x PUE"),
            "emissions_kg": st.column_config.NumberColumn("Emissions (kg CO2e)", format="%,.0f",
                                                          help=f"not stated: {EMISSIONS_NOT_COMPUTED} (data-centre country not stated)"),
            "uses_fp8": st.column_config.CheckboxColumn("FP8", help="Trained at the FP8 peak (FP8-ready and the GPU has one)"),
        }
    else:
        middle = {
            "cost_eur": money_column(f"Per M tokens, {load_text(section)}", display,
                                     "Cost per million generated tokens, GPUs busy as set above (utilisation)"),
            "cost_eur_per_million_tokens_at_volume": money_column(
                "Per M tokens, your volume", display, "Paid GPU-hours ÷ tokens served at your tokens per day"),
            "cost_eur_per_day": st.column_config.NumberColumn("Per day", format=f"{sym}%,.0f",
                                                              help="Whole replicas for the tokens per day, 24 h each"),
            "gpus_needed": st.column_config.NumberColumn("GPUs", format="%d", help="Whole replicas x GPUs per replica"),
            "request_latency_s": st.column_config.NumberColumn("Latency (s)", format="%.2f", help="First token + all output tokens"),
            "meets_latency_target": st.column_config.CheckboxColumn(f"≤ {section.latency_target_s:g} s"),
            "tokens_per_s_per_gpu": st.column_config.NumberColumn("Tokens/s per GPU", format="%,.0f"),
            "tensor_parallel_degree": st.column_config.NumberColumn("GPUs per replica", format="%d"),
            "concurrency": st.column_config.NumberColumn(
                "Sequences in flight", format="%d", help="Per replica: the cheapest cap within the latency target "
                "(batch search on) or your batch size, lowered where the KV cache holds fewer"),
            "gpu_hours": st.column_config.NumberColumn("GPU-h per M tokens", format="%.2f"),
            "energy_kwh": st.column_config.NumberColumn("kWh per M tokens", format="%.2f",
                                                        help="All-in: GPU + server's non-GPU share, x PUE"),
            "emissions_kg": st.column_config.NumberColumn("kg CO2e per M tokens", format="%.2f",
                                                          help=f"not stated: {EMISSIONS_NOT_COMPUTED}"),
        }
    config = {**common, **middle, **tail}
    return out[list(config)], config


def left_out_table(priced: Priced) -> tuple[pd.DataFrame, dict]:
    """Offers not ranked and offers ranked with stated defaults, with the reason."""
    cols = ["provider_name", "gpu", "gpus_per_node", "region", "reason", "source_url"]  # only what is shown (#31)
    left = priced.left_out[cols].assign(status="left out")
    ranked = priced.ranked
    assumed = ranked.loc[ranked["assumed_default"], [*cols, "defaults_used"]].assign(
        status="priced with defaults", reason=lambda d: d["defaults_used"])
    out = pd.concat([left, assumed], ignore_index=True)
    config = {
        "status": st.column_config.TextColumn("Status"),
        "provider_name": st.column_config.TextColumn("Provider"),
        "gpu": st.column_config.TextColumn("GPU"),
        "gpus_per_node": st.column_config.TextColumn("GPUs/node"),
        "region": st.column_config.TextColumn("Region"),
        "reason": st.column_config.TextColumn("Why", width="large"),
        "source_url": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return out[list(config)], config


def offer_choices(priced: Priced) -> dict[str, str]:
    ranked = priced.ranked
    return dict(zip(ranked["offer_id"], ranked["label"], strict=True))


def offer_picker_key(mode: str, choices: Mapping[str, str]) -> str:
    """The key of the mode's "Offer to break down" picker. A pick that is no longer among ``choices`` (the
    ranking changed) is dropped first, so the picker falls back to its default, the cheapest offer."""
    key = f"wl_offer_{mode}"
    if st.session_state.get(key) not in choices:
        st.session_state.pop(key, None)
    return key


def scatter_frame(priced: Priced, display: DisplaySettings) -> pd.DataFrame:
    """Ranked offers with x = time (training, in the table's unit) or latency (inference), y = cost in the
    display currency, and whether each is on the Pareto front."""
    out = eur_columns_to_display(priced.ranked, ["cost_eur"], display)
    if priced.mode == "training":
        _, div = _time_unit(out["time_hours"])
        out["x"] = out["time_hours"] / div
    else:
        out["x"] = out["request_latency_s"]
    out["y"] = out["cost_eur"]
    out = out.dropna(subset=["x", "y"])
    return out.assign(is_front=pareto_front(out["x"].to_numpy(), out["y"].to_numpy()))


def axis_titles(priced: Priced, display: DisplaySettings) -> tuple[str, str]:
    sym = SYMBOL[display.currency]
    if priced.mode == "training":
        unit, _ = _time_unit(priced.ranked["time_hours"])
        return f"Wall-clock time ({unit})", f"Cost per job ({sym})"
    return "Latency per request (s)", f"Cost per million tokens ({sym})"


def breakdown_frame(row: pd.Series, display: DisplaySettings) -> pd.DataFrame:
    """Where the wall-clock time (and so the money) of the job goes on the selected offer: computing, pipeline
    bubble, communication that could not be hidden, and time lost to failures (the four shares sum to 1)."""
    u = row["utilisation_fraction"]
    shares = [
        ("Compute", f"Computing (at {u:.0%} of the peak while computing)", row["loss_compute"]),
        ("Pipeline bubble", "Pipeline stages idle while the pipeline fills and drains", row["loss_bubble"]),
        ("Exposed comm.", "Tensor/context/pipeline/data-parallel communication not hidden by compute",
         row["loss_communication"]),
        ("Failures", "Lost to failures: redone work, checkpoints and restarts", row["loss_failures"]),
    ]
    cost = float(eur_columns_to_display(pd.DataFrame({"c": [row["cost_eur"]]}), ["c"], display)["c"].iloc[0])
    return pd.DataFrame([(short, name, share, share * cost) for short, name, share in shares],
                        columns=["short", "part", "share", "cost"])


def breakdown_caption(row: pd.Series) -> str:
    step, comp = row["step_time_s"], row["compute_time_per_step_s"]
    exposed = {k: row[f"exposed_{k}_s"] for k in ("tp", "cp", "pp", "dp")}
    parts = ", ".join(f"{k.upper()} {v:.2f} s" for k, v in exposed.items() if v > 0.005) or "none"
    nodes = f"{row['n_nodes']:.0f} node{'s' if row['n_nodes'] > 1 else ''}"
    runner = row.get("runner_up") or "none fits"
    return (f"Layout {row['layout'] or 'n/a'} on {nodes} (the fastest that fits), {row['micro_batches']:.0f} "
            f"micro-batches per step. Runner-up: {runner}. "
            f"One optimizer step: {step:.2f} s = {comp:.2f} s compute + {row['bubble_time_per_step_s']:.2f} s pipeline "
            f"bubble + exposed communication ({parts}). Scaling efficiency {row['efficiency_pct']:.0f}%, MFU "
            f"{row['mfu_pct']:.0f}% (HFU {row['hfu_pct']:.0f}%). " + (
                f"The job fails every {row['mtbf_hours']:.1f} h on average; with checkpoints every "
                f"{row['checkpoint_interval_s'] / 60:.0f} min the goodput is {row['goodput_pct']:.1f}%. "
                if np.isfinite(row["mtbf_hours"]) else "No failures modelled (rate 0): goodput 100%. ")
            + f"Energy {row['energy_j_per_token']:.2f} J per trained token, all-in.")


def headline_metrics(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> list[tuple[str, str, str]]:
    """(label, value, help) of the three headline numbers."""
    ranked, n = priced.ranked, len(priced.offers)
    count = ("Offers priced", f"{len(ranked)} of {n}", "The others are listed under 'Left out' with the reason")
    if ranked.empty:
        return [count]
    if priced.mode == "training":
        return [("Cheapest job", money(ranked["cost_eur"].min(), display, 0), "Cost of the whole job on the cheapest offer"),
                ("Fastest job", _duration(ranked["time_hours"].min()), "Wall-clock time on the fastest offer"), count]
    within = ranked[ranked["meets_latency_target"]]
    best = within if len(within) else ranked
    among = (f"the cheapest offer within the {section.latency_target_s:g} s latency target" if len(within)
             else "the cheapest offer (none meets the latency target)")
    return [(f"Per million tokens at {load_text(section)}", money(best["cost_eur"].iloc[0], display),
             f"On {among}, its GPUs busy {section.inference.target_utilisation_fraction:.0%} of paid time"),
            ("Per million tokens at your volume", money(best["cost_eur_per_million_tokens_at_volume"].iloc[0], display),
             f"Paid GPU-hours ÷ tokens served: {section.tokens_per_day / 1e6:,.0f}M tokens a day on "
             f"{best['gpus_needed'].iloc[0]:,.0f} GPUs (whole replicas, 24 h a day), on {among}"),
            ("Serving cost per day", money(best["cost_eur_per_day"].iloc[0], display, 0),
             f"{section.tokens_per_day / 1e6:,.0f}M tokens a day on the cheapest offer, whole replicas"),
            ("Lowest latency", f"{ranked['request_latency_s'].min():.2f} s", "Per request, first token plus all output tokens")]


def load_text(section: WorkloadSection) -> str:
    """'full load' at 100 % busy, else '60 % load'."""
    u = section.inference.target_utilisation_fraction
    return "full load" if u >= 1 else f"{u:.0%} load"


def inference_caption(row: pd.Series) -> str:
    return (f"On this offer one request takes {row['time_to_first_token_s']:.2f} s to the first token (prefill), then "
            f"{row['time_per_output_token_s'] * 1000:.1f} ms per output token; decode is bound by {row['bound'] or 'n/a'}. "
            "A bar marked ×n is a replica split over n GPUs (tensor parallel) because the weights and KV cache no "
            "longer fit in one; a missing bar does not fit at all.")
