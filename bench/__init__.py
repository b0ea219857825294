"""Benchmarks: `make bench` runs every `bench/bench_*.py` and writes bench-results.json at the repo root."""
