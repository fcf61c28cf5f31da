"""The worked examples in the engine docstrings (hand-computed and published cases) are executed."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["engine.network", "engine.power", "engine.parallelism", "engine.goodput", "engine.serving",
           "engine.workload", "engine.tco.inputs", "engine.tco.horizon", "engine.tco.uncertainty"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
