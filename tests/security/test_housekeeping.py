"""Issue #15 item 9: the secrets file is never committed, and a missing catalog in an unwritable folder falls
back to the embedded read-only seed (as README "Configuration" says) instead of raising."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from catalog.store import CatalogStore

ROOT = Path(__file__).resolve().parents[2]


def test_the_secrets_file_is_ignored_by_git():
    patterns = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    assert ".streamlit/secrets.toml" in patterns
    if shutil.which("git") and (ROOT / ".git").exists():
        probe = subprocess.run(["git", "check-ignore", "-q", ".streamlit/secrets.toml"], cwd=ROOT)
        assert probe.returncode == 0


def _unwritable_existing_folder() -> Path:
    """/sys refuses new files even to root (a chmod'ed temp folder does not stop root)."""
    folder = Path("/sys")
    probe = folder / f".gpu-advisor-probe-{os.getpid()}"
    try:
        probe.touch()
    except OSError:
        return folder
    probe.unlink()
    pytest.skip("needs Linux /sys as a folder nobody can create files in")


def test_a_missing_catalog_in_an_unwritable_folder_opens_the_seed_read_only():
    target = _unwritable_existing_folder() / "gpu-advisor-catalog.duckdb"
    assert not target.exists()
    store, notice = CatalogStore.open_for_app(target)
    try:
        assert store.read_only
        assert store.path != target
        assert "could not be created" in notice and "embedded seed" in notice
        assert len(store.list_offers(usd_per_eur=1.0411)) > 100
    finally:
        store.close()
    assert not target.exists()


def test_the_app_shows_the_seed_when_the_catalog_folder_is_unwritable(monkeypatch):
    target = _unwritable_existing_folder() / "gpu-advisor-catalog.duckdb"
    monkeypatch.setenv("GPU_ADVISOR_CATALOG", str(target))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.switch_page("app_pages/providers.py").run()
    assert not at.exception, at.exception
    assert any("could not be created" in w.value and "embedded seed" in w.value for w in at.warning)
