"""The op conformance table: one entry per registered op drives forward tests on every device,
static-shape checks, error-path tests and TensorFlow cross-checks (see harness.py)."""
