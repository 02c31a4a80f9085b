"""The engine: a run composes scenario, schedule, clock, terminal and workspace per mode."""
