"""A client on one multi-revision package against @modelcontextprotocol/server-everything at every
revision it negotiates: what the server sends beyond a revision is dropped with a warning, the session goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

import pytest

from shared import load_package, wire_problems

from .everything_session import KNOWN_MISMATCHES, TOOL_ARGUMENTS, Session, mismatches, run_session

PACKAGE = "mcp_2024_11_05_to_2025_11_25"
# server-everything 2026.8.31 negotiates the handshake revisions; what it sends beyond each one
# (see test_everything.py), and what the multi-revision client's drop policy does about it.
DROPPED: dict[str, set[str]] = {
    "2025-11-25": set(),
    "2025-06-18": {
        "elicitation/create from the peer: dropped /params/requestedSchema/properties/titledMultipleSelectEnum, "
        "which protocol version 2025-06-18 cannot represent",
        "elicitation/create from the peer: dropped /params/requestedSchema/properties/untitledMultipleSelectEnum, "
        "which protocol version 2025-06-18 cannot represent",
    },
    "2025-03-26": {
        f"result of tools/call from the peer: dropped /content/{i}, which protocol version 2025-03-26 cannot represent"
        for i in (1, 2, 3)
    },
    "2024-11-05": {
        f"result of tools/call from the peer: dropped /content/{i}, which protocol version 2024-11-05 cannot represent"
        for i in (1, 2, 3)
    },
}


@pytest.fixture(scope="module")
def multi(generated_dir: Path) -> ModuleType:
    return load_package(generated_dir / PACKAGE, "everything_" + PACKAGE, linked=False)  # as shipped


@pytest.fixture(scope="module", params=sorted(DROPPED, reverse=True))
def session(request: pytest.FixtureRequest, multi: ModuleType, everything_command: list[str]) -> Session:
    """One recorded session per revision, the client proposing that revision."""
    return asyncio.run(run_session(multi, everything_command, preferred=request.param)), request.param


def test_each_revision_is_negotiated_and_the_session_completes(session: tuple[Session, str], multi: ModuleType) -> None:
    s, revision = session
    assert s.version == revision
    assert isinstance(s.results["initialize"], multi.types.InitializeResult)  # the surface's handshake type
    called = {label.split()[1] for label in s.results if label.startswith("tools/call ")}
    listed = {tool.name for tool in s.results["tools/list"].tools}
    assert listed - called <= {
        "simulate-research-query",
        "trigger-sampling-request-async",
        "trigger-elicitation-request-async",
    }
    assert set(s.errors) <= {"url-elicitation error path"}, s.errors
    assert isinstance(s.results["tools/call echo"], multi.types.CallToolResult)


def test_what_a_revision_cannot_hold_is_dropped_with_one_warning_each(
    session: tuple[Session, str], multi: ModuleType
) -> None:
    s, revision = session
    assert mismatches(multi, s.trace, revision) == KNOWN_MISMATCHES[revision]  # the server does send them
    assert {w for w in s.warnings if "dropped" in w} == DROPPED[revision]
    links = s.results["tools/call get-resource-links"]
    assert len(links.content) == (1 if revision < "2025-06-18" else 4)


def test_what_the_client_sends_is_valid_in_the_negotiated_revision(
    session: tuple[Session, str], schema_dir: Path
) -> None:
    s, revision = session
    ours = [message for direction, message in s.trace if direction == "out"]
    probe = ours[0]["method"] == "server/discover" and "initialize" not in (m.get("method") for m in ours[:1])
    assert not probe  # a preferred legacy version skips the modern probe
    assert wire_problems(schema_dir, revision, [m for m in ours if "method" in m]) == []
    assert TOOL_ARGUMENTS
