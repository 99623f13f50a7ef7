"""Discovery documents: protected-resource metadata (RFC 9728) and authorization-server metadata (RFC 8414,
OpenID Connect Discovery), the URLs to look for them at, and the checks they must pass."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict


class ProtectedResourceMetadata(BaseModel):
    """An MCP server's protected-resource metadata (RFC 9728 §2); unknown members are kept."""

    model_config = ConfigDict(extra="allow")

    resource: str
    authorization_servers: list[str] = []
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = None
    resource_name: str | None = None
    resource_documentation: str | None = None


class AuthorizationServerMetadata(BaseModel):
    """An authorization server's metadata (RFC 8414 §2, RFC 9207, RFC 9449, Client ID Metadata
    Documents)."""

    model_config = ConfigDict(extra="allow")

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    jwks_uri: str | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    client_id_metadata_document_supported: bool | None = None
    authorization_response_iss_parameter_supported: bool | None = None
    dpop_signing_alg_values_supported: list[str] | None = None


def origin(url: str) -> str:
    """The scheme and authority of `url` (the 2025-03-26 authorization base URL)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def canonical_resource(url: str) -> str:
    """The canonical URI of the MCP server at `url` (RFC 8707 §2): lower-case scheme and host, no
    fragment, no lone trailing slash; its query kept (`?tenant=a` and `?tenant=b` are two servers).
    """
    parts = urlsplit(url)
    path = "" if parts.path == "/" else parts.path
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def resource_metadata_urls(server_url: str) -> list[str]:
    """Where to look for the protected-resource metadata of `server_url` without a `resource_metadata`
    hint: at the endpoint's path, then at the root (RFC 9728 §3.1)."""
    parts = urlsplit(server_url)
    path = parts.path.rstrip("/")
    suffixes = [path, ""] if path else [""]
    return [
        urlunsplit(
            (parts.scheme, parts.netloc, f"/.well-known/oauth-protected-resource{s}", "", "")
        )
        for s in suffixes
    ]


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """The metadata URLs of `issuer` in the order MCP clients try them: RFC 8414 path insertion, OpenID
    Connect path insertion, then OpenID Connect path appending (the last only for issuers with a path).
    """
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(p: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, p, "", ""))

    found = [
        at(f"/.well-known/oauth-authorization-server{path}"),
        at(f"/.well-known/openid-configuration{path}"),
    ]
    if path:
        found.append(at(f"{path}/.well-known/openid-configuration"))
    return found


def legacy_metadata(base: str) -> AuthorizationServerMetadata:
    """The default endpoints of a 2025-03-26 server without metadata, at its authorization base URL."""
    return AuthorizationServerMetadata(
        issuer=base,
        authorization_endpoint=f"{base}/authorize",
        token_endpoint=f"{base}/token",
        registration_endpoint=f"{base}/register",
        code_challenge_methods_supported=["S256"],
    )


def resource_allows(resource: str, server_url: str) -> bool:
    """Whether the metadata's `resource` identifies the server at `server_url`: same origin, and the
    server's path is the resource's path or below it."""
    r, s = urlsplit(resource), urlsplit(server_url)
    if (r.scheme.lower(), r.netloc.lower()) != (s.scheme.lower(), s.netloc.lower()):
        return False
    base, path = r.path.rstrip("/"), s.path.rstrip("/")
    return path == base or path.startswith(base + "/")
