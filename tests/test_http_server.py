"""The generated Streamable HTTP app under uvicorn: every refused input, sessions, SSE answers and resumption.

Every JSON-RPC message the server sends is checked against the revision's upstream schema, and no request
may leave an error (a traceback) in the server's log.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import httpx
import pytest

from http_fixtures import (
    tool_server,
    Probe,
    call_message,
    initialize_message,
    post_headers,
    stateless_message,
    tool_app,
)
from httpserve import Served, serve, sse_events, wire_check

httpx_client = httpx.Client


@pytest.fixture(autouse=True)
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail a test whose requests made the server log an error."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]


@pytest.fixture(scope="module")
def session_era(packages: dict[str, ModuleType]) -> Iterator[tuple[Served, Any, Probe]]:
    """The 2025-11-25 tool server, served."""
    probe = Probe()
    app = tool_app(packages, "2025-11-25", probe, retry_ms=300)
    with serve(app) as served:
        yield served, app, probe


@pytest.fixture(scope="module")
def stateless_era(packages: dict[str, ModuleType]) -> Iterator[tuple[Served, Any, Probe]]:
    """The 2026-07-28 tool server, served."""
    probe = Probe()
    app = tool_app(packages, "2026-07-28", probe)
    with serve(app) as served:
        yield served, app, probe


@pytest.fixture(scope="module")
def check_2025(schema_dir: Path) -> Callable[[Any], None]:
    """Schema check of 2025-11-25 messages."""
    return wire_check(schema_dir, "2025-11-25")


@pytest.fixture(scope="module")
def check_2026(schema_dir: Path) -> Callable[[Any], None]:
    """Schema check of 2026-07-28 messages."""
    return wire_check(schema_dir, "2026-07-28")


def _start(client: httpx.Client, url: str, check: Callable[[Any], None]) -> str:
    response = client.post(url, json=initialize_message("2025-11-25"), headers=post_headers())
    assert response.status_code == 200, response.text
    check(response.json())
    session = response.headers["mcp-session-id"]
    assert session and all(0x21 <= ord(c) <= 0x7E for c in session)
    done = client.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=post_headers("2025-11-25", session),
    )
    assert done.status_code == 202 and done.content == b""
    return session


def _refused(
    response: httpx.Response, status: int, check: Callable[[Any], None] | None, code: int | None = None
) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, Any] = response.json() if response.content else {}
    if check is not None and body:
        check(body)
    if code is not None:
        assert body["error"]["code"] == code, body
    return body


# --- refused input -------------------------------------------------------------------------------


def test_wrong_path_is_404(session_era: tuple[Served, Any, Probe]) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        response = client.post(served.url.replace("/mcp", "/other"), json={}, headers=post_headers())
    assert response.status_code == 404


def test_other_methods_are_405_with_allow(
    session_era: tuple[Served, Any, Probe], stateless_era: tuple[Served, Any, Probe]
) -> None:
    with httpx_client() as client:
        put = client.put(session_era[0].url, json={}, headers=post_headers())
        assert put.status_code == 405 and set(put.headers["allow"].split(", ")) == {"GET", "POST", "DELETE"}
        for method in ("GET", "DELETE"):
            response = client.request(method, stateless_era[0].url, headers={"accept": "text/event-stream"})
            assert response.status_code == 405 and response.headers["allow"] == "POST"


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_wrong_content_type_is_415(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], content_type: str
) -> None:
    served, _, _ = session_era
    headers = post_headers()
    headers["content-type"] = content_type
    with httpx_client() as client:
        response = client.post(served.url, content=json.dumps(initialize_message("2025-11-25")), headers=headers)
    _refused(response, 415, check_2025, -32600)


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream", "text/html", ""])
def test_post_must_accept_json_and_sse(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], accept: str
) -> None:
    served, _, _ = session_era
    headers = post_headers()
    headers["accept"] = accept
    with httpx_client() as client:
        response = client.post(served.url, json=initialize_message("2025-11-25"), headers=headers)
    _refused(response, 406, check_2025, -32600)


def test_wildcard_accept_is_enough(session_era: tuple[Served, Any, Probe]) -> None:
    served, _, _ = session_era
    headers = post_headers()
    headers["accept"] = "*/*"
    with httpx_client() as client:
        response = client.post(served.url, json=initialize_message("2025-11-25"), headers=headers)
    assert response.status_code == 200 and response.json()["result"]["protocolVersion"] == "2025-11-25"


def test_get_must_accept_sse(session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        response = client.get(served.url, headers={"accept": "application/json", "mcp-session-id": session})
    _refused(response, 406, check_2025, -32600)


@pytest.mark.parametrize("body", [b"{not json", b"", b"\xff\xfe\x00", b'{"jsonrpc": "2.0", "id": 1, "method": '])
def test_malformed_body_is_parse_error(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], body: bytes
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        response = client.post(served.url, content=body, headers=post_headers())
    _refused(response, 400, check_2025, -32700)


@pytest.mark.parametrize("body", [b"42", b'"text"', b"null", b'{"jsonrpc": "2.0"}'])
def test_invalid_message_is_refused(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], body: bytes
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        response = client.post(served.url, content=body, headers=post_headers("2025-11-25", session))
    _refused(response, 400, check_2025, -32600)


def test_body_over_the_limit_is_413(packages: dict[str, ModuleType], check_2025: Callable[[Any], None]) -> None:
    app = tool_app(packages, "2025-11-25", Probe(), max_body=1000)
    big = initialize_message("2025-11-25")
    big["params"]["clientInfo"]["name"] = "x" * 2000
    with serve(app) as served, httpx_client() as client:
        declared = client.post(served.url, json=big, headers=post_headers())
        chunked = client.post(
            served.url,
            content=iter([json.dumps(big).encode()[:600], json.dumps(big).encode()[600:]]),
            headers=post_headers(),
        )
        small = client.post(served.url, json=initialize_message("2025-11-25"), headers=post_headers())
    _refused(declared, 413, check_2025, -32600)
    _refused(chunked, 413, check_2025, -32600)
    assert small.status_code == 200


def test_batch_refused_where_the_revision_has_none(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        batch = [call_message("echo", {}, 2), call_message("echo", {}, 3)]
        response = client.post(served.url, json=batch, headers=post_headers("2025-11-25", session))
    _refused(response, 400, check_2025, -32600)


def test_batches_served_where_the_revision_has_them(packages: dict[str, ModuleType], schema_dir: Path) -> None:
    check = wire_check(schema_dir, "2025-03-26")
    with serve(tool_app(packages, "2025-03-26", Probe())) as served, httpx_client() as client:
        init = client.post(served.url, json=initialize_message("2025-03-26"), headers=post_headers())
        session = init.headers["mcp-session-id"]
        in_batch = client.post(
            served.url, json=[initialize_message("2025-03-26", 5)], headers=post_headers(session=session)
        )
        batch = [
            call_message("echo", {"n": 1}, 2),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            call_message("echo", {"n": 2}, 3),
        ]
        answered = client.post(served.url, json=batch, headers=post_headers("2025-03-26", session))
    _refused(in_batch, 400, None, -32600)
    assert answered.status_code == 200
    check(answered.json())
    assert sorted(r["id"] for r in answered.json()) == [2, 3]


def test_session_required_and_unknown_sessions_404(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        missing = client.post(served.url, json=call_message("echo", {}, 2), headers=post_headers("2025-11-25"))
        unknown = client.post(
            served.url, json=call_message("echo", {}, 2), headers=post_headers("2025-11-25", "no-such-session")
        )
        get_unknown = client.get(
            served.url, headers={"accept": "text/event-stream", "mcp-session-id": "no-such-session"}
        )
        delete_missing = client.delete(served.url)
    _refused(missing, 400, check_2025, -32600)
    _refused(unknown, 404, check_2025)
    _refused(get_unknown, 404, check_2025)
    _refused(delete_missing, 400, check_2025)


def test_delete_ends_the_session(session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]) -> None:
    served, app, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        assert session in app.sessions
        deleted = client.delete(served.url, headers={"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
        after = client.post(served.url, json=call_message("echo", {}, 2), headers=post_headers("2025-11-25", session))
        again = client.delete(served.url, headers={"mcp-session-id": session})
    assert deleted.status_code == 200
    assert session not in app.sessions
    _refused(after, 404, check_2025)
    _refused(again, 404, check_2025)


@pytest.mark.parametrize("version", ["1999-01-01", "2026-07-28", "garbage", ""])
def test_unsupported_protocol_version_header_is_400(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], version: str
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        response = client.post(served.url, json=call_message("echo", {}, 2), headers=post_headers(version, session))
    _refused(response, 400, check_2025)


@pytest.mark.parametrize("version", [None, "2025-11-25", "2025-03-26"])
def test_session_version_header_absent_negotiated_or_the_assumed_default(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], version: str | None
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        response = client.post(
            served.url, json=call_message("echo", {"v": 1}, 2), headers=post_headers(version, session)
        )
    assert response.status_code == 200
    check_2025(response.json())


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example.com"}, 403),
        ({"origin": "http://evil.example.com"}, 403),
        ({"origin": "http://localhost.evil.example.com"}, 403),
        ({"origin": "null"}, 403),
        ({"host": "localhost:1234", "origin": "http://127.0.0.1:9"}, 200),
        ({"host": "[::1]", "origin": "https://localhost"}, 200),
    ],
)
def test_loopback_servers_refuse_foreign_host_and_origin(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None], headers: dict[str, str], status: int
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        response = client.post(served.url, json=initialize_message("2025-11-25"), headers={**post_headers(), **headers})
    assert response.status_code == status, response.text
    check_2025(response.json())


def test_allow_lists_replace_the_loopback_default(packages: dict[str, ModuleType]) -> None:
    app = tool_app(
        packages, "2025-11-25", Probe(), allowed_hosts=["mcp.example.com"], allowed_origins=["https://app.example.com"]
    )
    message = initialize_message("2025-11-25")
    with serve(app) as served, httpx_client() as client:
        ok = client.post(
            served.url,
            json=message,
            headers={**post_headers(), "host": "mcp.example.com", "origin": "https://app.example.com"},
        )
        port_any = client.post(served.url, json=message, headers={**post_headers(), "host": "mcp.example.com:8443"})
        loopback = client.post(served.url, json=message, headers={**post_headers(), "host": "localhost"})
        origin = client.post(
            served.url,
            json=message,
            headers={**post_headers(), "host": "mcp.example.com", "origin": "http://localhost"},
        )
    assert (ok.status_code, port_any.status_code, loopback.status_code, origin.status_code) == (200, 200, 403, 403)


@pytest.mark.parametrize("origins", [["*"], None])
def test_star_admits_every_host(packages: dict[str, ModuleType], origins: list[str] | None) -> None:
    app = tool_app(packages, "2025-11-25", Probe(), allowed_hosts=["*"], allowed_origins=origins)
    with serve(app) as served, httpx_client() as client:
        response = client.post(
            served.url,
            json=initialize_message("2025-11-25"),
            headers={**post_headers(), "host": "anything.example", "origin": "http://x.example"},
        )
    assert response.status_code == 200


# --- stateless era (2026-07-28) ------------------------------------------------------------------


def _stateless_headers(message: dict[str, Any], **extra: str) -> dict[str, str]:
    headers = post_headers("2026-07-28", mcp_method=message["method"])
    name = message["params"].get("name")
    if name is not None:
        headers["mcp-name"] = name
    headers.update({k.replace("_", "-"): v for k, v in extra.items()})
    return headers


def test_stateless_request_is_answered_without_a_session(
    stateless_era: tuple[Served, Any, Probe], check_2026: Callable[[Any], None]
) -> None:
    served, app, _ = stateless_era
    message = stateless_message("tools/call", {"name": "echo", "arguments": {"a": 1}}, "2026-07-28")
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=_stateless_headers(message, mcp_session_id="ignored"))
    assert response.status_code == 200 and "mcp-session-id" not in response.headers
    check_2026(response.json())
    assert response.json()["result"]["content"][0]["text"] == '{"a": 1}'
    assert app.sessions == {}


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"mcp-protocol-version": None}, 400, -32020),
        ({"mcp-protocol-version": "2099-01-01"}, 400, -32022),
        ({"mcp-protocol-version": "2025-11-25"}, 400, None),
        ({"mcp-method": None}, 400, -32020),
        ({"mcp-method": "tools/list"}, 400, -32020),
        ({"mcp-name": None}, 400, -32020),
        ({"mcp-name": "other"}, 400, -32020),
        ({"mcp-name": "=?base64?ZWNobw==?="}, 200, None),
        ({"mcp-name": "=?base64?not base64?="}, 400, -32020),
    ],
)
def test_stateless_headers_must_match_the_body(
    stateless_era: tuple[Served, Any, Probe],
    check_2026: Callable[[Any], None],
    change: dict[str, str | None],
    status: int,
    code: int | None,
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("tools/call", {"name": "echo", "arguments": {}}, "2026-07-28", request_id=7)
    headers: dict[str, str] = _stateless_headers(message)
    for key, value in change.items():
        headers.pop(key, None)
        if value is not None:
            headers[key] = value
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=headers)
    body = _refused(response, status, check_2026, code)
    if status == 400:
        assert body["id"] == 7, "a refusal names the request it refuses"
    if code == -32022:
        assert body["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}


def test_unsupported_body_version_is_refused(
    stateless_era: tuple[Served, Any, Probe], check_2026: Callable[[Any], None]
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("tools/list", {}, "2099-01-01")
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=post_headers("2026-07-28", mcp_method="tools/list"))
    _refused(response, 400, check_2026, -32020)


@pytest.mark.parametrize(
    ("arguments", "headers", "status"),
    [
        ({"region": "eu-west", "count": 3}, {"mcp-param-region": "eu-west", "mcp-param-count": "3"}, 200),
        ({"region": "eu-west"}, {"Mcp-Param-Region": "eu-west"}, 200),
        (
            {"region": "Grüße"},
            {"mcp-param-region": "=?base64?" + base64.b64encode("Grüße".encode()).decode() + "?="},
            200,
        ),
        ({"count": 42}, {"mcp-param-count": "42.0"}, 200),
        ({}, {}, 200),
        ({"region": "eu-west"}, {}, 400),
        ({"region": "eu-west"}, {"mcp-param-region": "us-east"}, 400),
        ({"count": 3}, {"mcp-param-count": "4"}, 400),
        ({"region": "eu-west"}, {"mcp-param-region": "=?base64?!!!?="}, 400),
    ],
)
def test_x_mcp_header_arguments_must_arrive_as_headers(
    stateless_era: tuple[Served, Any, Probe],
    check_2026: Callable[[Any], None],
    arguments: dict[str, Any],
    headers: dict[str, str],
    status: int,
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("tools/call", {"name": "headers", "arguments": arguments}, "2026-07-28")
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers={**_stateless_headers(message), **headers})
    _refused(response, status, check_2026, -32020 if status == 400 else None)


def test_stateless_refuses_batches_and_responses(
    stateless_era: tuple[Served, Any, Probe], check_2026: Callable[[Any], None]
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("tools/list", {}, "2026-07-28")
    with httpx_client() as client:
        batch = client.post(served.url, json=[message], headers=_stateless_headers(message))
        response = client.post(
            served.url, json={"jsonrpc": "2.0", "id": 1, "result": {}}, headers=post_headers("2026-07-28")
        )
    _refused(batch, 400, check_2026, -32600)
    _refused(response, 400, check_2026, -32600)


def test_unknown_method_is_404_in_the_stateless_era(
    stateless_era: tuple[Served, Any, Probe], check_2026: Callable[[Any], None]
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("no/such/method", {}, "2026-07-28", request_id=9)
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=_stateless_headers(message))
    assert _refused(response, 404, check_2026, -32601)["id"] == 9


def test_stateless_progress_streams_then_answers(
    stateless_era: tuple[Served, Any, Probe], check_2026: Callable[[Any], None]
) -> None:
    served, _, _ = stateless_era
    message = stateless_message("tools/call", {"name": "progress", "arguments": {}}, "2026-07-28")
    message["params"]["_meta"]["progressToken"] = "p1"
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=_stateless_headers(message))
    assert response.headers["content-type"] == "text/event-stream"
    messages = [e["data"] for e in sse_events(response.text) if e["data"] is not None]
    for m in messages:
        check_2026(m)
    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]
    assert messages[-1]["result"]["content"][0]["text"] == "done"


# --- answers, SSE and resumption (session era) ---------------------------------------------------


def test_quiet_handler_answers_json_chatty_handler_answers_sse(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        quiet = client.post(
            served.url, json=call_message("echo", {"x": 1}, 2), headers=post_headers("2025-11-25", session)
        )
        chatty = client.post(
            served.url,
            json=call_message("progress", {}, 3, progressToken=5),
            headers=post_headers("2025-11-25", session),
        )
    assert quiet.headers["content-type"] == "application/json"
    check_2025(quiet.json())
    assert chatty.headers["content-type"] == "text/event-stream"
    assert chatty.headers["mcp-session-id"] == session
    events = sse_events(chatty.text)
    assert events[0]["data"] is None and "id" in events[0] and events[0]["retry"] == "300", "priming event first"
    ids = [e["id"] for e in events]
    assert len(set(ids)) == len(ids), "event ids are unique"
    messages = [e["data"] for e in events[1:]]
    for m in messages:
        check_2025(m)
    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]
    assert [m["params"]["progress"] for m in messages[:3]] == [1, 2, 3]
    assert messages[-1]["id"] == 3


def test_server_request_on_the_post_stream_and_the_posted_answer(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        headers = post_headers("2025-11-25", session)
        with client.stream("POST", served.url, json=call_message("ask", {}, 2), headers=headers) as stream:
            lines = stream.iter_lines()
            request = None
            text = ""
            for line in lines:
                text += line + "\n"
                if line.startswith("data: {"):
                    request = json.loads(line[6:])
                    break
            assert request is not None and request["method"] == "elicitation/create"
            check_2025(request)
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"answer": "42"}}}
            posted = client.post(served.url, json=reply, headers=headers)
            assert posted.status_code == 202 and posted.content == b""
            rest = "\n".join(lines)
    final = [e["data"] for e in sse_events(text + "\n" + rest) if e["data"] is not None][-1]
    check_2025(final)
    assert json.loads(final["result"]["content"][0]["text"]) == {"action": "accept", "content": {"answer": "42"}}


def test_closed_stream_resumes_with_last_event_id(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, _, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        cut = client.post(
            served.url, json=call_message("poll", {"seconds": 0.1}, 2), headers=post_headers("2025-11-25", session)
        )
        events = sse_events(cut.text)
        assert len(events) == 1 and events[0]["data"] is None and events[0]["retry"] == "300", "only the priming event"
        resumed = client.get(
            served.url,
            headers={"accept": "text/event-stream", "mcp-session-id": session, "last-event-id": events[0]["id"]},
        )
        unknown = client.get(
            served.url, headers={"accept": "text/event-stream", "mcp-session-id": session, "last-event-id": "nonsense"}
        )
    assert resumed.status_code == 200 and resumed.headers["content-type"] == "text/event-stream"
    answers = [e["data"] for e in sse_events(resumed.text) if e["data"] is not None]
    assert len(answers) == 1 and answers[0]["id"] == 2
    check_2025(answers[0])
    _refused(unknown, 400, check_2025)


def test_standalone_stream_carries_messages_outside_requests(
    session_era: tuple[Served, Any, Probe], check_2025: Callable[[Any], None]
) -> None:
    served, app, _ = session_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        server = app.sessions[session].server
        served.run(server.notify_tool_list_changed())
        with client.stream(
            "GET", served.url, headers={"accept": "text/event-stream", "mcp-session-id": session}
        ) as stream:
            assert stream.status_code == 200
            second = client.get(served.url, headers={"accept": "text/event-stream", "mcp-session-id": session})
            received: list[dict[str, Any]] = []
            buffered = ""
            for line in stream.iter_lines():
                buffered += line + "\n"
                if line.startswith("data: {"):
                    received.append(json.loads(line[6:]))
                    if len(received) == 2:
                        break
                    served.run(server.notify_prompt_list_changed())
    _refused(second, 409, check_2025)
    for m in received:
        check_2025(m)
    assert [m["method"] for m in received] == ["notifications/tools/list_changed", "notifications/prompts/list_changed"]


def test_2024_11_05_is_served_over_streamable_http(packages: dict[str, ModuleType], schema_dir: Path) -> None:
    check = wire_check(schema_dir, "2024-11-05")
    with serve(tool_app(packages, "2024-11-05", Probe())) as served, httpx_client() as client:
        init = client.post(served.url, json=initialize_message("2024-11-05"), headers=post_headers())
        session = init.headers["mcp-session-id"]
        call = client.post(
            served.url, json=call_message("echo", {"old": True}, 2), headers=post_headers(session=session)
        )
    check(init.json())
    check(call.json())
    assert init.json()["result"]["protocolVersion"] == "2024-11-05"
    assert call.json()["result"]["content"][0]["text"] == '{"old": true}'


def test_header_values_lose_surrounding_whitespace(
    packages: dict[str, ModuleType], check_2026: Callable[[Any], None]
) -> None:
    """ASGI servers may pass optional whitespace around a value (httptools does); it is not part of it."""
    import asyncio

    app = tool_app(packages, "2026-07-28", Probe())
    message = stateless_message("tools/call", {"name": "echo", "arguments": {}}, "2026-07-28")
    headers = [(k.encode(), f"  {v}\t".encode()) for k, v in _stateless_headers(message).items()]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"host", b"localhost"), *headers]}
    sent: list[dict[str, Any]] = []

    requests = [{"type": "http.request", "body": json.dumps(message).encode(), "more_body": False}]

    async def receive() -> dict[str, Any]:
        if requests:
            return requests.pop()
        await asyncio.Event().wait()  # the client stays until the answer is sent
        raise AssertionError("unreachable")

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 200
    body = json.loads(b"".join(e.get("body", b"") for e in sent[1:]))
    check_2026(body)
    assert body["result"]["content"][0]["text"] == "{}"


# --- one multi-revision endpoint (surface 2026-07-28) --------------------------------------------

MULTI = "mcp_2024_11_05_to_2026_07_28"


@pytest.fixture(scope="module")
def multi_era(generated_root: Path) -> Iterator[tuple[Served, Any, Any]]:
    """The multi-revision tool server with a listen handler, served: sessions and stateless requests on one endpoint."""
    import importlib

    from shared import link_runtime

    link_runtime(MULTI)
    package = importlib.import_module(MULTI)

    class Watches(tool_server(package, Probe())):  # type: ignore[misc]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            await self.notify_subscriptions_acknowledged({"notifications": {}})
            for uri in params.notifications.resource_subscriptions or []:
                await self.notify_resource_updated({"uri": uri})
            await asyncio.Event().wait()

    app = importlib.import_module(f"{MULTI}.http").streamable_http_app(Watches)
    with serve(app) as served:
        yield served, app, package


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("server/discover", {}),
        ("server/discover", {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
        ("tools/list", {}),
        ("tools/call", {"name": "echo", "arguments": {}}),
    ],
)
def test_a_stateless_request_without_a_meta_version_is_read_in_its_header_s_version(
    multi_era: tuple[Served, Any, Any], check_2026: Callable[[Any], None], method: str, params: dict[str, Any]
) -> None:
    """A multi-revision package once read such a request as the newest legacy revision would: 404 and
    -32601 for `server/discover`. It is a 2026-07-28 request missing its required `_meta`: 400, -32602."""
    served, _, _ = multi_era
    message = {"jsonrpc": "2.0", "id": 5, "method": method, "params": params}
    headers = post_headers("2026-07-28", mcp_method=method)
    if "name" in params:
        headers["mcp-name"] = params["name"]
    with httpx_client() as client:
        response = client.post(served.url, json=message, headers=headers)
    assert _refused(response, 400, check_2026, -32602)["id"] == 5


def test_a_legacy_session_s_subscriptions_run_the_listen_handler_on_the_standalone_stream(
    multi_era: tuple[Served, Any, Any], check_2025: Callable[[Any], None]
) -> None:
    """`resources/subscribe` in a 2025-11-25 session of a 2026-07-28 surface runs its listen handler in the
    background: the updates it sends go out on the session's GET stream, after the subscribe was answered."""
    served, _, _ = multi_era
    with httpx_client() as client:
        session = _start(client, served.url, check_2025)
        subscribe = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "file:///a"}}
        answer = client.post(served.url, json=subscribe, headers=post_headers("2025-11-25", session))
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/json")
        assert answer.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        with client.stream(
            "GET", served.url, headers={"accept": "text/event-stream", "mcp-session-id": session}
        ) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: {"):
                    update = json.loads(line[6:])
                    break
        check_2025(update)
        assert update["method"] == "notifications/resources/updated" and update["params"]["uri"] == "file:///a"
        assert client.delete(served.url, headers=post_headers("2025-11-25", session)).status_code == 200


# --- a session surface (2025-11-25) serving a stateless client's listen request ------------------


@pytest.fixture(scope="module")
def session_surface(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, list[Any]]]:
    """Every revision on a 2025-11-25 surface with resource subscriptions, served; its (un)subscribe calls."""
    import importlib

    from mcpgen.commands.generate import GenerateConfig, generate
    from shared import load_package

    root = tmp_path_factory.mktemp("surface25") / "pkg"
    generate(GenerateConfig(revision="2024-11-05..2026-07-28", surface="2025-11-25", output=root, schema_dir=schema_dir))
    package = load_package(root, "http_surface25")
    t = package.types
    calls: list[Any] = []

    class Watches(package.Server):  # type: ignore[misc,name-defined]
        capabilities = t.ServerCapabilities(resources=t.ServerCapabilitiesResources(subscribe=True))

        async def on_subscribe(self, params: Any) -> Any:
            calls.append(("subscribe", params.uri))
            await self.notify_resource_updated({"uri": params.uri})
            return t.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            calls.append(("unsubscribe", params.uri))
            return t.EmptyResult()

    app = importlib.import_module("http_surface25.http").streamable_http_app(Watches)
    with serve(app) as served:
        yield served, calls


def test_a_session_surface_serves_a_stateless_listen_request_on_its_response_stream(
    session_surface: tuple[Served, list[Any]], check_2026: Callable[[Any], None]
) -> None:
    """The subscribe handler runs for the listed URI, the acknowledgement and the update come on the
    request's own stream naming it, and closing the stream unsubscribes."""
    served, calls = session_surface
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    params = {"_meta": meta, "notifications": {"resourceSubscriptions": ["file:///a"]}}
    message = {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": params}
    events: list[Any] = []
    with httpx_client() as client:
        headers = post_headers("2026-07-28", mcp_method="subscriptions/listen")
        with client.stream("POST", served.url, json=message, headers=headers) as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            for line in stream.iter_lines():
                if line.startswith("data: {"):
                    events.append(json.loads(line[6:]))
                if len(events) == 2:
                    break
    for _ in range(100):
        if len(calls) == 2:
            break
        time.sleep(0.05)
    for event in events:
        check_2026(event)
    assert [e["method"] for e in events] == ["notifications/subscriptions/acknowledged", "notifications/resources/updated"]
    assert events[0]["params"]["notifications"] == {"resourceSubscriptions": ["file:///a"]}
    assert {e["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] for e in events} == {9}
    assert calls == [("subscribe", "file:///a"), ("unsubscribe", "file:///a")]
