"""The library entry point: resolve a schema, build the IR, render, write the package."""

from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .console import current
from .errors import McpgenError, SchemaError
from .output import check_target, write_package
from .revisions import known_revisions, latest_revision
from .source import SchemaSource, default_cache_dir, load_json, remember_schema, resolve_schema

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
    surface: str | None = None
    dist: Path | None = None
    root: Path | None = None  # where default outputs go: the config file's directory (default: the cwd)


@dataclass(frozen=True)
class Job:
    """One package to render: its schema and pairings (what shapes its bytes), its name and directory."""

    source: SchemaSource
    pairings: tuple[tuple[str, str], ...]
    package: str
    target: Path
    dist: Path | None = None
    cache_dir: Path | None = None


@dataclass(frozen=True)
class GeneratedPackage:
    """One package written to disk (inside `dist` when it was written as a distribution)."""

    revision: str
    package: str
    path: Path
    files: tuple[str, ...]
    dist: Path | None = None


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
    from .render import is_template_text

    return format_files([package_sources(source, pairings)], verbatim=is_template_text)[0]


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


def _revisions(config: GenerateConfig) -> list[str | None]:
    if config.revision == ALL:
        if config.package or config.schema_file or config.dist:
            raise McpgenError("--revision all cannot be combined with --package, --schema or --dist")
        return list(known_revisions())
    return [config.revision and _check_revision(config.revision)]


def _layout(config: GenerateConfig, revision: str) -> tuple[str, Path]:
    """The package name and the directory it is written to for one revision of `config`."""
    package = _check_package_name(config.package or default_package(revision))
    if config.dist is not None:
        if config.output is not None:
            raise McpgenError("--dist and --output both say where the package goes: pass one of them")
        return package, config.dist.joinpath(*package.split("."))
    root = config.root or Path()
    if config.revision == ALL:
        return package, (config.output or root) / package
    return package, config.output if config.output is not None else root.joinpath(*package.split("."))


def package_dirs(config: GenerateConfig) -> list[Path]:
    """Where `generate(config)` writes its packages, without resolving a pinned schema (for `check`)."""
    dirs = []
    for revision in _revisions(config):
        if revision is None:
            revision = resolve_schema(None, schema_file=config.schema_file).revision if config.schema_file else latest_revision()
        dirs.append(_layout(config, revision)[1])
    return dirs


def plan(config: GenerateConfig) -> list[Job]:
    """Resolve the schemas of `config` and name each package and its directory; nothing is written."""
    jobs = []
    for revision in _revisions(config):
        source = resolve_schema(
            revision, schema_file=config.schema_file, schema_dir=config.schema_dir, cache_dir=config.cache_dir
        )
        current().detail(source.describe())
        package, target = _layout(config, source.revision)
        jobs.append(Job(source, config.pairings, package, target, config.dist, config.cache_dir))
    return jobs


def generate(config: GenerateConfig) -> list[GeneratedPackage]:
    """Generate one package (or one per known revision for `all`) and write it atomically."""
    return generate_all([config])


def generate_all(configs: list[GenerateConfig]) -> list[GeneratedPackage]:
    """Generate the packages of several requests together (one process pool), each written atomically."""
    from .dist import distribution_files

    console = current()
    planned = [(config, job) for config in configs for job in plan(config)]
    seen: dict[Path, str] = {}
    for config, job in planned:
        place = (job.dist or job.target).resolve()
        if place in seen:
            raise McpgenError(f"{job.package} and {seen[place]} would both be written to {job.dist or job.target}")
        seen[place] = job.package
        check_target(job.dist or job.target, config.force)  # before rendering: refuse bad targets fast
    for _, job in planned:
        remember_schema(cache_root(job.cache_dir), job.source)
    rendered = render_jobs([job for _, job in planned])
    written = []
    for index, ((config, job), files) in enumerate(zip(planned, rendered), 1):
        console.status(f"writing {index}/{len(planned)}: {job.dist or job.target}")
        if job.dist is not None:
            write_package(distribution_files(files, job.package, job.source.revision), job.dist, force=config.force)
        else:
            write_package(files, job.target, force=config.force)
        written.append(GeneratedPackage(job.source.revision, job.package, job.target, tuple(sorted(files)), job.dist))
    return written


def cache_root(cache_dir: Path | None) -> Path:
    """The cache directory in use: `--cache-dir`, else the user's default."""
    return cache_dir or default_cache_dir()


def render_jobs(jobs: list[Job]) -> list[dict[str, str]]:
    """Every job's package files: from the cache when generated before, else rendered and formatted afresh."""
    from . import cache

    keys = [cache.package_key(j.source.revision, j.source.sha256, j.pairings) for j in jobs] if cache.enabled() else []
    found = [cache.load(cache_root(j.cache_dir), key) for j, key in zip(jobs, keys)] or [None] * len(jobs)
    missing = [i for i, files in enumerate(found) if files is None]
    current().detail(f"package cache: {len(jobs) - len(missing)} of {len(jobs)} found" if keys else "package cache: off")
    for i, files in zip(missing, _render_fresh([jobs[i] for i in missing])):
        found[i] = files
        if keys:
            cache.store(cache_root(jobs[i].cache_dir), keys[i], files)
    complete = [files for files in found if files is not None]
    assert len(complete) == len(jobs), "every package is either cached or rendered"
    return complete


def _render_fresh(jobs: list[Job]) -> list[dict[str, str]]:
    """Render and format packages, spread over one process per core when there is more than one.

    Where workers are forked, black (and, for several packages, the parser) is imported here once
    before they start, so they share it instead of each importing it again.
    """
    workers = os.cpu_count() or 1
    if not jobs:
        return []
    console = current()
    console.status(f"rendering {len(jobs)} package{'s' if len(jobs) > 1 else ''}")
    sources, pairings = [j.source for j in jobs], [j.pairings for j in jobs]
    if workers <= 1:
        return [package_files(s, p) for s, p in zip(sources, pairings)]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .formatting import format_files, preload, warm
    from .render import is_template_text

    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    if fork:
        preload()
        if len(jobs) > 1:
            from . import errata, protocol, render  # noqa: F401  (the parser and the templates, for the workers)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm) as pool:
        if len(jobs) == 1:
            raw = [package_sources(sources[0], pairings[0])]
        else:
            raw = list(pool.map(package_sources, sources, pairings))
        console.status(f"formatting {len(jobs)} package{'s' if len(jobs) > 1 else ''}")
        return format_files(raw, pool, workers, verbatim=is_template_text)
