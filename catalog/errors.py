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
