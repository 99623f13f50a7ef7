"""SEP-2133 negotiation on the stateless wire of the package generated with the tasks extension: an
extension is on for a request only when the server declares it and the request's `_meta` declares it.
The oracle for the error shape is the 2026-07-28 schema's `MissingRequiredClientCapabilityError`."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema.validators import validator_for

from shared import EXTENDED, link_runtime

TASKS = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"


@pytest.fixture(scope="module")
def pkg(generated_root: Path) -> ModuleType:
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    return importlib.import_module(EXTENDED[2])


def request(method: str, params: dict[str, Any], declared: dict[str, Any] | None) -> dict[str, Any]:
    """A stateless request whose `_meta` declares `declared` client capabilities."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": declared or {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}


def tasks_server(pkg: ModuleType) -> type:
    """A server answering `tasks/get` (which declares the extension) and a tool reporting what was negotiated."""
    tasks = importlib.import_module(f"{pkg.__name__}.ext.tasks")

    class Tasks(pkg.Server):  # type: ignore[misc, name-defined]
        async def on_get_task(self, params: Any) -> Any:
            raise pkg.ProtocolError(-32602, "Unknown task")

        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "required":
                self.require_extension(tasks.IDENTIFIER)
            text = json.dumps(sorted(self.negotiated_extensions()))
            return pkg.types.CallToolResult.model_validate({"resultType": "complete", "content": [{"type": "text", "text": text}]})

    return Tasks


def answer(server: Any, message: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = asyncio.run(server.handle(message))
    return reply


def test_the_server_declares_the_extension_its_handlers_serve(pkg: ModuleType) -> None:
    reply = answer(tasks_server(pkg)(), request("server/discover", {}, None))
    assert reply["result"]["capabilities"]["extensions"] == {TASKS: {}}
    assert "extensions" not in answer(pkg.Server(), request("server/discover", {}, None))["result"]["capabilities"]


@pytest.mark.parametrize("declared", [None, {}, {"extensions": {}}, {"extensions": {"other/ext": {}}}, {"extensions": []}, {"extensions": {TASKS: {}}, "x": 1}])
def test_an_extension_method_from_a_client_not_declaring_it_is_the_missing_capability_error(
    pkg: ModuleType, schema_dir: Path, declared: dict[str, Any] | None
) -> None:
    reply = answer(tasks_server(pkg)(), request("tasks/get", {"taskId": "t1"}, declared))
    if declared and TASKS in (declared.get("extensions") or {}):
        assert reply["error"]["code"] == -32602  # negotiated: the handler ran
        return
    error = reply["error"]
    assert error["code"] == -32021 and error["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    schema = json.loads((schema_dir / VERSION / "schema.json").read_text("utf-8"))
    check = validator_for(schema)({**schema, "$ref": "#/$defs/MissingRequiredClientCapabilityError"})
    assert not list(check.iter_errors(reply))


def test_an_extension_method_a_server_does_not_declare_is_not_found(pkg: ModuleType) -> None:
    reply = answer(pkg.Server(), request("tasks/get", {"taskId": "t1"}, {"extensions": {TASKS: {}}}))
    assert reply["error"]["code"] == -32601


@pytest.mark.parametrize("declared", [False, True])
def test_a_handler_sees_what_each_request_negotiated(pkg: ModuleType, declared: bool) -> None:
    caps = {"extensions": {TASKS: {}}} if declared else {}
    server = tasks_server(pkg)()
    said = answer(server, request("tools/call", {"name": "report"}, caps))
    assert json.loads(said["result"]["content"][0]["text"]) == ([TASKS] if declared else [])
    required = answer(server, request("tools/call", {"name": "required"}, caps))
    if declared:
        assert "result" in required
    else:
        assert required["error"]["code"] == -32021
        assert required["error"]["data"]["requiredCapabilities"]["extensions"] == {TASKS: {}}


def test_a_task_answer_to_a_client_that_did_not_negotiate_the_extension_is_the_missing_capability_error(
    pkg: ModuleType,
) -> None:
    """A handler that answers every call with a task (it never checks): the runtime sends the task to a
    declaring client only, and -32021 naming the extension to any other."""
    tasks = importlib.import_module(f"{pkg.__name__}.ext.tasks")
    task = {"taskId": "t1", "status": "working", "createdAt": "2026-08-01T10:00:00Z", "lastUpdatedAt": "2026-08-01T10:00:00Z", "ttlMs": 1000}

    class Eager(tasks_server(pkg)):  # type: ignore[misc, valid-type]
        async def on_call_tool(self, params: Any) -> Any:
            return tasks.types.CreateTaskResult.model_validate({**task, "resultType": "task"})

    declared = answer(Eager(), request("tools/call", {"name": "x"}, {"extensions": {TASKS: {}}}))
    assert declared["result"] == {**task, "resultType": "task"}
    refused = answer(Eager(), request("tools/call", {"name": "x"}, {}))
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
