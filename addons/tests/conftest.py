"""Add-on tests run eagerly (the library default) unless they build a graph themselves; each test
starts from a fresh default graph."""

import pytest

import tensorflux as tx


@pytest.fixture(autouse=True)
def fresh_default_graph():
    tx.reset_default_graph()
    yield
    tx.reset_default_graph()
