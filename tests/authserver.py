"""A real OAuth 2.1 authorization server for the authorization tests: authlib's, on Flask, served by
werkzeug on loopback (under a public issuer name if asked). Authorization code with PKCE (S256), refresh tokens,
client credentials for pre-registered clients, dynamic client registration (RFC 7591), RFC 9207 `iss`,
JWT access tokens (RFC 9068) signed with a key published as a JWKS, DPoP-bound when the token request
carries a valid proof (RFC 9449, checked with joserfc); the resource owner consents at once
(headless), every grant is counted and every request recorded. A hostile server is the same with
`overrides` in its metadata or a `token_type` of its choosing in its token responses."""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc7591 import ClientRegistrationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oauth2.rfc9207 import IssuerParameter
from flask import Flask, Response, jsonify, request
from joserfc import jwt as jose_jwt
from joserfc.errors import JoseError
from joserfc.jwk import JWKRegistry, RSAKey
from joserfc.jws import extract_compact
from werkzeug.serving import make_server

SCOPES = ["mcp:read", "mcp:write", "offline_access"]


class User:
    """The one resource owner."""

    def get_user_id(self) -> str:
        return "alice"


USER = User()


class Client(ClientMixin):  # type: ignore[misc]
    """A client registered dynamically (its metadata as sent)."""

    def __init__(self, info: dict[str, Any], metadata: dict[str, Any]) -> None:
        self.client_id: str = info["client_id"]
        self.client_secret: str = info["client_secret"]
        self.metadata = metadata

    def get_allowed_grant_type(self) -> list[str]:
        return list(self.metadata.get("grant_types", ["authorization_code"]))

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return str(self.metadata["redirect_uris"][0])

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in (scope or "").split() if s in SCOPES)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.metadata["redirect_uris"]

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return endpoint != "token" or method == self.metadata.get("token_endpoint_auth_method")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in self.metadata.get("grant_types", ["authorization_code"])


@dataclass
class Code:
    """An authorization code and what it was issued for."""

    code: str
    client_id: str
    redirect_uri: str
    scope: str
    code_challenge: str
    code_challenge_method: str

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


@dataclass
class Token:
    """An issued refresh token and its grant."""

    client: Client
    scope: str
    refresh_token: str
    revoked: bool = False

    def check_client(self, client: Client) -> bool:
        return client.client_id == self.client.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return 3600

    def is_expired(self) -> bool:
        return False

    def is_revoked(self) -> bool:
        return self.revoked

    def get_user(self) -> User:
        return USER

    def get_client(self) -> Client:
        return self.client


@dataclass(frozen=True)
class Recorded:
    """One request the authorization server received."""

    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class Authority:
    """The running authorization server: its issuer URL, what it holds and how often each grant ran."""

    issuer: str = ""
    local: str = ""
    """Where it listens (its issuer, unless that is a public name)."""
    audience: str = ""
    """The `aud` of the access tokens it issues (the MCP server's canonical URI, set once known)."""
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, Code] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    grants: Counter[str] = field(default_factory=Counter)
    registrations: int = 0
    requests: list[Recorded] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    """Metadata members replaced (a hostile server's endpoints, say)."""
    token_type: str | None = None
    """The `token_type` its token responses claim, whatever the token is (None: the truth)."""
    dpop: bool = False
    """Whether it offers DPoP (ES256) and binds the tokens of requests with a valid proof."""
    dpop_nonce: str | None = None
    """The nonce its DPoP proofs must carry (RFC 9449 §8), None: any."""

    def register(self, client_id: str, secret: str, grant_types: list[str], method: str = "client_secret_basic") -> None:
        """Pre-register a confidential client."""
        metadata = {"grant_types": grant_types, "token_endpoint_auth_method": method, "redirect_uris": []}
        self.clients[client_id] = Client({"client_id": client_id, "client_secret": secret}, metadata)

    def received(self, path: str) -> list[Recorded]:
        """The requests it received at `path`."""
        return [r for r in self.requests if r.path == path]


def proof_claims(proof: str, url: str) -> dict[str, Any] | None:
    """The claims of a valid DPoP proof (RFC 9449 §4.3) for a POST to `url`, its key's thumbprint as
    `jkt`, checked with joserfc: `dpop+jwt`, ES256, a public `jwk`, a fresh `iat`, `htm` and `htu`;
    None when invalid."""
    try:
        header = extract_compact(proof.encode()).protected
    except JoseError:
        return None
    jwk = header.get("jwk") or {}
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk:
        return None
    try:
        key = JWKRegistry.import_key(jwk)
        claims = jose_jwt.decode(proof, key, algorithms=["ES256"]).claims
    except (JoseError, ValueError):
        return None
    fresh = abs(time.time() - float(claims.get("iat", 0))) < 300
    if claims.get("htm") != "POST" or claims.get("htu") != url or not fresh or not claims.get("jti"):
        return None
    return {**claims, "jkt": key.thumbprint()}


def authority_app(authority: Authority, key: RSAKey, token_lifetime: int) -> Flask:
    """The Flask app of the authorization server."""
    app = Flask("authserver")

    class Codes(grants.AuthorizationCodeGrant):  # type: ignore[misc]
        TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

        def save_authorization_code(self, code: str, req: Any) -> None:
            data = req.payload.data
            authority.codes[code] = Code(
                code, req.client.client_id, data["redirect_uri"], req.payload.scope or "",
                data["code_challenge"], data.get("code_challenge_method", "plain"),
            )

        def query_authorization_code(self, code: str, client: Client) -> Code | None:
            found = authority.codes.get(code)
            return found if found is not None and found.client_id == client.client_id else None

        def delete_authorization_code(self, code: Code) -> None:
            authority.codes.pop(code.code, None)
            authority.grants["authorization_code"] += 1

        def authenticate_user(self, code: Code) -> User:
            return USER

    class Refresh(grants.RefreshTokenGrant):  # type: ignore[misc]
        TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
        INCLUDE_NEW_REFRESH_TOKEN = True

        def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
            found = authority.tokens.get(refresh_token)
            return found if found is not None and not found.revoked else None

        def authenticate_user(self, token: Token) -> User:
            return USER

        def revoke_old_credential(self, token: Token) -> None:
            token.revoked = True
            authority.grants["refresh_token"] += 1

    class Registration(ClientRegistrationEndpoint):  # type: ignore[misc]
        def authenticate_token(self, req: Any) -> bool:
            return True  # open registration

        def get_server_metadata(self) -> dict[str, Any]:
            return metadata()

        def save_client(self, info: dict[str, Any], client_metadata: dict[str, Any], req: Any) -> Client:
            client = Client(info, client_metadata)
            authority.clients[client.client_id] = client
            authority.registrations += 1
            return client

    class Credentials(grants.ClientCredentialsGrant):  # type: ignore[misc]
        TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

        def create_token_response(self) -> Any:
            authority.grants["client_credentials"] += 1
            return super().create_token_response()

    class Tokens(JWTBearerTokenGenerator):  # type: ignore[misc]
        def get_jwks(self) -> dict[str, Any]:
            return key.as_dict(private=True)

        def get_audiences(self, client: Client, user: User, scope: str) -> str:
            return authority.audience

        def get_extra_claims(self, client: Client, grant_type: str, user: User, scope: str) -> dict[str, Any]:
            jkt = getattr(request, "dpop_jkt", None)
            return {"cnf": {"jkt": jkt}} if jkt else {}

    class Issuer(IssuerParameter):  # type: ignore[misc]
        def get_issuer(self) -> str:
            return authority.issuer

    def save_token(token: dict[str, Any], req: Any) -> None:
        if "refresh_token" in token:
            authority.tokens[token["refresh_token"]] = Token(req.client, token.get("scope", ""), token["refresh_token"])

    server = AuthorizationServer(app, query_client=authority.clients.get, save_token=save_token)
    server.register_grant(Codes, [CodeChallenge(required=True)])
    server.register_grant(Refresh)
    server.register_grant(Credentials)
    server.register_endpoint(Registration)
    server.register_extension(Issuer())
    tokens = Tokens(
        issuer=authority.issuer,
        refresh_token_generator=lambda **_: secrets.token_urlsafe(32),
        expires_generator=lambda client, grant_type: token_lifetime,
    )
    server.register_token_generator("default", tokens)

    def metadata() -> dict[str, Any]:
        issuer = authority.issuer
        dpop = {"dpop_signing_alg_values_supported": ["ES256"]} if authority.dpop else {}
        return dpop | {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "jwks_uri": f"{issuer}/jwks",
            "scopes_supported": SCOPES,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "authorization_response_iss_parameter_supported": True,
        } | authority.overrides

    @app.before_request
    def record() -> None:
        form = {k: v for k, v in request.form.items()}
        authority.requests.append(Recorded(request.method, request.path, dict(request.headers), form))

    @app.get("/.well-known/oauth-authorization-server")
    def discovery() -> Any:
        return jsonify(metadata())

    @app.get("/jwks")
    def jwks() -> Any:
        return jsonify({"keys": [key.as_dict(private=False)]})

    @app.get("/authorize")
    def authorize() -> Any:
        grant = server.get_consent_grant(end_user=USER)
        return server.create_authorization_response(grant_user=USER, grant=grant)

    @app.post("/token")
    def token() -> Any:
        proof = request.headers.get("dpop")
        if authority.dpop and proof is not None:
            claims = proof_claims(proof, f"{authority.issuer}/token")
            if claims is None:
                return jsonify({"error": "invalid_dpop_proof"}), 400
            if authority.dpop_nonce is not None and claims.get("nonce") != authority.dpop_nonce:
                return jsonify({"error": "use_dpop_nonce"}), 400, {"DPoP-Nonce": authority.dpop_nonce}
            request.dpop_jkt = claims["jkt"]  # type: ignore[attr-defined]
        answer: Response = server.create_token_response()
        bound = getattr(request, "dpop_jkt", None) is not None
        kind = authority.token_type or ("DPoP" if bound else None)
        if kind is not None and answer.status_code == 200:
            return jsonify({**json.loads(answer.get_data()), "token_type": kind})
        return answer

    @app.post("/register")
    def register() -> Any:
        return server.create_endpoint_response("client_registration")

    return app


def authority_app_for(authority: Authority, token_lifetime: int = 3600) -> Flask:
    """The app of `authority` (its issuer set), with a fresh signing key."""
    key = RSAKey.generate_key(2048, parameters={"kid": "test-key"})
    return authority_app(authority, key, token_lifetime)


@contextlib.contextmanager
def authorization_server(token_lifetime: int = 3600, issuer: str | None = None, **fields: Any) -> Iterator[Authority]:
    """Run the authorization server on loopback until the block ends; its access tokens live
    `token_lifetime` seconds; its issuer is its loopback URL unless `issuer` names another (a public
    name the test's client resolves to `Authority.local`); `fields` set its `Authority` (a hostile
    server's `overrides`, say)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    local = f"http://127.0.0.1:{port}"
    authority = Authority(issuer=issuer or local, local=local, **fields)
    served = make_server("127.0.0.1", port, authority_app_for(authority, token_lifetime), threaded=True)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield authority
    finally:
        served.shutdown()
        thread.join(10)
