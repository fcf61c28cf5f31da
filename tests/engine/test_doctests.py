"""The worked examples in the engine docstrings (hand-computed and published cases) are executed.

Every module of the ``engine`` package is collected; a module listed in :data:`NO_EXAMPLES` has none (a
module that loses all its examples, or gains some while listed there, fails here).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine."))
#: Modules without worked examples (package re-exports, private helpers, result containers).
NO_EXAMPLES = {
    "engine.fast",  # each trick is checked against its plain version in test_fast.py
    "engine.placement", "engine.placement.eligibility", "engine.placement.milp", "engine.placement.plan",
    "engine.scoring", "engine.scoring.presets", "engine.tco", "engine.workload", "engine.workload.common",
    "engine.workload.results", "engine.workload.accuracy_runs",
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert (result.attempted > 0) == (name not in NO_EXAMPLES), "update NO_EXAMPLES"
