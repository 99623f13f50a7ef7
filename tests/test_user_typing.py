"""What a `mypy --strict` user of the generated packages sees: typed results, constants as defaults."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from shared import package_name

USER_CODE = '''
from typing import Any
from {v25} import Client, Server, parse_message, parse_result, types as t25
from {v26} import parse_result as parse_result_26, types as t26

text = t25.TextContent(text="hi")
tool = t25.CallToolResult(content=[text])
reveal_type(parse_result("prompts/get", {{}}))
reveal_type(parse_result("tools/call", {{}}))
reveal_type(parse_result_26("tools/call", {{}}))
reveal_type(parse_result_26("resources/read", {{}}))
reveal_type(parse_message("{{}}"))


async def use(client: Client) -> None:
    reveal_type(await client.get_prompt({{"name": "x"}}))
    listed: t25.ListPromptsResult = await client.list_prompts()
    print(listed.prompts)
    reveal_type(await client.call_tool({{"name": "x", "arguments": {{"a": 1}}}}))
    reveal_type(await client.call_tool(t25.CallToolRequestParams(name="x"), task={{"ttl": 1000}}))
    try:
        await client.get_prompt({{"name": "x"}})
    except Exception as exc:
        print(str(exc))


async def ask(server: Server) -> None:
    reveal_type(await server.elicit({{"mode": "url", "url": "https://a.example", "elicitationId": "e", "message": "m"}}))
    reveal_type(await server.elicit({{"message": "m", "requestedSchema": {{"type": "object", "properties": {{}}}}}}, task={{"ttl": 1}}))


from {v25} import stdio as stdio25

print(stdio25.serve_stdio)
'''

BAD_CODE = '''
from {v25} import Client, Server, types as t25
t25.TextContent(type="image", text="hi")


async def use(client: Client) -> None:
    await client.get_prompt({{"nmae": "x"}})
    await client.call_tool({{"nmae": "x"}})


async def ask(server: Server) -> None:
    await server.elicit({{"mesage": "m", "requestedSchema": {{"type": "object", "properties": {{}}}}}})


import {v25} as package

print(package.Clinet)
'''


@pytest.fixture(scope="module")
def mypy_report(generated_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """mypy --strict over a user's script (good) and a script with a wrong constant (bad)."""
    names = {"v25": package_name("2025-11-25"), "v26": package_name("2026-07-28")}
    where = tmp_path_factory.mktemp("user")
    outputs = []
    for name, code in (("good.py", USER_CODE), ("bad.py", BAD_CODE)):
        (where / name).write_text(code.format(**names), "utf-8")
        run = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", str(where / name)],
            cwd=generated_root,
            capture_output=True,
            text=True,
            env={"MYPYPATH": str(generated_root), "PATH": "/usr/bin:/bin"},
        )
        outputs.append(run.stdout)
    return outputs[0], outputs[1]


def members(revealed_type: str) -> set[str]:
    """The class names of a revealed (union) type."""
    return {part.strip().rsplit(".", 1)[-1] for part in revealed_type.split("|")}


def revealed(report: str) -> list[str]:
    return [line.split('Revealed type is "', 1)[1].rstrip('"') for line in report.splitlines() if "Revealed type" in line]


def test_results_are_typed_per_method(mypy_report: tuple[str, str]) -> None:
    good, _ = mypy_report
    types = revealed(good)
    assert members(types[0]) == {"GetPromptResult"}
    assert members(types[1]) == {"CallToolResult", "CreateTaskResult"}  # task-augmented tools/call (2025-11-25)
    assert members(types[2]) == {"CallToolResult", "InputRequiredResult"}  # 2026-07-28's own result union
    assert members(types[3]) == {"ReadResourceResult", "InputRequiredResult"}
    assert {"InitializeRequest", "JSONRPCErrorResponse", "CallToolRequest"} <= members(types[4])
    assert "list[" not in types[4]  # 2025-11-25 has no batches
    assert members(types[5]) == {"GetPromptResult"}
    assert members(types[6]) == {"CallToolResult"}  # no task asked for: the plain result
    assert members(types[7]) == {"CreateTaskResult"}  # a task asked for: the task
    assert members(types[8]) == {"ElicitResult"}  # params a union of two shapes: overloaded the same
    assert members(types[9]) == {"CreateTaskResult"}
    assert "error:" not in good, good  # constants as defaults, typed calls: no casts, no complaints


def test_a_wrong_constant_is_a_type_error(mypy_report: tuple[str, str]) -> None:
    _, bad = mypy_report
    assert 'Argument "type" to "TextContent" has incompatible type "Literal[\'image\']"' in bad, bad


def test_a_misspelled_key_of_a_params_dict_is_a_type_error(mypy_report: tuple[str, str]) -> None:
    _, bad = mypy_report
    assert 'bad.py:7: error: Argument 1 to "get_prompt" of "Client" has incompatible type' in bad, bad
    assert 'bad.py:8: error: No overload variant of "call_tool"' in bad, bad
    assert 'bad.py:12: error: No overload variant of "elicit"' in bad, bad


def test_a_misspelt_name_of_a_package_is_a_type_error(mypy_report: tuple[str, str]) -> None:
    _, bad = mypy_report  # the package reads `stdio` on first use without hiding its other names
    assert 'bad.py:17: error: Module has no attribute "Clinet"' in bad, bad


def test_a_protocol_error_says_what_was_wrong(packages: dict[str, Any]) -> None:
    pkg: ModuleType = packages["2025-11-25"]
    server = pkg.Server()
    with pytest.raises(pkg.ProtocolError) as error:
        asyncio.run(server.create_message({"maxTokens": "many"}))
    assert str(error.value).startswith("Invalid params for sampling/createMessage: ")
    assert "maxTokens" in str(error.value) and "messages: Field required" in str(error.value)


def test_constants_are_filled_by_constructors_and_still_required_on_the_wire(packages: dict[str, Any]) -> None:
    types = packages["2025-11-25"].types
    from pydantic import TypeAdapter, ValidationError

    text = types.TextContent(text="hi")
    assert text.model_dump(by_alias=True, exclude_unset=True) == {"type": "text", "text": "hi"}
    request = types.CallToolRequest(id=7, params={"name": "echo"})
    assert request.model_dump(by_alias=True, exclude_unset=True) == {
        "id": 7,
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": "echo"},
    }
    with pytest.raises(ValidationError):
        types.TextContent.model_validate({"text": "hi"})  # the schema requires "type"
    blocks = TypeAdapter(list[types.ContentBlock])
    parsed = blocks.validate_python([{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "image/png"}])
    assert [type(b).__name__ for b in parsed] == ["TextContent", "ImageContent"]
    new = packages["2026-07-28"].types
    result = new.CallToolResult(content=[new.TextContent(text="x")])
    assert result.model_dump(by_alias=True, exclude_unset=True)["resultType"] == "complete"


def test_typed_calls_validate_mappings_before_sending(packages: dict[str, Any]) -> None:
    pkg: ModuleType = packages["2025-11-25"]
    sent: list[Any] = []

    class Recorder:
        async def request(self, method: str, params: Any) -> Any:
            sent.append((method, params))
            return {}

        async def notify(self, method: str, params: Any) -> None:
            sent.append((method, params))

    server = type("S", (pkg.Server,), {})()
    server.attach(Recorder())
    with pytest.raises(pkg.ProtocolError) as error:
        asyncio.run(server.notify_progress({"progresToken": 1, "progress": "lots"}))
    assert error.value.code == -32602 and sent == []
    fields = {e["loc"][0] for e in error.value.data}
    assert fields == {"progressToken", "progress"}
    asyncio.run(server.notify_progress({"progressToken": 1, "progress": 5}))
    assert sent == [("notifications/progress", {"progressToken": 1, "progress": 5})]
