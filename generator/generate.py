"""The library entry point: resolve a schema, build the IR, render, write the package."""

from __future__ import annotations

import functools
import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import McpgenError, SchemaError
from .output import check_target, write_package
from .revisions import known_revisions
from .source import SchemaSource, default_cache_dir, load_json, resolve_schema

if TYPE_CHECKING:
    from . import ir

ALL = "all"
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


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
    pairings: tuple[tuple[str, str], ...] = ()


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


def protocol_for(source: SchemaSource, pairings: tuple[tuple[str, str], ...] = ()) -> ir.Protocol:
    """The IR of a resolved schema, with the errata of its revision applied when it is pinned."""
    from .errata import apply_errata
    from .protocol import build_protocol

    schema, errata = apply_errata(load_json(source), source.revision, sha256=source.sha256)
    return build_protocol(schema, source.revision, source.sha256, errata, pairings)


def package_sources(source: SchemaSource, pairings: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """Every file of the generated package for a resolved schema, before formatting, by relative path."""
    from .render import render_sources

    try:
        return render_sources(protocol_for(source, pairings))
    except RecursionError:
        raise SchemaError(f"{source.origin}: the schema nests too deeply to generate bindings from") from None


def package_files(source: SchemaSource, pairings: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """Every file of the generated package for a resolved schema, formatted, by relative path."""
    from .formatting import format_files

    return format_files([package_sources(source, pairings)])[0]


def _check_package_name(name: str) -> str:
    if not _PACKAGE.fullmatch(name):
        raise McpgenError(f"invalid package name {name!r}: use a dotted Python name like myapp._vendor.mcp")
    reserved = [part for part in name.split(".") if keyword.iskeyword(part)]
    if reserved:
        raise McpgenError(f"invalid package name {name!r}: {reserved[0]!r} is a Python keyword and cannot be imported")
    return name


def _check_revision(revision: str) -> str:
    if not _REVISION.fullmatch(revision):
        raise McpgenError(f"invalid revision {revision!r}: use a name like 2025-11-25")
    return revision


def _target(config: GenerateConfig, package: str, parent: Path | None) -> Path:
    if parent is not None:
        return parent / package.rsplit(".", 1)[-1]
    if config.output is not None:
        return config.output
    return Path(*package.split("."))


def generate(config: GenerateConfig) -> list[GeneratedPackage]:
    """Generate one package (or one per known revision for `all`) and write it atomically."""
    if config.revision == ALL:
        if config.package or config.schema_file:
            raise McpgenError("--revision all cannot be combined with --package or --schema")
        revisions = list(known_revisions())
        parent: Path | None = config.output or Path(".")
    else:
        revisions = [config.revision and _check_revision(config.revision)]  # type: ignore[list-item]
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
        check_target(target, config.force)  # before rendering: refuse bad targets fast
    rendered = _render_all([s for s, _, _ in jobs], [p for _, p, _ in jobs], config.cache_dir, config.pairings)
    written = []
    for (source, package, target), files in zip(jobs, rendered):
        write_package(files, target, force=config.force)
        written.append(GeneratedPackage(source.revision, package, target, tuple(sorted(files))))
    return written


def _render_all(
    sources: list[SchemaSource],
    packages: list[str],
    cache_dir: Path | None = None,
    pairings: tuple[tuple[str, str], ...] = (),
) -> list[dict[str, str]]:
    """Every package's files: from the cache when generated before, else rendered and formatted afresh."""
    from . import cache

    root = cache_dir or default_cache_dir()
    keys = [cache.package_key(s.revision, s.sha256, p, pairings) for s, p in zip(sources, packages)] if cache.enabled() else []
    found = [cache.load(root, key) for key in keys] or [None] * len(sources)
    missing = [i for i, files in enumerate(found) if files is None]
    for i, files in zip(missing, _render_fresh([sources[i] for i in missing], pairings)):
        found[i] = files
        if keys:
            cache.store(root, keys[i], files)
    complete = [files for files in found if files is not None]
    assert len(complete) == len(sources), "every package is either cached or rendered"
    return complete


def _noop() -> None:
    pass


def _render_fresh(sources: list[SchemaSource], pairings: tuple[tuple[str, str], ...] = ()) -> list[dict[str, str]]:
    """Render and format packages, spread over one process per core when there is more than one."""
    workers = os.cpu_count() or 1
    if not sources:
        return []
    if workers <= 1:
        return [package_files(s, pairings) for s in sources]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .formatting import format_files, warm

    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm) as pool:
        if len(sources) == 1:
            for _ in range(workers):  # start the workers: they import black while this process parses
                pool.submit(_noop)
            raw = [package_sources(sources[0], pairings)]
        else:
            raw = list(pool.map(functools.partial(package_sources, pairings=pairings), sources))
        return format_files(raw, pool, workers)
