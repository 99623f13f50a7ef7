"""The protocol runtime of generated MCP packages: dispatch, negotiation, conversion and transports.

It is ordinary source in mcpgen's repository, tested there, and copied verbatim into every generated
package (`<package>/runtime/`). It imports nothing generated: a package's modules hand it their tables
(`revisions.REVISIONS`, each revision's method registry and types) through the classes they derive
from `ServerBase` and `ClientBase`.
"""

from __future__ import annotations

from .client import ClientBase
from .convert import Policy, dump
from .jsonrpc import ProtocolError
from .peer import REQUEST_ID, Channel, Peer, Reply
from .registry import Method, Registry
from .revisions import Revision, Revisions
from .server import ServerBase

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
