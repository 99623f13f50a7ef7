"""Test support for skills (SEP-2640): a tiny skill directory written byte by byte, and a server class of a
generated package that mounts it beside one resource of its own and records the `resources/read` URIs."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

SKILL_MD = b"---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n"
FORMS_MD = b"# Forms\n\nFill a field by its name.\n"
OTHER_MD = b"---\nname: unit-conversion\ndescription: 'Convert units: metres, feet'\nversion: 2\n---\nBody.\n"
OWN = {"uri": "test://own", "name": "own", "mimeType": "text/plain"}


def write_skills(root: Path) -> Path:
    """Two skills: `pdf-processing` (SKILL.md, references/FORMS.md) and `unit-conversion` (SKILL.md)."""
    (root / "pdf-processing" / "references").mkdir(parents=True)
    (root / "pdf-processing" / "SKILL.md").write_bytes(SKILL_MD)
    (root / "pdf-processing" / "references" / "FORMS.md").write_bytes(FORMS_MD)
    (root / "unit-conversion").mkdir()
    (root / "unit-conversion" / "SKILL.md").write_bytes(OTHER_MD)
    return root


def sha256(data: bytes) -> str:
    """The digest the specification states: `sha256:` and the lowercase hex of the bytes' SHA-256."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skills_server(pkg: ModuleType, directory: Any, reads: list[str] | None = None) -> type:
    """A Server class mounting `directory`, with a resource of its own (`test://own`); each
    `resources/read` URI is appended to `reads` (a mount in front of the directory)."""

    class Recorder:
        def __init__(self) -> None:
            self.methods = {"resources/read": self.read}

        def declare(self, capabilities: dict[str, Any], extensions_key: str | None) -> dict[str, Any]:
            return capabilities

        async def read(self, params: Any, own: Any, stateless: bool) -> Any:
            if reads is not None and isinstance(params, dict):
                reads.append(params.get("uri"))
            return await own()

    types = pkg.types

    class Skills(pkg.Server):  # type: ignore[misc, name-defined]
        name, version = "skills", "1.0.0"
        mounts = (Recorder(), directory)

        async def on_list_resources(self, params: Any) -> Any:
            return types.ListResourcesResult.model_validate({"resources": [OWN], **_complete(pkg)})

        async def on_read_resource(self, params: Any) -> Any:
            if params.uri != OWN["uri"]:
                raise importlib.import_module(f"{pkg.__name__}.jsonrpc").ProtocolError(-32602, "Unknown resource")
            contents = [{"uri": OWN["uri"], "mimeType": "text/plain", "text": "mine"}]
            return types.ReadResourceResult.model_validate({"contents": contents, **_complete(pkg)})

    return Skills


def _complete(pkg: ModuleType) -> dict[str, Any]:
    """What a list or read result of the package's surface revision carries (2026-07-28: its type, caching hints)."""
    surface = importlib.import_module(f"{pkg.__name__}.revisions").SURFACE
    return {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"} if surface.modern is not None else {}
