"""`Optimizer`: a stateful object that applies a gradient transformation to variables (graph mode:
it builds the update ops; eager mode: it updates at once), creating each variable's slots once;
ready-made SGD, Adam, AdamW, RMSprop and Adagrad run one fused update kernel per variable
(ResourceApply*), other chains run as ordinary ops."""

from tensorflux._src import context as _context
from tensorflux._src import graph as _graph
from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.gradients_impl import gradients
from tensorflux._src.optim import transforms as T
from tensorflux._src.variables import Variable, trainable_variables
from tensorflux._src.backprop import GradientTape


class Optimizer:
    """Applies ``transformation`` (whose final updates are added to the variables).

    ``fused(var, grad, slots, step) -> op`` (optional) replaces the op-by-op update with one
    kernel; it must compute exactly what the transformation computes, on the same slots.
    """

    def __init__(self, transformation, name="Optimizer", fused=None, learning_rate=None):
        self.transformation = transformation
        self.name = name
        self._fused = fused
        self._learning_rate = learning_rate  # a LearningRate (ready-made optimizers) or None
        self._config = None  # (class name, constructor arguments) of a ready-made optimizer
        self._slots = {}  # id(var) -> {slot name: Variable}
        self._iterations = None

    @property
    def learning_rate(self):
        """The learning rate: a float32 Variable once a step ran eagerly (Note [Learning-rate
        variable]), else the number or schedule given. Optimizers built from a custom transformation
        have none (AttributeError)."""
        if self._learning_rate is None:
            raise AttributeError("optimizer %r was built from a transformation and has no learning_rate" % self.name)
        return self._learning_rate.current()

    @learning_rate.setter
    def learning_rate(self, value):
        if self._learning_rate is None:
            raise AttributeError("optimizer %r was built from a transformation and has no learning_rate" % self.name)
        self._learning_rate.set(value)

    def get_config(self):
        """The constructor arguments of a ready-made optimizer (the current learning rate
        included), as Keras's optimizer.get_config; ValueError for other optimizers."""
        if self._config is None:
            raise ValueError("optimizer %r was built from a transformation: it has no config" % self.name)
        class_name, config = self._config
        config = dict(config, name=self.name)
        if self._learning_rate is not None and not callable(self._learning_rate.value):
            config["learning_rate"] = float(self._learning_rate.value)
        return config

    @property
    def iterations(self):
        """The int64 step counter Variable (created on first use), incremented by each apply."""
        if self._iterations is None:
            if _context.inside_function():
                with _context.init_scope():  # optimizer state outlives the traced function
                    return self.iterations
            if _context.executing_eagerly():
                self._iterations = Variable(math_ops.cast(0, "int64"), trainable=False, name=self.name + "/iterations")
                return self._iterations
            with _graph.get_default_graph().name_scope(None), _graph.get_default_graph().name_scope(self.name):
                self._iterations = Variable(math_ops.cast(0, "int64"), trainable=False, name="iterations")
        return self._iterations

    def get_slot(self, var, name):
        """The slot Variable ``name`` of ``var`` (after the first apply)."""
        return self._slots[id(var)][name]

    def get_slot_names(self):
        return sorted(self.transformation.slots)

    def variables(self):
        """The optimizer's own Variables: the step counter and every slot, in a stable order."""
        out = [self.iterations]
        for slots in self._slots.values():
            out.extend(slots[k] for k in sorted(slots))
        return out

    def build(self, var_list):
        """Creates the step counter and the slots of ``var_list`` now (Keras's optimizer.build):
        what a checkpoint restore needs before the first step."""
        _check_vars(list(var_list))
        self.iterations  # noqa: B018 - created on first access
        for v in var_list:
            self._create_slots(v)

    def _create_slots(self, var):
        if id(var) in self._slots:
            return self._slots[id(var)]
        slots = {}
        if var._eager and _context.inside_function():
            with _context.init_scope():  # slots outlive the traced function
                return self._create_slots(var)
        if var._eager:
            base = var.name[:-2]
            for name, init in sorted(self.transformation.slots.items()):
                slots[name] = Variable(lambda init=init: init(var), trainable=False,
                                       name="%s/%s/%s" % (base, self.name, name.replace("/", "_")))
            self._slots[id(var)] = slots
            return slots
        g = var.graph
        base = var.op.name
        with g.name_scope(None):
            for name, init in sorted(self.transformation.slots.items()):
                with g.name_scope(base + "/" + self.name + "/"):
                    slots[name] = Variable(lambda init=init: init(var), trainable=False,
                                           name=name.replace("/", "_"))
        self._slots[id(var)] = slots
        return slots

    def compute_gradients(self, loss, var_list=None, tape=None):
        """[(gradient, variable)] for ``var_list`` (the trainable variables by default). In eager
        mode ``loss`` is a callable run under a GradientTape (or the value recorded on ``tape``)."""
        if _context.executing_eagerly() or tape is not None or _context.inside_function():
            return self._eager_gradients(loss, var_list, tape)
        var_list = list(var_list) if var_list is not None else trainable_variables()
        _check_vars(var_list)
        grads = gradients(loss, var_list)
        return list(zip(grads, var_list))

    def _eager_gradients(self, loss, var_list, tape):
        if var_list is None:
            raise ValueError("In eager mode minimize/compute_gradients need var_list (there are no global "
                             "variable collections).")
        var_list = list(var_list() if callable(var_list) else var_list)
        _check_vars(var_list)
        if tape is None:
            if not callable(loss):
                raise TypeError("In eager mode the loss must be a callable returning the loss (or pass the tape that "
                                "recorded it), got %r" % (loss,))
            with GradientTape() as tape:
                loss = loss()
        elif callable(loss):
            raise TypeError("Pass either a loss callable or a tape with the recorded loss value, not both")
        return list(zip(tape.gradient(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars, name=None):
        """Applies one step: slot and variable updates, then the step increment (graph mode: the
        operation doing that; eager mode: done at once, returns None). Pairs whose gradient is None
        are skipped (at least one must have a gradient)."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: %s"
                             % ([v.name for _, v in grads_and_vars],))
        vars_ = [v for _, v in pairs]
        _check_vars(vars_)
        step_var = self.iterations
        slots = [self._create_slots(v) for v in vars_]
        if _context.executing_eagerly():
            self._apply(pairs, vars_, slots, step_var)
            step_var.assign_add(math_ops.cast(1, "int64"), read_value=False)
            return None
        # Graph variables: their graph; eager ones used in a function being traced: that graph.
        g = _graph.get_default_graph() if vars_[0]._eager else vars_[0].graph
        with g.name_scope(name or self.name):
            ops = self._apply(pairs, vars_, slots, step_var)
            with g.control_dependencies(ops):
                step = step_var.assign_add(math_ops.cast(1, "int64"), read_value=False)
        # Eager variables updated inside a tx.function: the updates run with the function, and
        # the caller gets None, as when they run at once.
        return None if vars_[0]._eager else step

    def _apply(self, pairs, vars_, slots, step_var):
        """The fused or op-by-op updates of one step (run at once in eager mode; their ops in graph
        mode)."""
        step = step_var.value()
        if self._fused is not None:
            return [self._fused(v, gr, s, step) for (gr, v), s in zip(pairs, slots)]
        updates, ops = self.transformation.update([gr for gr, _ in pairs], slots, vars_, step)
        return list(ops) + [v.assign_add(u, read_value=False) for v, u in zip(vars_, updates)]

    def minimize(self, loss, var_list=None, name=None, tape=None):
        """compute_gradients + apply_gradients (eager mode: ``loss`` is a callable, or give ``tape``)."""
        return self.apply_gradients(self.compute_gradients(loss, var_list, tape=tape), name=name)


def _check_vars(var_list):
    for v in var_list:
        if not isinstance(v, Variable):
            raise TypeError("optimizers update tx.Variable objects, got %r" % (v,))
        if not v.trainable:
            raise ValueError("variable %s is not trainable" % v.name)
        if not v.dtype.is_floating:
            raise TypeError("variable %s has dtype %s; optimizers need a floating-point variable"
                            % (v.name, v.dtype.name))


# Note [Learning-rate variable]
# A ready-made optimizer keeps a constant learning rate in a LearningRate. Used eagerly (or in a
# tx.function called eagerly) it lives in a non-trainable float32 Variable, made on the first step
# (outside the function being traced, like the step counter), so that assigning
# `optimizer.learning_rate` between steps (Keras's LearningRateScheduler and ReduceLROnPlateau do)
# takes effect without retracing. In graph mode it stays a constant of the graph. Schedules are
# called with the step as before. The Variable is not among `variables()`: checkpoints keep their keys.
class LearningRate:
    """A ready-made optimizer's learning rate: ``value`` (a number or a schedule ``step -> rate``);
    calling it with the step gives the rate to use (Note [Learning-rate variable])."""

    def __init__(self, value, name):
        if isinstance(value, LearningRate):
            value = value.value
        self.value = value
        self._name = name
        self._variable = None

    def __call__(self, step):
        if callable(self.value):
            return self.value(step)
        if _context.executing_eagerly_outside_functions():
            if self._variable is None:
                with _context.init_scope():
                    self._variable = Variable(math_ops.cast(self.value, "float32"), trainable=False,
                                              name=self._name + "/learning_rate")
            return self._variable.value()
        return self.value

    def current(self):
        return self._variable if self._variable is not None else self.value

    def set(self, value):
        if callable(self.value) or callable(value):
            raise TypeError("optimizer %s: the learning rate is a schedule (or is being set to one); only a "
                            "constant learning rate can be assigned" % self._name)
        self.value = float(value)
        if self._variable is not None:
            with _context.init_scope():
                self._variable.assign(self.value, read_value=False)


def _lr(learning_rate, step, dtype):
    value = learning_rate(step) if callable(learning_rate) else learning_rate
    return math_ops.cast(value, dtype)


# ---------------------------------------------------------------------------- ready-made


def sgd(learning_rate=0.01, momentum=0.0, nesterov=False):
    """The SGD transformation: optional momentum trace, then -learning_rate."""
    return T.chain(T.trace(momentum, nesterov) if momentum else None, T.scale_by_learning_rate(learning_rate))


def SGD(learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD"):  # noqa: N802 (Keras's name)
    """Gradient descent with optional (Nesterov) momentum, fused (ResourceApplyGradientDescent /
    ResourceApplyMomentum).

    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = tx.optimizers.SGD(learning_rate=0.1)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> w.numpy()
    array([ 0.8, -1.6], dtype=float32)
    """
    learning_rate = LearningRate(learning_rate, name)

    def fused(var, grad, slots, step):
        lr = _lr(learning_rate, step, var.dtype)
        if not momentum:
            return gen_ops.resource_apply_gradient_descent(var.handle, lr, grad)
        return gen_ops.resource_apply_momentum(var.handle, slots["0_trace/trace"].handle, lr, grad,
                                               math_ops.cast(momentum, var.dtype), use_nesterov=nesterov)
    return _configured(Optimizer(sgd(learning_rate, momentum, nesterov), name=name, fused=fused,
                                 learning_rate=learning_rate), "SGD", momentum=momentum, nesterov=nesterov)


def adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    return T.chain(T.scale_by_adam(beta_1, beta_2, epsilon), T.scale_by_learning_rate(learning_rate))


def Adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adam"):  # noqa: N802
    """Adam, fused (ResourceApplyAdam).

    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = tx.optimizers.Adam(learning_rate=0.1)
    >>> with tx.GradientTape() as tape:
    ...     loss = tx.reduce_sum(w * w)
    ...
    >>> _ = opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    >>> np.round(w.numpy(), 4)
    array([ 0.9, -1.9], dtype=float32)
    """
    learning_rate = LearningRate(learning_rate, name)

    def fused(var, grad, slots, step):
        dt = var.dtype
        t = math_ops.cast(step, dt) + 1.0
        b1, b2 = math_ops.cast(beta_1, dt), math_ops.cast(beta_2, dt)
        return gen_ops.resource_apply_adam(var.handle, slots["0_scale_by_adam/m"].handle,
                                           slots["0_scale_by_adam/v"].handle, gen_ops.pow(b1, t), gen_ops.pow(b2, t),
                                           _lr(learning_rate, step, dt), b1, b2, math_ops.cast(epsilon, dt), grad)
    return _configured(Optimizer(adam(learning_rate, beta_1, beta_2, epsilon), name=name, fused=fused,
                                 learning_rate=learning_rate), "Adam", beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)


def adamw(learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7, mask=None):
    return T.chain(T.scale_by_adam(beta_1, beta_2, epsilon), T.add_decayed_weights(weight_decay, mask),
                   T.scale_by_learning_rate(learning_rate))


def AdamW(learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7, mask=None,  # noqa: N802
          name="AdamW"):
    """Adam with decoupled weight decay, fused: per variable, the decay
    (ResourceApplyGradientDescent of the variable by learning_rate * weight_decay), then
    ResourceApplyAdam. The Adam step does not read the variable, so this equals the op-by-op chain
    var -= learning_rate * (adam_direction + weight_decay * var).

    >>> w = tx.Variable([1.0])
    >>> opt = tx.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * 0.0), var_list=[w])
    >>> np.round(w.numpy(), 4)
    array([0.95], dtype=float32)
    """
    learning_rate = LearningRate(learning_rate, name)

    def fused(var, grad, slots, step):
        dt = var.dtype
        lr = _lr(learning_rate, step, dt)
        decays = []
        if mask is None or mask(var):
            decays.append(gen_ops.resource_apply_gradient_descent(var.handle, lr * math_ops.cast(weight_decay, dt),
                                                                  var.value()))
        t = math_ops.cast(step, dt) + 1.0
        b1, b2 = math_ops.cast(beta_1, dt), math_ops.cast(beta_2, dt)
        with _graph.control_dependencies(decays):
            return gen_ops.resource_apply_adam(var.handle, slots["0_scale_by_adam/m"].handle,
                                               slots["0_scale_by_adam/v"].handle, gen_ops.pow(b1, t),
                                               gen_ops.pow(b2, t), lr, b1, b2, math_ops.cast(epsilon, dt), grad)
    return _configured(Optimizer(adamw(learning_rate, weight_decay, beta_1, beta_2, epsilon, mask), name=name,
                                 fused=fused, learning_rate=learning_rate), "AdamW", weight_decay=weight_decay,
                       beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)


def rmsprop(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7):
    # The momentum trace accumulates +lr * direction (TensorFlow's "mom" slot), negated last.
    lr = T.scale_by_schedule(learning_rate) if callable(learning_rate) else T.scale(learning_rate)
    return T.chain(T.scale_by_rms(rho, epsilon), lr, T.trace(momentum) if momentum else None, T.scale(-1.0))


def RMSprop(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, name="RMSprop"):  # noqa: N802
    """RMSprop with optional momentum, fused (ResourceApplyRMSProp) when momentum is used; plain
    RMSprop runs as ops (its fused kernel needs a momentum slot).

    >>> w = tx.Variable([1.0])
    >>> _ = tx.optimizers.RMSprop(learning_rate=0.01).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> bool(w.numpy()[0] < 1.0)
    True
    """
    learning_rate = LearningRate(learning_rate, name)

    def fused(var, grad, slots, step):
        dt = var.dtype
        return gen_ops.resource_apply_rms_prop(var.handle, slots["0_scale_by_rms/nu"].handle,
                                               slots["2_trace/trace"].handle, _lr(learning_rate, step, dt),
                                               math_ops.cast(rho, dt), math_ops.cast(momentum, dt),
                                               math_ops.cast(epsilon, dt), grad)
    return _configured(Optimizer(rmsprop(learning_rate, rho, momentum, epsilon), name=name,
                                 fused=fused if momentum else None, learning_rate=learning_rate),
                       "RMSprop", rho=rho, momentum=momentum, epsilon=epsilon)


def adagrad(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7):
    return T.chain(T.scale_by_rss(initial_accumulator_value, epsilon), T.scale_by_learning_rate(learning_rate))


def Adagrad(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad"):  # noqa: N802
    """Adagrad, fused (ResourceApplyAdagradV2)."""
    learning_rate = LearningRate(learning_rate, name)

    def fused(var, grad, slots, step):
        dt = var.dtype
        return gen_ops.resource_apply_adagrad_v2(var.handle, slots["0_scale_by_rss/acc"].handle,
                                                 _lr(learning_rate, step, dt), math_ops.cast(epsilon, dt), grad)
    return _configured(Optimizer(adagrad(learning_rate, initial_accumulator_value, epsilon), name=name, fused=fused,
                                 learning_rate=learning_rate), "Adagrad",
                       initial_accumulator_value=initial_accumulator_value, epsilon=epsilon)


def _configured(optimizer, class_name, **config):
    optimizer._config = (class_name, config)
    return optimizer

