"""`Functional`: a model that is a graph of layer calls on KerasTensors (``Model(inputs, outputs)``),
run by replaying the calls on real tensors; its config is Keras 3's (layers with their inbound
nodes), so Keras-made functional models load here and the other way round."""

import collections

from tensorflux._src import math_ops
from tensorflux._src.keras import masking
from tensorflux._src.keras import serialization
from tensorflux._src.keras.input_spec import InputSpec, assert_input_compatibility
from tensorflux._src.keras.keras_tensor import InputLayer, KerasTensor, trace_output_spec
from tensorflux._src.keras.model import Model
from tensorflux._src.nest import flatten, map_structure, pack_sequence_as
from tensorflux._src.keras.layers.ops_layers import KerasOp
from tensorflux._src.keras.layer import to_tensor


def _node_of(t):
    layer, index, _ = t._keras_history
    return layer._inbound_nodes[index]


def map_graph(inputs, outputs):
    """(nodes by decreasing depth, layers in Keras's order): Keras 3's depth-first map of the
    layer graph from the outputs back to the inputs (layers ordered by depth, then by discovery)."""
    finished, in_progress, order, indices = set(), set(), [], {}
    input_ids = {id(t) for t in inputs}

    def visit(t):
        node = _node_of(t)
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError("The layer graph has a cycle at layer %s" % node.layer.name)
        indices.setdefault(id(node.layer), (len(indices), node.layer))
        in_progress.add(id(node))
        if not isinstance(node.layer, InputLayer) and id(t) not in input_ids:
            for x in node.input_tensors:
                visit(x)
        finished.add(id(node))
        in_progress.discard(id(node))
        order.append(node)

    for t in outputs:
        visit(t)
    node_depth, layer_depth = {}, {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for parent in node.parent_nodes:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    nodes = {id(n): n for n in order}
    for t in inputs:
        layer = t._keras_history[0]
        if id(layer) not in layer_depth:
            layer_depth[id(layer)] = 0
            indices[id(layer)] = (-1, layer)
            node = _node_of(t)
            nodes[id(node)] = node
            node_depth[id(node)] = 0
    by_depth = collections.defaultdict(list)
    for key, depth in node_depth.items():
        by_depth[depth].append(nodes[key])
    layers_by_depth = collections.defaultdict(list)
    for key, depth in layer_depth.items():
        layers_by_depth[depth].append(indices[key])
    ordered_nodes, layers = [], []
    for depth in sorted(by_depth, reverse=True):
        ordered_nodes.extend(by_depth[depth])
    for depth in sorted(layers_by_depth, reverse=True):
        layers.extend(layer for _, layer in sorted(layers_by_depth[depth], key=lambda p: p[0]))
    return ordered_nodes, layers


class Functional(Model):
    """A model defined by calling layers on `Input` KerasTensors: ``Model(inputs, outputs)``.

    >>> inputs = tx.keras.Input(shape=(3,))
    >>> outputs = tx.keras.layers.Dense(2, kernel_initializer="ones")(inputs)
    >>> model = tx.keras.Model(inputs, outputs)
    >>> model(np.ones((1, 3), np.float32)).numpy()
    array([[3., 3.]], dtype=float32)
    """

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(inputs, dict):
            inputs = dict(inputs)
        flat_in, flat_out = flatten(inputs), flatten(outputs)
        for what, flat in (("inputs", flat_in), ("outputs", flat_out)):
            for t in flat:
                if not isinstance(t, KerasTensor):
                    raise ValueError("All `%s` values must be KerasTensors (from tx.keras.Input and layer calls). "
                                     "Received: %r" % (what, t))
        for t in flat_in:
            if not isinstance(t._keras_history[0], InputLayer):
                raise ValueError("Model inputs must come from `tx.keras.Input`; %r was made by layer %s"
                                 % (t, t._keras_history[0].name))
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._nodes, self._layers_list = map_graph(flat_in, flat_out)
        input_ids = {id(t) for t in flat_in}
        for n in self._nodes:
            if isinstance(n.layer, InputLayer) and not any(id(t) in input_ids for t in n.output_tensors):
                raise ValueError("Graph disconnected: cannot obtain value for tensor %r at layer \"%s\": it is not "
                                 "among the model's inputs %s." % (n.output_tensors[0], n.layer.name,
                                                                  [t.name for t in flat_in]))
        self._output_shapes = map_structure(lambda t: t.shape, outputs)
        self.built = True

    @property
    def layers(self):
        """The model's layers (Keras's graph operations such as NotEqual are not among them)."""
        return [lyr for lyr in self._layers_list if not isinstance(lyr, KerasOp)]

    @property
    def _layers(self):
        return list(self._layers_list)

    @property
    def inputs(self):
        return flatten(self._inputs_struct)

    @property
    def outputs(self):
        return flatten(self._outputs_struct)

    @property
    def input_names(self):
        return [t._keras_history[0].name for t in self.inputs]

    @property
    def output_names(self):
        return [t._keras_history[0].name for t in self.outputs]

    @property
    def input_shape(self):
        shapes = [t.shape for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [t.shape for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def _standardize_inputs(self, inputs):
        """The flat list of input tensors, from a structure like the model's inputs, a dict by input
        name, or a single tensor for a one-input model."""
        flat_specs = self.inputs
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            names = self.input_names
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError("Model %s: missing inputs %s (got keys %s)" % (self.name, missing, sorted(inputs)))
            flat = [inputs[n] for n in names]
        elif isinstance(self._inputs_struct, dict) and isinstance(inputs, dict):
            flat = [inputs[k] for k in sorted(self._inputs_struct)]
        else:
            flat = flatten(inputs)
        if len(flat) != len(flat_specs):
            raise ValueError('Layer "%s" expects %d input(s), but it received %d input tensors.'
                             % (self.name, len(flat_specs), len(flat)))
        out = []
        for x, spec in zip(flat, flat_specs):
            x = self._convert_one(x, spec.dtype)
            assert_input_compatibility(InputSpec(shape=spec.shape), x, self.name)
            out.append(x)
        return out

    def _convert_one(self, x, dtype):
        x = to_tensor(x)
        if x.dtype.name != dtype and (x.dtype.is_floating or x.dtype.is_integer):
            mask = masking.get_mask(x)
            x = math_ops.cast(x, dtype)
            masking.set_mask(x, mask)
        return x

    def _convert_inputs(self, x):
        return x  # converted per input in call, to each Input's dtype

    def call(self, inputs, training=None, mask=None):
        values = {}
        for kt, x in zip(self.inputs, self._standardize_inputs(inputs)):
            values[id(kt)] = x
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue
            if any(id(t) not in values for t in node.input_tensors):
                continue  # a branch not needed for the outputs
            args, kwargs = map_structure(lambda v: values[id(v)] if isinstance(v, KerasTensor) else v,
                                         [list(node.call_args), node.call_kwargs])
            if training is not None and "training" in kwargs:
                kwargs["training"] = training  # the call's mode wins over the one recorded (as Keras)
            outs = node.layer(*args, **kwargs)
            for kt, v in zip(node.output_tensors, flatten(outs)):
                values[id(kt)] = v
        return pack_sequence_as(self._outputs_struct, [values[id(t)] for t in self.outputs])

    def compute_output_spec(self, *args, **kwargs):
        return trace_output_spec(self, args, kwargs)

    # ------------------------------------------------------------------ config
    def get_config(self):
        own = {id(n) for n in self._nodes}

        def node_index(layer, node):
            return sum(1 for n in layer._inbound_nodes[:layer._inbound_nodes.index(node)] if id(n) in own)

        def tensor_ref(t):
            layer, index, tensor_index = t._keras_history
            return [layer.name, node_index(layer, layer._inbound_nodes[index]), tensor_index]

        def serialize_arg(v):
            if isinstance(v, KerasTensor):
                return {"class_name": "__keras_tensor__",
                        "config": {"shape": list(v.shape), "dtype": v.dtype, "keras_history": tensor_ref(v)}}
            if isinstance(v, tuple):
                return {"class_name": "__tuple__", "config": {"value": [serialize_arg(x) for x in v]}}
            if isinstance(v, slice):
                return {"class_name": "__slice__", "config": {"start": serialize_arg(v.start),
                                                              "stop": serialize_arg(v.stop),
                                                              "step": serialize_arg(v.step)}}
            if v is Ellipsis:
                return {"class_name": "__ellipsis__", "config": {}}
            if isinstance(v, list):
                return [serialize_arg(x) for x in v]
            if isinstance(v, dict):
                return {k: serialize_arg(x) for k, x in v.items()}
            return v

        layers = []
        for layer in self._layers_list:
            entry = serialize_layer(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = [{"args": serialize_arg(list(n.call_args)), "kwargs": serialize_arg(n.call_kwargs)}
                                      for n in layer._inbound_nodes if id(n) in own and
                                      not isinstance(n.layer, InputLayer)]
            layers.append(entry)

        def refs(struct):
            if isinstance(struct, KerasTensor):
                return tensor_ref(struct)
            if isinstance(struct, dict):
                return {k: refs(v) for k, v in struct.items()}
            return [refs(v) for v in struct]
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": refs(self._inputs_struct), "output_layers": refs(self._outputs_struct)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        inputs, outputs, name, trainable = functional_graph_from_config(config, custom_objects)
        return cls(inputs, outputs, name=name, trainable=trainable)


def serialize_layer(layer):
    """Keras 3's dict for a layer: module, class name, config, registered name, build config."""
    # Imported here: keras.sequential imports this module.
    from tensorflux._src.keras.sequential import Sequential
    entry = serialization.serialize(layer, "layers")
    if type(layer) is Functional:
        entry["module"] = "keras.src.models.functional"
        entry["registered_name"] = entry["registered_name"] or "Functional"
    elif type(layer) in (Sequential, Model):
        entry["module"] = "keras"
    module = getattr(layer, "_keras_module", None)
    if module:
        entry["module"], entry["registered_name"] = module, type(layer).__name__
    build_config = layer.get_build_config()
    if build_config is not None:
        entry["build_config"] = build_config
    return entry


def deserialize_layer(entry, custom_objects=None):
    layer = serialization.deserialize(entry, "layers", custom_objects)
    build_config = entry.get("build_config")
    if build_config and not layer.built and entry.get("class_name") not in ("Sequential", "Functional"):
        layer.build_from_config(build_config)
    return layer


class _NotReady(Exception):
    pass


def functional_graph_from_config(config, custom_objects=None):
    """(inputs, outputs, name, trainable) rebuilt from a functional config: layers created, then
    called on their inbound nodes' tensors as soon as those exist (Keras 3's algorithm)."""
    created, pending = {}, collections.OrderedDict()
    for data in config["layers"]:
        layer = deserialize_layer(data, custom_objects)
        created[data["name"]] = layer
        pending[data["name"]] = list(data.get("inbound_nodes") or [])

    def tensor(ref):
        layer = created.get(ref[0])
        if layer is None:
            raise ValueError("Unknown layer %r in the model config" % (ref[0],))
        if len(layer._inbound_nodes) <= ref[1]:
            raise _NotReady()
        return layer._inbound_nodes[ref[1]].output_tensors[ref[2]]

    def revive(v):
        if isinstance(v, dict):
            if v.get("class_name") == "__keras_tensor__":
                return tensor(v["config"]["keras_history"])
            if v.get("class_name") == "__tuple__":
                return tuple(revive(x) for x in v["config"]["value"])
            if v.get("class_name") == "__slice__":
                c = v["config"]
                return slice(revive(c.get("start")), revive(c.get("stop")), revive(c.get("step")))
            if v.get("class_name") == "__ellipsis__":
                return Ellipsis
            return {k: revive(x) for k, x in v.items()}
        if isinstance(v, list):
            return [revive(x) for x in v]
        return v

    while any(pending.values()):
        progressed = False
        for name in list(pending):
            while pending[name]:
                data = pending[name][0]
                if isinstance(data, list):
                    raise ValueError("Model config of layer %s uses Keras 2's node format, which tx.keras does not "
                                     "read; re-save the model with Keras 3" % name)
                try:
                    args = revive(data.get("args", []))
                    kwargs = revive(data.get("kwargs", {}))
                except _NotReady:
                    break
                created[name](*args, **kwargs)
                pending[name].pop(0)
                progressed = True
        if not progressed:
            raise ValueError("Cannot rebuild the model: the layers %s wait for inputs that never come"
                             % [n for n, v in pending.items() if v])

    def refs(struct):
        if isinstance(struct, list) and len(struct) == 3 and isinstance(struct[0], str):
            return tensor(struct)
        if isinstance(struct, dict):
            return {k: refs(v) for k, v in struct.items()}
        return [refs(v) for v in struct]
    inputs = refs(config["input_layers"])
    outputs = refs(config["output_layers"])
    return inputs, outputs, config.get("name"), config.get("trainable", True)


serialization.register("layers", "Functional", "Model")(Functional)
serialization.register("models", "Functional", "Model")(Functional)
