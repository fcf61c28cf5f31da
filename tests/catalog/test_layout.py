"""The store is split by concept and no catalog module passes ~600 lines (issue #20, "Structure")."""

from pathlib import Path

CATALOG = Path(__file__).resolve().parents[2] / "catalog"
MAX_MODULE_LINES = 600  # as tests/test_import_graph.py for engine and domain


def test_no_catalog_module_passes_the_size_limit():
    sizes = {str(p.relative_to(CATALOG)): len(p.read_text().splitlines()) for p in CATALOG.rglob("*.py")}
    assert {"store.py", "storage/duck.py", "storage/postgres.py", "storage/queries.py", "storage/changes.py",
            "storage/workshop.py"} <= set(sizes)
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_the_public_store_names_still_come_from_catalog_store():
    import catalog.store as store

    for name in ("CatalogStore", "OfferFilter", "build_catalog", "resolve_catalog_path", "open_catalog",
                 "open_catalog_for_app", "CatalogBackend", "STALE_AFTER_DAYS", "NOT_STATED", "SCHEMA_VERSION",
                 "MAX_PARTICIPANT_NAME", "workspace_id"):
        assert hasattr(store, name), name
