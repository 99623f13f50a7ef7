"""The error a client's authorization raises."""

from __future__ import annotations


class AuthorizationError(Exception):
    """Authorization with an MCP server's authorization server failed or was refused; `error` is the
    OAuth error code when the authorization server gave one."""

    def __init__(self, message: str, error: str | None = None) -> None:
        super().__init__(message)
        self.error = error
