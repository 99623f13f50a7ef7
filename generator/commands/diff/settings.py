"""`[tool.mcpgen.diff]`: the diff settings a project keeps in its pyproject.toml (or `--config FILE`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...pyproject import ConfigError, find_pyproject, tool_table
from .ignore import Rule, parse_rules

FAIL_ON = ("client", "server", "breaking", "any")
_KEYS = ("ignore", "fail-on")


@dataclass(frozen=True)
class DiffSettings:
    """The ignore entries and the default `--fail-on` a project configured."""

    ignore: tuple[Rule, ...] = ()
    fail_on: str | None = None
    path: Path | None = None
    """The file they were read from."""


def load_settings(config: Path | None) -> DiffSettings:
    """The `diff` table of `config`, else of the nearest pyproject.toml; empty settings without one."""
    path = config if config is not None else find_pyproject()
    if path is None:
        return DiffSettings()
    table: Any = tool_table(path).get("diff", {})
    where = f"{path}: [tool.mcpgen.diff]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{where} has unknown keys {', '.join(unknown)} (known: {', '.join(_KEYS)})")
    ignore = table.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(x, str) for x in ignore):
        raise ConfigError(f"{where} ignore must be a list of \"RULE SUBJECT\" strings")
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(f"{where} fail-on must be one of {', '.join(FAIL_ON)}")
    return DiffSettings(parse_rules(ignore, f"{where} ignore"), fail_on, path)
