"""The `[tool.mcpgen]` table of a project's `pyproject.toml` (tomllib, or tomli before Python 3.11)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .errors import McpgenError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PYPROJECT = "pyproject.toml"


class ConfigError(McpgenError):
    """A configuration file cannot be read or does not have the expected shape."""


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest `pyproject.toml` in `start` (default: the working directory) or a parent, else None."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / PYPROJECT
        if candidate.is_file():
            return candidate
    return None


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document at `path`; ConfigError, one line, when it cannot be read or parsed."""
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def tool_table(path: Path) -> dict[str, Any]:
    """`[tool.mcpgen]` of the TOML file at `path` (empty when the file has no such table)."""
    document = read_toml(path)
    table = document.get("tool", {}).get("mcpgen", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.mcpgen] must be a table")
    return table
