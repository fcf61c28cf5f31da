"""Synthetic catalog rows for page tests that must not depend on what the seed holds today (a data change may
drop or fix the seed's own outliers)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb

OUTLIER_OFFER_ID = "test-scaleway-h100-outlier-de"


def add_h100_price_outlier(catalog_path: Path, price_eur_per_gpu_hour: float = 0.25) -> str:
    """An EU (DE) H100 SXM 8-GPU InfiniBand offer of an EU provider at a price far below every other H100 row
    (the seed's H100 median is several EUR): the cheapest answer on every page unless it is flagged."""
    today = dt.date.today()
    with duckdb.connect(str(catalog_path)) as con:
        con.execute(
            "INSERT INTO offers (offer_id, provider_id, gpu_model, gpu_spec_id, form_factor, gpus_per_node, memory_gb, "
            "memory_type, intra_node, inter_node, inter_node_bandwidth_gbps_per_gpu, region, datacenter_country, "
            "source_url, as_of, as_of_date, verification_status, notes) VALUES "
            "(?, 'scaleway', 'H100', 'H100 SXM', 'SXM', 8, 80, 'HBM3', 'NVLink-NVSwitch', 'InfiniBand-NDR', 400, "
            "'test-region-de', 'DE', 'https://example.test/outlier', ?, ?, 'claimed', 'synthetic test row')",
            [OUTLIER_OFFER_ID, today.isoformat(), today])
        con.execute(
            "INSERT INTO prices (price_id, offer_id, price_type, amount_per_gpu_hour, currency, valid_from, source_url, "
            "retrieved_at, method, verification_status) VALUES (?, ?, 'on-demand', ?, 'EUR', ?, "
            "'https://example.test/outlier', ?, 'page', 'claimed')",
            [OUTLIER_OFFER_ID + "-od", OUTLIER_OFFER_ID, price_eur_per_gpu_hour, today, today.isoformat()])
    return OUTLIER_OFFER_ID
