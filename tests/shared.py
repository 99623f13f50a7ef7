"""Constants the tests share (importable from any test directory, unlike conftest)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def package_name(revision: str) -> str:
    """The default package name of a revision: `mcp_2025_11_25`."""
    return "mcp_" + revision.replace("-", "_")
