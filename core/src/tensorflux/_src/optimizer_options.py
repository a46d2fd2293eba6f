"""``tx.config.optimizer``: process-wide plan rewrite options (TensorFlow's
``tf.config.optimizer.set_experimental_options``)."""

from tensorflux._src import lib

# The options the engine has, by TensorFlow's names: "remapping" fuses Conv2D epilogues and groups
# of connected elementwise ops into one kernel (Note [Loop fusion]).
_OPTIONS = ("remapping",)


def set_experimental_options(options):
    """Turns plan rewrites on or off for plans built afterwards (session signatures first run, and
    functions first called, after the change); ``options`` maps option names to bools. The one
    option is ``"remapping"`` (on at start): a Conv2D and the bias, activation and residual ops after
    it run as one kernel, and so does each group of connected elementwise ops. Results are the
    same either way; a session's ``ConfigProto.graph_options.rewrite_options.remapping`` overrides
    this for that session.

    >>> tx.config.optimizer.set_experimental_options({"remapping": False})
    >>> tx.config.optimizer.get_experimental_options()
    {'remapping': False}
    >>> tx.config.optimizer.set_experimental_options({"remapping": True})
    """
    for name in options:
        if name not in _OPTIONS:
            raise ValueError(f"Unknown optimizer option {name!r}; the options are {', '.join(_OPTIONS)}")
    for name, enabled in options.items():
        lib.c.set_optimizer_option(name, bool(enabled))


def get_experimental_options():
    """The current value of each option ``set_experimental_options`` takes.

    >>> tx.config.optimizer.get_experimental_options()
    {'remapping': True}
    """
    return {name: lib.c.get_optimizer_option(name) for name in _OPTIONS}
