"""Diff sides made of extension schemas: an extension on its own (two versions of it compared), and a
revision whose definitions an extension copies replaced by the extension's copies (its drift)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...inputs.errata import corrected_extension
from ...inputs.extensions import ExtensionSource
from ...model import ir
from ...model.definitions import build_definitions
from ...model.copies import local_refs, rekeyed
from ...model.extension import extension_methods
from ...model.parser import check_references, defs_key_of, parse
from ...model.protocol import add_discriminators, emission_order
from ...model.roles import ROLE_UNIONS
from .load import Revision, revision_of
from .rawschema import index_schema

ENVELOPE = ir.Envelope(
    batching=False,
    error_model="JSONRPCErrorResponse",
    result_response_model="JSONRPCResultResponse",
    request_model="JSONRPCRequest",
    notification_model="JSONRPCNotification",
)
"""The envelope an extension side is given: the same on both sides (an extension schema has none of its
own to compare), so no envelope change is ever reported between two extensions."""


def extension_side(source: ExtensionSource, label: str) -> Revision:
    """An extension on its own, read as generation reads it: every definition of its schema (its copies
    of core definitions included) and its methods, a method of its own link (MCP Apps' app and host)
    compared as its client and server."""
    read = corrected_extension(source)
    check_references(dict(read.schema))
    definitions, _ = build_definitions(parse(dict(read.schema)))
    definitions = emission_order(add_discriminators(definitions))
    own = tuple(d for d in definitions if d.name not in ROLE_UNIONS)
    methods, _ = extension_methods(read, own, definitions, {}, None)
    protocol = ir.Protocol(
        revision=label,
        schema_sha256=read.sha256,
        errata=read.errata,
        definitions=tuple(definitions),
        methods=tuple(dataclasses.replace(m, roles=None) for m in methods),
        envelope=ENVELOPE,
    )
    return Revision(protocol, index_schema(protocol, read.schema))


def drift_side(core: dict[str, Any], revision: ir.Protocol, source: ExtensionSource, label: str) -> Revision:
    """The revision of `core` (its corrected schema, `revision` its IR) with each definition the extension
    copies replaced by the extension's copy, and the extension's own definitions those copies refer to
    added: compared with the revision itself, every change is where a copy drifted from it."""
    read = corrected_extension(source)
    core_key, ext_key = defs_key_of(core), defs_key_of(dict(read.schema))
    ext_defs = read.schema[ext_key]
    copied = [n for n in ext_defs if n in core[core_key] and n not in ROLE_UNIONS]
    wanted = list(copied)
    for name in wanted:
        wanted += [r for r in local_refs(ext_defs[name], ext_key) if r in ext_defs and r not in wanted]
    defs = dict(core[core_key])
    for name in wanted:
        defs[name] = rekeyed(ext_defs[name], ext_key, core_key)
    own = f"ext-{source.name}/"  # the core errata it had applied are the revision's own
    errata = revision.errata + tuple(e for e in read.errata if e.id.startswith(own) and set(e.definitions) & set(wanted))
    return revision_of({**core, core_key: defs}, label, read.sha256, errata, draft=not read.pinned)

