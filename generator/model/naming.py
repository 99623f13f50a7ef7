"""Python names for wire names: snake_case fields, PascalCase hoisted models, no clashes."""

from __future__ import annotations

import keyword
import re

# Attributes a generated field must not shadow: BaseModel's API and names the modules import.
RESERVED_FIELD_NAMES = frozenset(
    {
        "model_config",
        "model_fields",
        "model_computed_fields",
        "model_extra",
        "model_fields_set",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "copy",
        "dict",
        "json",
        "parse_obj",
        "parse_raw",
        "parse_file",
        "from_orm",
        "construct",
        "schema",
        "schema_json",
        "validate",
        "update_forward_refs",
        "fields",
        "register",
        "self",
        "str",
        "int",
        "float",
        "bool",
        "list",
        "dict",
        "Any",
        "Literal",
        "Union",
        "Optional",
        "Annotated",
        "Field",
    }
)

# Every public builtin of the Pythons generated code runs on (3.10 to 3.14), written out so the names taken do
# not depend on the Python that runs mcpgen.
_BUILTINS = frozenset(
    {
        "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup", "BlockingIOError",
        "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError", "ConnectionAbortedError",
        "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
        "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError",
        "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
        "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
        "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None",
        "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
        "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "PythonFinalizationError",
        "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration",
        "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError",
        "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
        "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs",
        "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
        "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate",
        "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash",
        "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals",
        "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit",
        "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
        "super", "tuple", "type", "vars", "zip"
    }
)

# Module-level names the generated modules may use (every builtin, the `__future__` import); no definition
# or hoisted model takes one.
_MODULE_NAMES = _BUILTINS | {"annotations"}

# Pydantic warns about fields that start with these (its default `protected_namespaces`).
_PROTECTED_PREFIXES = ("model_validate", "model_dump")

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_IDENT = re.compile(r"[^0-9a-zA-Z_]+")


def snake_case(wire: str) -> str:
    """`inputSchema` → `input_schema`, `_meta` → `meta`, `a-b` → `a_b`; always a valid identifier."""
    name = _NON_IDENT.sub("_", wire)
    name = _CAMEL_BOUNDARY.sub("_", name).lower()
    name = re.sub(r"_+", "_", name).strip("_")
    if not name:
        name = "field"
    if name[0].isdigit():
        name = "f_" + name
    reserved = keyword.iskeyword(name) or name in RESERVED_FIELD_NAMES
    if reserved or name.startswith("model_"):
        name += "_"
    if name.startswith(_PROTECTED_PREFIXES):
        name = "f_" + name
    return name


def pascal_case(wire: str) -> str:
    """`inputSchema` → `InputSchema`, `_meta` → `Meta`, `a-b` → `AB`."""
    parts = [p for p in _NON_IDENT.sub("_", wire).split("_") if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Value"
    if name[0].isdigit():
        name = "N" + name
    return name


def definition_name(wire: str) -> str:
    """The module-level Python name of a definition: `wire` when it is a safe ASCII identifier, else PascalCase."""
    if is_identifier(wire) and wire.isascii() and not _shadows(wire):
        return wire
    name = pascal_case(wire)
    if keyword.iskeyword(name) or _shadows(name):
        name += "_"
    return name


def _shadows(name: str) -> bool:
    return name in _MODULE_NAMES or (name.startswith("__") and name.endswith("__"))


def module_names() -> set[str]:
    """The names a definition or hoisted model must not take: every builtin, and `annotations`."""
    return set(_MODULE_NAMES)


def is_identifier(name: str) -> bool:
    """True when `name` is usable as a Python identifier (not a keyword)."""
    return name.isidentifier() and not keyword.iskeyword(name)


def unique(name: str, taken: set[str]) -> str:
    """`name`, or `name_`, `name__`… until it is not in `taken`; records the result."""
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def method_python_name(definition: str) -> str:
    """`ListPromptsRequest` → `list_prompts`, `CancelledNotification` → `cancelled`."""
    for suffix in ("Request", "Notification"):
        if definition.endswith(suffix) and len(definition) > len(suffix):
            definition = definition[: -len(suffix)]
            break
    return snake_case(definition)
