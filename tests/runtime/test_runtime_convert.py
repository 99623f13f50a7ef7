"""Conversion between revisions by the runtime source (runtime/convert.py): what a result gets filled in
and left out, what is dropped or refused, and what is read from a peer."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgen.runtime.convert import dump, objects, pruner
from mcpgen.runtime.plan import pruning
from wiring import V25, V26, meta, request, run, started


def test_dump_writes_wire_names_and_only_what_was_set(multi: ModuleType) -> None:
    t = multi.types
    result = t.CallToolResult(content=[t.TextContent(text="x")], isError=True)
    assert dump(result) == {
        "content": [{"type": "text", "text": "x"}],
        "isError": True,
        "resultType": "complete",
    }


def test_a_required_field_the_session_s_revision_has_is_filled_in_every_item(
    multi: ModuleType,
) -> None:
    """2025-11-25 requires `type: object` on every output schema; 2026-07-28 does not."""
    t = multi.types

    class Tools(multi.Server):
        async def on_list_tools(self, params: Any) -> Any:
            schema = {"properties": {"n": {"type": "number"}}}
            tools = [
                t.Tool(name=name, inputSchema={"type": "object"}, outputSchema=schema)
                for name in ("a", "b")
            ]
            return t.ListToolsResult(
                tools=tools, resultType="complete", ttlMs=0, cacheScope="public"
            )

    server = started(Tools(), V25)
    result = run(server.handle(request("tools/list")))["result"]
    assert [tool["outputSchema"]["type"] for tool in result["tools"]] == ["object", "object"]
    assert set(result) == {"tools"}


def test_results_for_a_newer_revision_get_its_documented_values_never_over_the_handler_s(
    surface25: ModuleType,
) -> None:
    t = surface25.types

    def server(listed: Any, **attributes: Any) -> Any:
        async def on_list_tools(self: Any, params: Any) -> Any:
            return listed

        return type("Tools", (surface25.Server,), {"on_list_tools": on_list_tools, **attributes})()

    stateless = request("tools/list", {"_meta": meta()})
    plain, own = t.ListToolsResult(tools=[]), t.ListToolsResult(tools=[], ttlMs=5)
    answers = [
        run(server(plain).handle(stateless))["result"],
        run(server(plain, result_defaults={"ttlMs": 60000}).handle(stateless))["result"],
        run(server(own).handle(stateless))["result"],
        run(server(own, result_defaults={"ttlMs": 60000}).handle(stateless))["result"],
    ]
    assert answers[0] == {
        "tools": [],
        "resultType": "complete",
        "cacheScope": "private",
        "ttlMs": 0,
    }
    assert [answer["ttlMs"] for answer in answers] == [0, 60000, 5, 5]


def audio_server(multi: ModuleType, blocks: list[Any], **attributes: Any) -> Any:
    async def on_call_tool(self: Any, params: Any) -> Any:
        return multi.types.CallToolResult(content=blocks, resultType="complete")

    return type("Audio", (multi.Server,), {"on_call_tool": on_call_tool, **attributes})()


def test_what_an_older_revision_cannot_represent_is_dropped_item_by_item(
    multi: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    t = multi.types
    audio = t.AudioContent(data="AA==", mimeType="a/b")
    blocks = [audio, audio, t.TextContent(text="kept"), audio]
    server = started(audio_server(multi, blocks), "2024-11-05")
    with caplog.at_level(logging.WARNING):
        result = run(server.handle(request("tools/call", {"name": "t"})))["result"]
    assert result == {"content": [{"type": "text", "text": "kept"}]}
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 3


def test_the_strict_policy_refuses_what_it_would_drop(
    multi: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    t = multi.types
    blocks = [t.TextContent(text="t"), t.AudioContent(data="AA==", mimeType="a/b")]
    server = started(audio_server(multi, blocks, conversion_policy="strict"), "2024-11-05")
    reply = run(server.handle(request("tools/call", {"name": "t"})))
    assert reply["error"] == {"code": -32603, "message": "Internal error"}
    assert "cannot represent /content/1" in caplog.text


def test_a_peer_s_invalid_message_is_refused_not_repaired(linked: dict[str, ModuleType]) -> None:
    """Only newer content (a union member, an enum value its revision lacks) is dropped; an optional
    field of the wrong type is the peer's error."""
    v25 = linked[V25]
    received = []

    class Samples(v25.Client):
        async def on_create_message(self, params: Any) -> Any:
            received.append(params)
            return v25.types.CreateMessageResult(
                role="assistant", content=v25.types.TextContent(text="ok"), model="m"
            )

    text = {"role": "user", "content": {"type": "text", "text": "hi"}}
    params = {"messages": [text], "maxTokens": 5, "systemPrompt": 5}
    reply = run(Samples().handle(request("sampling/createMessage", params)))
    assert reply["error"]["code"] == -32602 and received == []


# --- fields left out below the top level: one walk of a tree (`pruner`) for the walks of each path


def _unfills(revision: Any, method: str, part: str) -> list[tuple[tuple[str, ...], str]]:
    """(path, wire key) of every field `revision` leaves out of `method`'s `part` below the top level,
    read from the revision's facts (what the plan's tree is built from)."""
    return [
        (s.path, s.wire_name)
        for s in revision.strips
        if (s.method, s.part) == (method, part) and s.path
    ]


def _unfilled_path_by_path(value: Any, unfills: list[tuple[tuple[str, ...], str]]) -> None:
    """What the tree's walk replaces: each (path, key) in turn, every object its path leads to walked."""
    for path, key in unfills:
        for found in objects(value, path):
            found.pop(key, None)


def _pruned_plans(multi: ModuleType) -> list[tuple[Any, str, str, list[Any]]]:
    """(revision, method, part, unfills) of every plan of the multi-revision package that prunes."""
    found = []
    for revision in multi.REVISIONS.values():
        for method in multi.REVISIONS.surface.registry.methods:
            for part in ("params", "result"):
                unfills = _unfills(revision, method, part)
                if unfills:
                    found.append((revision, method, part, unfills))
    return found


def _surface_examples(schema_dir: Path, model: Any) -> list[Any]:
    """The documented examples of the surface revision's `model` (its schema's `examples`)."""
    name = getattr(model, "__name__", None)
    folder = schema_dir / V26 / "examples" / str(name)
    return [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))]


def _planted(value: Any, path: tuple[str, ...], key: str, mark: Any) -> None:
    """Make `path` lead somewhere in `value` (an item of a list for `*`) and put `key` there."""
    node = value
    for head in path:
        if head == "*":
            if isinstance(node, dict):
                node = node.setdefault("k", {})
            elif isinstance(node, list):
                if not node or not isinstance(node[-1], (dict, list)):
                    node.append({})
                node = node[-1]
        elif isinstance(node, dict):
            if not isinstance(node.get(head), (dict, list)):
                node[head] = [] if path[path.index(head) + 1 :][:1] == ("*",) else {}
            node = node[head]
    if isinstance(node, dict):
        node[key] = mark


def test_every_pruning_plan_takes_out_of_the_documented_examples_what_each_path_s_walk_takes(
    multi: ModuleType, schema_dir: Path
) -> None:
    """Every plan of the multi-revision package that leaves fields out below the top level, on the
    surface's documented examples of what it converts, with each of those fields planted where its
    path leads: the plan's one walk leaves what walking each path in turn leaves."""
    checked = 0
    for revision, method, part, unfills in _pruned_plans(multi):
        plan = revision.plan(method, part)
        spec = multi.REVISIONS.surface.registry.methods[method]
        for example in _surface_examples(schema_dir, getattr(spec, part)):
            for planted in (False, True):
                value = copy.deepcopy(example)
                if planted:
                    for path, key in unfills:
                        _planted(value, path, key, {"planted": key})
                expected = copy.deepcopy(value)
                _unfilled_path_by_path(expected, unfills)
                assert plan.prune is not None
                plan.prune(value)
                assert value == expected, (revision.version, method, part, example)
                checked += 1
    assert checked >= 20  # the corpus documents tools, prompts, messages and results of each


def test_a_plan_s_tree_names_each_path_s_field_once_where_its_path_leads(multi: ModuleType) -> None:
    for revision, method, part, unfills in _pruned_plans(multi):
        tree = revision.plan(method, part).unfills
        named = set()
        stack = [((), tree)]
        while stack:
            path, node = stack.pop()
            named |= {(path, key) for key in node.keys}
            stack.extend((path + (head,), below) for head, below in node.below)
        assert named == set(unfills), (revision.version, method, part)


_KEYS = ["tools", "content", "annotations", "inputSchema", "$schema", "title", "x"]
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
    max_leaves=25,
)


@st.composite
def _route(draw: Any, value: Any) -> tuple[tuple[str, ...], str]:
    """A (path, key) leading into `value`: each step a member it has (by name or as `*`), or any name."""
    path: list[str] = []
    node = value
    while draw(st.booleans()):
        if isinstance(node, dict) and node:
            head = draw(st.sampled_from(sorted(node)))
            path.append(draw(st.sampled_from([head, "*"])))
            node = node[head]
        elif isinstance(node, list) and node:
            path.append("*")
            node = node[draw(st.integers(0, len(node) - 1))]
        else:
            path.append(draw(st.sampled_from(_KEYS)))
            break
    names = sorted(node) if isinstance(node, dict) and node else _KEYS
    return tuple(path), draw(st.sampled_from(names))


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_tree_walk_leaves_what_walking_each_path_in_turn_leaves(
    multi: ModuleType, schema_dir: Path, data: Any
) -> None:
    """Any JSON or any documented example of the surface revision, and paths that lead into it (or part
    of the way), or a plan of the package."""
    documented = sorted((schema_dir / V26 / "examples").glob("*/*.json"))
    example = st.sampled_from(documented).map(lambda p: json.loads(p.read_text("utf-8")))
    value = data.draw(_json | st.dictionaries(st.sampled_from(_KEYS), _json, min_size=1) | example)
    plans = [unfills for _, _, _, unfills in _pruned_plans(multi)]
    unfills = data.draw(st.lists(_route(value), max_size=5) | st.sampled_from(plans))
    expected = copy.deepcopy(value)
    _unfilled_path_by_path(expected, unfills)
    tree = pruning(unfills)
    if tree is not None:
        pruner(tree)(value)
    assert value == expected


# --- a conversion, in place (a value of ours) or on a copy, changes what the revision's facts say


def _facts_applied(revision: Any, method: str, part: str, value: Any) -> Any:
    """What converting `value` to `revision` leaves, read from the revision's facts path by path: the
    top-level strips left out, each lower one walked to, then each fill made where it is missing."""
    out = copy.deepcopy(value)
    for s in revision.strips:
        if (s.method, s.part) == (method, part):
            for found in objects(out, s.path):
                found.pop(s.wire_name, None)
    for f in revision.fills:
        if (f.method, f.part) == (method, part):
            for found in objects(out, f.path):
                found.setdefault(f.wire_name, f.value)
    return out


def _reshaping_plans(multi: ModuleType) -> list[tuple[Any, str, str]]:
    """(revision, method, part) of every plan of the multi-revision package that strips or fills."""
    return [
        (revision, method, part)
        for revision in multi.REVISIONS.values()
        for method in multi.REVISIONS.surface.registry.methods
        for part in ("params", "result")
        if getattr(revision.registry.methods.get(method), part, None) is not None
        and revision.plan(method, part).reshapes
    ]


def test_a_conversion_in_place_or_on_a_copy_leaves_out_and_fills_in_what_the_facts_say(
    multi: ModuleType, schema_dir: Path
) -> None:
    """Every plan of the package that strips or fills, on the surface's documented examples with each
    field it leaves out planted where its path leads: a value of ours (`owned`) is changed in place,
    one that is not is left as it was, and both give what applying the facts path by path gives."""
    from mcpgen.runtime.convert import convert
    from mcpgen.runtime.jsonrpc import ProtocolError

    checked = 0
    for revision, method, part in _reshaping_plans(multi):
        plan = revision.plan(method, part)
        spec = multi.REVISIONS.surface.registry.methods[method]
        unfills = [(s.path, s.wire_name) for s in revision.strips if (s.method, s.part) == (method, part)]
        for example in _surface_examples(schema_dir, getattr(spec, part)):
            value = copy.deepcopy(example)
            for path, key in unfills:
                _planted(value, path, key, {"planted": key})
            expected = _facts_applied(revision, method, part, value)
            for owned in (False, True):
                given_value = copy.deepcopy(value)
                try:
                    _, wire = convert(given_value, plan, policy="strict", code=-1, owned=owned)
                except ProtocolError:
                    continue  # not valid in the revision: nothing is sent
                assert wire == expected, (revision.version, method, part, owned)
                if owned:
                    assert wire is given_value
                else:
                    assert given_value == value, (revision.version, method, part)
                checked += 1
    assert checked >= 20
