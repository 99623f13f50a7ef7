"""The real extension schemas (ext-tasks e4345978, ext-apps 2.0.4) over 2026-07-28: every core copy mapped,
the tasks specification's examples read by the generated types as the upstream schema reads them, MCP
Apps' `_meta.ui` typed on tools and resources, the committed package current."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pydantic
import pytest
from click.testing import CliRunner

from mcpgen.cli import main
from mcpgen.commands.generate import GenerateConfig, package_ir, package_warnings, plan
from shared import EXTENDED, REPO_ROOT, link_runtime


@pytest.fixture(scope="module")
def ext(generated_root: Path) -> ModuleType:
    """The package with tasks and apps, as this mcpgen generates it."""
    link_runtime(EXTENDED[2])
    return importlib.import_module(EXTENDED[2])


def upstream(schema_dir: Path, name: str) -> dict[str, Any]:
    return dict(json.loads((schema_dir / "extensions" / name / "schema.json").read_bytes()))


def accepts(schema: dict[str, Any], definition: str, instance: Any) -> bool:
    """The oracle: the upstream extension schema, through jsonschema."""
    root = {"$schema": schema["$schema"], "$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return bool(jsonschema.validators.validator_for(root)(root).is_valid(instance))


def test_every_core_copy_is_a_core_class_and_nothing_is_reported(schema_dir: Path) -> None:
    (job,) = plan(GenerateConfig(revision=EXTENDED[0], extensions=EXTENDED[1], schema_dir=schema_dir))
    package = package_ir(job.request)
    tasks, apps = package.extensions
    core = json.loads((schema_dir / "2026-07-28" / "schema.json").read_bytes())["$defs"]
    assert set(tasks.copies) == {name for name in upstream(schema_dir, "tasks")["$defs"] if name in core}
    assert len(tasks.copies) == 56 and apps.copies == ()
    assert package_warnings(package) == ()
    assert not {d.name for d in tasks.definitions} & set(tasks.copies)


def spec_examples(schema_dir: Path) -> list[dict[str, Any]]:
    """The JSON-RPC messages of the tasks specification's examples (the comment-free `json` blocks)."""
    text = (schema_dir / "extensions" / "tasks" / "tasks.md").read_text("utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    return [m for m in map(json.loads, blocks) if isinstance(m, dict) and m.get("jsonrpc") == "2.0"]


def test_the_specification_examples_read_as_the_schema_reads_them(ext: ModuleType, schema_dir: Path) -> None:
    from importlib import import_module

    tasks = import_module(f"{ext.__name__}.ext.tasks")
    schema = upstream(schema_dir, "tasks")
    asked: dict[Any, str] = {}
    checked = 0
    for message in spec_examples(schema_dir):
        method = message.get("method")
        if method in tasks.methods.METHODS:
            spec = tasks.methods.METHODS[method]
            assert accepts(schema, spec.message.__name__, message), message
            assert type(tasks.methods.parse_message(message)) is spec.message
            asked[message.get("id")] = method
            checked += 1
        elif "result" in message and message["result"].get("resultType") == "task":
            assert accepts(schema, "CreateTaskResult", message["result"])
            tasks.types.CreateTaskResult.model_validate(message["result"])
            checked += 1
        elif "result" in message and asked.get(message["id"]) in tasks.methods.METHODS:
            method = asked[message["id"]]
            name = tasks.methods.METHODS[method].message.__name__.replace("Request", "Result")  # the schema's pairing
            assert accepts(schema, name, message["result"]), message
            parsed = tasks.methods.parse_result(method, message["result"])
            assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == message["result"]
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize(
    "result",
    [
        {"resultType": "complete", "taskId": "t", "status": "input_required", "createdAt": "a", "lastUpdatedAt": "b",
         "ttlMs": None},
        {"resultType": "complete", "taskId": "t", "status": "failed", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 5,
         "error": {"code": -32603, "message": "x"}},
        {"resultType": "complete", "taskId": "t", "status": "paused", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 5},
        {"resultType": "task", "taskId": "t", "status": "working", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 5},
        {"resultType": "complete", "taskId": "t", "status": "completed", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 5},
    ],
)
def test_a_task_state_is_accepted_exactly_when_the_schema_accepts_it(ext: ModuleType, schema_dir: Path, result: Any) -> None:
    tasks = importlib.import_module(f"{ext.__name__}.ext.tasks")
    valid = accepts(upstream(schema_dir, "tasks"), "GetTaskResult", result)
    try:
        tasks.methods.parse_result("tasks/get", result)
    except tasks.methods.ProtocolError:
        assert not valid
    else:
        assert valid


def test_tools_call_may_be_answered_with_a_task_and_tasks_are_declared_by_identifier(ext: ModuleType) -> None:
    tasks = importlib.import_module(f"{ext.__name__}.ext.tasks")
    assert tasks.methods.RESULTS == {"tools/call": (tasks.types.CreateTaskResult,)}
    (entry, apps) = ext.Server.extensions
    assert (entry.identifier, entry.results) == ("io.modelcontextprotocol/tasks", ("tools/call",))
    assert set(entry.methods) == {"tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks"}
    assert (apps.identifier, apps.methods) == ("io.modelcontextprotocol/ui", ())
    assert ext.Server.handlers["tasks/get"] == "on_get_task" and ext.Client.handlers["notifications/tasks"] == "on_task_status"
    declared = ext.types.ClientCapabilities(extensions=tasks.capabilities.client_declaration())
    assert tasks.capabilities.client_settings(declared) == tasks.types.TasksExtensionCapability()
    with pytest.raises(pydantic.ValidationError):  # no settings are defined: an empty object, nothing else
        tasks.types.TasksExtensionCapability.model_validate({"ttl": 1})


def test_a_tool_names_its_ui_and_the_resource_states_its_csp_and_permissions(ext: ModuleType, schema_dir: Path) -> None:
    apps = importlib.import_module(f"{ext.__name__}.ext.apps")
    ui, types, schema = apps.types, ext.types, upstream(schema_dir, "apps")
    tool = types.Tool(
        name="chart", input_schema={"type": "object"}, meta=apps.meta.tool_meta(ui.McpUiToolMeta(resource_uri="ui://charts/app.html"))
    )
    wire = tool.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert wire["_meta"] == {"ui": {"resourceUri": "ui://charts/app.html"}}
    assert accepts(schema, "McpUiToolMeta", wire["_meta"]["ui"])
    assert apps.meta.tool_ui(types.Tool.model_validate(wire)).resource_uri == "ui://charts/app.html"
    resource_meta = ui.McpUiResourceMeta(
        csp=ui.McpUiResourceMetaCsp(connect_domains=["https://api.example.com"]),
        permissions=ui.McpUiResourceMetaPermissions(clipboard_write={}),
        prefers_border=True,
    )
    contents = types.TextResourceContents(
        uri="ui://charts/app.html", mime_type=apps.RESOURCE_MIME_TYPE, text="<html></html>", meta=apps.meta.resource_meta(resource_meta)
    )
    entry = contents.model_dump(mode="json", by_alias=True, exclude_unset=True)["_meta"]["ui"]
    assert entry == {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"clipboardWrite": {}}, "prefersBorder": True}
    assert accepts(schema, "McpUiResourceMeta", entry) and apps.meta.resource_ui(contents) == resource_meta
    assert apps.RESOURCE_MIME_TYPE == "text/html;profile=mcp-app"
    for wrong in ({"resourceUri": "ui://x", "csp": {}}, {"visibility": ["nobody"]}, {"resourceUri": 1}):
        assert not accepts(schema, "McpUiToolMeta", wrong)
        with pytest.raises(pydantic.ValidationError):
            ui.McpUiToolMeta.model_validate(wrong)


def test_the_apps_methods_are_the_app_s_and_the_host_s(ext: ModuleType) -> None:
    apps = importlib.import_module(f"{ext.__name__}.ext.apps")
    senders = {name: sorted(m.senders) for name, m in apps.methods.METHODS.items()}
    assert senders["ui/initialize"] == ["app"] and senders["ui/resource-teardown"] == ["host"]
    assert senders["ui/notifications/tool-result"] == ["host"] and len(senders) == 17
    assert not any(name.startswith("ui/") for name in (*ext.Server.handlers, *ext.Client.handlers))
    declared = ext.types.ClientCapabilities(
        extensions=apps.capabilities.client_declaration(apps.types.McpUiClientCapabilities(mime_types=[apps.RESOURCE_MIME_TYPE]))
    )
    assert apps.capabilities.client_settings(declared).mime_types == ["text/html;profile=mcp-app"]


def test_the_committed_package_is_current(schema_dir: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(REPO_ROOT / "generated" / EXTENDED[2]), "--schema-dir", str(schema_dir)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("up to date (2026-07-28)")
