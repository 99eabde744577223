"""The examples in the scorer docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "scorer",
    "scorer.core",
    "scorer.fields",
    "scorer.bigtop",
    "scorer.bigtop.cards",
    "scorer.bigtop.engine",
    "scorer.bigtop.observe",
    "scorer.carcassonne",
    "scorer.grand_carnival.components",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
