"""The oldest pydantic the generated packages work with, and the optional libraries of their runtime.

Their models are configured with `validate_by_name` and `serialize_by_alias`, which pydantic 2.11.0
introduced: on 2.10 a model cannot be built from Python field names, dumps use Python names, and
`mypy --strict` rejects the configuration. CI runs the packages' behaviour tests on exactly this
version and on the newest one.
"""

from __future__ import annotations

MIN_PYDANTIC = "2.11.0"


def pydantic_requirement() -> str:
    """The requirement a generated package puts on pydantic: `pydantic>=2.11.0,<3`."""
    return f"pydantic>={MIN_PYDANTIC},<3"


HTTPX_REQUIREMENT = "httpx>=0.27,<1"
"""What `connect_http` needs (imported only when it runs): the `http` extra of a `--dist` project."""

PYJWT_REQUIREMENT = "PyJWT[crypto]>=2.8,<3"
"""What `auth.JwtVerifier` needs (imported only when one is made): the `jwt` extra of a `--dist` project."""

REDIS_REQUIREMENT = "redis>=5.0.1,<9"
"""What `runtime.fanout.RedisFanout` needs (imported when it connects): the `redis` extra of a `--dist` project."""

RUAMEL_REQUIREMENT = "ruamel.yaml>=0.18,<1"
"""What `runtime.frontmatter` needs (imported when a SKILL.md is read): the `skills` extra of a `--dist` project."""
