"""Helpers shared by the add-on's modules (tensor conversion, shapes, seeds, assertions, the core
functions it needs). Not part of the public API."""
