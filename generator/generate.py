"""The library entry point: resolve a schema, build the IR, render, write the package."""

from __future__ import annotations

import json
import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import McpgenError, SchemaError
from .output import check_target, write_package
from .revisions import known_revisions, revision_set
from .source import SchemaSource, default_cache_dir, resolve_schema

if TYPE_CHECKING:
    from . import ir

ALL = "all"
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class GenerateConfig:
    """What to generate and where: the CLI's options, validated by `generate`."""

    revision: str | None = None
    """One revision, a comma list or a range `A..B` (one package for all of them), or `all` (one package each)."""
    output: Path | None = None
    package: str | None = None
    schema_file: Path | None = None
    schema_dir: Path | None = None
    cache_dir: Path | None = None
    force: bool = False
    pairings: tuple[tuple[str, str], ...] = ()
    surface: str | None = None
    """The revision whose types handlers and calls use (default: the newest of the package)."""


@dataclass(frozen=True)
class GeneratedPackage:
    """One package written to disk."""

    revisions: tuple[str, ...]
    package: str
    path: Path
    files: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    @property
    def revision(self) -> str:
        """The revisions, as the CLI names them."""
        return ", ".join(self.revisions)


@dataclass(frozen=True)
class PackageRequest:
    """One package to produce: the schemas of its revisions (oldest first), its surface and its name."""

    sources: tuple[SchemaSource, ...]
    surface: str
    package: str
    pairings: tuple[tuple[str, str], ...] = ()

    @property
    def revisions(self) -> tuple[str, ...]:
        """The revision names, oldest first."""
        return tuple(s.revision for s in self.sources)


def default_package(revisions: str | tuple[str, ...]) -> str:
    """`2025-11-25` → `mcp_2025_11_25`; several revisions → `mcp_<oldest>_to_<newest>`."""
    names = (revisions,) if isinstance(revisions, str) else revisions
    underscored = [re.sub(r"[^0-9A-Za-z_]", "_", name) for name in names]
    return "mcp_" + (underscored[0] if len(names) == 1 else f"{underscored[0]}_to_{underscored[-1]}")


def protocol_for(source: SchemaSource, pairings: tuple[tuple[str, str], ...] = ()) -> ir.Protocol:
    """The IR of a resolved schema, with the errata of its revision applied when it is pinned."""
    from .errata import corrected_schema
    from .protocol import build_protocol

    schema, errata = corrected_schema(source)
    return build_protocol(schema, source.revision, source.sha256, errata, pairings, draft=not source.pinned)


def package_sources(request: PackageRequest | SchemaSource) -> dict[str, str]:
    """Every file of a package (one revision's schema, or a request for several), before formatting."""
    from .package import build_package
    from .render import render_sources

    if isinstance(request, SchemaSource):
        request = PackageRequest((request,), request.revision, default_package(request.revision))
    origin = ", ".join(s.origin for s in request.sources)
    try:
        protocols = [protocol_for(s, request.pairings) for s in request.sources]
        return render_sources(build_package(protocols, request.surface))
    except RecursionError:
        raise SchemaError(f"{origin}: the schema nests too deeply to generate bindings from") from None


def package_files(request: PackageRequest | SchemaSource) -> dict[str, str]:
    """Every file of a package, formatted, by relative path."""
    from .formatting import format_files

    return format_files([package_sources(request)])[0]


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


def _revision_groups(config: GenerateConfig) -> tuple[list[tuple[str | None, ...]], Path | None]:
    """The revision set of each package to write, and the parent directory for `all`."""
    if config.revision == ALL:
        if config.package or config.schema_file or config.surface:
            raise McpgenError("--revision all cannot be combined with --package, --surface or --schema")
        return [(r,) for r in known_revisions()], config.output or Path(".")
    if config.revision is None:
        return [(None,)], None  # --schema names its own revision
    for piece in re.split(r"\.\.|,", config.revision):
        _check_revision(piece)
    group = revision_set(config.revision)
    if len(group) > 1 and config.schema_file is not None:
        raise McpgenError("--schema reads one schema: it cannot be combined with several revisions")
    return [tuple(_check_revision(r) for r in group)], None


def requests_for(config: GenerateConfig) -> list[tuple[PackageRequest, Path]]:
    """Resolve every schema a configuration needs and decide each package's name, surface and target."""
    groups, parent = _revision_groups(config)
    jobs = []
    for group in groups:
        sources = tuple(
            resolve_schema(
                r,
                schema_file=config.schema_file,
                schema_dir=config.schema_dir,
                cache_dir=config.cache_dir,
            )
            for r in group
        )
        revisions = tuple(s.revision for s in sources)
        _check_revision(revisions[-1])
        surface = config.surface or revisions[-1]
        if surface not in revisions:
            raise McpgenError(f"--surface {surface} is not one of the package's revisions ({', '.join(revisions)})")
        package = _check_package_name(config.package or default_package(revisions))
        request = PackageRequest(sources, surface, package, config.pairings)
        jobs.append((request, _target(config, package, parent)))
    return jobs


def generate(config: GenerateConfig) -> list[GeneratedPackage]:
    """Generate one package (or one per known revision for `all`) and write it atomically."""
    jobs = requests_for(config)
    for _, target in jobs:
        check_target(target, config.force)  # before rendering: refuse bad targets fast
    rendered = render_packages([request for request, _ in jobs], config.cache_dir)
    written = []
    for (request, target), files in zip(jobs, rendered):
        write_package(files, target, force=config.force)
        written.append(
            GeneratedPackage(request.revisions, request.package, target, tuple(sorted(files)), _warnings(files))
        )
    return written


def _warnings(files: dict[str, str]) -> tuple[str, ...]:
    """What the user should know about a package, as its header records it (so cached packages say it too)."""
    from .packageviews import ASSUMED_MARK

    head = files.get("__init__.py", "")[:4000]
    line = next((line for line in head.splitlines() if line.startswith(ASSUMED_MARK)), None)
    pairs = json.loads(line[len(ASSUMED_MARK) :]) if line else []
    return tuple(
        f"{request} has no result in the schema: paired with the base {result}, which keeps every key "
        f"(pass --pair {request}=<result definition> to choose one)"
        for request, result in pairs
    )


def render_packages(requests: list[PackageRequest], cache_dir: Path | None = None) -> list[dict[str, str]]:
    """Every package's files, formatted: from the package cache when generated before, else afresh."""
    from . import cache

    root = cache_dir or default_cache_dir()
    keys = (
        [
            cache.package_key(tuple((s.revision, s.sha256) for s in r.sources), r.surface, r.package, r.pairings)
            for r in requests
        ]
        if cache.enabled()
        else []
    )
    found = [cache.load(root, key) for key in keys] or [None] * len(requests)
    missing = [i for i, files in enumerate(found) if files is None]
    for i, files in zip(missing, _render_fresh([requests[i] for i in missing])):
        found[i] = files
        if keys:
            cache.store(root, keys[i], files)
    complete = [files for files in found if files is not None]
    if len(complete) != len(requests):
        raise McpgenError("internal error: a package was neither cached nor rendered (please report this)")
    return complete


def _noop() -> None:
    pass


def _render_fresh(requests: list[PackageRequest]) -> list[dict[str, str]]:
    """Render and format packages, spread over one process per core when there is more than one."""
    workers = os.cpu_count() or 1
    if not requests:
        return []
    if workers <= 1:
        return [package_files(r) for r in requests]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .formatting import format_files, warm

    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm) as pool:
        if len(requests) == 1:
            for _ in range(workers):  # start the workers: they import black while this process parses
                pool.submit(_noop)
            raw = [package_sources(requests[0])]
        else:
            raw = list(pool.map(package_sources, requests))
        return format_files(raw, pool, workers)
