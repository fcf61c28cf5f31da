"""Example portfolios of the Hybrid placement page (illustrative sizes and patterns, not data)."""

from __future__ import annotations

from typing import NamedTuple

from engine.placement import Workload


class Example(NamedTuple):
    label: str
    story: str
    workloads: tuple[Workload, ...]


def _w(name: str, kind: str, mean: float, peak: float, **rules) -> Workload:
    return Workload(name=name, kind=kind, mean_gpus=mean, peak_gpus=peak, **rules)


#: Example portfolios to start from. Sizes and patterns are illustrative assumptions, not data.
EXAMPLES: dict[str, Example] = {
    "EU fintech": Example(
        "EU fintech: sensitive inference + training + dev",
        "A payments company: fraud scoring on customer data (EU data centre and EU-owned provider, served to "
        "users in Europe), risk models trained on customer data (EU data centre), research on anonymised data "
        "(may run anywhere) and developer notebooks.",
        (_w("fraud-scoring-api", "inference", 4, 6, busy_hours_per_day=16, first_busy_hour=6, gpu_model="H100",
            may_leave_eu=False, eu_jurisdiction_required=True, latency_sensitive=True),
         _w("risk-model-training", "training", 10, 16, busy_hours_per_day=12, busy_days_per_week=5, gpu_model="H100",
            may_leave_eu=False, spot_allowed=True),
         _w("research-anonymised", "training", 10, 12, busy_hours_per_day=16, gpu_model="H100"),
         _w("dev-notebooks", "development", 2, 6, busy_hours_per_day=10, busy_days_per_week=5, gpu_model="L40S"))),
    "AI start-up": Example(
        "AI start-up: bursty training + inference",
        "A start-up serving a chat model around the clock, running 64-GPU pre-training bursts two days a week "
        "(InfiniBand) and checkpointed fine-tuning that tolerates spot interruptions.",
        (_w("chat-inference", "inference", 14, 16, busy_hours_per_day=14, first_busy_hour=7, gpu_model="H100"),
         _w("pretraining-runs", "training", 24, 64, busy_days_per_week=2, gpu_model="H100", needs_infiniband=True),
         _w("fine-tuning", "training", 4, 8, busy_hours_per_day=12, busy_days_per_week=5, gpu_model="A100-80GB",
            spot_allowed=True))),
    "Research lab": Example(
        "Research lab: shared cluster + students + clinical data",
        "A university lab: a shared training queue busy on weekdays (checkpointed, spot is fine), student "
        "development during teaching hours, and analysis of clinical data that must stay in the EU.",
        (_w("shared-cluster-jobs", "training", 24, 32, busy_days_per_week=5, gpu_model="A100-80GB", spot_allowed=True),
         _w("student-dev", "development", 3, 10, busy_hours_per_day=8, busy_days_per_week=5, first_busy_hour=9,
            gpu_model="L4"),
         _w("clinical-analysis", "training", 4, 8, busy_hours_per_day=12, busy_days_per_week=5,
            gpu_model="A100-80GB", may_leave_eu=False))),
}
