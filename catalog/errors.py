"""Errors the catalog raises. Each carries a message written for the person reading it in the app."""


class CatalogError(Exception):
    """Base class: ``str(error)`` is a complete, user-facing message."""


class SeedError(CatalogError):
    """A seed row failed validation (the message names file, line and field)."""


class CatalogCorruptError(CatalogError):
    """The catalog file exists but is not a readable DuckDB database."""


class SchemaVersionError(CatalogError):
    """The catalog was written by another schema version of the app."""


class CatalogLockedError(CatalogError):
    """Another process holds the DuckDB file (DuckDB allows one writer process, which locks out readers)."""


class ReadOnlyCatalogError(CatalogError):
    """A write was attempted on a catalog opened read-only."""


class CatalogPermissionError(CatalogError):
    """The writer does not hold the editor role (checked at the store, not only in the UI)."""


class ChangeValidationError(CatalogError):
    """A change set failed validation; nothing was written. ``problems`` lists (row, column, reason)."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.problems = problems
        lines = "; ".join(f"{row} · {col}: {reason}" for row, col, reason in problems[:20])
        more = f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""
        super().__init__(f"Nothing was saved: {len(problems)} problem(s): {lines}{more}")


class ConflictError(CatalogError):
    """Someone else changed a row since it was loaded; nothing was written.

    ``conflicts`` lists dicts with table, key, expected_version, current_version, theirs, yours.
    """

    def __init__(self, conflicts: list[dict]):
        self.conflicts = conflicts
        keys = ", ".join(f"{c['table']}:{c['key']}" for c in conflicts[:10])
        super().__init__(
            f"Nothing was saved: {len(conflicts)} row(s) were changed by someone else since you loaded them "
            f"({keys}). Reload to see their values, then apply your edit again."
        )


class StaleChangeSetError(CatalogError):
    """A previewed change set was applied after the catalog changed; nothing was written (preview again)."""


class CatalogUnavailableError(CatalogError):
    """The catalog database cannot be reached now (PostgreSQL restarting, network); a retry may succeed."""
