"""The IR owns every public name of the generated classes: the runtime's members win, clashes resolve the same way every time."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.errors import SchemaError
from mcpgen.commands.generate import GenerateConfig, generate
from mcpgen.model.names import runtime_members
from shared import load_package


def with_client_info_request(schema_dir: Path) -> dict[str, Any]:
    """2025-11-25 plus a client-sent `client/info` request: its Python name is the runtime's `client_info`."""
    schema = json.loads((schema_dir / "2025-11-25" / "schema.json").read_text("utf-8"))
    defs = schema["$defs"]
    request = copy.deepcopy(defs["PingRequest"])
    request["properties"]["method"] = {"const": "client/info", "type": "string"}
    defs["ClientInfoRequest"] = request
    defs["ClientInfoResult"] = {"type": "object", "properties": {"note": {"type": "string"}}}
    defs["ClientRequest"]["anyOf"].append({"$ref": "#/$defs/ClientInfoRequest"})
    return schema


@pytest.fixture(scope="module")
def clashing(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = tmp_path_factory.mktemp("clash")
    source = root / "schema.json"
    source.write_text(json.dumps(with_client_info_request(schema_dir)), "utf-8")
    generate(GenerateConfig(schema_file=source, revision="2099-02-02", output=root / "clash_pkg"))
    return root, load_package(root / "clash_pkg", "clash_pkg")


def public_members(source: str, class_name: str) -> set[str]:
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_")}


def test_a_method_named_like_a_runtime_member_yields_to_it(clashing: tuple[Path, Any]) -> None:
    _, pkg = clashing
    client = type("C", (pkg.Client,), {"name": "probe", "version": "1"})()
    assert client.client_info() == {"name": "probe", "version": "1"}  # the runtime member is intact
    assert callable(client.client_info_)  # the typed call took the next free name
    params = client.initialize_params()
    assert params.client_info.name == "probe"
    # The method table names the stem every generated name of the method comes from: the call that was renamed.
    assert pkg.METHODS["client/info"].python_name == "client_info_"
    assert pkg.Server.handlers["client/info"] == "on_client_info_"


def test_the_clashing_package_type_checks(clashing: tuple[Path, Any]) -> None:
    root, _ = clashing
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", "clash_pkg"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout  # no `no-redef`: every name is defined once


def sent_methods(source: str, class_name: str) -> dict[str, str]:
    """Public method name → the wire method its body sends with `_mcp_call`/`_mcp_notify`."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    found = {}
    for node in cls.body:
        if isinstance(node, ast.AsyncFunctionDef) and not node.name.startswith("_"):
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("_mcp_call", "_mcp_notify")
                    and isinstance(call.args[0], ast.Constant)
                ):
                    found[node.name] = call.args[0].value
    return found


@pytest.mark.parametrize("side", ["server", "client"])
def test_public_members_are_exactly_the_runtime_table_handlers_and_calls(
    clashing: tuple[Path, Any], side: str
) -> None:
    root, pkg = clashing
    cls = pkg.Server if side == "server" else pkg.Client
    other = "client" if side == "server" else "server"
    source = (root / "clash_pkg" / f"{side}.py").read_text("utf-8")
    reserved = set(runtime_members(side))
    assert {"handle", "attach", "send_request", "revisions", "handlers", "derived_capabilities"} <= reserved
    calls = sent_methods(source, cls.__name__)
    live = {name: m for name, m in pkg.METHODS.items() if not m.embedded}
    assert sorted(calls.values()) == sorted(n for n, m in live.items() if m.sent_by(side))
    wanted = {n for n, m in pkg.METHODS.items() if m.sent_by(other) and (side == "client" or not m.embedded)}
    assert set(cls.handlers) == wanted
    handlers = set(cls.handlers.values())
    # What the class defines beyond its handlers and calls re-declares a runtime member (tables, typed returns).
    assert public_members(source, cls.__name__) - handlers - set(calls) <= reserved
    assert all(not n.startswith("_") for n in handlers | set(calls))
    assert not (handlers | set(calls)) & reserved


def test_names_are_resolved_the_same_way_every_time(schema_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "schema.json"
    source.write_text(json.dumps(with_client_info_request(schema_dir)), "utf-8")
    outputs = []
    for name in ("a", "b"):
        generate(GenerateConfig(schema_file=source, revision="2099-02-02", output=tmp_path / name))
        outputs.append((tmp_path / name / "client.py").read_text("utf-8"))
    assert outputs[0] == outputs[1] and "async def client_info_(" in outputs[0]


@pytest.mark.parametrize(
    "definition, key, needle",
    [
        ("InitializeRequestParams", "protocolVersion", "InitializeRequestParams has no field 'protocolVersion'"),
        ("InitializeResult", "serverInfo", "InitializeResult has no field 'serverInfo'"),
    ],
)
def test_a_draft_that_renames_a_handshake_key_generates_its_types_and_says_why_it_runs_no_session(
    schema_dir: Path, tmp_path: Path, definition: str, key: str, needle: str
) -> None:
    schema = json.loads((schema_dir / "2025-11-25" / "schema.json").read_text("utf-8"))
    target = schema["$defs"][definition]
    target["properties"]["renamed"] = target["properties"].pop(key)
    target["required"] = ["renamed" if r == key else r for r in target.get("required", [])]
    source = tmp_path / "schema.json"
    source.write_text(json.dumps(schema), "utf-8")
    (made,) = generate(GenerateConfig(schema_file=source, revision="2099-02-02", output=tmp_path / "out", package="renamed_pkg"))
    assert [w for w in made.warnings if needle in w and "no session runs" in w], made.warnings
    pkg = load_package(tmp_path / "out", "renamed_pkg")
    assert pkg.REVISIONS["2099-02-02"].era == "none" and pkg.types.InitializeResult is not None
    assert "# Lifecycle: none (types and methods only)" in (tmp_path / "out" / "__init__.py").read_text("utf-8")
