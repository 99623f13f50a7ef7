"""The library entry point: resolve a schema, build the IR, render, write the package."""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import ir
from .errata import apply_errata
from .errors import McpgenError, OutputError, SchemaError
from .output import write_package
from .protocol import build_protocol
from .render import render_package
from .revisions import known_revisions
from .source import SchemaSource, load_json, resolve_schema

ALL = "all"
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class GenerateConfig:
    """What to generate and where: the CLI's options, validated by `generate`."""

    revision: str | None = None
    output: Path | None = None
    package: str | None = None
    schema_file: Path | None = None
    schema_dir: Path | None = None
    cache_dir: Path | None = None
    force: bool = False


@dataclass(frozen=True)
class GeneratedPackage:
    """One package written to disk."""

    revision: str
    package: str
    path: Path
    files: tuple[str, ...]


def default_package(revision: str) -> str:
    """`2025-11-25` → `mcp_2025_11_25`."""
    return "mcp_" + re.sub(r"[^0-9A-Za-z_]", "_", revision)


def protocol_for(source: SchemaSource) -> ir.Protocol:
    """The IR of a resolved schema, with the errata of its revision applied when it is pinned."""
    schema, errata = apply_errata(load_json(source), source.revision, sha256=source.sha256)
    return build_protocol(schema, source.revision, source.sha256, errata)


def package_files(source: SchemaSource) -> dict[str, str]:
    """Every file of the generated package for a resolved schema, formatted, by relative path."""
    try:
        return render_package(protocol_for(source))
    except RecursionError:
        raise SchemaError(f"{source.origin}: the schema nests too deeply to generate bindings from") from None


def _check_package_name(name: str) -> str:
    if not _PACKAGE.match(name):
        raise McpgenError(f"invalid package name {name!r}: use a dotted Python name like myapp._vendor.mcp")
    return name


def _target(config: GenerateConfig, package: str, parent: Path | None) -> Path:
    if parent is not None:
        return parent / package.rsplit(".", 1)[-1]
    if config.output is not None:
        return config.output
    return Path(*package.split("."))


def _render(source: SchemaSource) -> dict[str, str]:
    return package_files(source)


def generate(config: GenerateConfig) -> list[GeneratedPackage]:
    """Generate one package (or one per known revision for `all`) and write it atomically."""
    if config.revision == ALL:
        if config.package or config.schema_file:
            raise McpgenError("--revision all cannot be combined with --package or --schema")
        revisions = list(known_revisions())
        parent: Path | None = config.output or Path(".")
    else:
        revisions = [config.revision]  # type: ignore[list-item]
        parent = None
    sources = [
        resolve_schema(
            r,
            schema_file=config.schema_file,
            schema_dir=config.schema_dir,
            cache_dir=config.cache_dir,
        )
        for r in revisions
    ]
    jobs = []
    for source in sources:
        package = _check_package_name(config.package or default_package(source.revision))
        jobs.append((source, package, _target(config, package, parent)))
    for _, _, target in jobs:
        if target.exists() and not config.force and target.is_dir() and any(target.iterdir()):
            raise OutputError(f"output directory {target} is not empty (pass --force to replace the generated package)")
    rendered = _render_all([s for s, _, _ in jobs])
    written = []
    for (source, package, target), files in zip(jobs, rendered):
        write_package(files, target, force=config.force)
        written.append(GeneratedPackage(source.revision, package, target, tuple(sorted(files))))
    return written


def _render_all(sources: list[SchemaSource]) -> list[dict[str, str]]:
    """Render several packages, in parallel processes when there is more than one core to use."""
    workers = min(len(sources), os.cpu_count() or 1)
    if workers <= 1:
        return [_render(s) for s in sources]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_render, sources))
