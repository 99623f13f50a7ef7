"""A package's files between rendering and formatting."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sources:
    """A package's files before formatting: those the templates rendered (black formats their `.py`
    files) and those written as they are (the runtime, already in black's layout)."""

    rendered: dict[str, str]
    verbatim: dict[str, str]
