"""The catalog store, split by concept (issue #20) with two backends (issue #21).

* :mod:`.common` — constants, the table map, row helpers, :class:`~.common.StoreBase` (the backend hooks);
* :mod:`.interface` — :class:`~.interface.CatalogBackend`, the storage interface the UI uses;
* :mod:`.queries` — reads (DuckDB SQL); :mod:`.changes` — change sets, restore, renames;
  :mod:`.workshop` — workspaces, scenarios, votes;
* :mod:`.duck` — the embedded DuckDB file (default); :mod:`.postgres` — a shared PostgreSQL database.

``catalog.store`` re-exports the public names; import from there.
"""
