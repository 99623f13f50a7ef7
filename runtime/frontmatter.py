"""A SKILL.md's YAML frontmatter as JSON data, read with YAML 1.2 semantics (`ruamel.yaml`, imported
only when a frontmatter is read: the skills extra of a generated project)."""

from __future__ import annotations

import datetime
import importlib
import math
import re
from typing import Any

FRONTMATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
"""The block a SKILL.md starts with (after an optional byte order mark), as the skills extension reads it."""


MAX_VALUES = 10_000
"""The most values (mappings, lists, scalars) a frontmatter may hold, aliases counted each time used."""
MAX_CHARS = 64 * 1024
"""The longest frontmatter block read (the YAML reader is pure Python: a hostile block of the 16 MiB a
skill may hold would take minutes and gigabytes)."""


class FrontmatterError(ValueError):
    """A SKILL.md without a frontmatter block, or one that is not a YAML mapping of JSON values."""


def frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter `text` starts with, as a JSON object (a YAML timestamp becomes its ISO text, as
    YAML 1.2's core schema, which has none, reads it)."""
    found = FRONTMATTER.match(text.removeprefix("\ufeff"))
    if found is None:
        raise FrontmatterError("SKILL.md does not start with a --- frontmatter block")
    if len(found.group(1)) > MAX_CHARS:
        raise FrontmatterError(f"SKILL.md frontmatter is longer than {MAX_CHARS} characters")
    try:
        yaml: Any = importlib.import_module("ruamel.yaml")
    except ImportError as exc:  # pragma: no cover - the extra is installed wherever skills are used
        raise ImportError(
            "reading skills needs ruamel.yaml: install the generated project's `skills` extra"
        ) from exc
    try:
        loaded = yaml.YAML(typ="safe", pure=True).load(found.group(1))
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise FrontmatterError(f"SKILL.md frontmatter is not YAML: {exc}") from None
    if not isinstance(loaded, dict):
        raise FrontmatterError("SKILL.md frontmatter is not a mapping")
    try:
        data: dict[str, Any] = _json(loaded, [MAX_VALUES])
    except RecursionError:
        raise FrontmatterError("SKILL.md frontmatter is nested too deeply") from None
    return data


def _json(value: Any, budget: list[int]) -> Any:
    """`value` as JSON data, counting every value against `budget` (aliases make a small YAML text a
    huge tree: past the budget it is refused)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise FrontmatterError(f"SKILL.md frontmatter holds more than {MAX_VALUES} values")
    if isinstance(value, dict):
        found = {_key(k): _json(v, budget) for k, v in value.items()}
        if len(found) < len(value):  # `1:` and `'1':`, `true:` and `'true':`
            raise FrontmatterError("SKILL.md frontmatter has two keys of the same text")
        return found
    if isinstance(value, list):
        return [_json(v, budget) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise FrontmatterError("SKILL.md frontmatter holds a number JSON cannot")
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)  # what a JSON reader takes: a number a float can hold
        except OverflowError:
            raise FrontmatterError("SKILL.md frontmatter holds a number JSON cannot") from None
        return value
    if value is None or isinstance(value, (bool, float)):
        return value
    raise FrontmatterError(f"SKILL.md frontmatter holds a {type(value).__name__}")


def _key(key: Any) -> str:
    """A mapping key as a JSON member name (a YAML scalar key as its text)."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, (str, int, float)):
        try:
            text = str(key)
        except ValueError:  # an integer of more digits than Python writes
            raise FrontmatterError("SKILL.md frontmatter has a key that is not a scalar") from None
        return _text(text)
    raise FrontmatterError("SKILL.md frontmatter has a key that is not a scalar")


def _text(value: str) -> str:
    """`value` as JSON text; refused when it holds a lone surrogate (`"\\ud800"` in YAML), which no
    JSON text can carry."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FrontmatterError("SKILL.md frontmatter holds text with a lone surrogate") from None
    return value
