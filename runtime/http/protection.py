"""The HTTP side of a resource server (`runtime/auth/resource.py`): where its protected-resource metadata
is served (RFC 9728 §3.1, mount prefix included), the access token checked before anything else of a
request is read, the scopes once its body is."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..auth.resource import AccessToken, Presented, Refused, ResourceServer
from .wire import Reject, Request, Scope, paths


class Protection:
    """The resource server `auth` guarding the MCP endpoint at `path` (below the app's mount point)."""

    def __init__(self, auth: ResourceServer, path: str) -> None:
        self.auth = auth
        self.path = path

    def endpoint(self, request: Request, scope: Scope) -> str:
        """The URL of the MCP endpoint as this request reached the app: origin, mount point, path."""
        _, root = paths(scope)
        return request.origin + root + ("" if self.path == "/" else self.path)

    def is_metadata(self, scope: Scope) -> bool:
        """Whether the request asks for the metadata: at the RFC 9728 location of the endpoint's
        public path (the root of the host, when the outer app routes it here), or below the mount.
        """
        route, root = paths(scope)
        auth = self.auth
        public = urlsplit(auth.resource).path if auth.resource is not None else root + self.path
        full = root + route if route != "/" else root or "/"
        return full == auth.metadata_path(public) or route == auth.metadata_path(self.path)

    def metadata(self, request: Request, scope: Scope) -> dict[str, Any]:
        """The metadata document, the endpoint's URL as this request reached the app."""
        return self.auth.metadata(self.endpoint(request, scope))

    async def authenticate(self, request: Request, scope: Scope) -> AccessToken:
        """The request's verified access token (its body not read yet); Reject (401) without one."""
        proof = request.get("dpop")
        presented = Presented(
            request.get("authorization"), (proof,) if proof else (), request.method
        )
        try:
            return await self.auth.authenticate(presented, self.endpoint(request, scope))
        except Refused as refused:
            raise Reject(refused.status, refused.body, refused.headers) from None

    def authorize(self, token: AccessToken, request: Request, scope: Scope, body: Any) -> None:
        """Reject (403 insufficient_scope) a request whose token lacks a scope its messages need."""
        messages = body if isinstance(body, list) else [body] if body is not None else []
        try:
            self.auth.authorize(token, self.endpoint(request, scope), messages)
        except Refused as refused:
            raise Reject(refused.status, refused.body, refused.headers) from None
