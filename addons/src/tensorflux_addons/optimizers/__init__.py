"""Optimizers (``txa.optimizers``): each is one file here, a composition of ``tx.optimizers``
transformations, optionally with a fused kernel from the add-on's plugin (CONTRIBUTING.md)."""

from tensorflux_addons.optimizers.adabelief import AdaBelief, adabelief, scale_by_belief
from tensorflux_addons.optimizers.adafactor import Adafactor, adafactor, scale_by_factored_rms
from tensorflux_addons.optimizers.conditional_gradient import ConditionalGradient, conditional_gradient
from tensorflux_addons.optimizers.decoupled import AdamW, SGDW, adamw, decoupled_weight_decay, sgdw
from tensorflux_addons.optimizers.lamb import LAMB, lamb
from tensorflux_addons.optimizers.lars import LARS, lars
from tensorflux_addons.optimizers.lion import Lion, lion, scale_by_lion
from tensorflux_addons.optimizers.madgrad import MADGRAD, madgrad, scale_by_madgrad
from tensorflux_addons.optimizers.muon import Muon, muon, newton_schulz, scale_by_muon
from tensorflux_addons.optimizers.novograd import NovoGrad, novograd, scale_by_novograd
from tensorflux_addons.optimizers.radam import RAdam, radam, scale_by_radam
from tensorflux_addons.optimizers.shampoo import Shampoo, scale_by_shampoo, shampoo
from tensorflux_addons.optimizers.yogi import Yogi, scale_by_yogi, yogi

__all__ = ["AdaBelief", "Adafactor", "AdamW", "ConditionalGradient", "LAMB", "LARS", "Lion", "MADGRAD", "Muon",
           "NovoGrad", "RAdam", "SGDW", "Shampoo", "Yogi", "adabelief", "adafactor", "adamw",
           "conditional_gradient", "decoupled_weight_decay", "lamb", "lars", "lion", "madgrad", "muon",
           "newton_schulz", "novograd", "radam", "scale_by_belief", "scale_by_factored_rms", "scale_by_lion",
           "scale_by_madgrad", "scale_by_muon", "scale_by_novograd", "scale_by_radam", "scale_by_shampoo",
           "scale_by_yogi", "sgdw", "shampoo", "yogi"]
