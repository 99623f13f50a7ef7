"""A package's files by what shapes its bytes: from the package cache, else rendered by the renderer
the caller gives (`generate.render_fresh`, or `fresh.render_fresh`, which imports it only when called).

`mcpgen check` of a current package needs only this (and the cache): it never imports the generation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..console import current
from ..errors import McpgenError
from ..inputs.sources import SchemaSource, default_cache_dir

if TYPE_CHECKING:
    from ..inputs.extensions import ExtensionSource


@dataclass(frozen=True)
class PackageRequest:
    """What shapes a package's bytes (the schemas of its revisions, oldest first; its surface; the
    pairings; its extensions' schemas), and where a copy of it may be cached."""

    sources: tuple[SchemaSource, ...]
    surface: str
    pairings: tuple[tuple[str, str], ...] = ()
    cache_dir: Path | None = None
    extensions: tuple[ExtensionSource, ...] = ()

    @property
    def revisions(self) -> tuple[str, ...]:
        """The revision names, oldest first."""
        return tuple(s.revision for s in self.sources)


@dataclass(frozen=True)
class Rendered:
    """A package's formatted files, and what its user should know (from its IR: drafts' gaps)."""

    files: dict[str, str]
    """By relative path, in sorted order (as the package cache returns them), however they were rendered."""
    warnings: tuple[str, ...] = ()


def cache_root(cache_dir: Path | None) -> Path:
    """The cache directory in use: `--cache-dir`, else the user's default."""
    return cache_dir or default_cache_dir()


def render_packages(
    requests: list[PackageRequest], fresh: Callable[[list[PackageRequest]], list[Rendered]], cached: bool = True
) -> list[Rendered]:
    """Every package's files, formatted: from the package cache when generated before, else by `fresh`."""
    from .. import cache

    keys = (
        [
            cache.package_key(
                tuple((s.revision, s.sha256) for s in r.sources),
                r.surface,
                r.pairings,
                tuple((e.name, e.identifier, e.sha256) for e in r.extensions),
            )
            for r in requests
        ]
        if cached and cache.enabled()
        else []
    )
    found: list[Rendered | None] = [None] * len(requests)
    for i, (r, key) in enumerate(zip(requests, keys)):
        hit = cache.load(cache_root(r.cache_dir), key)
        found[i] = Rendered(*hit) if hit is not None else None
    missing = [i for i, made in enumerate(found) if made is None]
    current().detail(
        f"package cache: {len(requests) - len(missing)} of {len(requests)} found" if keys else "package cache: off"
    )
    if missing:
        for i, made in zip(missing, fresh([requests[i] for i in missing])):
            found[i] = made
            if keys:
                cache.store(cache_root(requests[i].cache_dir), keys[i], made.files, made.warnings)
    complete = [made for made in found if made is not None]
    if len(complete) != len(requests):
        raise McpgenError("internal error: a package was neither cached nor rendered (please report this)")
    return complete
