"""What a rerun no longer does (issue #31): query the catalog version on every read (held in memory for a stated
bound; a save through the UI clears it at once), copy the offer frames per session (shared, and no session's
change reaches another), build the Editor's exports, or turn the whole offers frame into records for labels."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from catalog.models import ChangeSet, Editor, RowChange
from catalog.store import CatalogStore, OfferFilter
from engine.adapters import price_outlier_columns


def _delete_alias(catalog_path) -> None:
    with CatalogStore(catalog_path) as s:
        row = s.row("gpu_aliases", "H100-SXM5")
        s.apply_changes(ChangeSet(changes=[RowChange(table="gpu_aliases", action="delete", key="H100-SXM5",
                                                     expected_version=row["row_version"])], message="meanwhile"),
                        Editor(name="bob", role="editor"))


def test_data_version_is_held_within_the_bound_and_cleared_by_a_ui_save(catalog_path, monkeypatch):
    from ui import catalog

    before = catalog.data_version()
    _delete_alias(catalog_path)  # another process's save: the store's own version moves at once
    with CatalogStore(catalog_path) as s:
        assert s.data_version == before + 1
    assert catalog.data_version() == before  # held: no query on this read
    st.cache_data.clear()  # what the editor does after every save through the UI
    assert catalog.data_version() == before + 1
    assert catalog.DATA_VERSION_HOLD_SECONDS <= 5  # the bound the README states


def test_held_version_expires_after_the_bound(catalog_path, monkeypatch):
    import time

    from ui import catalog

    before = catalog.data_version()
    _delete_alias(catalog_path)
    time.sleep(catalog.DATA_VERSION_HOLD_SECONDS + 0.2)
    assert catalog.data_version() == before + 1


def test_shared_offer_frame_equals_the_per_call_frame_and_a_caller_cannot_change_it(catalog_path):
    from ui import catalog

    path, today, usd = catalog.catalog_location(), dt.date(2026, 12, 4), 1.08
    version = catalog.data_version()
    narrow = OfferFilter(eu_datacenter_only=True)
    got = catalog.offers_frame(path, version, narrow, usd, today)
    with CatalogStore(path) as s:  # the frame as it was built per call before: flags judged on the whole catalog
        frame = s.list_offers(narrow, usd_per_eur=usd, today=today)
        whole = s.list_offers(OfferFilter(), usd_per_eur=usd, today=today)
    flags = price_outlier_columns(whole).set_axis(whole["offer_id"]).reindex(frame["offer_id"])
    expected = pd.concat([frame, flags.set_axis(frame.index)], axis=1)
    assert 0 < len(got) < len(whole)
    pd.testing.assert_frame_equal(got, expected)
    got["provider_name"] = "changed by one session"
    got.loc[got.index[0], "on_demand_eur_per_gpu_hour"] = -1.0
    again = catalog.offers_frame(path, version, narrow, usd, today)
    pd.testing.assert_frame_equal(again, expected)


def test_editor_builds_the_table_csv_and_the_catalog_workbook_only_on_request(catalog_path, monkeypatch):
    """A rerun of the Editor page builds neither export (issue #31): both are Streamlit deferred downloads,
    built when the button is clicked (the browser test test_private_quotes_browser downloads both)."""
    import catalog.importer as importer
    from tests.app.test_editor import editor_page

    built = []
    monkeypatch.setattr(importer, "export_csv", lambda *a, **k: built.append("csv") or "")
    monkeypatch.setattr(importer, "export_excel", lambda *a, **k: built.append("xlsx") or b"")
    at = editor_page()
    at.run()
    assert not at.exception, at.exception
    labels = [e.proto.label for e in at.get("download_button")]
    assert "Download table (CSV)" in labels and "Download whole catalog (Excel)" in labels
    assert built == []
    at.switch_page("app_pages/providers.py").run()  # the filtered offers' CSV, too
    assert not at.exception, at.exception
    assert "Download these offers (CSV)" in [e.proto.label for e in at.get("download_button")]
    assert built == []


def test_editor_reads_its_tables_once_per_catalog_version(catalog_path, monkeypatch):
    """A rerun of the Editor after an input change (the exchange rate) queries none of its tables or the
    re-verification list again (issue #31: 86 -> 55 ms CPU); a save through the UI (which clears every cached
    read) makes the next run read them again."""
    from tests.app.test_editor import editor_page

    calls: list[str] = []
    for name in ("editable_rows", "stale_rows"):
        original = getattr(CatalogStore, name)

        def counting(self, *a, _original=original, _name=name, **k):
            calls.append(_name)
            return _original(self, *a, **k)

        monkeypatch.setattr(CatalogStore, name, counting)
    at = editor_page()
    assert not at.exception, at.exception
    assert "editable_rows" in calls and "stale_rows" in calls
    calls.clear()
    at.number_input(key="_usd_per_eur").set_value(1.2).run()
    assert not at.exception, at.exception
    assert calls == []
    st.cache_data.clear()
    at.run()
    assert "editable_rows" in calls and "stale_rows" in calls


def test_labels_and_flags_read_only_the_columns_they_narrow_the_frame_to():
    """picker_labels and price_is_stale narrow the offers frame to ROW_COLUMNS before building records (issue
    #31: the whole frame's 60-odd columns made that the largest cost of the TCO and placement pickers); a key the
    label or flag functions read outside that list would silently read None."""
    from ui import offer_scope

    class Row(dict):
        read: set[str] = set()

        def get(self, key, default=None):
            Row.read.add(key)
            return super().get(key, default)

    row = Row(offer_id="o", provider_name="P", gpu_model="H100", form_factor="SXM", gpus_per_node=8, region="r",
              price_outlier=True, price_retrieved_at=None, as_of_date=None, as_of="2020-01-01")
    offer_scope.picker_label(row)
    offer_scope.flags_text(row)
    offer_scope.price_age_days(row)
    assert Row.read and Row.read <= set(offer_scope.ROW_COLUMNS)
    frame = pd.DataFrame([dict(row), {**row, "region": "s", "price_outlier": False, "extra": 1}])
    labels = offer_scope.picker_labels(frame)
    assert list(labels) == [offer_scope.picker_label(r) for r in frame.to_dict("records")]
    assert offer_scope.price_is_stale(frame).tolist() == [True, True]


def test_pages_without_placement_do_not_load_scipys_milp(catalog_path):
    """The first visit to Home and TCO in a new server process loads no scipy.optimize / scipy.sparse (about
    0.3-0.4 s of CPU at cold start, issue #31): only a placement solve imports them."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys; from streamlit.testing.v1 import AppTest; "
            f"at = AppTest.from_file({str(root / 'app.py')!r}, default_timeout=120); at.run(); "
            "at.switch_page('app_pages/tco.py').run(); assert not at.exception, at.exception; "
            "print(sorted(m for m in ('scipy.optimize', 'scipy.sparse') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def _fragment_rerun(at, fragment_id: str) -> None:
    """Rerun only the fragment ``fragment_id``, as the server does when a widget inside it changes (AppTest
    itself always reruns the whole script)."""
    from streamlit.testing.v1 import local_script_runner

    real = local_script_runner.RerunData
    local_script_runner.RerunData = lambda **kw: real(**kw, fragment_id_queue=[fragment_id])
    try:
        at.run()
    finally:
        local_script_runner.RerunData = real


def _monte_carlo_output(at) -> tuple[str, str]:
    text = next(m.value for m in at.markdown if "draws of the uncertain inputs" in m.value)
    chart = next(e.proto.spec for e in at.get("plotly_chart") if e.proto.id and "tco_mc_bands" in e.proto.id)
    return text, chart


def test_tco_monte_carlo_fragment_rerun_gives_the_full_reruns_output(catalog_path, monkeypatch):
    """Changing the number of draws reruns the Monte Carlo block alone (the TCO evaluation above it does not
    run), and what it draws equals a full rerun's output for the same inputs."""
    from tests.app.conftest import open_page
    from ui import tco_view
    from ui.scenario import SCENARIO_KEY

    at = open_page("app_pages/tco.py")
    fragments = list(at._fragment_storage._fragments)
    assert len(fragments) == 1, fragments
    verdicts = []
    real_verdict = tco_view.verdict
    monkeypatch.setattr(tco_view, "verdict", lambda *a, **k: verdicts.append(1) or real_verdict(*a, **k))
    at.select_slider(key="tco_draws").set_value(50_000)
    _fragment_rerun(at, fragments[0])
    assert not at.exception, at.exception
    assert verdicts == []  # the rest of the page did not run
    fragment_output = _monte_carlo_output(at)
    assert "Over 50,000 draws" in fragment_output[0]
    assert at.session_state[SCENARIO_KEY].tco.mc_draws == 50_000  # the scenario (exports, link) follows
    at.run()  # the full rerun, same state
    assert verdicts == [1]
    assert _monte_carlo_output(at) == fragment_output
    assert at.session_state["tco_draws"] == 50_000


def test_moving_the_utilisation_reuses_the_monte_carlo_bands():
    """The bands over the utilisation grid set the utilisation at every grid point, so a new utilisation draws only
    the Monte Carlo at it (1 run, not 1 + 19) and the bands are the ones drawn at the old utilisation (#31)."""
    from engine.tco import TcoInputs, default_monte_carlo_ranges
    from ui import tco_view

    calls: list[float] = []
    real = tco_view.monte_carlo

    def counted(inputs, **kwargs):
        calls.append(inputs.utilisation_fraction)
        return real(inputs, **kwargs)

    st.cache_data.clear()
    tco_view.monte_carlo = counted
    try:
        inputs = TcoInputs()
        ranges = tuple((name, *r) for name, r in default_monte_carlo_ranges(inputs).items())
        mc, bands = tco_view.cached_monte_carlo(inputs, ranges, 2_000)
        assert len(calls) == 20
        moved = inputs.model_copy(update={"utilisation_fraction": 0.61})
        mc_moved, bands_moved = tco_view.cached_monte_carlo(moved, ranges, 2_000)
    finally:
        tco_view.monte_carlo = real
    assert calls[20:] == [0.61]  # only the Monte Carlo at the new utilisation
    pd.testing.assert_frame_equal(bands_moved, bands)
    assert mc_moved.percentiles_eur_per_useful_gpu_hour != mc.percentiles_eur_per_useful_gpu_hour
