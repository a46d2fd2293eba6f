"""Learning-rate schedules (``tx.optimizers.schedules.*``)."""

from tensorflux._src.optim.schedules import cosine_decay, exponential_decay, piecewise_constant, polynomial_decay

__all__ = ["cosine_decay", "exponential_decay", "piecewise_constant", "polynomial_decay"]
