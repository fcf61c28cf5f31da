"""Issue #27.11: every scoring preset does what its description says. Each phrase a description uses is a claim
checked against the preset's weights and hard constraints; a description with a phrase no claim covers fails,
so a new or reworded preset gets a check."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from engine.scoring import PRESETS, Preset


def _share(p: Preset, *names: str) -> float:
    total = sum(p.weight_points.values())
    return sum(p.weight_points.get(n, 0.0) for n in names) / total


SLA = ("allowed_downtime_hours_per_year", "performance_sla_score")
DATA = ("verification_score", "data_age_days")
INTERCONNECT = ("intra_node_score", "inter_node_fabric_score", "inter_node_bandwidth_gbps_per_gpu")

#: phrase in a description -> (what it promises, check)
CLAIMS: dict[str, tuple[str, Callable[[Preset], bool]]] = {
    r"EU data centres": ("EU/EEA data centre required", lambda p: p.constraints.eu_resident_only),
    r"EU-controlled providers": (
        "EU parent required, and preferred by weight wherever a brief relaxes the hard rule (unless 'must')",
        lambda p: p.constraints.eu_jurisdiction_only and (
            "must" in p.description or _share(p, "jurisdiction_score") > 0)),
    r"InfiniBand": ("InfiniBand required", lambda p: p.constraints.infiniband_only),
    r"then interconnect and price": ("interconnect and price weighted",
                                     lambda p: _share(p, *INTERCONNECT) > 0 and _share(p, "price_eur_per_gpu_hour") > 0),
    r"Multi-node training": ("the fabric between nodes weighted",
                             lambda p: _share(p, "inter_node_fabric_score", "inter_node_bandwidth_gbps_per_gpu") > 0),
    r"price dominates": ("price the largest weight, at least half",
                         lambda p: _share(p, "price_eur_per_gpu_hour") >= 0.5
                         and max(p.weight_points, key=p.weight_points.get) == "price_eur_per_gpu_hour"),
    r"memory bandwidth": ("memory bandwidth weighted", lambda p: _share(p, "memory_bandwidth_tbps") > 0),
    r"short commitments|no minimum commitment|without long contracts": (
        "minimum commitment weighted", lambda p: _share(p, "min_commitment_months") > 0),
    r"[Bb]urst capacity": ("burst capacity weighted", lambda p: _share(p, "burst_capacity_score") > 0),
    r"[Cc]apacity on demand": ("no hard constraint narrows the providers", lambda p: not p.constraints.active()),
    r"Single-node inference": ("no fabric required", lambda p: not p.constraints.infiniband_only),
    r"SLAs, support depth and trustworthy data before price": (
        "each of SLAs, support and data outweighs price",
        lambda p: min(_share(p, *SLA), _share(p, "support_score"), _share(p, *DATA)) > _share(p, "price_eur_per_gpu_hour")),
    r", price\.$": ("price weighted", lambda p: _share(p, "price_eur_per_gpu_hour") > 0),
}


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_does_what_its_description_says(name):
    preset = PRESETS[name]
    used = [pattern for pattern in CLAIMS if re.search(pattern, preset.description)]
    assert used, f"{name}: no claim covers its description {preset.description!r}"
    broken = [CLAIMS[p][0] for p in used if not CLAIMS[p][1](preset)]
    assert not broken, f"{name}: the description promises {broken}"


def test_regulated_enterprise_prefers_eu_parents_by_weight():
    """The default page applies the client brief's constraints (EU parent only preferred), so the preset's
    weights must carry 'EU-controlled providers' on their own."""
    assert _share(PRESETS["Regulated enterprise"], "jurisdiction_score") >= 0.1
