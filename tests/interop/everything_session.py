"""A full session of a generated Client with @modelcontextprotocol/server-everything, recorded message by message."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

# Arguments for every tool server-everything offers; a tool missing here fails the session.
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "echo": {"message": "héllo 世界"},
    "get-annotated-message": {"messageType": "success", "includeImage": True},
    "get-env": {},
    "get-resource-links": {"count": 3},
    "get-resource-reference": {"resourceType": "Text", "resourceId": 1},
    "get-structured-content": {"location": "Chicago"},
    "get-sum": {"a": 2, "b": 3.5},
    "get-tiny-image": {},
    # A data: URI so the server never reaches the network.
    "gzip-file-as-resource": {
        "name": "hello.txt.gz",
        "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
        "outputType": "resource",
    },
    "toggle-simulated-logging": {},
    "toggle-subscriber-updates": {},
    "trigger-long-running-operation": {"duration": 0.3, "steps": 3},
    "get-roots-list": {},
    "trigger-sampling-request": {"prompt": "Say hi", "maxTokens": 16},
    "trigger-elicitation-request": {},
    "trigger-url-elicitation": {"url": "https://example.invalid/consent", "elicitationId": "e-1"},
    "simulate-research-query": {"topic": "typed MCP bindings", "ambiguous": False},
    "trigger-sampling-request-async": {"prompt": "Say hi later", "maxTokens": 16},
    "trigger-elicitation-request-async": {},
}
# Tools that must be called as tasks (execution.taskSupport == "required").
TASK_TOOLS = {"simulate-research-query"}

# What each revision's types reject of what server-everything 2026.8.31 sends, and why:
# - 2025-06-18: its elicitation form asks for multi-select enums (`type: array`), which only
#   2025-11-25's PrimitiveSchemaDefinition allows; our client drops those two fields (drop policy,
#   one warning each) and answers the rest of the form.
# - 2025-03-26, 2024-11-05: get-resource-links answers `resource_link` content blocks, a
#   2025-06-18 addition, even to clients that negotiated an older revision.
KNOWN_MISMATCHES: dict[str, set[str]] = {
    "2025-11-25": set(),
    "2025-06-18": {
        "elicitation/create: rejected: params.requestedSchema.properties.titledMultipleSelectEnum, "
        "params.requestedSchema.properties.untitledMultipleSelectEnum"
    },
    "2025-03-26": {"tools/call result: rejected: content.1, content.2, content.3"},
    "2024-11-05": {"tools/call result: rejected: content.1, content.2, content.3"},
}


@dataclass
class Session:
    """What happened: every message in both directions, results by label, and what the client received."""

    trace: list[tuple[str, Any]] = field(default_factory=list)
    labels: dict[Any, str] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, Any] = field(default_factory=dict)
    received: dict[str, list[Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    version: str = ""


def _value(schema: dict[str, Any]) -> Any:
    """A valid answer for one field of an elicitation form."""
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if schema.get("type") == "array":
        items = schema.get("items", {})
        return [(items.get("enum") or [e["const"] for e in items.get("anyOf", [])])[0]]
    if "oneOf" in schema:
        return schema["oneOf"][0]["const"]
    kind = schema.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return {
        "email": "ada@example.com",
        "uri": "https://example.com",
        "date": "2000-01-01",
        "date-time": "2000-01-01T00:00:00Z",
    }.get(schema.get("format", ""), "Ada")


def client_class(pkg: ModuleType, session: Session) -> type:
    """A Client of `pkg` that answers sampling, roots and elicitation and records notifications.

    Where the revision has tasks, a sampling or elicitation request that asks for a task is answered
    with CreateTaskResult at once and completed in the background (tasks/get, tasks/result).
    """
    types = pkg.types
    names = set(pkg.Client.handlers.values())
    tasks: dict[str, dict[str, Any]] = {}

    def start_task(params: Any, finish: Any) -> Any:
        """A task that completes shortly with what `finish` returns."""
        task_id = f"client-task-{len(tasks) + 1}"
        now = "2025-11-25T00:00:00Z"
        tasks[task_id] = {"taskId": task_id, "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttl": 60000}

        async def complete() -> None:
            await asyncio.sleep(0.2)
            tasks[task_id]["result"] = (await finish()).model_dump(by_alias=True, exclude_unset=True)
            tasks[task_id]["status"] = "completed"

        tasks[task_id]["runner"] = asyncio.ensure_future(complete())
        session.received.setdefault("tasks", []).append(params)
        return types.CreateTaskResult.model_validate({"task": _task_fields(tasks[task_id])})

    class EverythingClient(pkg.Client):  # type: ignore[misc,name-defined]
        name = "mcpgen-interop"
        version = "1.0.0"

        def _got(self, kind: str, params: Any) -> None:
            session.received.setdefault(kind, []).append(params)

        async def on_create_message(self, params: Any) -> Any:
            self._got("sampling", params)

            async def answer() -> Any:
                return types.CreateMessageResult.model_validate(
                    {
                        "role": "assistant",
                        "content": {"type": "text", "text": "hi from mcpgen"},
                        "model": "mcpgen-echo",
                        "stopReason": "endTurn",
                    }
                )

            if getattr(params, "task", None) is not None:
                return start_task(params, answer)
            return await answer()

        async def on_list_roots(self, params: Any) -> Any:
            self._got("roots", params)
            return types.ListRootsResult.model_validate(
                {"roots": [{"uri": "file:///tmp/mcpgen-interop", "name": "interop"}]}
            )

        async def on_progress(self, params: Any) -> None:
            self._got("progress", params)

        async def on_logging_message(self, params: Any) -> None:
            self._got("logging", params)

        async def on_resource_updated(self, params: Any) -> None:
            self._got("resource_updated", params)

        async def on_tool_list_changed(self, params: Any) -> None:
            self._got("tools_list_changed", params)

    if "on_elicit" in names:

        async def on_elicit(self: Any, params: Any) -> Any:
            self._got("elicitation", params)

            async def answer() -> Any:
                if getattr(params, "mode", None) == "url":
                    return types.ElicitResult.model_validate({"action": "accept"})
                properties = params.requested_schema.properties
                content = {
                    key: _value(prop.model_dump(by_alias=True, exclude_unset=True)) for key, prop in properties.items()
                }
                return types.ElicitResult.model_validate({"action": "accept", "content": content})

            if getattr(params, "task", None) is not None:
                return start_task(params, answer)
            return await answer()

        EverythingClient.on_elicit = on_elicit  # type: ignore[attr-defined]
    if "on_get_task" in names:

        async def on_get_task(self: Any, params: Any) -> Any:
            return types.GetTaskResult.model_validate(_task_fields(tasks[params.task_id]))

        async def on_get_task_payload(self: Any, params: Any) -> Any:
            return types.GetTaskPayloadResult.model_validate(tasks[params.task_id]["result"])

        EverythingClient.on_get_task = on_get_task  # type: ignore[attr-defined]
        EverythingClient.on_get_task_payload = on_get_task_payload  # type: ignore[attr-defined]
    caps = EverythingClient().derived_capabilities().model_dump(by_alias=True, exclude_unset=True)
    caps["roots"] = {"listChanged": True}
    if "elicitation" in caps and "ClientCapabilitiesElicitation" in dir(types):
        fields = types.ClientCapabilitiesElicitation.model_fields
        caps["elicitation"] = {k: {} for k in ("form", "url") if k in fields}
    if "on_get_task" in names:
        caps["tasks"] = {"requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}}
    EverythingClient.capabilities = types.ClientCapabilities.model_validate(caps)
    return EverythingClient


def _task_fields(task: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in task.items() if k not in ("result", "runner")}


class _Warnings(logging.Handler):
    def __init__(self, session: Session) -> None:
        super().__init__(logging.WARNING)
        self.session = session

    def emit(self, record: logging.LogRecord) -> None:
        self.session.warnings.append(record.getMessage())


async def run_session(
    pkg: ModuleType,
    command: list[str],
    preferred: str | None = None,
    extra_env: dict[str, str] | None = None,
    stderr: Any = None,
) -> Session:
    """Drive one whole server-everything session with the generated client of `pkg` (proposing
    `preferred` as its protocol version when given), recording the package's warnings; `extra_env`
    joins the command's environment, `stderr` takes its stderr (default: none)."""
    session = Session()
    client = client_class(pkg, session)()
    client.preferred_version = preferred
    logger = logging.getLogger(pkg.__name__)
    handler = _Warnings(session)
    logger.addHandler(handler)
    stdio = __import__(pkg.__name__ + ".stdio", fromlist=["connect_stdio"])
    env = {"PATH": os.path.dirname(command[0]), "GZIP_ALLOWED_DOMAINS": "example.invalid", **(extra_env or {})}

    def trace(direction: str, message: Any) -> None:
        session.trace.append((direction, message))

    async def attempt(label: str, call: Any) -> Any:
        try:
            session.results[label] = await call
        except pkg.ProtocolError as exc:
            session.errors[label] = exc
        return session.results.get(label)

    try:
        with open(os.devnull, "wb") as devnull:
            async with stdio.connect_stdio(client, command, env=env, stderr=stderr or devnull, trace=trace):
                await asyncio.wait_for(_script(pkg, client, session, attempt), 60)
    finally:
        logger.removeHandler(handler)
    return session


async def _script(pkg: ModuleType, client: Any, session: Session, attempt: Any) -> None:
    init = await client.start_session()
    session.results["initialize"] = init
    session.version = client.protocol_version
    await asyncio.sleep(0.6)  # conditional tools register and roots are synced after initialized
    await attempt("ping", client.ping())
    names = set(pkg.REVISIONS[session.version].methods.METHODS)  # what the negotiated revision has
    if "logging/setLevel" in names:
        await attempt("logging/setLevel", client.set_level({"level": "debug"}))
    resources = await attempt("resources/list", client.list_resources())
    if resources and resources.resources:
        await attempt("resources/subscribe", client.subscribe({"uri": resources.resources[0].uri}))
    tools = await attempt("tools/list", client.list_tools())
    for tool in tools.tools if tools else []:
        args = TOOL_ARGUMENTS[tool.name]
        if tool.name in TASK_TOOLS and "tasks/get" in names:
            await _task_call(pkg, client, session, tool.name, args)
            continue
        params: dict[str, Any] = {"name": tool.name, "arguments": args}
        if tool.name == "trigger-long-running-operation":
            params["_meta"] = {"progressToken": "progress-1"}
        await attempt(f"tools/call {tool.name}", client.call_tool(params))
        if tool.name.startswith("toggle-"):
            await asyncio.sleep(0.3)
            await attempt(f"tools/call {tool.name} off", client.call_tool(params))
    if (
        "trigger-url-elicitation" in TOOL_ARGUMENTS
        and tools
        and any(t.name == "trigger-url-elicitation" for t in tools.tools)
    ):
        args = dict(TOOL_ARGUMENTS["trigger-url-elicitation"], errorPath=True, elicitationId="e-2")
        await attempt(
            "url-elicitation error path",
            client.call_tool({"name": "trigger-url-elicitation", "arguments": args}),
        )
    prompts = await attempt("prompts/list", client.list_prompts())
    prompt_args = {
        "args-prompt": {"city": "Paris", "state": "Texas"},
        "completable-prompt": {"department": "Engineering", "name": "Alice"},
        "resource-prompt": {"resourceType": "Text", "resourceId": "1"},
    }
    for prompt in prompts.prompts if prompts else []:
        await attempt(
            f"prompts/get {prompt.name}",
            client.get_prompt({"name": prompt.name, "arguments": prompt_args.get(prompt.name, {})}),
        )
    for resource in resources.resources if resources else []:
        await attempt(f"resources/read {resource.uri}", client.read_resource({"uri": resource.uri}))
    templates = await attempt("resources/templates/list", client.list_resource_templates())
    for template in templates.resource_templates if templates else []:
        uri = template.uri_template.replace("{resourceId}", "2")
        await attempt(f"resources/read {uri}", client.read_resource({"uri": uri}))
    if "completion/complete" in names:
        await attempt(
            "completion/complete prompt",
            client.complete(
                {
                    "ref": {"type": "ref/prompt", "name": "completable-prompt"},
                    "argument": {"name": "department", "value": "E"},
                }
            ),
        )
        if templates and templates.resource_templates:
            await attempt(
                "completion/complete resource",
                client.complete(
                    {
                        "ref": {
                            "type": "ref/resource",
                            "uri": templates.resource_templates[0].uri_template,
                        },
                        "argument": {"name": "resourceId", "value": "1"},
                    }
                ),
            )
    if resources and resources.resources:
        uri = resources.resources[0].uri
        await attempt("resources/unsubscribe", client.unsubscribe({"uri": uri}))
    await attempt("ping again", client.ping())


async def _task_call(pkg: ModuleType, client: Any, session: Session, name: str, args: dict[str, Any]) -> None:
    """Call a task-only tool: tools/call with `task` answers CreateTaskResult; poll tasks/get, then tasks/result."""
    label = f"tools/call {name} (task)"
    try:
        created = await client.call_tool({"name": name, "arguments": args, "task": {"ttl": 60000}})
    except pkg.ProtocolError as exc:
        session.errors[label] = exc
        return
    assert isinstance(created, pkg.types.CreateTaskResult)  # the typed call answers the task
    session.results[label] = created
    task_id = created.task.task_id
    for _ in range(100):
        status = await client.get_task({"taskId": task_id})
        if status.status in ("completed", "failed", "cancelled"):
            break
        await asyncio.sleep(0.1)
    session.results[f"tasks/get {name}"] = status
    session.results[f"tasks/result {name}"] = await client.get_task_payload({"taskId": task_id})
    session.results["tasks/list"] = await client.list_tasks()


def _locations(exc: Any) -> str:
    data = exc.data if isinstance(exc.data, list) else []
    return ", ".join(sorted({".".join(str(p) for p in e["loc"][:4]) for e in data})) or exc.message


def mismatches(pkg: ModuleType, trace: list[tuple[str, Any]], version: str) -> set[str]:
    """Every message the server sent that the types of `pkg`'s revision `version` reject or do not
    round-trip, one line per kind."""
    revision = pkg.REVISIONS[version]
    sent = {m["id"]: m for d, m in trace if d == "out" and "method" in m and "id" in m}
    found: set[str] = set()
    for direction, message in trace:
        if direction != "in":
            continue
        label = message.get("method") or "response"
        try:
            model = revision.methods.parse_message(message)
        except pkg.ProtocolError as exc:
            found.add(f"{label}: rejected: {_locations(exc)}")
            continue
        if model.model_dump(mode="json", by_alias=True, exclude_unset=True) != message:
            found.add(f"{label}: lossy round trip")
        request = sent.get(message.get("id")) if "method" not in message else None
        if request is None or "result" not in message:
            continue
        method = request["method"]
        task = method == "tools/call" and "task" in (request.get("params") or {})
        label = f"{method} result" + (" (task)" if task else "")
        try:
            result = (
                revision.types.CreateTaskResult.model_validate(message["result"])
                if task
                else revision.methods.parse_result(method, message["result"])
            )
        except (pkg.ProtocolError, ValueError) as exc:
            found.add(f"{label}: rejected: {_locations(exc) if isinstance(exc, pkg.ProtocolError) else exc}")
            continue
        if result.model_dump(mode="json", by_alias=True, exclude_unset=True) != message["result"]:
            found.add(f"{label}: lossy round trip")
    return found
