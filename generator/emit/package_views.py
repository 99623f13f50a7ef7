"""Template views of a package's own files: the revision tables, Server and Client, `__init__` and the
modules that expose runtime modules under the package's name."""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.packaged_runtime import exports
from ..model import ir
from .layout import tuple_literal
from .literals import record_literal, string_literal
from .provenance import Provenance, of_package
from .stub_views import SideView, side_view

REGISTRY_ALIAS = "r{index}"

FACADES: tuple[tuple[str, str, str], ...] = (
    ("jsonrpc.py", "jsonrpc", "JSON-RPC 2.0 basics shared by every revision of this package: errors, decoding, ids."),
    ("stdio.py", "stdio", "Newline-delimited JSON-RPC over stdio for this package's Server and Client."),
    ("http.py", "http", "Streamable HTTP for this package's Server and Client (the client needs httpx)."),
    ("auth.py", "auth", "Authorization for this package's HTTP Client (OAuth) and Server (ResourceServer)."),
)
"""(file, runtime module, docstring) of each module that exposes a runtime module under the package's name."""


@dataclass(frozen=True)
class RevisionEntryView:
    """One revision's entry in the generated `revisions.py`: every value as Python source."""

    package: str
    alias: str
    version_literal: str
    lifecycle: str
    fills: str
    strips: str
    extended: bool
    """Whether the revision carries the package's extensions (the surface, when its capabilities can)."""


@dataclass(frozen=True)
class FacadeView:
    """A module exposing a runtime module's public names; those taking `revisions` are bound to the package's."""

    module: str
    doc: str
    names: tuple[str, ...]
    bound: tuple[str, ...]


@dataclass(frozen=True)
class PackageView:
    """Everything the package-level templates receive."""

    header: str
    record_header: str
    describe: str
    multi: bool
    surface_literal: str
    surface_package: str
    revisions: tuple[RevisionEntryView, ...]
    fact_types: tuple[str, ...]
    extended: bool
    modules: tuple[str, ...]
    server: SideView
    client: SideView
    single: ir.Protocol | None
    errata_literal: str


def _entry(revision: ir.Revision, index: int, package: ir.Package, names: set[str]) -> RevisionEntryView:
    multi = package.multi
    return RevisionEntryView(
        package=f".{revision.module}" if multi else ".",
        alias=REGISTRY_ALIAS.format(index=index),
        version_literal=string_literal(revision.protocol.revision),
        lifecycle=record_literal(revision.lifecycle, names),
        fills=record_literal(revision.fills, names),
        strips=record_literal(revision.strips, names),
        extended=bool(package.extensions)
        and revision is package.surface_revision
        and revision.lifecycle.extensions_key is not None,
    )


def facade_view(module: str, doc: str) -> FacadeView:
    """The view of a module exposing the runtime module `module` (its exports read from its source)."""
    names, bound = exports(module)
    return FacadeView(module, doc, names, bound)


def package_view(package: ir.Package) -> PackageView:
    """The view of the package-level files."""
    revisions = [r.protocol.revision for r in package.revisions]
    describe = (
        f"{', '.join(revisions[:-1])} and {revisions[-1]} (surface {package.surface})"
        if package.multi
        else revisions[0]
    )
    surface = package.surface_revision
    provenance: Provenance = of_package(package)
    fact_types: set[str] = set()
    entries = tuple(_entry(r, i, package, fact_types) for i, r in enumerate(package.revisions))
    return PackageView(
        header=provenance.header(),
        record_header=provenance.header(record=True),
        describe=f"MCP {describe}",
        multi=package.multi,
        surface_literal=string_literal(package.surface),
        surface_package=f".{surface.module}" if package.multi else ".",
        revisions=entries,
        fact_types=tuple(sorted(fact_types)),
        extended=any(e.extended for e in entries),
        modules=tuple(r.module for r in package.revisions) if package.multi else (),
        server=side_view(package, "server"),
        client=side_view(package, "client"),
        single=None if package.multi else surface.protocol,
        errata_literal=tuple_literal((string_literal(e.id) for e in surface.protocol.errata), 0),
    )
