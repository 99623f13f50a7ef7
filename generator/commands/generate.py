"""The library entry point: resolve schemas, build the IR, render, write the packages."""

from __future__ import annotations

import contextlib
import json
import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ..console import current
from ..errors import McpgenError, SchemaError
from ..inputs.pins import known_revisions, latest_revision, revision_set
from ..inputs.sources import SchemaSource, remember_schema, resolve_schema
from .rendered import PackageRequest, Rendered, cache_root, render_packages

if TYPE_CHECKING:
    from multiprocessing.synchronize import Lock

    from ..emit.files import Sources
    from ..emit.formatting import CutFiles
    from ..emit.render import Part
    from ..inputs.extensions import ExtensionSource
    from ..model import ir

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
    dist: Path | None = None
    root: Path | None = None
    """Where default outputs go: the config file's directory (default: the working directory)."""
    extensions: tuple[str, ...] = ()
    """Extensions to bind to the surface revision: known names (`tasks`), schema files or `IDENTIFIER=FILE`."""


@dataclass(frozen=True)
class Job:
    """One package to write: what it is made of, its name and its directory (or `--dist` project)."""

    request: PackageRequest
    package: str
    target: Path
    dist: Path | None = None


@dataclass(frozen=True)
class GeneratedPackage:
    """One package written to disk (inside `dist` when it was written as a distribution)."""

    revisions: tuple[str, ...]
    package: str
    path: Path
    files: tuple[str, ...]
    dist: Path | None = None
    warnings: tuple[str, ...] = ()
    changed: bool = True
    """False when the directory already held these files (nothing was written)."""

    @property
    def revision(self) -> str:
        """The revisions, as the CLI names them."""
        return ", ".join(self.revisions)


def default_package(revisions: str | tuple[str, ...]) -> str:
    """`2025-11-25` → `mcp_2025_11_25`; several revisions → `mcp_<oldest>_to_<newest>`."""
    names = (revisions,) if isinstance(revisions, str) else revisions
    underscored = [re.sub(r"[^0-9A-Za-z_]", "_", name) for name in names]
    return "mcp_" + (underscored[0] if len(names) == 1 else f"{underscored[0]}_to_{underscored[-1]}")


def protocol_for(source: SchemaSource, pairings: tuple[tuple[str, str], ...] = ()) -> ir.Protocol:
    """The IR of a resolved schema, with every erratum whose operations hold on it applied."""
    from ..inputs.errata import corrected_schema
    from ..model.protocol import build_protocol

    fixed = corrected_schema(source)
    return build_protocol(
        fixed.schema, source.revision, source.sha256, fixed.errata, pairings,
        draft=not source.pinned, warnings=fixed.warnings,
    )


def _requested(request: PackageRequest | SchemaSource) -> PackageRequest:
    return request if isinstance(request, PackageRequest) else PackageRequest((request,), request.revision)


@contextlib.contextmanager
def _nesting_checked(request: PackageRequest) -> Iterator[None]:
    try:
        yield
    except RecursionError:
        origin = ", ".join(s.origin for s in request.sources)
        raise SchemaError(f"{origin}: the schema nests too deeply to generate bindings from") from None


def package_ir(request: PackageRequest | SchemaSource) -> ir.Package:
    """The IR of a package (one revision's schema, or a request for several, with its extensions)."""
    from ..model.package import build_package

    request = _requested(request)
    with _nesting_checked(request):
        protocols = [protocol_for(s, request.pairings) for s in request.sources]
        return build_package(protocols, request.surface, extensions_ir(request, protocols))


def extensions_ir(request: PackageRequest, protocols: list[ir.Protocol]) -> list[ir.Extension]:
    """The IR of the request's extensions over its surface revision (none: nothing read)."""
    if not request.extensions:
        return []
    from ..inputs.errata import corrected_extension, corrected_schema
    from ..model.extension import build_extension

    index = request.revisions.index(request.surface)
    base = corrected_schema(request.sources[index]).schema
    built = [build_extension(corrected_extension(e), protocols[index], base) for e in request.extensions]
    names = [e.name for e in built]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise McpgenError(f"extension {repeated[0]} is asked for twice")
    return built


def package_sources(
    request: PackageRequest | SchemaSource, package: ir.Package | None = None, part: Part = "all"
) -> Sources:
    """The files of a package (from its IR when given, else from the request's schemas), before formatting:
    all of them, or the `part` of them that `render_sources` names."""
    from ..emit.render import render_sources

    request = _requested(request)
    with _nesting_checked(request):
        return render_sources(package or package_ir(request), part)


def package_files(request: PackageRequest | SchemaSource) -> dict[str, str]:
    """Every file of a package, formatted, by relative path."""
    return render_packages([_requested(request)], render_fresh, cached=False)[0].files


def package_warnings(package: ir.Package) -> tuple[str, ...]:
    """What a package's user should know: draft requests without a result, lifecycle facts its schemas
    lack (and what the runtime does without them), errata of its revision that did not apply to a draft,
    what its extensions' copies of core definitions change and what else their schemas leave open."""
    found: list[str] = []
    for revision in package.revisions:
        protocol = revision.protocol
        found += [
            f"{request} has no result in the schema: paired with the base {result}, which keeps every key "
            f"(pass --pair {request}=<result definition> to choose one)"
            for request, result in protocol.assumed_results
        ]
        found += [f"revision {protocol.revision}: {gap}" for gap in revision.lifecycle.missing]
        found += [f"revision {protocol.revision}: {note}" for note in protocol.warnings]
    found += [note for extension in package.extensions for note in extension.warnings]
    return tuple(dict.fromkeys(found))


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


def _revision_groups(config: GenerateConfig) -> list[tuple[str | None, ...]]:
    """The revisions of each package `config` asks for (None: the one `--schema` names)."""
    if config.revision == ALL:
        if config.package or config.schema_file or config.dist or config.surface:
            raise McpgenError("--revision all cannot be combined with --package, --surface, --schema or --dist")
        return [(r,) for r in known_revisions()]
    if config.revision is None:
        return [(None,)]
    for piece in re.split(r"\.\.|,", config.revision):
        _check_revision(piece)
    group = revision_set(config.revision)
    if len(group) > 1 and config.schema_file is not None:
        raise McpgenError("--schema reads one schema: it cannot be combined with several revisions")
    return [group]


def _layout(config: GenerateConfig, revisions: tuple[str, ...]) -> tuple[str, Path]:
    """The package name and the directory it is written to for one package of `config`."""
    package = _check_package_name(config.package or default_package(revisions))
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
    for group in _revision_groups(config):
        names = tuple(
            r if r is not None else (
                resolve_schema(None, schema_file=config.schema_file).revision if config.schema_file else latest_revision()
            )
            for r in group
        )
        dirs.append(_layout(config, names)[1])
    return dirs


def plan(config: GenerateConfig) -> list[Job]:
    """Resolve the schemas of `config` and name each package and its directory; nothing is written."""
    jobs = []
    for group in _revision_groups(config):
        sources = []
        for revision in group:
            source = resolve_schema(
                revision, schema_file=config.schema_file, schema_dir=config.schema_dir, cache_dir=config.cache_dir
            )
            current().detail(source.describe())
            sources.append(source)
        revisions = tuple(s.revision for s in sources)
        _check_revision(revisions[-1])
        surface = config.surface or revisions[-1]
        if surface not in revisions:
            raise McpgenError(f"--surface {surface} is not one of the package's revisions ({', '.join(revisions)})")
        package, target = _layout(config, revisions)
        extensions = tuple(_extension(spec, config) for spec in config.extensions)
        request = PackageRequest(tuple(sources), surface, config.pairings, config.cache_dir, extensions)
        jobs.append(Job(request, package, target, config.dist))
    return jobs


def _extension(spec: str, config: GenerateConfig) -> ExtensionSource:
    from ..inputs.extensions import resolve_extension

    source = resolve_extension(spec, schema_dir=config.schema_dir, cache_dir=config.cache_dir)
    current().detail(source.describe())
    return source


def generate(config: GenerateConfig) -> list[GeneratedPackage]:
    """Generate one package (or one per known revision for `all`) and write it atomically."""
    return generate_all([config])


def generate_all(configs: list[GenerateConfig]) -> list[GeneratedPackage]:
    """Generate the packages of several requests together (one process pool), each written atomically."""
    from ..emit.commit import exclusive
    from ..emit.dist import distribution_files
    from ..emit.output import Update, check_target, plan_update

    console = current()
    planned = [(config, job) for config in configs for job in plan(config)]
    seen: dict[Path, str] = {}
    for config, job in planned:
        place = (job.dist or job.target).resolve()
        if place in seen:
            raise McpgenError(f"{job.package} and {seen[place]} would both be written to {job.dist or job.target}")
        seen[place] = job.package
        check_target(job.dist or job.target, config.force, dist=job.dist is not None)  # before rendering: fail fast
    for _, job in planned:
        for source in job.request.sources:
            remember_schema(cache_root(job.request.cache_dir), source.sha256, source.data)
        for extension in job.request.extensions:
            remember_schema(cache_root(job.request.cache_dir), extension.sha256, extension.data)
    rendered = render_packages([job.request for _, job in planned], render_fresh)
    targets = [job.dist or job.target for _, job in planned]
    updates: list[Update] = []  # all planned before any is written: a refusal leaves every package as it was
    applied: list[Path] = []

    def generated() -> list[GeneratedPackage]:
        return [
            GeneratedPackage(
                job.request.revisions, job.package, job.target, tuple(sorted(made.files)), job.dist, made.warnings,
                update.changes,
            )
            for (_, job), made, update in zip(planned, rendered, updates)
        ]

    try:
        with exclusive(targets, lambda text: console.say(f"mcpgen: {text}", err=True)):
            for (config, job), made in zip(planned, rendered):
                if job.dist is not None:
                    files = distribution_files(made.files, job.package, job.request.revisions[-1])
                    updates.append(plan_update(files, job.dist, config.force, package_dir=job.package.replace(".", "/")))
                else:
                    updates.append(plan_update(made.files, job.target, config.force))
            for index, ((_, job), update) in enumerate(zip(planned, updates), 1):
                console.status(f"writing {index}/{len(planned)}: {job.dist or job.target}")
                update.apply(lambda: applied.append(update.target))
            return generated()
    except KeyboardInterrupt:
        if len(applied) < len(planned):
            raise
        return generated()  # every package is written: too late for an interrupt to undo anything


def render_fresh(requests: list[PackageRequest]) -> list[Rendered]:
    """Render and format packages, spread over up to `_MAX_WORKERS` processes where more than one core is ours
    and there is more than one revision's work: one revision's package costs less CPU and no more time in
    this process than workers cost to start."""
    if not requests:
        return []
    from ..emit.formatting import collected, paused_collector

    workers = min(_usable_cores(), _MAX_WORKERS)
    current().status(f"rendering {_packages(len(requests))}")
    with paused_collector():
        if workers <= 1 or sum(len(r.sources) for r in requests) == 1:
            return [collected(_render_here)(r) for r in requests]
        return _render_in_pool(requests, workers)


def _render_here(request: PackageRequest) -> Rendered:
    """One package rendered and formatted in this process."""
    from ..emit.formatting import format_files

    package = package_ir(request)
    files = format_files([package_sources(request, package)], laid_out=True)[0]
    return Rendered(dict(sorted(files.items())), package_warnings(package))


_MAX_WORKERS = 4
"""Beyond this, workers cost more to start (each imports black and compiles the templates) than they save."""


def _usable_cores() -> int:
    sched_getaffinity = getattr(os, "sched_getaffinity", None)
    return len(sched_getaffinity(0)) if sched_getaffinity else os.cpu_count() or 1


def _packages(count: int) -> str:
    return f"{count} package{'s' if count > 1 else ''}"


def _render_in_pool(requests: list[PackageRequest], workers: int) -> list[Rendered]:
    """Render and format packages with `workers` processes, started before anything heavy is imported.

    The workers compile the templates (and import black if a chunk needs it) while this process reads
    the schemas. They render the files and cut them into chunks (one package's shared and per-revision
    files apart; several packages, each from its schemas), then format the chunks.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from ..emit.formatting import abandon, collected, format_cut_files, quiet_start, start_formatting

    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    with quiet_start():
        one_at_a_time = context.Lock()
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_worker_ready, initargs=(one_at_a_time,)
        )
        for _ in range(workers):
            pool.submit(_started)
    try:
        if len(requests) == 1:
            package = package_ir(requests[0])
            halves: list[tuple[PackageRequest, ir.Package | None, Part]] = [
                (requests[0], package, "shared"),
                (requests[0], package, "revisions"),
            ]
            cutting = [pool.submit(collected(_cut_package), half) for half in halves]
            # each half's chunks go to black as soon as it is cut, the other half still being cut
            started = {id(f): start_formatting([f.result()[0]], pool, workers) for f in as_completed(cutting)}
            current().status(f"formatting {_packages(1)}")
            shared, own = (started[id(f)]()[0] for f in cutting)
            formatted, warnings = [{**shared, **own}], [package_warnings(package)]
        else:
            done = list(pool.map(collected(_cut_package), [(r, None, "all") for r in requests]))
            cut, warnings = [c for c, _ in done], [w for _, w in done]
            current().status(f"formatting {_packages(len(requests))}")
            formatted = format_cut_files(cut, pool, workers)
    except BaseException:
        abandon(pool)
        raise
    pool.shutdown()
    return [Rendered(dict(sorted(files.items())), found) for files, found in zip(formatted, warnings)]


def _started() -> None:
    """A task that only gets a worker started: forked pools start them all at the first task, spawned ones one per task."""


def _worker_ready(one_at_a_time: Lock) -> None:
    """Pool initializer: what rendering needs made ready (`prepare`), and all of it frozen before a task
    needs it (black is imported only if a chunk needs it).

    The workers get ready one at a time, so that the parent, parsing meanwhile, always has a core of
    its own. Preparing is only done early: a template that fails fails again in the task that renders
    it, which reports it to the parent like any other error.
    """
    import gc

    from ..emit.formatting import warm
    from ..emit.render import prepare

    with one_at_a_time:
        warm()
        with contextlib.suppress(Exception):
            prepare()
    gc.freeze()


def _cut_package(job: tuple[PackageRequest, ir.Package | None, Part]) -> tuple[CutFiles, tuple[str, ...]]:
    """A pool task: a package's files (or `part` of them), from its IR or its schemas, cut into chunks for
    black, and its warnings when the task built its IR."""
    from ..emit.formatting import cut_files

    request, package, part = job
    built = package or package_ir(request)
    return cut_files(package_sources(request, built, part), laid_out=True), () if package else package_warnings(built)
