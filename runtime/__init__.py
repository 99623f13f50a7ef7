"""The protocol runtime of generated MCP packages: dispatch, negotiation, conversion and transports.

It is ordinary source in mcpgen's repository, tested there, and copied verbatim into every generated
package (`<package>/runtime/`). It imports nothing generated: a package's modules hand it their tables
(`revisions.REVISIONS`, each revision's method registry and types) through the classes they derive
from `ServerBase` and `ClientBase`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import ClientBase
    from .convert import Policy, dump
    from .jsonrpc import ProtocolError
    from .peer import REQUEST_ID, Channel, Peer, Reply
    from .registry import Method, Registry
    from .revisions import Revision, Revisions
    from .server import ServerBase

_HOMES = {
    "ClientBase": "client",
    "Policy": "convert",
    "dump": "convert",
    "ProtocolError": "jsonrpc",
    "REQUEST_ID": "peer",
    "Channel": "peer",
    "Peer": "peer",
    "Reply": "peer",
    "Method": "registry",
    "Registry": "registry",
    "Revision": "revisions",
    "Revisions": "revisions",
    "ServerBase": "server",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (so `facts` is read without pydantic)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)


__all__ = [
    "REQUEST_ID",
    "Channel",
    "ClientBase",
    "Method",
    "Peer",
    "Policy",
    "ProtocolError",
    "Registry",
    "Reply",
    "Revision",
    "Revisions",
    "ServerBase",
    "dump",
]
