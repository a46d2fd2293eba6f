"""Data tests run eagerly (the library default); each test starts from a fresh default graph."""

import pytest

import tensorflux as tx


@pytest.fixture(autouse=True)
def fresh_default_graph():
    tx.reset_default_graph()
    yield
    tx.reset_default_graph()
