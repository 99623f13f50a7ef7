"""Python names for wire names."""

from __future__ import annotations

import keyword

import pytest

from mcpgen.model.naming import method_python_name, pascal_case, snake_case, unique


@pytest.mark.parametrize(
    ("wire", "python"),
    [
        ("inputSchema", "input_schema"),
        ("_meta", "meta"),
        ("mimeType", "mime_type"),
        ("isError", "is_error"),
        ("a-b", "a_b"),
        ("1x", "f_1x"),
        ("$schema", "schema_"),
        ("io.modelcontextprotocol/serverInfo", "io_modelcontextprotocol_server_info"),
        ("class", "class_"),
        ("model_config", "model_config_"),
        ("list", "list_"),
        ("URLElicitation", "url_elicitation"),
        ("type", "type"),
    ],
)
def test_snake_case(wire: str, python: str) -> None:
    assert snake_case(wire) == python


@pytest.mark.parametrize("wire", ["def", "None", "match", "__init__", "", "日本語", "model_dump", "json"])
def test_snake_case_is_always_a_usable_identifier(wire: str) -> None:
    name = snake_case(wire)
    assert name.isidentifier() and not keyword.iskeyword(name)
    assert not name.startswith("model_") or name.endswith("_")


def test_pascal_case_and_method_names() -> None:
    assert pascal_case("inputSchema") == "InputSchema"
    assert pascal_case("_meta") == "Meta"
    assert method_python_name("ListPromptsRequest") == "list_prompts"
    assert method_python_name("CancelledNotification") == "cancelled"
    assert method_python_name("Request") == "request"


def test_unique_never_reuses_a_name() -> None:
    taken: set[str] = set()
    assert [unique("foo_bar", taken) for _ in range(3)] == ["foo_bar", "foo_bar_", "foo_bar__"]
