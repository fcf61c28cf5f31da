"""The write path: validated, all-or-nothing change sets with a change log, restore, conflicts and roles."""

import json
import threading

import pandas as pd
import pytest

from catalog.errors import CatalogPermissionError, ChangeValidationError, ConflictError, ReadOnlyCatalogError
from catalog.models import ChangeSet, Editor, RowChange
from catalog.store import CatalogStore

ALICE = Editor(name="alice@example.com", role="editor")
BOB = Editor(name="bob@example.com", role="editor")
VIEWER = Editor(name="vera@example.com", role="viewer")
PRICE_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur:on-demand::2026-09-27"


def edited(store, table, key, **changes):
    row = store.row(table, key)
    values = {k: v for k, v in row.items() if k not in ("as_of_date", "row_version", "updated_by")}
    values.update(changes)
    return RowChange(table=table, action="update", key=key, values=values, expected_version=row["row_version"])


def test_valid_edit_lands_with_a_log_entry(store):
    before_version = store.data_version
    result = store.apply_changes(
        ChangeSet(changes=[edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.65)], message="Scaleway cut"),
        ALICE,
    )
    row = store.row("prices", PRICE_ID)
    assert row["amount_per_gpu_hour"] == 2.65 and row["row_version"] == 2 and row["updated_by"] == ALICE.name
    assert store.data_version == before_version + 1
    log = store.change_log(result.change_set_id)
    assert list(log.action) == ["update"]
    assert json.loads(log.before_json[0])["amount_per_gpu_hour"] == 2.87
    assert json.loads(log.after_json[0])["amount_per_gpu_hour"] == 2.65
    sets = store.change_sets(include_private=True).set_index("change_set_id")
    assert sets.loc[result.change_set_id, "editor"] == ALICE.name
    assert sets.loc[result.change_set_id, "message"] == "Scaleway cut"


def test_one_invalid_cell_blocks_the_whole_change_set(store):
    checksum = store.content_checksum()
    good = edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.5)
    bad = edited(store, "providers", "scaleway", parent_jurisdiction="Atlantis")
    with pytest.raises(ChangeValidationError) as info:
        store.apply_changes(ChangeSet(changes=[good, bad], message="mixed"), ALICE)
    (row, column, reason), = info.value.problems
    assert "scaleway" in row and column == "parent_jurisdiction" and "EU" in reason
    assert store.content_checksum() == checksum
    assert store.row("prices", PRICE_ID)["row_version"] == 1


def test_hardware_truth_h100_sxm_is_hbm3(store):
    offer = "azure-h100-sxm-nd96isr-h100-v5-westeurope-nl"
    with pytest.raises(ChangeValidationError, match="H100 SXM has 80 GB HBM3"):
        store.apply_changes(ChangeSet(changes=[edited(store, "offers", offer, memory_type="HBM2e")], message="x"), ALICE)


def test_unknown_gpu_name_is_refused_with_the_alias(store):
    offer = "azure-h100-sxm-nd96isr-h100-v5-westeurope-nl"
    change = edited(store, "offers", offer, gpu_model="H100-SXM5", gpu_spec_id=None)
    with pytest.raises(ChangeValidationError, match="unknown GPU model 'H100-SXM5'.*Did you mean 'H100'"):
        store.apply_changes(ChangeSet(changes=[change], message="x"), ALICE)


def test_implausible_prices_are_warned_not_blocked(store):
    # A reserved price above this offer's on-demand price, and far above the model's median.
    reserved_id = store.list_prices().query("price_type == 'reserved'").price_id.iloc[0]
    offer_id = store.row("prices", reserved_id)["offer_id"]
    result = store.apply_changes(ChangeSet(changes=[
        RowChange(table="prices", action="insert", key="test:on-demand", values={
            "price_id": "test:on-demand", "offer_id": offer_id, "price_type": "on-demand", "amount_per_gpu_hour": 1.0,
            "currency": "USD", "valid_from": "2026-11-01", "source_url": "https://example.com/p",
            "retrieved_at": "2026-11-01", "method": "page"}),
    ], message="add on-demand"), ALICE)
    assert result.warnings == [] or all("median" in w.reason for w in result.warnings)
    result = store.apply_changes(ChangeSet(changes=[edited(store, "prices", reserved_id, amount_per_gpu_hour=60.0)],
                                           message="typo"), ALICE)
    reasons = " ".join(w.reason for w in result.warnings)
    assert "above this offer's on-demand price" in reasons and "far from the" in reasons


def test_restore_returns_the_exact_earlier_state(store):
    original = store.content_checksum()
    store.apply_changes(ChangeSet(changes=[edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.1)], message="a"), ALICE)
    store.apply_changes(ChangeSet(changes=[edited(store, "providers", "scaleway", uptime_sla_pct=99.9)], message="b"), BOB)
    store.apply_changes(ChangeSet(changes=[RowChange(table="gpu_aliases", action="insert", key="H100 SXM5 80GB",
                                                     values={"alias": "H100 SXM5 80GB", "gpu_model": "H100", "form_factor": "SXM"})],
                                  message="c"), BOB)
    assert store.content_checksum() != original
    result = store.restore(0, ALICE)
    assert store.content_checksum() == original
    assert store.change_sets().set_index("change_set_id").loc[result.change_set_id, "kind"] == "restore"
    assert len(store.change_sets()) == 5  # seed, a, b, c, restore: nothing removed from the log


def test_restore_one_row_leaves_the_others(store):
    store.apply_changes(ChangeSet(changes=[edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.1)], message="a"), ALICE)
    store.apply_changes(ChangeSet(changes=[edited(store, "providers", "scaleway", uptime_sla_pct=99.9)], message="b"), ALICE)
    store.restore(0, ALICE, table="prices", key=PRICE_ID)
    assert store.row("prices", PRICE_ID)["amount_per_gpu_hour"] == 2.87
    assert store.row("providers", "scaleway")["uptime_sla_pct"] == 99.9


def test_two_editors_on_the_same_row_one_wins_one_conflicts(store):
    mine = edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.5)
    theirs = edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.6)
    barrier, outcomes = threading.Barrier(2), []

    def save(change, editor):
        barrier.wait()
        try:
            store.apply_changes(ChangeSet(changes=[change], message=editor.name), editor)
            outcomes.append(("ok", editor.name))
        except ConflictError as exc:
            outcomes.append(("conflict", exc.conflicts[0]))

    threads = [threading.Thread(target=save, args=a) for a in [(mine, ALICE), (theirs, BOB)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(o[0] for o in outcomes) == ["conflict", "ok"]
    conflict = next(o[1] for o in outcomes if o[0] == "conflict")
    winner_amount = store.row("prices", PRICE_ID)["amount_per_gpu_hour"]
    assert conflict["theirs"]["amount_per_gpu_hour"] == winner_amount  # both values are shown
    assert conflict["yours"]["amount_per_gpu_hour"] in (2.5, 2.6) and conflict["yours"]["amount_per_gpu_hour"] != winner_amount


def test_edits_to_different_rows_both_succeed(store):
    a = edited(store, "prices", PRICE_ID, amount_per_gpu_hour=2.5)
    b = edited(store, "providers", "scaleway", uptime_sla_pct=99.5)
    store.apply_changes(ChangeSet(changes=[a], message="a"), ALICE)
    store.apply_changes(ChangeSet(changes=[b], message="b"), BOB)
    assert store.row("prices", PRICE_ID)["amount_per_gpu_hour"] == 2.5
    assert store.row("providers", "scaleway")["uptime_sla_pct"] == 99.5


def test_a_viewer_cannot_write_at_the_store(store):
    checksum = store.content_checksum()
    with pytest.raises(CatalogPermissionError, match="only editors"):
        store.apply_changes(ChangeSet(changes=[edited(store, "prices", PRICE_ID, amount_per_gpu_hour=0.1)], message="x"), VIEWER)
    assert store.content_checksum() == checksum


def test_deleting_a_referenced_provider_is_refused_and_changes_nothing(store):
    checksum = store.content_checksum()
    row = store.row("providers", "scaleway")
    with pytest.raises(ChangeValidationError, match="constraint"):
        store.apply_changes(ChangeSet(changes=[RowChange(table="providers", action="delete", key="scaleway",
                                                         expected_version=row["row_version"])], message="x"), ALICE)
    assert store.content_checksum() == checksum


def test_read_only_catalog_refuses_writes(catalog_path):
    with CatalogStore(catalog_path, read_only=True) as ro:
        with pytest.raises(ReadOnlyCatalogError):
            ro.apply_changes(ChangeSet(changes=[edited(ro, "prices", PRICE_ID, amount_per_gpu_hour=1)], message="x"), ALICE)


def _quote(store, expires_on, private=True, amount=1.11):
    offer_id = store.row("prices", PRICE_ID)["offer_id"]
    return RowChange(table="prices", action="insert", key=f"quote-{expires_on}", values={
        "price_id": f"quote-{expires_on}", "offer_id": offer_id, "price_type": "quote", "amount_per_gpu_hour": amount,
        "currency": "EUR", "valid_from": "2026-11-01", "source_url": "https://example.com/quote.pdf",
        "retrieved_at": "2026-11-01", "method": "quote", "is_private": private, "expires_on": expires_on})


def test_private_quotes_reach_editors_until_they_expire_and_never_viewers(store):
    import datetime as dt

    store.apply_changes(ChangeSet(changes=[_quote(store, "2027-01-31")], message="negotiated"), ALICE)
    offer_id = store.row("prices", PRICE_ID)["offer_id"]

    def quote(include_private, today):
        df = store.list_offers(usd_per_eur=1.0, today=today, include_private=include_private).set_index("offer_id")
        return df.loc[offer_id, "quote_eur_per_gpu_hour"]

    assert quote(False, dt.date(2026, 12, 2)) != quote(False, dt.date(2026, 12, 2))  # NaN: viewers never see it
    assert quote(True, dt.date(2026, 12, 2)) == 1.11
    assert quote(True, dt.date(2027, 2, 1)) != quote(True, dt.date(2027, 2, 1))  # expired
    assert "quote-2027-01-31" not in set(store.editable_rows("prices", include_private=False).price_id)


def test_a_private_price_needs_an_expiry_date(store):
    change = _quote(store, None)
    with pytest.raises(ChangeValidationError, match="expiry date"):
        store.apply_changes(ChangeSet(changes=[change], message="x"), ALICE)


def test_a_certification_fact_edit_updates_the_provider_column_in_the_same_change_set(store):
    assert store.row("providers", "nebius")["certifications"] == ""
    fact = {"fact_id": "nebius:certifications", "provider_id": "nebius", "field": "certifications",
            "value": "ISO27001; SOC2", "source_url": "https://nebius.com/trust-center", "as_of": "2026-12-01",
            "verification_status": "verified", "notes": "test"}
    result = store.apply_changes(ChangeSet(changes=[RowChange(table="provider_facts", action="insert",
                                                              key=fact["fact_id"], values=fact)],
                                           message="Nebius audits done"), ALICE)
    provider = store.row("providers", "nebius")
    assert provider["certifications"] == "ISO27001;SOC2" and provider["updated_by"] == ALICE.name
    log = store.change_log(result.change_set_id)
    assert list(zip(log.table_name, log.action, strict=True)) == [("provider_facts", "insert"), ("providers", "update")]
    # Deleting the fact leaves nothing on record; restoring brings the value back.
    row = store.row("provider_facts", "nebius:certifications")
    store.apply_changes(ChangeSet(changes=[RowChange(table="provider_facts", action="delete", key="nebius:certifications",
                                                     expected_version=row["row_version"])], message="withdrawn"), ALICE)
    assert store.row("providers", "nebius")["certifications"] == ""
    store.restore(result.change_set_id, ALICE)
    assert store.row("providers", "nebius")["certifications"] == "ISO27001;SOC2"


def test_a_seat_fact_with_a_bad_country_code_is_refused_and_nothing_changes(store):
    checksum = store.content_checksum()
    bad = edited(store, "provider_facts", "nebius:legal_seat_country", value="Netherlands")
    with pytest.raises(ChangeValidationError, match="ISO 3166"):
        store.apply_changes(ChangeSet(changes=[bad], message="x"), ALICE)
    assert store.content_checksum() == checksum and store.row("providers", "nebius")["legal_seat_country"] == "NL"


#: A Scaleway offer the seed leaves "not stated" on dedicated hardware.
NOT_STATED_OFFER = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur"


def test_dedicated_hardware_round_trips_with_its_source_and_is_refused_without(store):
    """#29 on both backends: a dedicated-hardware value without its source and date is refused (nothing saved);
    with them it is stored, read back and listed as the offer's ``is_dedicated``."""
    checksum = store.content_checksum()
    with pytest.raises(ChangeValidationError, match="is_dedicated_hardware is stated without"):
        store.apply_changes(ChangeSet(changes=[edited(store, "offers", NOT_STATED_OFFER, is_dedicated_hardware=True)],
                                      message="no source"), ALICE)
    assert store.content_checksum() == checksum
    listed = store.list_offers(usd_per_eur=1.1).set_index("offer_id")
    assert listed.loc[NOT_STATED_OFFER, "is_dedicated"] is pd.NA  # not stated stays not stated
    store.apply_changes(ChangeSet(changes=[edited(store, "offers", NOT_STATED_OFFER, is_dedicated_hardware=False,
                                                  dedicated_source_url="https://www.scaleway.com/en/h100/",
                                                  dedicated_as_of="2026-11")], message="shared"), ALICE)
    row = store.row("offers", NOT_STATED_OFFER)
    assert (bool(row["is_dedicated_hardware"]), row["dedicated_source_url"], row["dedicated_as_of"]) == (
        False, "https://www.scaleway.com/en/h100/", "2026-11")
    listed = store.list_offers(usd_per_eur=1.1).set_index("offer_id")
    assert listed.loc[NOT_STATED_OFFER, "is_dedicated"] == False  # noqa: E712 (a nullable boolean)
    assert listed.loc[NOT_STATED_OFFER, "dedicated_source_url"] == "https://www.scaleway.com/en/h100/"
    assert bool(listed.loc["oracle-h100-sxm-bm-gpu-h100-8-all-commercial-regions", "is_dedicated"])
