"""model_from_json and clone_model."""

import json

from tensorflux._src.keras.functional import deserialize_layer, serialize_layer


def model_from_json(json_string, custom_objects=None):
    """The (unbuilt-weights) model a `Model.to_json` string describes."""
    return deserialize_layer(json.loads(json_string), custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model with the same architecture and freshly initialized weights (from the config)."""
    if input_tensors is not None or clone_function is not None:
        raise NotImplementedError("clone_model(input_tensors=..., clone_function=...) is not supported by tx.keras")
    return deserialize_layer(serialize_layer(model))
