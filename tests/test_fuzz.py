"""Fuzz the generated dispatcher of every revision: a model or a clean JSON-RPC error, nothing else.

Budget: `HYPOTHESIS_PROFILE=ci` (default, 200 examples per test) or `HYPOTHESIS_PROFILE=long`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from shared import REVISIONS

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

PARSE_CODES = {-32700, -32600, -32601, -32602}
HANDLE_CODES = PARSE_CODES | {-32603}
LEAKS = ("Traceback (most recent call last)", sysconfig.get_paths()["purelib"], str(Path(__file__).resolve().parent.parent))

scalars = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False) | st.text(max_size=40)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=20
)
ids = st.integers() | st.integers(min_value=2**63, max_value=2**300) | st.text(max_size=30) | st.just("x" * 100_000) | json_values


def assert_clean_error(exc: Any, codes: set[int]) -> None:
    assert exc.code in codes, (exc.code, exc.message)
    text = json.dumps(exc.to_error(), allow_nan=False)
    assert not any(leak in text for leak in LEAKS), text[:500]


def check_parse(pkg: Any, data: Any) -> None:
    """The invariant: parse_message returns models or raises ProtocolError with a JSON-RPC code."""
    try:
        result = pkg.methods.parse_message(data)
    except pkg.ProtocolError as exc:
        assert_clean_error(exc, PARSE_CODES)
        return
    if isinstance(result, list):
        assert pkg.methods.BATCHING and result and all(isinstance(m, BaseModel) for m in result)
    else:
        assert isinstance(result, BaseModel)


def message_for(pkg: Any, method: str, request_id: Any, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if pkg.METHODS[method].kind == "request":
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return message


@st.composite
def messages(draw: st.DrawFn, pkg: Any) -> Any:
    """Messages near the valid ones: real methods, with fields dropped, retyped, added or enlarged."""
    method = draw(st.sampled_from(sorted(pkg.METHODS)))
    message = message_for(pkg, method, draw(st.integers(-(2**31), 2**31) | st.text(max_size=8)), draw(st.none() | st.just({})))
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["drop", "retype", "extra", "huge-id", "huge-string", "params-field"]))
        key = draw(st.sampled_from(["jsonrpc", "method", "id", "params", "result", "error"]))
        if action == "drop":
            message.pop(key, None)
        elif action == "retype":
            message[key] = draw(json_values)
        elif action == "extra":
            message[draw(st.text(max_size=10))] = draw(json_values)
        elif action == "huge-id":
            message["id"] = draw(ids)
        elif action == "huge-string":
            message[key] = "\u2028\x00\"" * draw(st.integers(1, 50_000))
        else:
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            params[draw(st.sampled_from(["_meta", "name", "uri", "cursor", "arguments", "level", "progressToken", "x"]))] = draw(json_values)
            message["params"] = params
    return message


@pytest.fixture(scope="module", params=REVISIONS)
def pkg(request: pytest.FixtureRequest, packages: dict[str, Any]) -> Any:
    return packages[request.param]


def test_valid_messages_parse(pkg: Any) -> None:
    for name, method in pkg.METHODS.items():
        if method.embedded:
            continue
        params = {} if method.params_required else None
        try:
            result = pkg.methods.parse_message(json.dumps(message_for(pkg, name, 1, params)))
        except pkg.ProtocolError as exc:  # required params beyond an empty object: the code says so
            assert exc.code == -32602 and method.params_required
        else:
            assert isinstance(result, method.message)


@given(data=st.binary(max_size=300))
def test_arbitrary_bytes(pkg: Any, data: bytes) -> None:
    check_parse(pkg, data)


@given(value=json_values)
def test_arbitrary_json(pkg: Any, value: Any) -> None:
    check_parse(pkg, json.dumps(value))
    if isinstance(value, dict):
        check_parse(pkg, value)


@given(data=st.data())
def test_near_valid_messages(pkg: Any, data: st.DataObject) -> None:
    message = data.draw(messages(pkg))
    check_parse(pkg, json.dumps(message))
    check_parse(pkg, message)


@given(data=st.data())
def test_truncated_json(pkg: Any, data: st.DataObject) -> None:
    text = json.dumps(data.draw(messages(pkg)))
    cut = data.draw(st.integers(0, max(len(text) - 1, 0)))
    check_parse(pkg, text[:cut])
    check_parse(pkg, text.encode()[:cut])


@given(depth=st.integers(1, 200_000), kind=st.sampled_from(["array", "object", "params"]))
@settings(max_examples=30)
def test_deeply_nested_json(pkg: Any, depth: int, kind: str) -> None:
    if kind == "array":
        text = "[" * depth + "]" * depth
    elif kind == "object":
        text = '{"a":' * depth + "1" + "}" * depth
    else:
        method = next(iter(pkg.METHODS))
        inner = '{"a":' * depth + "1" + "}" * depth
        text = '{"jsonrpc":"2.0","id":1,"method":' + json.dumps(method) + ',"params":' + inner + "}"
    check_parse(pkg, text)


@given(first=json_values, second=json_values, key=st.sampled_from(["jsonrpc", "method", "id", "params"]))
def test_duplicate_keys(pkg: Any, first: Any, second: Any, key: str) -> None:
    method = json.dumps(next(iter(pkg.METHODS)))
    text = '{"jsonrpc":"2.0","id":1,"method":%s,"%s":%s,"%s":%s}' % (method, key, json.dumps(first), key, json.dumps(second))
    check_parse(pkg, text)


@given(data=st.data())
def test_batches(pkg: Any, data: st.DataObject) -> None:
    batch = data.draw(st.lists(messages(pkg) | json_values, max_size=5))
    try:
        result = pkg.methods.parse_message(json.dumps(batch))
    except pkg.ProtocolError as exc:
        assert_clean_error(exc, PARSE_CODES)
        if not strict_json(batch):
            assert exc.code == -32700  # a lone surrogate or a non-finite number: not JSON it could write back
        elif not pkg.methods.BATCHING or not batch:
            assert exc.code == -32600
        return
    assert pkg.methods.BATCHING and isinstance(result, list) and len(result) == len(batch)


def strict_json(value: Any) -> bool:
    """True when `value` is strict JSON in UTF-8: no lone surrogate in any string, every number finite."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return False
    return True


def test_batching_flag_matches_the_schema(pkg: Any) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    if pkg.methods.BATCHING:
        assert [type(m).__name__ for m in pkg.methods.parse_message([ping])] == ["PingRequest"]
    else:
        with pytest.raises(pkg.ProtocolError) as info:
            pkg.methods.parse_message([ping])
        assert info.value.code == -32600


# --- Server.handle / Client.handle ----------------------------------------------------------------


def peer(pkg: Any, side: str) -> Any:
    """A concrete Server or Client with no handlers of its own."""
    base = getattr(pkg, side)
    stubs = {name: (lambda self, *a, **k: None) for name in getattr(base, "__abstractmethods__", ())}
    return type(f"Fuzz{side}", (base,), stubs)()


def check_handle(pkg: Any, side: str, data: Any) -> None:
    reply = asyncio.run(peer(pkg, side).handle(data))
    replies = reply if isinstance(reply, list) else [reply]
    assert not isinstance(reply, list) or pkg.methods.BATCHING
    for r in replies:
        if r is None:
            continue
        assert r["jsonrpc"] == "2.0" and "id" in r
        if "error" in r:
            assert r["error"]["code"] in HANDLE_CODES, r["error"]
            text = json.dumps(r, allow_nan=False)
            assert not any(leak in text for leak in LEAKS), text[:500]


@given(data=st.data(), side=st.sampled_from(["Server", "Client"]))
@settings(max_examples=100)
def test_handle_never_raises(pkg: Any, data: st.DataObject, side: str) -> None:
    if not hasattr(getattr(pkg, side), "handle"):
        pytest.skip("this generated package has no handle()")
    value = data.draw(messages(pkg) | json_values | st.lists(messages(pkg), max_size=3))
    check_handle(pkg, side, json.dumps(value))
    check_handle(pkg, side, data.draw(st.binary(max_size=100)))


def test_handle_answers_unknown_methods_and_drops_notifications(pkg: Any) -> None:
    server = peer(pkg, "Server")
    reply = asyncio.run(server.handle('{"jsonrpc":"2.0","id":7,"method":"no/such"}'))
    assert reply["id"] == 7 and reply["error"]["code"] == -32601
    assert asyncio.run(server.handle('{"jsonrpc":"2.0","method":"notifications/no/such"}')) is None
    reply = asyncio.run(server.handle(b"\xff{"))
    assert reply["id"] is None and reply["error"]["code"] == -32700
