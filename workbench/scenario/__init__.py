"""Scenario model: canonical types, loaders for every format, diagnostics, JSON Schema."""
