"""Generated clients of every initialize revision against the pinned @modelcontextprotocol/server-everything."""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any, Callable

import pytest

from .everything_session import KNOWN_MISMATCHES, TOOL_ARGUMENTS, Session, mismatches, run_session


@pytest.fixture(scope="module", params=sorted(KNOWN_MISMATCHES, reverse=True))
def session(
    request: pytest.FixtureRequest,
    package: Callable[[str], ModuleType],
    everything_command: list[str],
) -> tuple[ModuleType, Session]:
    """One recorded server-everything session per revision."""
    pkg = package(request.param)
    return pkg, asyncio.run(run_session(pkg, everything_command))


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def test_negotiates_the_clients_revision(session: tuple[ModuleType, Session]) -> None:
    pkg, s = session
    init = s.results["initialize"]
    assert init.protocol_version == pkg.PROTOCOL_VERSION
    assert init.server_info.name == "mcp-servers/everything"
    assert {"tools", "prompts", "resources", "logging"} <= set(init.capabilities.model_dump(exclude_none=True))


def test_every_message_parses_losslessly_or_is_a_known_mismatch(
    session: tuple[ModuleType, Session],
) -> None:
    pkg, s = session
    assert mismatches(pkg, s.trace, pkg.PROTOCOL_VERSION) == KNOWN_MISMATCHES[pkg.PROTOCOL_VERSION]


def test_every_tool_is_called(session: tuple[ModuleType, Session]) -> None:
    pkg, s = session
    listed = {tool.name for tool in s.results["tools/list"].tools}
    assert listed <= set(TOOL_ARGUMENTS), f"new server-everything tools need arguments: {listed - set(TOOL_ARGUMENTS)}"
    called = {label.split()[1] for label in [*s.results, *s.errors] if label.startswith("tools/call ")}
    assert called == listed
    assert "5.5" in _text(s.results["tools/call get-sum"])
    assert "héllo 世界" in _text(s.results["tools/call echo"])


def test_server_runs_in_a_clean_environment(session: tuple[ModuleType, Session]) -> None:
    _, s = session
    env = json.loads(_text(s.results["tools/call get-env"]))
    assert set(env) == {"PATH", "GZIP_ALLOWED_DOMAINS"}


def test_prompts_resources_and_completion(session: tuple[ModuleType, Session]) -> None:
    pkg, s = session
    prompts = {p.name for p in s.results["prompts/list"].prompts}
    assert {f"prompts/get {name}" for name in prompts} <= set(s.results)
    assert "Paris" in json.dumps(s.results["prompts/get args-prompt"].model_dump(mode="json"))
    reads = [label for label in s.results if label.startswith("resources/read ")]
    assert len(reads) == len(s.results["resources/list"].resources) + len(
        s.results["resources/templates/list"].resource_templates
    )
    assert "resources/subscribe" in s.results and "resources/unsubscribe" in s.results
    if "completion/complete" in pkg.METHODS:
        assert "Engineering" in s.results["completion/complete prompt"].completion.values
    assert not {label for label in s.errors if label.startswith(("prompts/", "resources/", "completion/"))}


def test_server_requests_and_notifications_reach_the_handlers(
    session: tuple[ModuleType, Session],
) -> None:
    pkg, s = session
    got = s.received
    assert got["roots"] and got["sampling"] and got["logging"] and got["tools_list_changed"] and got["resource_updated"]
    assert [p.progress for p in got["progress"]] == [1, 2, 3]
    assert {p.progress_token for p in got["progress"]} == {"progress-1"}
    assert "hi from mcpgen" in _text(s.results["tools/call trigger-sampling-request"])
    assert "interop" in _text(s.results["tools/call get-roots-list"])


def test_2025_11_25_elicitation_tasks_and_error_data(session: tuple[ModuleType, Session]) -> None:
    pkg, s = session
    if pkg.PROTOCOL_VERSION != "2025-11-25":
        pytest.skip("elicitation modes and tasks are 2025-11-25 features")
    assert [getattr(p, "mode", None) or "form" for p in s.received["elicitation"]] == [
        "form",
        "url",
        "form",  # trigger-elicitation-request-async, as a task
    ]
    assert "ada@example.com" in _text(s.results["tools/call trigger-elicitation-request"])
    error = s.errors["url-elicitation error path"]
    assert error.code == -32042 and error.data["elicitations"][0]["mode"] == "url"
    assert s.results["tasks/get simulate-research-query"].status == "completed"
    assert s.results["tasks/result simulate-research-query"].model_dump(by_alias=True)["content"]
    # the server sent task-augmented sampling and elicitation; the client's handlers answered CreateTaskResult
    assert len(s.received["tasks"]) == 2
    for tool in ("trigger-sampling-request-async", "trigger-elicitation-request-async"):
        assert "[COMPLETED]" in _text(s.results[f"tools/call {tool}"]), _text(s.results[f"tools/call {tool}"])
    assert set(s.errors) == {"url-elicitation error path"}
