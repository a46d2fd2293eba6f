"""Module-level ``__getattr__`` for public modules: a missing name that TensorFlow 2 has says so.

``tx.foo`` for a name Tensorflux lacks raises ``AttributeError``; when ``tf.foo`` exists in
TensorFlow the message says it is not implemented here (instead of Python's "Did you mean ...?"
guess, which points at an unrelated name). TensorFlow's names come from the checked-in list
``tf_api_names.py``, written by ``tools/api_coverage.py``, so no TensorFlow import is needed.
"""

# The TensorFlow 2 namespace each public Tensorflux module mirrors (tools/api_coverage.py reports
# coverage per entry; a Tensorflux module named here need not exist yet).
TF_NAMESPACE_OF = {
    "tensorflux": "tf",
    "tensorflux.math": "tf.math",
    "tensorflux.nn": "tf.nn",
    "tensorflux.linalg": "tf.linalg",
    "tensorflux.dtypes": "tf.dtypes",
    "tensorflux.bitwise": "tf.bitwise",
    "tensorflux.random": "tf.random",
    "tensorflux.signal": "tf.signal",
    "tensorflux.image": "tf.image",
    "tensorflux.sparse": "tf.sparse",
    "tensorflux.strings": "tf.strings",
    "tensorflux.lookup": "tf.lookup",
    "tensorflux.io": "tf.io",
    "tensorflux.nest": "tf.nest",
    "tensorflux.config": "tf.config",
    "tensorflux.debugging": "tf.debugging",
    "tensorflux.errors": "tf.errors",
    "tensorflux.train": "tf.train",
    "tensorflux.initializers": "tf.keras.initializers",
    "tensorflux.losses": "tf.keras.losses",
    "tensorflux.optimizers": "tf.keras.optimizers",
    "tensorflux.autograph": "tf.autograph",
    "tensorflux.autograph.experimental": "tf.autograph.experimental",
    "tensorflux.keras": "tf.keras",
    "tensorflux.keras.layers": "tf.keras.layers",
    "tensorflux.keras.models": "tf.keras.models",
    "tensorflux.keras.callbacks": "tf.keras.callbacks",
    "tensorflux.keras.metrics": "tf.keras.metrics",
    "tensorflux.keras.losses": "tf.keras.losses",
    "tensorflux.keras.optimizers": "tf.keras.optimizers",
    "tensorflux.keras.activations": "tf.keras.activations",
    "tensorflux.keras.initializers": "tf.keras.initializers",
    "tensorflux.keras.regularizers": "tf.keras.regularizers",
    "tensorflux.keras.constraints": "tf.keras.constraints",
    "tensorflux.keras.mixed_precision": "tf.keras.mixed_precision",
    "tensorflux.keras.utils": "tf.keras.utils",
    "tensorflux.keras.saving": "tf.keras.saving",
}


def _tx_spelling(module_name):
    """``tensorflux.math`` -> ``tx.math`` (the spelling users write)."""
    return "tx" + module_name[len("tensorflux"):]


def missing_attribute_error(module_name, name):
    """The ``AttributeError`` for ``name`` missing from public module ``module_name``."""
    message = "module %r has no attribute %r" % (module_name, name)
    namespace = TF_NAMESPACE_OF.get(module_name)
    if namespace is not None and not name.startswith("_"):
        from tensorflux._src.tf_api_names import NAMES

        if name in NAMES.get(namespace, ()):
            message += ": `%s.%s` is not implemented in Tensorflux (TensorFlow has `%s.%s`)" % (
                _tx_spelling(module_name), name, namespace, name)
    error = AttributeError(message)
    # Python >= 3.10 adds "Did you mean ...?" from these fields; the message above replaces that.
    error.name, error.obj = None, None
    return error


def module_getattr(module_name):
    """A ``__getattr__`` for module ``module_name`` that raises `missing_attribute_error`."""

    def __getattr__(name):
        raise missing_attribute_error(module_name, name)

    return __getattr__
