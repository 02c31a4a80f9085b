"""The mock agent process and the tools it executes for real."""
