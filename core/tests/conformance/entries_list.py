"""Conformance entries: the TensorList ops (EmptyTensorList, TensorListReserve, ...FromTensor,
...GetItem, ...SetItem, ...PushBack, ...PopBack, ...Stack, ...Length, ...ElementShape,
...ConcatV2, ...Gather, ...ScatterV2, ...ScatterIntoExistingList, ...Split, ...Resize).

A list is a scalar variant tensor that cannot be fed or fetched, so every entry builds its own
graph (the `build` hook): the sample's `tensor` becomes a list (TensorListFromTensor), the op runs,
and a list result is read back with TensorListStack and TensorListLength. Eagerly the same ops run
through the wrappers (test_forward_eager skips entries with a build hook; test_tensor_array.py
runs TensorArrays eagerly). Gradients are checked by finite differences in float64 in
test_tensor_array.py::test_list_op_gradients (a list cannot be a placeholder of the generic
gradient check). cross_check is off: tf.raw_ops needs TensorFlow's own variant tensors.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

F32 = np.float32
GRAD_TEST = "test_tensor_array.py::test_list_op_gradients"


def _shape(dims):
    return tx.constant(np.asarray(dims, np.int32))


def _list(tensor, element_shape=None):
    t = tx.constant(tensor)
    shape = list(tensor.shape[1:]) if element_shape is None else element_shape
    return gen_ops.tensor_list_from_tensor(t, _shape(shape))


def _read(lst, dtype, element_shape):
    """A list as (stacked elements, length)."""
    return [gen_ops.tensor_list_stack(lst, _shape(element_shape), element_dtype=dtype), gen_ops.tensor_list_length(lst)]


def _as_list(x):
    return x if isinstance(x, (list, tuple)) else [x]


def _dt(a):
    return tx.as_dtype(np.asarray(a).dtype)


def _build(op):
    def build(sample):
        i = sample.inputs
        a = sample.attrs
        if op == "EmptyTensorList":
            lst = gen_ops.empty_tensor_list(_shape(i["element_shape"]), tx.constant(np.int32(i["max_num_elements"])),
                                            element_dtype=tx.float32)
            for item in i.get("push", []):
                lst = gen_ops.tensor_list_push_back(lst, tx.constant(item))
            return [gen_ops.tensor_list_length(lst), gen_ops.tensor_list_element_shape(lst, shape_type=tx.int32)], {}
        if op == "TensorListReserve":
            lst = gen_ops.tensor_list_reserve(_shape(i["element_shape"]), tx.constant(np.int32(i["num_elements"])),
                                              element_dtype=tx.float32)
            return _read(lst, tx.float32, i["element_shape"]), {}
        if op == "TensorListElementShape":
            lst = gen_ops.tensor_list_reserve(_shape(i["element_shape"]), tx.constant(np.int32(1)),
                                              element_dtype=tx.float32)
            return [gen_ops.tensor_list_element_shape(lst, shape_type=tx.int32)], {}
        t = np.asarray(i["tensor"])
        dt, rows = _dt(t), list(t.shape[1:])
        lst = _list(t, i.get("element_shape"))
        if op == "TensorListFromTensor":
            return _read(lst, dt, rows), {}
        if op == "TensorListGetItem":
            return [gen_ops.tensor_list_get_item(lst, tx.constant(np.int32(i["index"])), _shape(rows),
                                                 element_dtype=dt)], {}
        if op == "TensorListSetItem":
            item = tx.constant(i["item"])
            out = gen_ops.tensor_list_set_item(lst, tx.constant(np.int32(i["index"])), item,
                                               **a)
            return _read(out, dt, rows), {}
        if op == "TensorListPushBack":
            item = tx.constant(i["item"])
            return _read(gen_ops.tensor_list_push_back(lst, item), dt, rows), {}
        if op == "TensorListPopBack":
            for _ in range(i.get("extra_pops", 0)):
                lst, _ = gen_ops.tensor_list_pop_back(lst, _shape(rows), element_dtype=dt)
            rest, item = gen_ops.tensor_list_pop_back(lst, _shape(rows), element_dtype=dt)
            return _read(rest, dt, rows) + [item], {}
        if op == "TensorListStack":
            return [gen_ops.tensor_list_stack(lst, _shape(i.get("read_shape", rows)), element_dtype=dt, **a)], {}
        if op == "TensorListLength":
            return [gen_ops.tensor_list_length(lst)], {}
        if op == "TensorListConcatV2":
            lst = gen_ops.tensor_list_split(tx.constant(t), _shape([-1] + rows),
                                            tx.constant(np.asarray(i["lengths"], np.int64)))
            return list(gen_ops.tensor_list_concat_v2(lst, _shape([-1] + list(t.shape[1:])),
                                                      tx.constant(np.zeros([0], np.int64)), element_dtype=dt)), {}
        if op == "TensorListGather":
            return [gen_ops.tensor_list_gather(lst, tx.constant(np.asarray(i["indices"], np.int32)), _shape(rows),
                                               element_dtype=dt)], {}
        if op == "TensorListScatterV2":
            out = gen_ops.tensor_list_scatter_v2(tx.constant(t), tx.constant(np.asarray(i["indices"], np.int32)),
                                                 _shape(rows), tx.constant(np.int32(i["num_elements"])))
            return _read(out, dt, rows), {}
        if op == "TensorListScatterIntoExistingList":
            v = tx.constant(i["values"])
            out = gen_ops.tensor_list_scatter_into_existing_list(lst, v,
                                                                 tx.constant(np.asarray(i["indices"], np.int32)))
            return _read(out, dt, rows), {}
        if op == "TensorListSplit":
            out = gen_ops.tensor_list_split(tx.constant(t), _shape([-1] + rows),
                                            tx.constant(np.asarray(i["lengths"], np.int64)))
            pieces = [gen_ops.tensor_list_get_item(out, tx.constant(np.int32(k)), _shape([-1] + rows), element_dtype=dt)
                      for k in range(len(i["lengths"]))]
            return pieces + [gen_ops.tensor_list_length(out)], {}
        if op == "TensorListResize":
            out = gen_ops.tensor_list_resize(lst, tx.constant(np.int32(i["size"])))
            return _read(out, dt, rows), {}
        raise KeyError(op)
    return build


def _stack_len(x):
    x = np.asarray(x)
    return [x, np.int32(x.shape[0])]


def _set(tensor, index, item, **_):
    out = np.array(tensor)
    if index >= out.shape[0]:
        out = np.concatenate([out, np.zeros((index + 1 - out.shape[0],) + out.shape[1:], out.dtype)])
    out[index] = item
    return _stack_len(out)


def _pop(tensor, extra_pops=0, **_):
    t = np.asarray(tensor)[:len(tensor) - extra_pops]
    return _stack_len(t[:-1]) + [t[-1]]


def _scatter(tensor, indices, num_elements, **_):
    n = max(num_elements, max(indices) + 1 if len(indices) else 0)
    out = np.zeros((n,) + np.asarray(tensor).shape[1:], np.asarray(tensor).dtype)
    for k, j in enumerate(indices):
        out[j] = tensor[k]
    return _stack_len(out)


def _scatter_into(tensor, values, indices, **_):
    out = np.array(tensor)
    for k, j in enumerate(indices):
        if j >= out.shape[0]:
            out = np.concatenate([out, np.zeros((j + 1 - out.shape[0],) + out.shape[1:], out.dtype)])
        out[j] = values[k]
    return _stack_len(out)


def _resize(tensor, size, **_):
    t = np.asarray(tensor)
    out = t[:size] if size <= t.shape[0] else np.concatenate([t, np.zeros((size - t.shape[0],) + t.shape[1:], t.dtype)])
    return _stack_len(out)


def _split(tensor, lengths, **_):
    t = np.asarray(tensor)
    return list(np.split(t, np.cumsum(lengths)[:-1])) + [np.int32(len(lengths))]


def _samples(make):
    out = []
    for k, dt in enumerate((np.float32, np.int32)):
        for shape in ((4, 3), (2,), (3, 0)):
            out.append(make(rand(shape, dt, seed=k * 10 + len(shape)), "%s %s" % (np.dtype(dt).name, shape)))
    return [s for s in out if s is not None]


def _s(inputs, note, **attrs):
    return Sample(inputs, attrs, note=note)


T43 = rand((4, 3), F32, seed=1)
_ERR = tx.errors.InvalidArgumentError

SPECS = {
    "EmptyTensorList": ([_s({"element_shape": [2], "max_num_elements": -1}, "empty"),
                         _s({"element_shape": [-1, 3], "max_num_elements": 2, "push": [np.ones((1, 3), F32)]},
                            "one pushed")],
                        lambda element_shape, max_num_elements, push=(), **_: (
                            np.int32(len(push)), np.int32(element_shape)),
                        [ErrorSample({"element_shape": [2], "max_num_elements": -2}, error=_ERR, when="runtime",
                                     match="max_num_elements must be -1")]),
    "TensorListReserve": ([_s({"element_shape": [2, 3], "num_elements": n}, "%d elements" % n) for n in (0, 3)],
                          lambda element_shape, num_elements, **_: _stack_len(
                              np.zeros([num_elements] + element_shape, F32)),
                          [ErrorSample({"element_shape": [2], "num_elements": -1}, error=_ERR, when="runtime",
                                       match="must be a non negative number")]),
    "TensorListElementShape": ([_s({"element_shape": s}, str(s)) for s in ([2, 3], [-1, 4], [])],
                               lambda element_shape, **_: np.int32(element_shape), []),
    "TensorListFromTensor": (_samples(lambda t, n: _s({"tensor": t}, n)), lambda tensor, **_: _stack_len(tensor),
                             [ErrorSample({"tensor": T43, "element_shape": [2]}, error=_ERR, when="runtime",
                                          match=r"Specified a list with shape \[2\] "
                                                r"from a tensor with shape \[4,3\]")]),
    "TensorListGetItem": (_samples(lambda t, n: _s({"tensor": t, "index": len(t) - 1}, n) if len(t) else None),
                          lambda tensor, index, **_: np.asarray(tensor)[index],
                          [ErrorSample({"tensor": T43, "index": 4}, error=_ERR, when="runtime",
                                       match="Trying to access element 4 in a list with 4 elements")]),
    "TensorListSetItem": (_samples(lambda t, n: _s({"tensor": t, "index": 1, "item": np.ones(t.shape[1:], t.dtype)}, n)
                                   if len(t) > 1 else None)
                          + [_s({"tensor": T43, "index": 6, "item": np.ones(3, F32)}, "grows",
                                resize_if_index_out_of_bounds=True)],
                          _set,
                          [ErrorSample({"tensor": T43, "index": 4, "item": np.ones(3, F32)}, error=_ERR, when="runtime",
                                       match="Trying to modify element 4 in a list with 4 elements"),
                           ErrorSample({"tensor": T43, "index": 0, "item": np.ones(2, F32)}, error=_ERR, when="runtime",
                                       match=r"incompatible shape \[2\] into a list whose element shape is \[3\]"),
                           ErrorSample({"tensor": T43, "index": 0, "item": np.ones(3, np.int32)}, error=_ERR,
                                       when="runtime", match="op elements int32 but list elements float")]),
    "TensorListPushBack": (_samples(lambda t, n: _s({"tensor": t, "item": np.ones(t.shape[1:], t.dtype)}, n)),
                           lambda tensor, item, **_: _stack_len(np.concatenate([np.asarray(tensor), [item]])),
                           [ErrorSample({"tensor": T43, "item": np.ones(5, F32)}, error=_ERR, when="runtime",
                                        match="Tried to append a tensor with incompatible shape")]),
    "TensorListPopBack": (_samples(lambda t, n: _s({"tensor": t}, n) if len(t) else None), _pop,
                          [ErrorSample({"tensor": T43[:1], "extra_pops": 1}, error=_ERR, when="runtime",
                                       match="Trying to pop from an empty list")]),
    "TensorListStack": (_samples(lambda t, n: _s({"tensor": t}, n)), lambda tensor, **_: np.asarray(tensor),
                        [ErrorSample({"tensor": T43}, {"num_elements": 5}, error=_ERR, when="runtime",
                                     match="expected a list with 5 elements but got a list with 4 elements"),
                         ErrorSample({"tensor": T43, "read_shape": [4]}, error=_ERR, when="runtime",
                                     match="requested element shape is incompatible")]),
    "TensorListLength": (_samples(lambda t, n: _s({"tensor": t}, n)), lambda tensor, **_: np.int32(len(tensor)), []),
    "TensorListConcatV2": ([_s({"tensor": rand((5, 2), F32, seed=5), "lengths": [2, 0, 3]}, "pieces of 2, 0, 3 rows"),
                            _s({"tensor": rand((4,), np.int32, seed=6), "lengths": [1, 3]}, "int32 vectors")],
                           lambda tensor, lengths, **_: (np.asarray(tensor), np.asarray(lengths, np.int64)), []),
    "TensorListGather": (_samples(lambda t, n: _s({"tensor": t, "indices": [len(t) - 1, 0, 0]}, n) if len(t) else None),
                         lambda tensor, indices, **_: np.asarray(tensor)[indices],
                         [ErrorSample({"tensor": T43, "indices": [0, 9]}, error=_ERR, when="runtime",
                                      match="Trying to access element 9 in a list with 4 elements")]),
    "TensorListScatterV2": (_samples(lambda t, n: _s({"tensor": t, "indices": [2 * k for k in range(len(t))],
                                                      "num_elements": 2}, n)),
                            _scatter,
                            [ErrorSample({"tensor": T43, "indices": [0, 1], "num_elements": 0}, error=_ERR,
                                         when="runtime", match=r"Expected len\(indices\) == tensor.shape\[0\]")]),
    "TensorListScatterIntoExistingList": (
        [_s({"tensor": T43, "values": rand((2, 3), F32, seed=7), "indices": [3, 5]}, "overwrite and grow"),
         _s({"tensor": rand((2, 2), np.int32, seed=8), "values": np.ones((1, 2), np.int32), "indices": [0]}, "int32")],
        _scatter_into,
        [ErrorSample({"tensor": T43, "values": np.ones((1, 3), F32), "indices": [-1]}, error=_ERR, when="runtime",
                     match="must all be non-negative")]),
    "TensorListSplit": ([_s({"tensor": rand((6, 2), F32, seed=9), "lengths": [1, 2, 3]}, "3 pieces"),
                         _s({"tensor": rand((3,), np.int32, seed=10), "lengths": [3, 0]}, "empty piece")],
                        _split,
                        [ErrorSample({"tensor": T43, "lengths": [1, 2]}, error=_ERR, when="runtime",
                                     match="Unused values in tensor")]),
    "TensorListResize": ([_s({"tensor": T43, "size": n}, "to %d" % n) for n in (0, 2, 4, 7)], _resize,
                         [ErrorSample({"tensor": T43, "size": -1}, error=_ERR, when="runtime",
                                      match="expects size to be non-negative")]),
}

DIFFERENTIABLE = {"TensorListFromTensor", "TensorListGetItem", "TensorListSetItem", "TensorListPushBack",
                  "TensorListPopBack", "TensorListStack", "TensorListConcatV2", "TensorListGather",
                  "TensorListScatterV2", "TensorListScatterIntoExistingList", "TensorListSplit", "TensorListResize"}

ENTRIES = [OpEntry(op, samples, ref=ref, errors=errors, build=_build(op), cross_check=False,
                   grad_checked_by=GRAD_TEST if op in DIFFERENTIABLE else "")
           for op, (samples, ref, errors) in SPECS.items()]
