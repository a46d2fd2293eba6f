"""Shared fixtures: every test starts with a fresh default graph. Tests run in graph mode (as
TensorFlow's run_deprecated_v1 tests do) unless marked ``eager`` (``pytestmark = pytest.mark.eager``
for a whole file)."""

import pytest

import tensorflux as tx


def pytest_configure(config):
    config.addinivalue_line("markers", "eager: run the test with eager execution enabled (the library default)")


@pytest.fixture(autouse=True)
def fresh_default_graph(request):
    if request.node.get_closest_marker("eager") is None:
        tx.compat.v1.disable_eager_execution()
    tx.reset_default_graph()
    yield
    tx.reset_default_graph()
    tx.compat.v1.enable_eager_execution()


@pytest.fixture
def sess():
    """A session on the default graph (operations added later are usable in its runs)."""
    with tx.Session() as s:
        yield s
