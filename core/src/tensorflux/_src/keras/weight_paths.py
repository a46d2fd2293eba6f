"""Where each weight of a model lives in a saved file (Note [Weight paths]), and reading the
weights of Keras 3's HDF5 files.

Note [Weight paths]
Keras 3 stores a model's state by walking it: a Sequential or functional model's `layers` list
first (each layer under ``layers/<class name in snake case>``, numbered ``_1``, ``_2``, ... when
repeated in the list), then every other attribute in sorted order (public names before private
ones; those a bare Layer has are skipped), each object once. A layer's own weights are
``<path>/vars/<i>`` in creation order, trainable ones first; sublayers held in attributes nest
under the attribute's name (``layers/lstm/cell/vars/0``). tx.keras layers keep Keras's attribute
names for their sublayers, so the same walk gives the same paths: our safetensors keys are Keras's
HDF5 dataset paths, and a Keras file's weights are found by path.
"""

import numpy as np

from tensorflux._src.keras import naming
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.model import Model
from tensorflux._src.keras.functional import Functional
from tensorflux._src.keras.sequential import Sequential

_SKIP = None


def _skipset():
    global _SKIP
    if _SKIP is None:
        base = Layer(name="__weight_paths_probe__")
        model = Model(name="__weight_paths_probe_model__")
        _SKIP = set(dir(base)) | set(dir(model)) | {"_inbound_nodes", "_graph", "_input_layer", "_stack",
                                                    "_layers_list", "_nodes", "_functional_variant"}
    return _SKIP


def _name_key(name):
    return "~" + name if name.startswith("_") else name


def _children(obj):
    if isinstance(obj, (Sequential, Functional)):
        yield "layers", obj.layers
    skip = _skipset()
    for name in sorted((n for n in dir(obj) if not n.startswith("__") and n not in skip), key=_name_key):
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - properties that cannot be read now are not state
            continue
        yield name, value


def layer_weight_paths(model):
    """{path: Variable} of every weight of ``model`` (Note [Weight paths]), in walk order."""
    return _walk(model)[0]


def layer_paths(model):
    """{path: layer} of ``model`` and every layer in it (Note [Weight paths]), in walk order."""
    return _walk(model)[1]


def own_values(model):
    """{path: array} of the values layers save besides their weights (Keras's
    ``save_own_variables``: a tf_idf lookup's ``idf_weights``), under ``<layer path>/vars/<key>``."""
    out = {}
    for path, layer in layer_paths(model).items():
        if hasattr(layer, "save_own_variables"):
            store = {}
            layer.save_own_variables(store)
            out.update({"%s/%s" % (_join(path, "vars"), k): np.asarray(v) for k, v in store.items()})
    return out


def load_own_values(model, values, apply=True):
    """Gives each layer with ``load_own_variables`` its entries of ``values`` (by key; only finds
    them when not ``apply``); returns the paths used."""
    used = set()
    for path, layer in layer_paths(model).items():
        if hasattr(layer, "load_own_variables"):
            prefix = _join(path, "vars") + "/"
            store = {k[len(prefix):]: v for k, v in values.items() if k.startswith(prefix)
                     and not k[len(prefix):].isdigit()}
            if apply:
                layer.load_own_variables(store)
            used.update(prefix + k for k in store)
    return used


def _walk(model):
    out, layers, visited = {}, {}, set()

    def visit(layer, path):
        if id(layer) in visited:
            return
        visited.add(id(layer))
        layers[path] = layer
        for i, v in enumerate(layer._own_weights()):
            out["%s/%d" % (_join(path, "vars"), i)] = v
        for attr, child in _children(layer):
            if isinstance(child, Layer):
                visit(child, _join(path, attr))
            elif isinstance(child, (list, tuple)) and child and any(isinstance(c, Layer) for c in child):
                used = {}
                for c in child:
                    if not isinstance(c, Layer):
                        continue
                    base = naming.to_snake_case(type(c).__name__)
                    n = used.get(base, 0)
                    used[base] = n + 1
                    name = base if n == 0 else "%s_%d" % (base, n)
                    if id(c) not in visited:
                        visit(c, _join(_join(path, attr), name))
            elif isinstance(child, dict) and child and any(isinstance(c, Layer) for c in child.values()):
                for key in sorted(child, key=str):
                    if isinstance(child[key], Layer):
                        visit(child[key], _join(_join(path, attr), str(key)))
    visit(model, "")
    return out, layers


def _join(a, b):
    return b if not a else a + "/" + b


def read_h5_weights(path_or_file):
    """{dataset path: array} of a Keras 3 ``.weights.h5`` file (h5py, installed with Keras)."""
    try:
        import h5py
    except ImportError as e:
        raise ImportError("Reading a Keras HDF5 weights file needs h5py (pip install h5py)") from e
    out = {}
    with h5py.File(path_or_file, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = np.array(obj)
        f.visititems(visit)
    return out
