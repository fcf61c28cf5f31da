"""Facts of the domain that both the catalog and the engine use, kept once.

``catalog`` and ``engine`` do not import each other (README, "Map of the code"); a constant both need lives
here. Modules in this package import only the standard library (``tests/test_import_graph.py``).
"""
