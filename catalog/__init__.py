"""The GPU cloud catalog: pydantic models, DuckDB schema and store, and the sourced seed data."""
