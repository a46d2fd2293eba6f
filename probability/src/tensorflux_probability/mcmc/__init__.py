"""``txp.mcmc``: Markov chain Monte Carlo whose chains run inside the engine (TFP's ``tfp.mcmc``
names): HMC, NUTS and random-walk Metropolis kernels, warm-up adaptation, ``sample_chain`` and the
ESS / R-hat diagnostics."""

from tensorflux_probability.mcmc.adaptation import DualAveragingStepSizeAdaptation, WindowedAdaptation
from tensorflux_probability.mcmc.diagnostics import effective_sample_size, potential_scale_reduction
from tensorflux_probability.mcmc.hmc import (HamiltonianMonteCarlo, RandomWalkMetropolis, TransitionKernel,
                                             random_walk_normal_fn, random_walk_uniform_fn)
from tensorflux_probability.mcmc.nuts import NoUTurnSampler
from tensorflux_probability.mcmc.sample import StatesAndTrace, sample_chain

__all__ = ["DualAveragingStepSizeAdaptation", "HamiltonianMonteCarlo", "NoUTurnSampler", "RandomWalkMetropolis",
           "StatesAndTrace", "TransitionKernel", "WindowedAdaptation", "effective_sample_size",
           "potential_scale_reduction", "random_walk_normal_fn", "random_walk_uniform_fn", "sample_chain"]
