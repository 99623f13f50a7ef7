"""`python -m mcpgen` runs the command line."""

from __future__ import annotations

from .cli import entry

entry()
