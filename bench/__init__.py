"""Benchmarks that back the figures in the README (`python -m bench.<name>`)."""
