"""Shared fixtures: every test starts with a fresh default graph."""

import pytest

import tensorflux as tx


@pytest.fixture(autouse=True)
def fresh_default_graph():
    tx.reset_default_graph()
    yield
    tx.reset_default_graph()


@pytest.fixture
def sess():
    """A session on the default graph (operations added later are usable in its runs)."""
    with tx.Session() as s:
        yield s
