"""`mcpgen tap`: stand between a real MCP client and server, relay their traffic untouched, and judge
every message live against the revision they negotiated (as `mcpgen validate` judges a capture).

config (what to tap) -> run (stdio or http relay) -> channel (a bounded queue to the judging process)
-> worker -> judge (conversation per session, live rules, transport rules) -> report / capture.
"""

from __future__ import annotations

from .config import TapConfig, TapError
from .run import run_tap

__all__ = ["TapConfig", "TapError", "run_tap"]
