"""A SKILL.md's YAML frontmatter as JSON data, read with YAML 1.2 semantics (`ruamel.yaml`, imported
only when a frontmatter is read: the skills extra of a generated project)."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

FRONTMATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
"""The block a SKILL.md starts with (after an optional byte order mark), as the skills extension reads it."""


class FrontmatterError(ValueError):
    """A SKILL.md without a frontmatter block, or one that is not a YAML mapping of JSON values."""


def frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter `text` starts with, as a JSON object (a YAML timestamp becomes its ISO text, as
    YAML 1.2's core schema, which has none, reads it)."""
    found = FRONTMATTER.match(text.removeprefix("\ufeff"))
    if found is None:
        raise FrontmatterError("SKILL.md does not start with a --- frontmatter block")
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError
    except ImportError as exc:  # pragma: no cover - the extra is installed wherever skills are used
        raise ImportError(
            "reading skills needs ruamel.yaml: install the generated project's `skills` extra"
        ) from exc
    try:
        loaded = YAML(typ="safe", pure=True).load(found.group(1))
    except (YAMLError, ValueError, RecursionError) as exc:
        raise FrontmatterError(f"SKILL.md frontmatter is not YAML: {exc}") from None
    if not isinstance(loaded, dict):
        raise FrontmatterError("SKILL.md frontmatter is not a mapping")
    try:
        data = json.loads(json.dumps(loaded, default=_scalar, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise FrontmatterError(f"SKILL.md frontmatter is not JSON data: {exc}") from None
    if not isinstance(data, dict):
        raise FrontmatterError("SKILL.md frontmatter is not a mapping")
    return data


def _scalar(value: Any) -> Any:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON data")
