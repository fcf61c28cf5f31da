"""Fault tests: a read-only, missing-and-unwritable, or locked catalog gives a clear message and a read-only
mode instead of a crash."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def providers_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.switch_page("app_pages/providers.py").run()
    return at


def _offers_shown(at: AppTest) -> int:
    """Offers listed on Providers with every filter cleared (the client brief narrows them on a first visit)."""
    at.button(key="prov_clear").click().run()
    line = next(m.value for m in at.markdown if "** from" in m.value)
    return int(line.split("**")[1].split()[0])


def test_read_only_file_gives_read_only_mode(catalog_path, monkeypatch):
    monkeypatch.setattr("catalog.store.os.access", lambda path, mode: False)
    at = providers_page()
    assert not at.exception
    assert any("Read-only mode" in w.value and "not writable" in w.value for w in at.warning)
    assert _offers_shown(at) > 100


def test_missing_file_in_an_unwritable_folder_shows_the_seed_read_only(tmp_path, monkeypatch):
    target = tmp_path / "no-such-dir" / "catalog.duckdb"
    monkeypatch.setenv("GPU_ADVISOR_CATALOG", str(target))
    real_mkdir = Path.mkdir

    def refuse(self, *a, **k):
        if self == target.parent:
            raise PermissionError(13, "Permission denied")
        return real_mkdir(self, *a, **k)

    monkeypatch.setattr(Path, "mkdir", refuse)
    at = providers_page()
    assert not at.exception
    assert any("could not be created" in w.value and "embedded seed" in w.value for w in at.warning)
    assert _offers_shown(at) > 100
    assert not target.exists()


@pytest.fixture
def locked(catalog_path):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, time
        con = duckdb.connect({str(catalog_path)!r})
        print("locked", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    yield holder
    holder.kill()
    holder.wait()


def test_locked_file_shows_a_snapshot_and_names_the_holder(catalog_path, locked):
    at = providers_page()
    assert not at.exception
    warning = next(w.value for w in at.warning if "Read-only mode" in w.value)
    assert f"process {locked.pid}" in warning and "snapshot" in warning
    assert _offers_shown(at) > 100
    at.switch_page("app_pages/editor.py").run()
    assert not at.exception
    assert any("read-only on this server" in w.value for w in at.warning)
    assert not [b for b in at.button if b.label == "Save changes"]
