"""A server's request path without mounts or extensions (runtime/server.py
`ServerEndpoint.serves_alone`) goes straight to the handlers, and a request its handler alone answers
skips the runtime's own steps (runtime/peer.py `Endpoint.route`, taken in `Endpoint._handle_one`):
each answers every message exactly as the path it skips, in either era and across them, and the
direct path skips only steps that would have done nothing."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcpgen.runtime.jsonrpc import ProtocolError
from shared import EXTENDED, link_runtime
from wiring import V25, V26, initialize, meta, notification, request

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
TOOLS = ("echo", "invalid", "boom", "refuse")
METHODS = ("tools/call", "tools/list", "ping", "prompts/list", "no/such")


def servers(pkg: ModuleType) -> tuple[type, type]:
    """A server class of `pkg` with tools that echo, answer invalid results, fail or refuse, and the
    same class whose endpoint always takes the negotiating path (the path before the shortcut)."""
    t = pkg.types

    class Tools(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            listing: dict[str, Any] = {
                "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]
            }
            if t.ListToolsResult.model_fields.get("result_type") is not None:
                listing.update(resultType="complete", ttlMs=0, cacheScope="private")
            return t.ListToolsResult.model_validate(listing)

        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "boom":
                raise RuntimeError("secret detail")
            if params.name == "refuse":
                raise pkg.ProtocolError(-32602, "no such tool", {"name": params.name})
            if params.name == "invalid":
                return t.CallToolResult.model_construct(content="not a list")
            text = repr(params.arguments)
            return t.CallToolResult(content=[t.TextContent(type="text", text=text)])

    endpoint = Tools._endpoint_type

    class Negotiating(endpoint):  # type: ignore[misc, valid-type]
        def serves_alone(self, revision: Any) -> bool:
            return False

        async def serve(self, revision: Any, method: str, message: Any, obj: Any) -> Any:
            return await self.serve_negotiated(revision, method, message, obj)

    class Slow(Tools):  # type: ignore[misc, valid-type]
        _endpoint_type = Negotiating

    return Tools, Slow


def generic(server_class: type) -> type:
    """`server_class` whose endpoint never takes the direct path (`Route.direct`): every request goes
    through `builtin`, `handler`, `surface_params` and `fulfil_on_session` where `serve` consults them.
    """
    endpoint = server_class._endpoint_type

    class Generic(endpoint):  # type: ignore[misc, valid-type]
        def route(self, revision: Any, method: str) -> Any:
            return super().route(revision, method)._replace(direct="")

    class Server(server_class):  # type: ignore[misc, valid-type]
        _endpoint_type = Generic

    return Server


async def replies(server: Any, version: str, messages: list[Any]) -> list[Any]:
    """What `server` answers to `messages`, after a handshake in a session-era `version`."""
    if version == V25:
        await server.handle(initialize(version))
        await server.handle(notification("notifications/initialized"))
    return [await server.handle(m) for m in messages]


def message(version: str, method: str, tool: str, arguments: Any, raw: Any) -> Any:
    """A request of `method` in `version` (a stateless-era one carries its `_meta`); `raw` params
    replace the tool call's own when given."""
    params: Any = {"name": tool, "arguments": arguments} if method == "tools/call" else None
    if raw is not None:
        params = raw
    if version == V26:
        params = {**params, "_meta": meta()} if isinstance(params, dict) else {"_meta": meta()}
    return request(method, params, 7)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@pytest.mark.parametrize(
    "package, version",
    [("v25", V25), ("v26", V26), ("multi", V25), ("multi", V26), ("surface25", V25)],
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(METHODS),
            st.sampled_from(TOOLS),
            json_values,
            st.none() | json_values,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_shortcuts_answer_as_the_generic_path(
    request_fixture: Any, package: str, version: str, calls: list[Any]
) -> None:
    """Past `serve_negotiated` (no mounts, no extensions) and past `builtin`, `handler`,
    `surface_params` and `fulfil_on_session` (`Endpoint.route`), every call is answered as by the
    path that takes neither shortcut."""
    pkg = request_fixture.getfixturevalue(package)
    fast, slow = servers(pkg)
    messages = [message(version, *call) for call in calls]
    got = asyncio.run(replies(fast(), version, messages))
    assert got == asyncio.run(replies(slow(), version, messages))
    assert got == asyncio.run(replies(generic(slow)(), version, messages))
    assert all(r is not None and r.get("id") == 7 for r in got)
    assert all("secret" not in str(r) for r in got)


@pytest.fixture
def request_fixture(request: pytest.FixtureRequest) -> pytest.FixtureRequest:
    """The fixture request (named apart from the `request` message helper)."""
    return request


FIELDS = (
    "content",
    "is_error",
    "structured_content",
    "meta",
    "task",
    "isError",
    "result_type",
    "x",
)
CHANGES = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.sampled_from(FIELDS), json_values),
        st.tuples(st.just("append"), st.just(""), json_values),
        st.tuples(
            st.just("inner"), st.sampled_from(("text", "type", "annotations", "y")), json_values
        ),
        st.tuples(st.just("task"), st.just(""), json_values),
        st.tuples(st.just("unvalidated"), st.just(""), st.none()),
    ),
    max_size=3,
)


def changed(pkg: ModuleType, changes: list[Any]) -> Any:
    """A result built by the validating constructors, then changed as `changes` say: fields set to any
    JSON value, items appended to its content, its first content block's fields set, or built without
    validation (around a `task`, which only the other member of a plain result union has, or with its
    constants unset)."""
    t = pkg.types
    result = t.CallToolResult(content=[t.TextContent(type="text", text="hi")])
    for kind, name, value in changes:
        if kind == "set":
            setattr(result, name, value)
        elif kind == "append" and isinstance(getattr(result, "content", None), list):
            result.content.append(value)
        elif (
            kind == "inner"
            and isinstance(getattr(result, "content", None), list)
            and result.content
        ):
            first = result.content[0]
            if hasattr(first, "__pydantic_fields__"):
                setattr(first, name, value)
        elif kind == "task":
            result = t.CallToolResult.model_construct(task=value)
        elif kind == "unvalidated":  # its constants (a draft's `resultType`) unset
            result = t.CallToolResult.model_construct(content=getattr(result, "content", []))
    return result


def result_servers(pkg: ModuleType) -> tuple[type, type]:
    """A server whose tool answers `changes` applied to a valid result, and the same server checking
    its results as the path before `Registry.check_result` did (the dump validated by the union)."""
    from pydantic import BaseModel

    dump = importlib.import_module(f"{pkg.__name__}.runtime.convert").dump

    class Changing(pkg.Server):
        changes: list[Any] = []

        async def on_call_tool(self, params: Any) -> Any:
            return changed(pkg, self.changes)

    endpoint = Changing._endpoint_type

    class Before(endpoint):  # type: ignore[misc, valid-type]
        def result_to_wire(self, revision: Any, method: str, result: Any) -> Any:
            if revision is self.surface and isinstance(result, BaseModel):
                self.surface.registry.parse_result(method, dump(result))
                return dump(result)
            return super().result_to_wire(revision, method, result)

    class Previous(Changing):  # type: ignore[misc, valid-type]
        _endpoint_type = Before

    return Changing, Previous


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@pytest.mark.parametrize("package, version", [("v25", V25), ("v26", V26), ("multi", V26)])
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(changes=CHANGES)
def test_a_changed_result_is_answered_as_the_union_decides(
    request_fixture: Any, package: str, version: str, changes: list[Any]
) -> None:
    from pydantic import TypeAdapter

    pkg = request_fixture.getfixturevalue(package)
    fast, slow = result_servers(pkg)
    fast.changes = slow.changes = changes
    call = [message(version, "tools/call", "echo", {}, None)]
    got = asyncio.run(replies(fast(), version, call))
    assert got == asyncio.run(replies(slow(), version, call))
    (reply,) = got
    results = pkg.Server.revisions.surface.registry.methods["tools/call"].result_type
    if "result" in reply:  # whatever the changes, what goes on the wire is a valid result
        TypeAdapter(results).validate_python(reply["result"])
    else:
        assert reply["error"]["code"] == -32603


TAGGED = ("resources/read", "prompts/get", "tools/call")
"""2026-07-28's requests whose result union is tagged by `resultType`."""
BASES = (
    {},
    {"content": [{"type": "text", "text": "hi"}]},
    {"contents": [{"uri": "file:///a", "text": "a"}]},
    {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]},
    {"requestState": "s"},
)
WIRE_KEYS = ("content", "contents", "messages", "isError", "requestState", "inputRequests", "_meta", "x")
TAGS = st.one_of(
    st.sampled_from(["complete", "input_required", "Complete", "", None]), json_values
)
UNIONS: dict[Any, Any] = {}
"""Each result union's own TypeAdapter, built once (not per example: pydantic 2.11 slows when the same
deferred models' adapters are built hundreds of times)."""


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(TAGGED),
    base=st.sampled_from(BASES),
    tag=TAGS,
    named=TAGS,
    changes=st.dictionaries(st.sampled_from(WIRE_KEYS), json_values, max_size=2),
    member=st.integers(0, 1),
)
@example(
    method="tools/call",
    base=BASES[1],
    tag="complete",
    named="input_required",
    changes={},
    member=1,
)
def test_a_tagged_result_union_s_check_decides_as_the_union(
    v26: ModuleType, method: str, base: Any, tag: Any, named: Any, changes: Any, member: int
) -> None:
    """Whichever member built a result, `check_result` accepts exactly what the tagged union accepts
    (it tries the member its tag names alone), and refuses the rest with a ProtocolError: also with the
    tag under its Python name (`result_type`) too, which the union and the member read differently."""
    from pydantic import TypeAdapter

    registry = v26.Server.revisions.surface.registry
    union = registry.methods[method].result_type
    built = get_args(get_args(union)[0])[member]
    result = {**base, **changes}
    if tag is not None:
        result["resultType"] = tag
    if named is not None:
        result["result_type"] = named
    whole = UNIONS.get((v26.__name__, method))
    if whole is None:
        whole = UNIONS[v26.__name__, method] = TypeAdapter(union)
    try:
        whole.validate_python(result)
        valid = True
    except (ValidationError, RecursionError):
        valid = False
    try:
        registry.check_result(method, result, built)
        checked = True
    except ProtocolError:
        checked = False
    assert checked == valid


def test_a_tagged_result_built_by_the_member_its_tag_names_is_checked_by_that_member_alone(
    v26: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result of a tagged union is validated once, by its own model's validator (the one that built
    it), not by a second copy inside the union's: only a refusal takes the union's path."""
    t = v26.types
    registry = v26.Server.revisions.surface.registry
    dump = importlib.import_module(f"{v26.__name__}.runtime.convert").dump
    whole: list[str] = []
    monkeypatch.setattr(registry, "parse_result", lambda method, result: whole.append(method))
    done = t.CallToolResult(content=[t.TextContent(type="text", text="hi")])
    asked = t.InputRequiredResult(request_state="s")
    registry.check_result("tools/call", dump(done), t.CallToolResult)
    registry.check_result("tools/call", dump(asked), t.InputRequiredResult)
    assert whole == []
    registry.check_result("tools/call", {**dump(done), "resultType": "input_required"}, t.CallToolResult)
    registry.check_result("tools/call", {"content": []}, t.CallToolResult)  # no tag: the union decides
    assert whole == ["tools/call", "tools/call"]


def test_a_member_decides_alone_only_where_its_tag_is_required() -> None:
    """A member whose tag field has a default accepts a result without the tag, which the tagged union
    refuses: only members whose tag is a required literal decide alone (each as the union would)."""
    from typing import Annotated, Literal

    from pydantic import BaseModel, Field, TypeAdapter

    from mcpgen.runtime.registry import _deciding

    class Defaulted(BaseModel):
        kind: Literal["a"] = "a"

    class Required(BaseModel):
        kind: Literal["b", "c"]
        n: int = 0

    union = Annotated[Defaulted | Required, Field(discriminator="kind")]
    deciding, other = _deciding(union)
    assert Required in deciding and other is None
    whole = TypeAdapter(union)
    for value in ({}, {"kind": "a"}, {"kind": "b"}, {"kind": "c", "n": "x"}, {"n": 1}):
        for member in deciding:
            try:
                member.model_validate(value)
            except ValidationError:
                continue
            whole.validate_python(value)  # what a deciding member accepts, the union accepts
    assert _deciding(Defaulted).members == frozenset()
    assert _deciding(Defaulted | Required).members == {Defaulted, Required}


@pytest.mark.parametrize("package", ["v25", "v26"])
def test_a_result_the_other_member_of_the_union_accepts_is_answered(
    request_fixture: Any, package: str
) -> None:
    pkg = request_fixture.getfixturevalue(package)
    fast, _ = result_servers(pkg)
    task = {"taskId": "t1", "status": "working", "createdAt": "2025-01-01T00:00:00Z"}
    task.update(ttl=1000, lastUpdatedAt="2025-01-01T00:00:00Z")
    fast.changes = [("task", "", task)]
    version = V25 if package == "v25" else V26
    (reply,) = asyncio.run(
        replies(fast(), version, [message(version, "tools/call", "e", {}, None)])
    )
    if package == "v25":  # 2025-11-25's tools/call answers CallToolResult | CreateTaskResult
        assert reply["result"] == {"task": task}
    else:  # 2026-07-28's result union is tagged: a result without its tag is refused
        assert reply["error"]["code"] == -32603


def every_handler(pkg: ModuleType) -> Any:
    """A server of `pkg` overriding every handler its class has (so `builtin` sees them all overridden)."""

    async def answer(self: Any, params: Any) -> Any:
        return None

    body = {name: answer for name in set(pkg.Server.handlers.values())}
    return type("Everything", (pkg.Server,), body)()


def package_named(request_fixture: Any, package: str) -> ModuleType:
    """A linked package by its fixture's name, or "ext": the package with extensions (tasks, apps)."""
    if package != "ext":
        return request_fixture.getfixturevalue(package)  # type: ignore[no-any-return]
    request_fixture.getfixturevalue("generated_root")
    link_runtime(EXTENDED[2])
    return importlib.import_module(EXTENDED[2])


@pytest.mark.parametrize("package", ["v25", "v26", "multi", "surface25", "ext"])
@pytest.mark.parametrize("overriding", [False, True])
def test_a_direct_method_is_one_the_runtime_neither_answers_nor_completes(
    request_fixture: Any, package: str, overriding: bool
) -> None:
    """Where `direct` names a handler, `builtin` answers nothing and `fulfil_on_session` replaces no
    result (of any model a result of the method may be, input-required and task results included):
    the path it skips would have done nothing. Where `answers_itself` is False, `builtin` answers
    nothing, in every revision. Checked for every method of every revision of the package; a package
    with extensions has no direct method."""
    from typing import get_args

    from pydantic import BaseModel

    pkg = package_named(request_fixture, package)
    server = every_handler(pkg) if overriding else pkg.Server()
    endpoint = server._mcp
    surface = endpoint.surface
    extra = [surface.input_required_model] + [
        model for found in surface.extension_results.values() for _, model in found
    ]

    async def check() -> int:
        directs = 0
        for revision in endpoint.revisions.values():
            for method, spec in revision.registry.methods.items():
                if spec.kind != "request" or "client" not in spec.senders:
                    continue
                if not endpoint.answers_itself(revision, method):
                    assert endpoint.builtin(revision, method, None) is None, method
                handler = endpoint.route(revision, method).direct or None
                if handler is None:
                    continue
                directs += 1
                assert revision is surface and handler == endpoint.handler(method)
                assert endpoint.builtin(revision, method, None) is None, method
                members = [m for m in get_args(spec.result_type) if isinstance(m, type)]
                members = members or [spec.result_type]
                for model in members + extra:
                    if isinstance(model, type) and issubclass(model, BaseModel):
                        result = model.model_construct()
                        assert (
                            endpoint.fulfil_on_session(revision, method, handler, None, result)
                            is None
                        ), (method, model)
        return directs

    # a surface with extensions hands no request to its handler alone: `serve_negotiated` sees each
    assert (asyncio.run(check()) > 0) == (not surface.extensions)
