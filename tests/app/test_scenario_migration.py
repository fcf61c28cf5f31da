"""Scenario documents of version 1 (TCO reserved option from a borrowed discount) load into version 2 without
the borrowed discount: reserved then has no committed price."""

import json

from ui.scenario import SCENARIO_VERSION, Scenario
from ui.workshop import from_json


def test_version_1_document_loads_without_the_borrowed_reserved_discount():
    v1 = {
        "version": 1,
        "tco": {
            "inputs": {"utilisation_fraction": 0.6, "cluster_gpus": 16, "horizon_months": 36,
                       "reserved_discount_fraction": 0.56, "reserved_term_months": 36},
            "reserved_offer_id": "hyperstack-h100-sxm-reserved",
        },
    }
    scenario = from_json(json.dumps(v1))
    assert scenario.version == SCENARIO_VERSION == 2
    assert scenario.tco.inputs.price_reserved_eur_per_gpu_hour is None
    assert scenario.tco.inputs.reserved_term_months is None
    assert scenario.tco.reserved_origin is None
    assert (scenario.tco.inputs.utilisation_fraction, scenario.tco.inputs.cluster_gpus) == (0.6, 16)


def test_current_documents_round_trip():
    scenario = Scenario()
    assert from_json(scenario.model_dump_json()) == scenario
