"""`mcpgen check`: is a vendored package byte-identical to what this mcpgen would generate?"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..console import current
from ..errors import McpgenError
from .fresh import render_fresh
from .rendered import PackageRequest, cache_root, render_packages
from ..emit.provenance import Provenance, read
from ..inputs.sources import SchemaSource, recorded_schema, remember_schema

if TYPE_CHECKING:
    from ..inputs.extensions import ExtensionSource


@dataclass(frozen=True)
class CheckResult:
    """The outcome of a drift check: the revisions the package records, their schemas, its extensions'
    schemas, and a unified diff (empty when current)."""

    provenance: Provenance
    diff: str
    sources: tuple[SchemaSource, ...]
    extensions: tuple[ExtensionSource, ...] = ()

    @property
    def revision(self) -> str:
        """The revisions checked, as messages name them."""
        return self.provenance.describe

    @property
    def current(self) -> bool:
        """True when the package is exactly what would be generated."""
        return not self.diff


def _files(package: Path) -> dict[str, Path]:
    return {
        str(p.relative_to(package)): p
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.relative_to(package).parts
    }


def check_package(
    package: Path,
    schema_file: Path | None = None,
    schema_dir: Path | None = None,
    cache_dir: Path | None = None,
) -> CheckResult:
    """Render the package its header describes, through `generate`'s cached render path, and diff it."""
    made = read(package)
    if schema_file is not None and len(made.revisions) > 1:
        raise McpgenError(f"{package} speaks several revisions: --schema reads one schema; use --schema-dir")
    sources = []
    for revision, sha in made.revisions:
        source = recorded_schema(revision, sha, schema_file=schema_file, schema_dir=schema_dir, cache_dir=cache_dir)
        current().detail(source.describe())
        remember_schema(cache_root(cache_dir), source.sha256, source.data)  # the next check, and the fix, need no schema option
        sources.append(source)
    extensions = []
    if made.extensions:  # the extensions' machinery is imported only for a package that has some
        from ..inputs.extensions import recorded_extension
    for name, identifier, sha in made.extensions:
        extension = recorded_extension(name, identifier, sha, schema_dir=schema_dir, cache_dir=cache_dir)
        current().detail(extension.describe())
        remember_schema(cache_root(cache_dir), extension.sha256, extension.data)
        extensions.append(extension)
    request = PackageRequest(tuple(sources), made.surface, made.pairings, cache_dir, tuple(extensions))
    expected = render_packages([request], render_fresh)[0].files
    actual = _files(package)
    chunks: list[str] = []
    for name in sorted(set(expected) | set(actual)):
        want = expected.get(name)
        path = package / name
        have = actual[name].read_text(encoding="utf-8") if name in actual else None
        if want == have:
            continue
        import difflib  # only a stale package needs it

        chunks.extend(
            difflib.unified_diff(
                (have or "").splitlines(keepends=True),
                (want or "").splitlines(keepends=True),
                fromfile=f"{path}" if have is not None else "/dev/null",
                tofile=f"{path} (mcpgen)" if want is not None else "/dev/null",
            )
        )
        if chunks and not chunks[-1].endswith("\n"):
            chunks.append("\n")
    return CheckResult(made, "".join(chunks), tuple(sources), tuple(extensions))


@dataclass(frozen=True)
class CheckRequest:
    """One package directory to check, where its schema may be found, and the generation that rewrites it."""

    directory: Path
    schema_file: Path | None = None
    schema_dir: Path | None = None
    cache_dir: Path | None = None
    fix: str | None = None  # the command that regenerates it (None: derived from the package's header)


@dataclass(frozen=True)
class Outcome:
    """A checked package: its result (None when the directory is missing) and, when stale, the command that regenerates it."""

    request: CheckRequest
    result: CheckResult | None
    fix: str

    @property
    def stale(self) -> bool:
        """True when the package is missing or differs."""
        return self.result is None or not self.result.current


def requests_for_dirs(dirs: tuple[Path, ...] | list[Path], **schema: Any) -> list[CheckRequest]:
    """A request per directory named on the command line (`schema_file`, `schema_dir`, `cache_dir`)."""
    return [CheckRequest(d, **schema) for d in dirs]


def requests_for_config(entries: list[dict[str, Any]], overrides: dict[str, Any], fix: str) -> list[CheckRequest]:
    """A request per package the configured generations write, with the command line's schema options on top,
    each fixed by `fix` (the command that regenerates every configured package)."""
    from ..config import merged
    from .generate import package_dirs

    requests = []
    for entry in entries:
        config = merged(entry, overrides)
        for directory in package_dirs(config):
            requests.append(CheckRequest(directory, config.schema_file, config.schema_dir, config.cache_dir, fix))
    return requests


def _fix(request: CheckRequest, result: CheckResult | None) -> str:
    if request.fix is not None:
        return request.fix
    from .fixes import regenerate_package

    assert result is not None, "a directory named on the command line exists or check_package failed"
    made = result.provenance
    revisions = tuple(r for r, _ in made.revisions)
    return regenerate_package(
        request.directory, revisions, made.surface, made.pairings, result.sources, request.cache_dir, request.schema_dir,
        result.extensions,
    )


def check_requests(requests: list[CheckRequest]) -> list[Outcome]:
    """Check every requested package; a configured package that does not exist yet is stale, not an error."""
    outcomes = []
    for index, request in enumerate(requests, 1):
        current().status(f"checking {index}/{len(requests)}: {request.directory}")
        if request.fix is not None and not request.directory.exists():
            result = None
        else:
            result = check_package(request.directory, request.schema_file, request.schema_dir, request.cache_dir)
        up_to_date = result is not None and result.current
        outcomes.append(Outcome(request, result, "" if up_to_date else _fix(request, result)))
    return outcomes
