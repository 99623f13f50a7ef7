"""How a report names a place: `Definition.field[]{}`, with keys that are not identifiers quoted."""

from __future__ import annotations

import json
import re

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def member(subject: str, wire: str) -> str:
    """`Tool.title`, or `RequestParams._meta["io.modelcontextprotocol/protocolVersion"]` for a dotted key."""
    return f"{subject}.{wire}" if _IDENTIFIER.fullmatch(wire) else f"{subject}[{json.dumps(wire)}]"
