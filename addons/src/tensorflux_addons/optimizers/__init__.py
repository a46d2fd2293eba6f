"""Optimizers (``txa.optimizers``): each is one file here, a composition of ``tx.optimizers``
transformations, optionally with a fused kernel from the add-on's plugin (CONTRIBUTING.md)."""

from tensorflux_addons.optimizers.adabelief import AdaBelief, adabelief, scale_by_belief
from tensorflux_addons.optimizers.adafactor import Adafactor, adafactor, scale_by_factored_rms
from tensorflux_addons.optimizers.conditional_gradient import ConditionalGradient, conditional_gradient
from tensorflux_addons.optimizers.decoupled import AdamW, SGDW, adamw, decoupled_weight_decay, sgdw
from tensorflux_addons.optimizers.gradient_accumulation import GradientAccumulation, accumulate_gradients
from tensorflux_addons.optimizers.lamb import LAMB, lamb
from tensorflux_addons.optimizers.lars import LARS, lars
from tensorflux_addons.optimizers.lion import Lion, lion, scale_by_lion
from tensorflux_addons.optimizers.lookahead import Lookahead, lookahead
from tensorflux_addons.optimizers.madgrad import MADGRAD, madgrad, scale_by_madgrad
from tensorflux_addons.optimizers.moving_average import EMA, SWA, MovingAverage, average_iterates
from tensorflux_addons.optimizers.multi_optimizer import MultiOptimizer, multi_transform
from tensorflux_addons.optimizers.muon import Muon, muon, newton_schulz, scale_by_muon
from tensorflux_addons.optimizers.novograd import NovoGrad, novograd, scale_by_novograd
from tensorflux_addons.optimizers.prodigy import Prodigy, scale_by_prodigy
from tensorflux_addons.optimizers.radam import RAdam, radam, scale_by_radam
from tensorflux_addons.optimizers.sam import SAM, SAMOptimizer, sam
from tensorflux_addons.optimizers.schedule_free import (ScheduleFreeAdamW, ScheduleFreeOptimizer,
                                                        scale_by_schedule_free_adamw)
from tensorflux_addons.optimizers.shampoo import Shampoo, scale_by_shampoo, shampoo
from tensorflux_addons.optimizers.yogi import Yogi, scale_by_yogi, yogi

__all__ = ["AdaBelief", "Adafactor", "AdamW", "ConditionalGradient", "EMA", "GradientAccumulation", "LAMB", "LARS",
           "Lion", "Lookahead", "MADGRAD", "MovingAverage", "MultiOptimizer", "Muon", "NovoGrad", "Prodigy",
           "RAdam", "SAM", "SAMOptimizer", "SGDW", "SWA", "ScheduleFreeAdamW", "ScheduleFreeOptimizer", "Shampoo",
           "Yogi", "accumulate_gradients", "adabelief", "adafactor", "adamw", "average_iterates",
           "conditional_gradient", "decoupled_weight_decay", "lamb", "lars", "lion", "lookahead", "madgrad",
           "multi_transform", "muon", "newton_schulz", "novograd", "radam", "sam", "scale_by_belief",
           "scale_by_factored_rms", "scale_by_lion", "scale_by_madgrad", "scale_by_muon", "scale_by_novograd",
           "scale_by_prodigy", "scale_by_radam", "scale_by_schedule_free_adamw", "scale_by_shampoo",
           "scale_by_yogi", "sgdw", "shampoo", "yogi"]
