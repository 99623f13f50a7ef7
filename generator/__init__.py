"""mcpgen: exact, typed Python bindings for every revision of the Model Context Protocol."""

from __future__ import annotations

__version__ = "0.1.0"
