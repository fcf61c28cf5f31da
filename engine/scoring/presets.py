"""Named starting points of the Scoring page: weights (points) and hard constraints, with why.

Part of :mod:`engine.scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.scoring.constraints import Constraints
from engine.scoring.matrix import Weights


@dataclass(frozen=True)
class Preset:
    """A named starting point: weights (points, normalised on use), hard constraints and why."""

    name: str
    description: str
    weight_points: Mapping[str, float]
    constraints: Constraints

    def weights(self) -> Weights:
        return Weights(values=dict(self.weight_points))

    def not_in_force(self, constraints: Constraints) -> tuple[str, ...]:
        """The preset's switched-on hard constraints that ``constraints`` leaves off (e.g. relaxed by a brief)."""
        return tuple(name for name in self.constraints.active() if name not in constraints.active())


#: The four presets of the issue. Weights are points out of 100 (judgements, shown to the user and
#: editable); constraints encode what the scenario cannot compromise on. Where a client brief relaxes a hard
#: constraint (the page applies the brief's), the weights still carry the description: "Regulated enterprise"
#: weights the parent jurisdiction (issue #27.11; tests/engine/test_presets.py checks every description).
PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "Sovereign training cluster",
            "Multi-node training that must stay in EU data centres under EU-controlled providers, over "
            "InfiniBand; then interconnect and price.",
            {
                "price_eur_per_gpu_hour": 20, "intra_node_score": 15, "inter_node_fabric_score": 10,
                "inter_node_bandwidth_gbps_per_gpu": 15, "memory_bandwidth_tbps": 10,
                "allowed_downtime_hours_per_year": 5, "support_score": 5, "performance_sla_score": 5,
                "min_commitment_months": 5, "verification_score": 5, "data_age_days": 5,
            },
            Constraints(eu_resident_only=True, eu_jurisdiction_only=True, infiniband_only=True),
        ),
        Preset(
            "Cheapest inference",
            "Single-node inference where price dominates; memory bandwidth bounds decode speed "
            "(domain-model section 2); short commitments.",
            {
                "price_eur_per_gpu_hour": 55, "memory_bandwidth_tbps": 15, "allowed_downtime_hours_per_year": 10,
                "min_commitment_months": 10, "verification_score": 5, "data_age_days": 5,
            },
            Constraints(),
        ),
        Preset(
            "Start-up burst capacity",
            "Capacity on demand without long contracts: burst capacity, no minimum commitment, price.",
            {
                "burst_capacity_score": 25, "min_commitment_months": 25, "price_eur_per_gpu_hour": 25,
                "support_score": 5, "allowed_downtime_hours_per_year": 5, "verification_score": 5,
                "data_age_days": 10,
            },
            Constraints(),
        ),
        Preset(
            "Regulated enterprise",
            "EU data centres under EU-controlled providers; SLAs, support depth and trustworthy data "
            "before price.",
            {
                "allowed_downtime_hours_per_year": 20, "performance_sla_score": 10, "support_score": 20,
                "verification_score": 10, "data_age_days": 10, "price_eur_per_gpu_hour": 15,
                "min_commitment_months": 5, "jurisdiction_score": 10,
            },
            Constraints(eu_resident_only=True, eu_jurisdiction_only=True),
        ),
    )
}
