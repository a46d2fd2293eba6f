"""Optimizers (``txa.optimizers``): each is one file here, a composition of ``tx.optimizers``
transformations, optionally with a fused kernel from the add-on's plugin (CONTRIBUTING.md)."""

from tensorflux_addons.optimizers.lion import Lion, lion, scale_by_lion

__all__ = ["Lion", "lion", "scale_by_lion"]
