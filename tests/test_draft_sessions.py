"""Drafts from any point of the spec's history generate, and run sessions wherever their lifecycle allows.

Each draft here is a released schema of the corpus with an edit upstream made on the way (a moved or
renamed `_meta` key, `serverInfo` moved or gone, a renamed `_meta` definition, a required
`resultType`); the package is generated through the library and a client and a server of it talk over
in-memory stdio (issue 24).
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from functional.packages import Wire, run
from mcpgen.commands.generate import GenerateConfig, GeneratedPackage, generate
from shared import load_package

Edit = Callable[[dict[str, Any]], None]


def draft(schema_dir: Path, base: str, edit: Edit) -> dict[str, Any]:
    schema = json.loads((schema_dir / base / "schema.json").read_text("utf-8"))
    edit(schema["$defs"])
    return schema


def generated(tmp_path: Path, schema: dict[str, Any], alias: str) -> tuple[GeneratedPackage, ModuleType]:
    source = tmp_path / "draft.json"
    source.write_text(json.dumps(schema), "utf-8")
    (made,) = generate(GenerateConfig(schema_file=source, revision="2099-01-01", output=tmp_path / alias, package=alias))
    return made, load_package(tmp_path / alias, alias)


def session(pkg: ModuleType) -> tuple[Any, Any]:
    """A client and a server of `pkg` back to back: the handshake's answer and a ping's."""

    async def talk() -> tuple[Any, Any]:
        client, server = pkg.Client(), pkg.Server()
        Wire(pkg, client, server)
        answer = await asyncio.wait_for(client.start_session(), 10)
        pong = await asyncio.wait_for(client.ping(), 10) if "ping" in pkg.METHODS else None
        return answer, pong

    return run(talk())


def server_info_at_top(defs: dict[str, Any]) -> None:
    """2026-05 to 2026-07 drafts: the discovery result names the server in a top-level `serverInfo`."""
    result = defs["DiscoverResult"]
    meta = defs[result["properties"]["_meta"]["$ref"].rsplit("/", 1)[1]]
    meta["properties"].pop("io.modelcontextprotocol/serverInfo")
    result["properties"]["serverInfo"] = {"$ref": "#/$defs/Implementation"}
    result["required"] = [*result.get("required", []), "serverInfo"]


def server_info_gone(defs: dict[str, Any]) -> None:
    result = defs["DiscoverResult"]
    meta = defs[result["properties"]["_meta"]["$ref"].rsplit("/", 1)[1]]
    meta["properties"].pop("io.modelcontextprotocol/serverInfo")


def client_info_renamed(defs: dict[str, Any]) -> None:
    meta = defs["RequestMetaObject"]["properties"]
    meta["io.modelcontextprotocol/client"] = meta.pop("io.modelcontextprotocol/clientInfo")
    required = defs["RequestMetaObject"].get("required", [])
    defs["RequestMetaObject"]["required"] = ["io.modelcontextprotocol/client" if r.endswith("clientInfo") else r for r in required]


def renamed(old: str, new: str) -> Edit:
    """A definition renamed, every reference with it (as `Meta` → `MetaObject` was upstream)."""

    def edit(defs: dict[str, Any]) -> None:
        defs[new] = defs.pop(old)
        text = json.dumps(defs).replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
        defs.clear()
        defs.update(json.loads(text))

    edit.__name__ = f"{old}_to_{new}"
    return edit


meta_renamed = renamed("RequestMetaObject", "RequestMeta")
implementation_renamed = renamed("Implementation", "ImplementationInfo")


def result_type_required(defs: dict[str, Any]) -> None:
    """2026-05 session-era drafts: every result requires a `resultType` (default "complete")."""
    kind = {"type": "string", "enum": ["complete", "input_required"], "default": "complete"}
    for name, definition in defs.items():
        if name == "Result" or (name.endswith("Result") and "properties" in definition):
            definition.setdefault("properties", {})["resultType"] = copy.deepcopy(kind)
            definition["required"] = [*definition.get("required", []), "resultType"]


@pytest.mark.parametrize(
    ("base", "edit", "note"),
    [
        ("2026-07-28", server_info_at_top, None),
        ("2026-07-28", server_info_gone, "discovery answers do not name the server"),
        ("2026-07-28", client_info_renamed, "requests do not name the client"),
        ("2026-07-28", meta_renamed, None),
        ("2025-11-25", result_type_required, None),
        ("2025-11-25", implementation_renamed, None),
    ],
    ids=["serverInfo-top", "serverInfo-gone", "clientInfo-renamed", "meta-renamed", "resultType-required", "implementation-renamed"],
)
def test_a_draft_with_an_upstream_edit_generates_and_runs_a_session(
    schema_dir: Path, tmp_path: Path, base: str, edit: Edit, note: str | None
) -> None:
    made, pkg = generated(tmp_path, draft(schema_dir, base, edit), f"draft_{edit.__name__}_{base[:4]}")
    revision = pkg.REVISIONS["2099-01-01"]
    assert revision.era == ("stateless" if base == "2026-07-28" else "session")
    if note is None:
        assert not [w for w in made.warnings if "lifecycle" in w or "name" in w], made.warnings
    else:
        assert [w for w in made.warnings if note in w], made.warnings
    answer, pong = session(pkg)
    assert answer is not None and (pong is not None or "ping" not in pkg.METHODS)
    wire = answer.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if edit is server_info_at_top:
        assert wire["serverInfo"] == {"name": "mcp-server", "version": "0.0.0"}
    if edit is result_type_required:
        assert wire["resultType"] == "complete"
        assert pong.model_dump(mode="json", by_alias=True, exclude_unset=True)["resultType"] == "complete"


def test_a_draft_whose_handshake_cannot_run_is_its_types_and_methods(schema_dir: Path, tmp_path: Path) -> None:
    def no_version(defs: dict[str, Any]) -> None:
        meta = defs["RequestMetaObject"]
        meta["properties"].pop("io.modelcontextprotocol/protocolVersion")
        meta["required"] = [r for r in meta.get("required", []) if not r.endswith("protocolVersion")]

    made, pkg = generated(tmp_path, draft(schema_dir, "2026-07-28", no_version), "draft_no_version")
    assert pkg.REVISIONS["2099-01-01"].era == "none"
    assert [w for w in made.warnings if "io.modelcontextprotocol/protocolVersion" in w and "no session runs" in w]
    assert pkg.parse_result("tools/list", {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
    header = (tmp_path / "draft_no_version" / "__init__.py").read_text("utf-8")
    assert "# Lifecycle: none (types and methods only)" in header
