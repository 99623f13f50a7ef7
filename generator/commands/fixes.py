"""The fix `mcpgen check` prints for a stale package: the shortest `mcpgen generate` command that regenerates it."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..config import command_line
from ..console import shown
from ..emit.output import is_dist_project
from ..inputs.extensions import ExtensionSource
from ..inputs.sources import SchemaSource, cache_path
from ..pyproject import PYPROJECT, ConfigError, read_toml
from .generate import GenerateConfig, default_package
from .rendered import cache_root

_SCHEMA_OPTIONS = (("--schema", "schema_file"), ("--schema-dir", "schema_dir"), ("--cache-dir", "cache_dir"))


def regenerate_configured(config_path: Path | None, options: dict[str, Any]) -> str:
    """`mcpgen generate` with the `--config` and schema options given to `check` on its command line: it
    regenerates every configured package (and leaves the current ones alone)."""
    args = ["mcpgen", "generate"]
    if config_path is not None:
        args += ["--config", shown(config_path)]
    for flag, name in _SCHEMA_OPTIONS:
        if options.get(name) is not None:
            args += [flag, shown(options[name])]
    return shlex.join(args)


def regenerate_package(
    directory: Path,
    revisions: tuple[str, ...],
    surface: str,
    pairings: tuple[tuple[str, str], ...],
    sources: tuple[SchemaSource, ...],
    cache_dir: Path | None = None,
    schema_dir: Path | None = None,
    extensions: tuple[ExtensionSource, ...] = (),
) -> str:
    """The command that writes the package in `directory` again: as the `--dist` project it belongs to, if
    any; under its dotted import name when it lives inside another package (read from the `__init__.py`
    above it; the name changes no byte of a vendored package, only what `generate` reports); with the schema
    options it needs: `--schema` for a draft, `--schema-dir` only when the cache does not hold the schema
    (`check` keeps what it read there); and its extensions (`--extension tasks`, or `IDENTIFIER=FILE`
    for an extension schema that is not a known one's)."""
    name, project = _home(directory)
    draft = sources[0] if len(sources) == 1 and not sources[0].pinned else None
    held = [(s.sha256, s.pinned) for s in sources] + [(e.sha256, e.pinned) for e in extensions]
    cached = all(cache_path(cache_root(cache_dir), sha).is_file() for sha, pinned in held if pinned)
    config = GenerateConfig(
        revision=",".join(revisions),
        package=name if name != default_package(revisions) and (project or "." in (name or "")) else None,
        output=None if project else directory,
        dist=project,
        schema_file=Path(draft.origin) if draft is not None else None,
        schema_dir=None if cached else schema_dir,
        cache_dir=cache_dir,
        pairings=pairings,
        surface=surface if surface != revisions[-1] else None,
        force=True,
        extensions=tuple(e.option for e in extensions),
    )
    return command_line(config)


def _home(directory: Path) -> tuple[str | None, Path | None]:
    """The import name of the package in `directory` (None when it has none), and the `--dist` project it
    is the package of (None when it is vendored: its name is then read from the `__init__.py` above it)."""
    here = directory.absolute()
    parts: list[str] = []
    for folder in (here, *here.parents):
        if not folder.name.isidentifier():
            break
        parts.insert(0, folder.name)
        if _dist_package(folder.parent) == ".".join(parts):
            return ".".join(parts), folder.parent
    if not here.name.isidentifier():
        return None, None
    parts = [here.name]
    for folder in here.parents:
        if not (folder.name.isidentifier() and (folder / "__init__.py").is_file()):
            break
        parts.insert(0, folder.name)
    return ".".join(parts), None


def _dist_package(project: Path) -> str | None:
    """The package of the `--dist` project in `project` (None when it is not one)."""
    if not is_dist_project(project):
        return None
    try:
        (package,) = read_toml(project / PYPROJECT)["tool"]["setuptools"]["package-data"]
    except (ConfigError, KeyError, TypeError, ValueError):
        return None
    return str(package)
