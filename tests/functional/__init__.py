"""Functional tests: one generator feature per file, each on a tiny hand-written MCP schema."""
