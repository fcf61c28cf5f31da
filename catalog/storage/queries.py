"""Reads of the catalog: offers with prices, tables, coverage, staleness, history (change sets and their log).

Every query is parameterised DuckDB SQL run on :meth:`StoreBase._read_cursor`: the catalog file itself for
the embedded backend, an in-memory snapshot of the current catalog version for PostgreSQL (issue #21: the
analytic reads stay in DuckDB; :mod:`catalog.storage.postgres` explains and measures it).
"""

from __future__ import annotations

import datetime as dt

import pandas as pd

from catalog.counts import stale_dates
from catalog.errors import CatalogError
from catalog.models import EU_EEA_COUNTRIES, TABLE_KEYS, TABLE_ORDER
from catalog.storage.changes import get_row
from catalog.storage.common import (
    META_COLUMNS,
    NOT_STATED,
    STALE_AFTER_DAYS,
    TABLE_COLUMNS,
    VERIFIED_FRESH_DAYS,
    OfferFilter,
    StoreBase,
)

#: A change-log entry (alias ``l``) of a private negotiated price, before or after the change: shown to editors only.
_PRIVATE_LOG_ENTRY = ("(l.table_name = 'prices' AND (coalesce(json_extract(l.before_json, '$.is_private')::BOOLEAN, false)"
                      " OR coalesce(json_extract(l.after_json, '$.is_private')::BOOLEAN, false)))")
#: What viewers read instead of the message of a change set that touched a private price.
_PRIVATE_MESSAGE = "(changed a private negotiated price: the message is shown to editors only)"


class Queries(StoreBase):
    """The read verbs of the catalog (pages reach them through ``ui.catalog``, cached per catalog version)."""

    def _has_table(self, table: str) -> bool:
        row = self._read_cursor().execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND database_name = current_database()",
            [table],
        ).fetchone()
        return bool(row and row[0])

    def table(self, table: str, *, include_private: bool = False) -> pd.DataFrame:
        """A whole table as a DataFrame (table name checked against the schema's list); private negotiated
        prices only with ``include_private`` (signed-in editors)."""
        if table not in TABLE_COLUMNS:
            raise CatalogError(f"unknown table {table!r}")
        cols = ", ".join(TABLE_COLUMNS[table])
        key = TABLE_COLUMNS[table][0]
        where = "WHERE NOT is_private" if table == "prices" and not include_private else ""
        return self._read_cursor().execute(f"SELECT {cols} FROM {table} {where} ORDER BY {key}").df()

    def list_providers(self) -> pd.DataFrame:
        return self.table("providers")

    def list_gpu_specs(self) -> pd.DataFrame:
        return self.table("gpu_specs")

    def list_prices(self, offer_ids: list[str] | None = None, *, current_only: bool = True,
                    include_private: bool = False) -> pd.DataFrame:
        """Price rows (of ``offer_ids``; current ones unless asked); private negotiated prices only with
        ``include_private`` (signed-in editors)."""
        cols = ", ".join(TABLE_COLUMNS["prices"])
        return self._read_cursor().execute(
            f"""SELECT {cols} FROM prices
                WHERE (CAST($ids AS VARCHAR[]) IS NULL OR list_contains(CAST($ids AS VARCHAR[]), offer_id))
                  AND (NOT $current_only OR valid_to IS NULL)
                  AND ($all OR NOT is_private)
                ORDER BY offer_id, price_type, valid_from""",
            {"ids": offer_ids, "current_only": current_only, "all": include_private},
        ).df()

    def list_offers(
        self,
        filters: OfferFilter | None = None,
        *,
        usd_per_eur: float,
        today: dt.date | None = None,
        include_private: bool = False,
    ) -> pd.DataFrame:
        """Offers joined with their provider, GPU spec and current prices (one column per price type,
        converted to EUR at ``usd_per_eur``), narrowed by ``filters``.

        Columns ``*_eur_per_gpu_hour`` are the cheapest current price of that type; NaN when the
        catalog has none. ``is_stale`` marks rows observed more than 180 days before ``today``;
        ``reserved_is_stale`` / ``on_demand_is_stale`` mark the cheapest current price of that type retrieved more
        than 180 days before ``today`` (NA when there is none): a commitment is judged on the price it uses.
        Private (negotiated) prices count only with ``include_private`` (editors) and until they expire;
        ``has_private_price`` marks a row whose prices include one, ``on_demand_is_private`` one whose on-demand
        price is one (the exports label what rests on them, issue #28.2).
        """
        f = filters or OfferFilter()
        today = today or dt.date.today()
        params = {
            "usd_per_eur": float(usd_per_eur),
            "include_private": include_private,
            "today": today,
            "stale_before": today - dt.timedelta(days=STALE_AFTER_DAYS),
            "verified_after": today - dt.timedelta(days=VERIFIED_FRESH_DAYS),
            "eu": sorted(EU_EEA_COUNTRIES),
            "not_stated": NOT_STATED,
            "gpu_models": list(f.gpu_models) if f.gpu_models is not None else None,
            "form_factors": list(f.form_factors) if f.form_factors is not None else None,
            "intra_nodes": list(f.intra_nodes) if f.intra_nodes is not None else None,
            "inter_nodes": list(f.inter_nodes) if f.inter_nodes is not None else None,
            "memory_types": list(f.memory_types) if f.memory_types is not None else None,
            "eu_only": f.eu_datacenter_only,
            "jurisdictions": list(f.jurisdictions) if f.jurisdictions is not None else None,
            "price_types": list(f.price_types) if f.price_types is not None else None,
            "max_price": f.max_price_eur_per_gpu_hour,
            "provider_ids": list(f.provider_ids) if f.provider_ids is not None else None,
        }
        sql = """
        WITH cur AS (
            SELECT offer_id, price_type, term_months, currency, retrieved_at, is_private,
                   CASE currency WHEN 'EUR' THEN amount_per_gpu_hour
                                 ELSE amount_per_gpu_hour / $usd_per_eur END AS amount_eur
            FROM prices WHERE valid_to IS NULL
              AND (NOT is_private OR ($include_private AND expires_on >= $today))
        ), piv AS (
            SELECT offer_id,
                   min(amount_eur) FILTER (WHERE price_type = 'on-demand') AS on_demand_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'spot') AS spot_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved') AS reserved_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'quote') AS quote_eur_per_gpu_hour,
                   arg_min(term_months, amount_eur) FILTER (WHERE price_type = 'reserved') AS reserved_term_months,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved' AND term_months = 12)
                       AS reserved_1y_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved' AND term_months = 36)
                       AS reserved_3y_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE CAST($price_types AS VARCHAR[]) IS NULL
                                           OR list_contains(CAST($price_types AS VARCHAR[]), price_type))
                       AS best_selected_eur_per_gpu_hour,
                   list(DISTINCT price_type ORDER BY price_type) AS price_types,
                   string_agg(DISTINCT currency, '/' ORDER BY currency) AS native_currency,
                   max(retrieved_at) AS price_retrieved_at,
                   arg_min(retrieved_at, amount_eur) FILTER (WHERE price_type = 'reserved') AS reserved_retrieved_at,
                   arg_min(retrieved_at, amount_eur) FILTER (WHERE price_type = 'on-demand')
                       AS on_demand_retrieved_at,
                   coalesce(arg_min(is_private, amount_eur) FILTER (WHERE price_type = 'on-demand'), false)
                       AS on_demand_is_private,
                   coalesce(bool_or(is_private), false) AS has_private_price
            FROM cur GROUP BY offer_id
        )
        SELECT o.offer_id, o.provider_id, p.name AS provider_name, o.gpu_model, o.gpu_spec_id, o.form_factor,
               o.gpus_per_node, coalesce(o.memory_gb, s.memory_gb) AS memory_gb,
               coalesce(o.memory_type, s.memory_type) AS memory_type,
               o.intra_node, o.inter_node, o.inter_node_bandwidth_gbps_per_gpu, o.mig_supported,
               o.region, o.datacenter_country,
               list_contains(CAST($eu AS VARCHAR[]), o.datacenter_country) AS is_eu_datacenter,
               p.parent_jurisdiction, p.eu_data_residency, p.hq_country, p.legal_seat_country, p.certifications,
               p.uptime_sla_pct, p.performance_sla, p.support_model, p.min_commitment, p.burst_capacity,
               p.parent_company,
               (SELECT string_agg(c.certification, ';' ORDER BY c.certification) FROM certification_scopes c
                 WHERE c.provider_id = o.provider_id AND c.covers_gpu_compute = 'yes'
                   AND (coalesce(c.scope_countries, '') = ''
                        OR list_contains(string_split(c.scope_countries, ';'), o.datacenter_country)))
                   AS certifications_in_scope,
               s.memory_bandwidth_tbps, s.bf16_dense_tflops, s.fp8_dense_tflops, s.tdp_watts,
               s.nvlink_bandwidth_gb_per_s_bidirectional, s.mig_max_instances,
               piv.on_demand_eur_per_gpu_hour, piv.spot_eur_per_gpu_hour, piv.reserved_eur_per_gpu_hour,
               piv.quote_eur_per_gpu_hour,
               piv.reserved_term_months, piv.reserved_1y_eur_per_gpu_hour, piv.reserved_3y_eur_per_gpu_hour,
               piv.best_selected_eur_per_gpu_hour, piv.price_types,
               piv.native_currency, piv.price_retrieved_at,
               coalesce(piv.on_demand_is_private, false) AS on_demand_is_private,
               coalesce(piv.has_private_price, false) AS has_private_price,
               o.source_url, o.as_of, o.as_of_date, o.verification_status,
               o.as_of_date < $stale_before AS is_stale, o.notes,
               piv.reserved_retrieved_at, piv.on_demand_retrieved_at,
               CASE WHEN o.verification_status <> 'claimed' AND o.as_of_date < $verified_after
                    THEN o.verification_status || ' on ' || o.as_of || ', not re-checked'
                    ELSE o.verification_status END AS verification_label,
               (o.verification_status <> 'claimed' AND o.as_of_date >= $verified_after) AS verification_current,
               o.instance_type, o.last_seen,
               o.is_dedicated_hardware AS is_dedicated, o.dedicated_source_url, o.dedicated_as_of
        FROM offers o
        JOIN providers p USING (provider_id)
        LEFT JOIN gpu_specs s ON s.gpu_spec_id = o.gpu_spec_id
        LEFT JOIN piv USING (offer_id)
        WHERE (CAST($gpu_models AS VARCHAR[]) IS NULL OR list_contains(CAST($gpu_models AS VARCHAR[]), o.gpu_model))
          AND (CAST($form_factors AS VARCHAR[]) IS NULL
               OR list_contains(CAST($form_factors AS VARCHAR[]), coalesce(o.form_factor, $not_stated)))
          AND (CAST($intra_nodes AS VARCHAR[]) IS NULL
               OR list_contains(CAST($intra_nodes AS VARCHAR[]), coalesce(o.intra_node, $not_stated)))
          AND (CAST($inter_nodes AS VARCHAR[]) IS NULL
               OR list_contains(CAST($inter_nodes AS VARCHAR[]), coalesce(o.inter_node, $not_stated)))
          AND (CAST($memory_types AS VARCHAR[]) IS NULL
               OR list_contains(CAST($memory_types AS VARCHAR[]),
                                coalesce(o.memory_type, s.memory_type, $not_stated)))
          AND (NOT $eu_only OR coalesce(list_contains(CAST($eu AS VARCHAR[]), o.datacenter_country), false))
          AND (CAST($jurisdictions AS VARCHAR[]) IS NULL
               OR list_contains(CAST($jurisdictions AS VARCHAR[]), p.parent_jurisdiction))
          AND (CAST($price_types AS VARCHAR[]) IS NULL
               OR coalesce(list_has_any(piv.price_types, CAST($price_types AS VARCHAR[])), false))
          AND (CAST($max_price AS DOUBLE) IS NULL OR piv.best_selected_eur_per_gpu_hour <= CAST($max_price AS DOUBLE))
          AND (CAST($provider_ids AS VARCHAR[]) IS NULL
               OR list_contains(CAST($provider_ids AS VARCHAR[]), o.provider_id))
        ORDER BY piv.best_selected_eur_per_gpu_hour NULLS LAST, o.offer_id
        """
        frame = self._read_cursor().execute(sql, params).df()
        for kind in ("reserved", "on_demand"):  # the one staleness rule (catalog.counts), per price type
            frame[f"{kind}_is_stale"] = stale_dates(frame[f"{kind}_retrieved_at"], today)
        return frame

    def filter_options(self) -> dict[str, list[str]]:
        """Distinct values for the filter widgets (categorical columns), sorted."""
        cur = self._read_cursor()

        def distinct(sql: str) -> list[str]:
            return [r[0] for r in cur.execute(sql).fetchall()]

        return {
            "gpu_models": distinct("SELECT DISTINCT gpu_model FROM offers ORDER BY 1"),
            "providers": distinct("SELECT provider_id FROM providers ORDER BY 1"),
            "jurisdictions": distinct("SELECT DISTINCT parent_jurisdiction FROM providers ORDER BY 1"),
        }

    def summary(self, today: dt.date | None = None) -> dict[str, int | str]:
        """Catalog size and freshness for the Home page (public prices only, as every statistic below)."""
        today = today or dt.date.today()
        stale_before = today - dt.timedelta(days=STALE_AFTER_DAYS)
        cur = self._read_cursor()
        q = """SELECT
            (SELECT count(*) FROM providers) AS providers,
            (SELECT count(*) FROM offers) AS offers,
            (SELECT count(*) FROM prices WHERE valid_to IS NULL AND NOT is_private) AS current_prices,
            (SELECT count(*) FROM gpu_specs) AS gpu_specs,
            (SELECT count(*) FROM providers WHERE as_of_date < $sb) AS stale_providers,
            (SELECT count(*) FROM offers WHERE as_of_date < $sb) AS stale_offers,
            (SELECT count(*) FROM prices WHERE valid_to IS NULL AND valid_from < $sb AND NOT is_private) AS stale_prices,
            (SELECT max(valid_from) FROM prices WHERE NOT is_private) AS newest_price,
            (SELECT min(valid_from) FROM prices WHERE valid_to IS NULL AND NOT is_private) AS oldest_current_price"""
        row = cur.execute(q, {"sb": stale_before}).fetchone()
        names = [d[0] for d in cur.description]
        return dict(zip(names, row, strict=True))

    def provider_coverage(self) -> pd.DataFrame:
        """Per provider: offers, and how many lack the fields decisions rest on; certifications stated."""
        return self._read_cursor().execute(
            """WITH public_prices AS (SELECT * FROM prices WHERE NOT is_private)
               SELECT p.provider_id, count(o.offer_id) AS offers,
                      count(o.offer_id) FILTER (WHERE o.inter_node IS NULL) AS missing_fabric,
                      count(o.offer_id) FILTER (WHERE o.form_factor IS NULL) AS missing_form_factor,
                      count(o.offer_id) FILTER (WHERE o.datacenter_country IS NULL) AS missing_country,
                      count(o.offer_id) FILTER (WHERE o.offer_id NOT IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND price_type = 'reserved')) AS missing_reserved,
                      count(o.offer_id) FILTER (WHERE o.offer_id IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND price_type = 'reserved' AND term_months IN (12, 36))) AS with_1y_3y_commit,
                      count(o.offer_id) FILTER (WHERE o.offer_id IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND currency = 'EUR')) AS eur_listed,
                      count(o.offer_id) FILTER (WHERE o.verification_status <> 'claimed') AS verified,
                      p.certifications <> '' AS has_certifications, p.legal_seat_country IS NOT NULL AS has_legal_seat
               FROM providers p LEFT JOIN offers o USING (provider_id)
               GROUP BY ALL ORDER BY offers DESC, p.provider_id"""
        ).df()

    def headline_coverage(self) -> pd.DataFrame:
        """The facts this product differentiates on, as "have / of" counts (the data report's first table)."""
        q = """
        WITH cur AS (SELECT * FROM prices WHERE valid_to IS NULL AND NOT is_private),
        multi AS (SELECT * FROM offers WHERE gpus_per_node >= 8 OR intra_node = 'NVLink-NVSwitch')
        SELECT 'multi-node-capable offers (8-GPU/NVSwitch nodes) stating their inter-node fabric' AS fact,
               (SELECT count(*) FROM multi WHERE inter_node IS NOT NULL) AS have, (SELECT count(*) FROM multi) AS "of"
        UNION ALL SELECT '... and their per-GPU fabric bandwidth',
               (SELECT count(*) FROM multi WHERE inter_node_bandwidth_gbps_per_gpu IS NOT NULL), (SELECT count(*) FROM multi)
        UNION ALL SELECT 'offers with a committed price (any term)',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE price_type = 'reserved'), (SELECT count(*) FROM offers)
        UNION ALL SELECT 'offers with a 1-year or 3-year committed price',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE price_type = 'reserved' AND term_months IN (12, 36)),
               (SELECT count(*) FROM offers)
        UNION ALL SELECT 'committed prices stating their upfront share',
               (SELECT count(*) FROM cur WHERE price_type = 'reserved' AND upfront_pct IS NOT NULL),
               (SELECT count(*) FROM cur WHERE price_type = 'reserved')
        UNION ALL SELECT 'providers with a 1-year or 3-year committed price',
               (SELECT count(DISTINCT o.provider_id) FROM cur JOIN offers o USING (offer_id)
                 WHERE price_type = 'reserved' AND term_months IN (12, 36)), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'offers listed in EUR',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE currency = 'EUR'), (SELECT count(*) FROM offers)
        UNION ALL SELECT 'providers with EUR list prices',
               (SELECT count(DISTINCT o.provider_id) FROM cur JOIN offers o USING (offer_id) WHERE currency = 'EUR'),
               (SELECT count(*) FROM providers)
        UNION ALL SELECT 'providers with certifications on record',
               (SELECT count(*) FROM providers WHERE certifications <> ''), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'providers with a legal seat on record',
               (SELECT count(*) FROM providers WHERE legal_seat_country IS NOT NULL), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'offers read from the provider''s own page (verified)',
               (SELECT count(*) FROM offers WHERE verification_status <> 'claimed'), (SELECT count(*) FROM offers)
        """
        return self._read_cursor().execute(q).df()

    def price_age_histogram(self, today: dt.date | None = None) -> pd.DataFrame:
        """Current prices by age band (days since ``valid_from``)."""
        today = today or dt.date.today()
        return self._read_cursor().execute(
            """SELECT CASE WHEN age <= 30 THEN '0-30 d' WHEN age <= 90 THEN '31-90 d' WHEN age <= 180 THEN '91-180 d'
                           WHEN age <= 365 THEN '181-365 d' ELSE '> 1 year' END AS age_band,
                      count(*) AS prices, min(age) AS youngest_days, max(age) AS oldest_days
               FROM (SELECT date_diff('day', valid_from, $today) AS age FROM prices
                     WHERE valid_to IS NULL AND NOT is_private)
               GROUP BY 1 ORDER BY min(age)""",
            {"today": today},
        ).df()

    def offer_field_coverage(self) -> pd.DataFrame:
        """For each offer field that decisions rest on: how many offers lack it."""
        q = """SELECT
            count(*) AS offers,
            count(*) FILTER (WHERE form_factor IS NULL) AS form_factor,
            count(*) FILTER (WHERE gpu_spec_id IS NULL) AS gpu_spec,
            count(*) FILTER (WHERE gpus_per_node IS NULL) AS gpus_per_node,
            count(*) FILTER (WHERE intra_node IS NULL) AS intra_node,
            count(*) FILTER (WHERE inter_node IS NULL) AS inter_node,
            count(*) FILTER (WHERE inter_node_bandwidth_gbps_per_gpu IS NULL) AS inter_node_bandwidth,
            count(*) FILTER (WHERE datacenter_country IS NULL) AS datacenter_country,
            count(*) FILTER (WHERE offer_id NOT IN (SELECT offer_id FROM prices WHERE valid_to IS NULL
                                                    AND NOT is_private)) AS hourly_price,
            count(*) FILTER (WHERE offer_id NOT IN (SELECT offer_id FROM prices WHERE valid_to IS NULL
                                                    AND price_type = 'reserved' AND NOT is_private)) AS reserved_price
            FROM offers"""
        cur = self._read_cursor()
        row = cur.execute(q).fetchone()
        names = [d[0] for d in cur.description]
        total = row[0]
        data = [
            {"field": n.replace("_", " "), "offers_missing": v, "missing_pct": 100.0 * v / total if total else 0.0}
            for n, v in zip(names[1:], row[1:], strict=True)
        ]
        return pd.DataFrame(data)

    def change_sets(self, *, include_private: bool = False) -> pd.DataFrame:
        """Every change set, newest first.

        Private values leave only with ``include_private`` (signed-in editors): otherwise editors are not named
        (the seed build keeps its name), ``rows`` counts public rows only, and a change set that touched a
        private price shows no message (it may describe the quote).
        """
        return self._read_cursor().execute(
            f"""SELECT s.change_set_id, s.created_at,
                       CASE WHEN $all OR s.editor = 'seed' THEN s.editor ELSE 'an editor' END AS editor, s.kind,
                       CASE WHEN $all OR NOT coalesce(bool_or({_PRIVATE_LOG_ENTRY}), false) THEN s.message
                            ELSE {_PRIVATE_MESSAGE!r} END AS message,
                       count(l.seq) FILTER (WHERE $all OR NOT {_PRIVATE_LOG_ENTRY}) AS rows
                FROM change_sets s LEFT JOIN change_log l USING (change_set_id)
                GROUP BY s.change_set_id, s.created_at, s.editor, s.kind, s.message
                ORDER BY s.change_set_id DESC""",
            {"all": include_private},
        ).df()

    def change_log(self, change_set_id: int, *, include_private: bool = False) -> pd.DataFrame:
        """The rows one change set wrote, before and after; entries of private prices only with
        ``include_private`` (signed-in editors)."""
        return self._read_cursor().execute(
            f"SELECT seq, table_name, row_key, action, before_json, after_json FROM change_log l "
            f"WHERE change_set_id = $id AND ($all OR NOT {_PRIVATE_LOG_ENTRY}) ORDER BY seq",
            {"id": change_set_id, "all": include_private},
        ).df()

    def row(self, table: str, key: str) -> dict | None:
        """One row with its ``row_version`` (what an editor starts from)."""
        if table not in TABLE_KEYS:
            raise CatalogError(f"unknown table {table!r}")
        return get_row(self._read_cursor(), table, key)

    def editable_rows(self, table: str, *, current_only: bool = True, include_private: bool = False) -> pd.DataFrame:
        """A table's content plus ``row_version`` (prices: current rows unless asked).

        ``include_private`` (signed-in editors only) adds private negotiated prices and the ``updated_by``
        column (who last wrote each row); without it neither leaves the store.
        """
        if table not in TABLE_KEYS:
            raise CatalogError(f"unknown table {table!r}")
        names = [c for c in TABLE_COLUMNS[table] if c not in META_COLUMNS] + ["row_version"]
        names += ["updated_by"] if include_private else []
        if not self._has_table(table):  # an older read-only catalog without a table added since
            return pd.DataFrame(columns=names)
        cols = ", ".join(names)
        conditions = []
        if table == "prices" and current_only:
            conditions.append("valid_to IS NULL")
        if table == "prices" and not include_private:
            conditions.append("NOT is_private")
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        return self._read_cursor().execute(f"SELECT {cols} FROM {table} {where} ORDER BY {TABLE_KEYS[table]}").df()

    def stale_rows(self, today: dt.date | None = None, *, include_private: bool = False) -> pd.DataFrame:
        """Rows observed more than STALE_AFTER_DAYS ago: the "needs re-verification" list, oldest first
        (private negotiated prices only with ``include_private``: signed-in editors)."""
        today = today or dt.date.today()
        parts = [
            """SELECT 'providers' AS table_name, provider_id AS row_key, name AS what, as_of, as_of_date AS observed,
                      source_url FROM providers WHERE as_of_date < $sb""",
            """SELECT 'offers', offer_id, provider_id || ' · ' || gpu_model || ' · ' || region, as_of, as_of_date,
                      source_url FROM offers WHERE as_of_date < $sb""",
            """SELECT 'prices', price_id, price_type || ' ' || amount_per_gpu_hour || ' ' || currency, retrieved_at,
                      valid_from, source_url FROM prices WHERE valid_to IS NULL AND valid_from < $sb
                      AND ($all OR NOT is_private)""",
        ]
        if self._has_table("provider_facts"):
            parts.append("""SELECT 'provider_facts', fact_id, value, as_of, as_of_date, source_url
                              FROM provider_facts WHERE as_of_date < $sb""")
        sql = " UNION ALL ".join(parts) + " ORDER BY observed, table_name, row_key"
        return self._read_cursor().execute(sql, {"sb": today - dt.timedelta(days=STALE_AFTER_DAYS),
                                           "all": include_private}).df()

    def provider_facts(self, provider_ids: list[str] | None = None) -> pd.DataFrame:
        """The sourced legal-seat and certification facts (empty on an old read-only catalog without the table)."""
        cols = ["fact_id", "provider_id", "field", "value", "source_url", "as_of", "verification_status", "notes"]
        if not self._has_table("provider_facts"):
            return pd.DataFrame(columns=cols)
        sql = f"SELECT {', '.join(cols)} FROM provider_facts"
        params: list = []
        if provider_ids is not None:
            sql += " WHERE list_contains(?, provider_id)"
            params.append(list(provider_ids))
        return self._read_cursor().execute(sql + " ORDER BY provider_id, field", params).df()

    def certification_scopes(self, provider_ids: list[str] | None = None) -> pd.DataFrame:
        """What each held certification covers (services, countries, GPU compute), with source and date."""
        cols = [c for c in TABLE_COLUMNS["certification_scopes"] if c != "as_of_date"]
        if not self._has_table("certification_scopes"):
            return pd.DataFrame(columns=cols)
        sql = f"SELECT {', '.join(cols)} FROM certification_scopes"
        params: list = []
        if provider_ids is not None:
            sql += " WHERE list_contains(?, provider_id)"
            params.append(list(provider_ids))
        return self._read_cursor().execute(sql + " ORDER BY provider_id, certification", params).df()

    # -- workshop: workspaces, scenarios, group votes (not catalog data: no change log) ----------------
    def content_checksum(self) -> str:
        """md5 over every editable table's content (meta columns excluded): equal content, equal sum."""
        cur = self._read_cursor()
        parts = []
        for table in TABLE_ORDER:
            cols = ", ".join(c for c in TABLE_COLUMNS[table] if c not in META_COLUMNS)
            key = TABLE_KEYS[table]
            parts.append(cur.execute(
                f"SELECT md5(coalesce(string_agg(CAST(row({cols}) AS VARCHAR), '|' ORDER BY {key}), '')) FROM {table}"
            ).fetchone()[0])
        return "-".join(parts)

