"""Extension negotiation (SEP-2133): an extension is on for a request only when both sides declare it
under `capabilities.extensions`, the server in its handshake answer, the client in the request's `_meta`
(stateless era) or its session's handshake (session era)."""

from __future__ import annotations

from typing import Any, Mapping

from .convert import dump
from .jsonrpc import METHOD_NOT_FOUND, ProtocolError
from .revisions import Revision


def declared(revision: Revision, capabilities: Any) -> Mapping[str, Any]:
    """The extensions `capabilities` (wire data, any JSON) declare in `revision`: identifier → settings."""
    key = revision.lifecycle.extensions_key
    found = capabilities.get(key) if key and isinstance(capabilities, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def client_capabilities(revision: Revision, params: Any, session: Any) -> Any:
    """The client capabilities a request states: in the stateless era its `_meta`'s (any JSON), in the
    session era the session's handshake params' (`session`)."""
    modern, legacy = revision.modern, revision.legacy
    if modern is not None and modern.client_capabilities_key:
        meta = params.get(modern.meta_key) if isinstance(params, Mapping) else None
        return meta.get(modern.client_capabilities_key) if isinstance(meta, Mapping) else None
    wire = dump(session)
    return wire.get(legacy.capabilities_key) if legacy and isinstance(wire, Mapping) else None


def negotiated(revision: Revision, server: Any, client: Any) -> frozenset[str]:
    """The extensions of `revision` both the server's and the client's capabilities declare."""
    ours, theirs = declared(revision, dump(server)), declared(revision, client)
    return frozenset(
        e.identifier for e in revision.extensions if e.identifier in ours and e.identifier in theirs
    )


def missing_extension(revision: Revision, identifier: str, what: str) -> ProtocolError:
    """The error for `what` needing extension `identifier` from a client that did not declare it:
    the missing-capability error naming it in `requiredCapabilities`, where the revision has one."""
    modern = revision.modern
    code = modern.missing_capability_code if modern is not None else None
    if code is None or revision.lifecycle.extensions_key is None:
        return ProtocolError(METHOD_NOT_FOUND, f"Method not found: {what}")
    required: dict[str, Any] = {revision.lifecycle.extensions_key: {identifier: {}}}
    data = (
        {modern.required_capabilities_key: required}
        if modern and modern.required_capabilities_key
        else None
    )
    return ProtocolError(
        code, f"Missing required client capability: extension {identifier} ({what})", data
    )
