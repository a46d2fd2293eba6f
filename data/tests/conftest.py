"""Data tests run eagerly (the library default); each test starts from a fresh default graph and
without global random seeds (Dataset.random and sample_from_datasets derive theirs from them, in
tf.data as here)."""

import sys

import pytest

import tensorflux as tx


def _clear_global_seeds():
    tx.random.set_seed(None)
    if "tensorflow" in sys.modules:
        sys.modules["tensorflow"].random.set_seed(None)


@pytest.fixture(autouse=True)
def fresh_default_graph():
    tx.reset_default_graph()
    _clear_global_seeds()
    yield
    tx.reset_default_graph()
    _clear_global_seeds()
