"""Core functions the add-on needs that a given tensorflux may not have yet (Note [Core
functions]).

Note [Core functions]: some distributions need special functions and samplers that belong in
core (``tx.math.igamma``, ``tx.math.betainc``, ``tx.random.stateless_gamma``, ...): they are ops
with kernels and gradients, not Python. The add-on calls them only by their public names, through
``require``, so a core that lacks one fails with a NotImplementedError naming the missing function
and the method that needs it, while everything else keeps working; ``has`` lets tests skip.
"""

import tensorflux as tx


def _lookup(dotted):
    obj = tx
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, ImportError):
            return None
    return obj


def has(dotted):
    """True when the public core function ``tx.<dotted>`` exists (e.g. ``"math.igamma"``)."""
    return _lookup(dotted) is not None


def require(dotted, needed_by):
    """The public core function ``tx.<dotted>``; NotImplementedError naming it and ``needed_by``
    when this tensorflux does not provide it."""
    fn = _lookup(dotted)
    if fn is None:
        raise NotImplementedError("%s needs tx.%s, which this tensorflux (%s) does not provide yet"
                                  % (needed_by, dotted, tx.__version__))
    return fn
