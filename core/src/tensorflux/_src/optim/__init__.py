"""Optimizers: gradient transformations (transforms.py), the Optimizer object (optimizer.py),
learning-rate schedules (schedules.py) and a test kit (testing.py)."""
