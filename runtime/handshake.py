"""A server's handshake answer in either era: `initialize` (session) or discovery (stateless), read and written."""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from pydantic import BaseModel

from .convert import dump, fill, project_capabilities
from .plan import FillRule
from .revisions import Revision, Revisions, newest_first


class Handshake(NamedTuple):
    """What a server's handshake answer says, whichever revision's shape it has."""

    versions: list[Any]
    capabilities: Any
    info: Any
    instructions: Any


def handshake_info(revision: Revision, result: Any) -> Handshake:
    """The versions, capabilities, implementation info and instructions a handshake result carries."""
    wire = dump(result) or {}
    if revision.legacy is not None:
        keys = revision.legacy
        return Handshake(
            [wire.get(keys.version_key)],
            wire.get(keys.capabilities_key),
            wire.get(keys.server_info_key),
            wire.get(keys.instructions_key) if keys.instructions_key else None,
        )
    modern = revision.modern
    if modern is None:
        return Handshake([revision.version], None, None, None)
    versions = wire.get(modern.versions_key)
    info: Any = wire if modern.server_info_path else None
    for key in modern.server_info_path:
        info = info.get(key) if isinstance(info, dict) else None
    return Handshake(
        versions if isinstance(versions, list) else [],
        wire.get(modern.capabilities_key),
        info,
        wire.get(modern.instructions_key) if modern.instructions_key else None,
    )


def handshake_result(
    revisions: Revisions,
    revision: Revision,
    version: str,
    capabilities: Any,
    info: Any,
    instructions: str | None,
    fills: Sequence[FillRule],
) -> BaseModel:
    """A server's handshake answer in `revision`'s shape: `initialize` (session) or discovery (stateless),
    with every constant and required field the revision's schema asks for filled in (`fills`)."""
    surface = revisions.surface
    projected = project_capabilities(
        capabilities, revision.server_capabilities, surface.server_capabilities
    )
    wire: dict[str, Any]
    if revision.legacy is not None:
        keys = revision.legacy
        wire = {
            keys.version_key: version,
            keys.capabilities_key: projected,
            keys.server_info_key: info,
        }
        if instructions is not None and keys.instructions_key:
            wire[keys.instructions_key] = instructions
        model = revision.model(keys.result)
    else:
        modern = revision.modern
        assert modern is not None, "a revision without a handshake has no handshake result"
        wire = {
            modern.versions_key: newest_first(revisions.supported),
            modern.capabilities_key: projected,
        }
        if modern.server_info_path:
            *holders, last = modern.server_info_path
            node = wire
            for key in holders:
                node = node.setdefault(key, {})
            node[last] = info
        if instructions is not None and modern.instructions_key:
            wire[modern.instructions_key] = instructions
        model = revision.model(modern.result)
    for path, key, constant in fills:
        fill(wire, path, key, constant)
    assert model is not None, "the generator checked the handshake result is a model"
    return model.model_validate(wire)
