"""Build the IR of a generated package: its revisions, the surface, and the names of its classes."""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from . import ir
from .conversions import check_conversions
from ..errors import SchemaError
from .fills import result_fills
from .lifecycle import lifecycle
from .names import stub_names, taken_by_runtime, with_stems


def revision_module(revision: str) -> str:
    """The subpackage of a revision in a multi-revision package: `2025-11-25` → `v2025_11_25`."""
    return "v" + re.sub(r"[^0-9A-Za-z_]", "_", revision)


def build_package(
    protocols: Sequence[ir.Protocol], surface: str | None = None, extensions: Sequence[ir.Extension] = ()
) -> ir.Package:
    """The package IR of one or several revisions (oldest first) and the extensions built on the surface
    revision (their method stems resolved after the surface's); `surface` defaults to the newest."""
    if not protocols:
        raise SchemaError("a package needs at least one revision")
    surface = surface or protocols[-1].revision
    multi = len(protocols) > 1
    revisions = tuple(
        ir.Revision(
            protocol=p,
            lifecycle=lifecycle(p),
            module=revision_module(p.revision) if multi else "",
            fills=result_fills(p),
        )
        for p in protocols
    )
    names = [r.protocol.revision for r in revisions]
    if surface not in names:
        raise SchemaError(f"surface revision {surface} is not one of the package's revisions ({', '.join(names)})")
    chosen = next(r for r in revisions if r.protocol.revision == surface)
    nested: dict[str, list[ir.Fill]] = {r.protocol.revision: [] for r in revisions}
    strips: dict[str, tuple[ir.Strip, ...]] = {}
    for other in revisions:
        if other is not chosen:
            fills, strips[other.protocol.revision] = check_conversions(chosen, other)
            nested[other.protocol.revision] += fills
            nested[surface] += check_conversions(other, chosen)[0]
    revisions = tuple(
        dataclasses.replace(
            r,
            fills=r.fills + tuple(dict.fromkeys(nested[r.protocol.revision])),
            strips=strips.get(r.protocol.revision, ()),
        )
        for r in revisions
    )
    taken, stems = taken_by_runtime(), set[str]()
    with_stems(chosen.protocol.methods, taken, stems)
    extended = tuple(
        dataclasses.replace(e, methods=with_stems(e.methods, taken, stems), warnings=e.warnings + _shared(e, revisions))
        for e in extensions
    )
    return ir.Package(
        revisions=revisions,
        surface=surface,
        server=stub_names(chosen.protocol, "server", extended),
        client=stub_names(chosen.protocol, "client", extended),
        extensions=extended,
    )


def _shared(extension: ir.Extension, revisions: Sequence[ir.Revision]) -> tuple[str, ...]:
    """A warning per revision of the package (besides the surface, which refuses it) that defines one of
    the extension's methods itself: in its sessions the method is that revision's."""
    own = {m.name for m in extension.methods}
    notes = []
    for revision in revisions:
        shared = [m.name for m in revision.protocol.methods if m.name in own]
        if shared:
            notes.append(
                f"extension {extension.name}: {', '.join(shared)} {'is' if len(shared) == 1 else 'are'} also revision "
                f"{revision.protocol.revision}'s own; in sessions of that revision {'it is' if len(shared) == 1 else 'they are'} "
                "that revision's method, not the extension's"
            )
    return tuple(notes)
