"""`mcpgen diff`: compare two protocol revisions (their IR and their schemas) and classify every change."""

from __future__ import annotations

from .compare import diff_revisions
from .load import Revision, load_revision, revision_of
from .model import Change, Report, Side

__all__ = ["Change", "Report", "Revision", "Side", "diff_revisions", "load_revision", "revision_of"]
