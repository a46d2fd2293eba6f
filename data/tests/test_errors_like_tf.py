"""Every error pipeline of pipelines.py against tf.data itself: the elements and the errors (their
classes, at their positions) of an iterator that goes on after each error, and the elements under
ignore_errors, in the fast mode and in debug mode (skipped where TensorFlow is not installed)."""

import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import ERRORS, SHUFFLED, assert_same_elements, flat_values, outcomes

tf = pytest.importorskip("tensorflow")


def _named(results):
    """``outcomes`` with each error as its class name (messages name each library's own ops)."""
    return [("error", r[1].__name__) if r[0] == "error" else r for r in results]


def _shape(results):
    """Where the errors are and which values come (sorted): what a shuffle with another RNG keeps."""
    return [r if r[0] == "error" else "value" for r in results], sorted(r[1] for r in results if r[0] == "value")


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_and_elements_as_tf_data_raises_and_yields_them(name, debug):
    theirs = _named(outcomes(tf.nest, tf.errors.OpError, iter(ERRORS[name](tf.data.Dataset, tf)), limit=100))
    with txd.debug_mode(debug):
        ours = _named(outcomes(tx.nest, tx.errors.OpError, iter(ERRORS[name](txd.Dataset, tx)), limit=100))
    assert ("error", "InvalidArgumentError") in theirs
    if name in SHUFFLED:
        assert _shape(ours) == _shape(theirs)
    else:
        assert ours == theirs


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_ignore_errors_yields_tf_datas_elements(name, debug):
    theirs = [flat_values(tf.nest, e) for e in ERRORS[name](tf.data.Dataset, tf).ignore_errors()]
    with txd.debug_mode(debug):
        ours = [flat_values(tx.nest, e) for e in ERRORS[name](txd.Dataset, tx).ignore_errors()]
    if name in SHUFFLED:
        ours, theirs = (sorted(e, key=lambda v: [a.tolist() for a in v]) for e in (ours, theirs))
    assert_same_elements(ours, theirs)
