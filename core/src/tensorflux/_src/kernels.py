"""The engine's kernel registry as KernelList protos (as TensorFlow's private ``kernels`` module)."""

from tensorflux._src import lib


def get_all_registered_kernels():
    """A KernelList of every registered kernel (op, device type, type constraints)."""
    from tensorflux.proto import kernel_def_pb2

    return kernel_def_pb2.KernelList.FromString(lib.c.get_registered_kernels())


def get_registered_kernels_for_op(name):
    """A KernelList of the kernels of op type ``name`` (empty when it has none)."""
    from tensorflux.proto import kernel_def_pb2

    return kernel_def_pb2.KernelList.FromString(lib.c.get_registered_kernels(name))
