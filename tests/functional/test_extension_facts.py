"""What a known extension's prose states and its schema does not (its pinned facts), on a tiny pinned
extension: methods of its own link (an app and its host), the settings each side declares, a typed
`_meta` entry on core objects, a core request it lets servers answer differently, constants, and errata
of its own."""

from __future__ import annotations

import copy
import hashlib
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import pydantic
import pytest

from mcpgen.inputs import extensions as known
from mcpgen.commands.generate import GeneratedPackage

from .oracle import assert_agrees
from .packages import generate_extended, schema_bytes, shipped
from .schemas import Schema, const, extension_schema, notification, obj, result
from .session import STRING
from .test_extensions import base_schema

WIDGETS = "io.example/widgets"
FACTS = {
    "roles": {"client": "app", "server": "host"},
    "methods": {
        "widgets/open": {"kind": "request", "senders": ["app"]},
        "widgets/closed": {"kind": "notification", "senders": ["host"]},
    },
    "settings": {"client": "WidgetsClientCapabilities"},
    "results": {"tools/call": ["DeferredResult"]},
    "meta": [{"name": "tool", "key": "widget", "type": "WidgetToolMeta", "on": ["Tool", "NoSuchDefinition"]}],
    "constants": {"MIME_TYPE": "text/x-widget;profile=tiny"},
}
ERRATUM = {
    "id": "uri-is-a-string",
    "reason": "a URI is text; the schema typed it as an integer",
    "upstream": "not yet reported",
    "patch": [
        {"op": "test", "path": "/$defs/WidgetToolMeta/properties/resourceUri/type", "value": "integer"},
        {"op": "replace", "path": "/$defs/WidgetToolMeta/properties/resourceUri/type", "value": "string"},
    ],
}


def tool_base() -> Schema:
    """The extensible session schema whose tools carry a `_meta` object."""
    schema = base_schema()
    schema["$defs"]["Tool"]["properties"]["_meta"] = {"type": "object", "additionalProperties": {}}
    return schema


def widgets_schema() -> Schema:
    """A widgets extension: an app asks its host to open a widget; a tool's `_meta.widget` names its page."""
    return extension_schema(
        WIDGETS,
        {
            "Tool": copy.deepcopy(tool_base()["$defs"]["Tool"]),
            "WidgetToolMeta": obj({"resourceUri": {"type": "integer"}}, additionalProperties=False),
            "WidgetsClientCapabilities": obj({"mimeTypes": {"type": "array", "items": STRING}}, additionalProperties=False),
            "OpenWidgetRequest": obj(
                {"method": const("widgets/open"), "params": obj({"uri": STRING}, ["uri"], additionalProperties=False)},
                ["method", "params"],
                additionalProperties=False,
            ),
            "OpenWidgetResult": obj({"opened": {"type": "boolean"}}),
            "WidgetClosedNotification": notification("widgets/closed"),
            "DeferredResult": result({"ticket": STRING, "resultType": const("deferred")}, ["ticket", "resultType"]),
        },
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, GeneratedPackage]]:
    """The package with the widgets extension, pinned to the bytes of `widgets_schema()` with `FACTS`."""
    schema = widgets_schema()
    entry = {"identifier": WIDGETS, "upstream": "tests", "url": "https://example.invalid/widgets.json", **FACTS}
    pin = known.ExtensionPin(
        name="widgets", identifier=WIDGETS, upstream="tests", url=entry["url"],
        sha256=hashlib.sha256(schema_bytes(schema)).hexdigest(), facts=known.facts_of(entry),
    )
    with pytest.MonkeyPatch.context() as patch, shipped({"ext-widgets": [ERRATUM]}):
        patch.setattr(known, "_pins", lambda: (pin,))
        yield generate_extended(tmp_path_factory.mktemp("widgets"), tool_base(), "fn_widgets", (schema,))


@pytest.fixture(scope="module")
def widgets(made: tuple[ModuleType, GeneratedPackage]) -> ModuleType:
    return importlib.import_module(f"{made[0].__name__}.ext.widgets")


def test_methods_of_the_extensions_own_link_name_its_roles_and_stay_off_server_and_client(
    made: tuple[ModuleType, GeneratedPackage], widgets: ModuleType
) -> None:
    pkg = made[0]
    senders = {name: sorted(m.senders) for name, m in widgets.methods.METHODS.items()}
    assert senders == {"widgets/open": ["app"], "widgets/closed": ["host"]}
    assert widgets.methods.METHODS["widgets/open"].result is widgets.types.OpenWidgetResult
    assert not {"widgets/open", "widgets/closed"} & (set(pkg.Server.handlers) | set(pkg.Client.handlers))
    (entry,) = pkg.Server.extensions
    assert entry.methods == () and entry.results == ("tools/call",)


def test_the_params_of_an_app_message_validate_as_its_schema_says(widgets: ModuleType) -> None:
    adapter = widgets.methods.REGISTRY.params_adapter("widgets/open")
    assert adapter.validate_python({"uri": "ui://w"}).uri == "ui://w"
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"uri": "ui://w", "size": 3})


def test_a_typed_meta_entry_is_built_and_read_on_the_core_objects(
    made: tuple[ModuleType, GeneratedPackage], widgets: ModuleType
) -> None:
    pkg = made[0]
    meta = widgets.meta.tool_meta(widgets.types.WidgetToolMeta(resource_uri="ui://w/page"), {"other": 1})
    assert meta == {"other": 1, "widget": {"resourceUri": "ui://w/page"}}
    tool = pkg.types.Tool(name="w", meta=meta)
    assert widgets.meta.tool_widget(tool) == widgets.types.WidgetToolMeta(resource_uri="ui://w/page")
    assert widgets.meta.tool_widget(pkg.types.Tool(name="plain")) is None
    with pytest.raises(pydantic.ValidationError):
        widgets.meta.tool_widget(pkg.types.Tool(name="w", meta={"widget": {"resourceUri": "x", "size": 2}}))
    # An owner the base lacks is left out without a word when another owner is there.
    assert not [w for w in made[1].warnings if "helpers" in w]


def test_an_erratum_of_the_extension_applies_and_is_recorded(
    made: tuple[ModuleType, GeneratedPackage], widgets: ModuleType
) -> None:
    corrected = widgets_schema()
    corrected["$defs"]["WidgetToolMeta"]["properties"]["resourceUri"]["type"] = "string"
    for instance in ({"resourceUri": "ui://w"}, {"resourceUri": 3}, {"size": 1}):
        assert_agrees(widgets.types, corrected, "WidgetToolMeta", instance)
    header = (made[1].path / "ext" / "widgets" / "types.py").read_text("utf-8")
    assert "# Extension errata applied: widgets: ext-widgets/uri-is-a-string" in header


def test_the_settings_each_side_declares_are_typed_where_the_facts_say(made: tuple[ModuleType, GeneratedPackage], widgets: ModuleType) -> None:
    pkg = made[0]
    capabilities = widgets.capabilities
    assert capabilities.ClientSettings is widgets.types.WidgetsClientCapabilities
    declared = capabilities.client_declaration(widgets.types.WidgetsClientCapabilities(mime_types=["text/x-widget"]))
    client = pkg.types.ClientCapabilities(extensions=declared)
    assert capabilities.client_settings(client).mime_types == ["text/x-widget"]
    assert capabilities.server_declaration({"anything": True}) == {WIDGETS: {"anything": True}}
    server = pkg.types.ServerCapabilities(extensions=capabilities.server_declaration())
    assert capabilities.server_settings(server) == {}


def test_results_and_constants(widgets: ModuleType) -> None:
    assert widgets.methods.RESULTS == {"tools/call": (widgets.types.DeferredResult,)}
    assert widgets.MIME_TYPE == "text/x-widget;profile=tiny"
    deferred: Any = widgets.types.DeferredResult(ticket="t")
    assert deferred.model_dump(by_alias=True, exclude_unset=True) == {"ticket": "t", "resultType": "deferred"}
