# Note [Import layering]
# The modules here import each other at the top, lower layers only: tensors and operations, graphs,
# the eager context, the op wrappers, the ops, functions and gradients, then the higher APIs (Keras,
# linear operators, ...). Where a lower type needs behaviour defined above it, the higher module
# installs it when imported (as math_ops.py installs the Tensor and EagerTensor operators):
# - session.py installs get_default_session in operation.py (Tensor.eval, Operation.run);
# - array_ops.py installs __getitem__ (slice_helper) on Tensor and EagerTensor;
# - constant_op.py registers the eager input and attr conversions with the engine binding;
# - sparse_ops.py installs SparseTensor's * and /;
# - function.py registers tx.function's Function with autograph's conversion.
# tensorflux/__init__.py imports them all, so each hook is in place before user code runs. An import
# left inside a function is either lazy on purpose (protobuf modules, tf_api_names, sparse_bincount,
# keras.summary, optional third-party packages) or closes an import cycle still there, and says so in a
# comment: in the core (operation and graph use context, constant_op and gen_ops; op_def_library uses
# constant_op), LinearOperator's methods that build composite operators, and Keras's Model and Layer
# (Functional, Sequential, saving, KerasTensor).
