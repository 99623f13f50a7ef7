"""`mcpgen diff`: compare the IR of two protocol revisions and classify every change."""

from __future__ import annotations

from .compare import diff_protocols
from .model import Change, Report, Side

__all__ = ["Change", "Report", "Side", "diff_protocols"]
