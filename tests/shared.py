"""Constants the tests share (importable from any test directory, unlike conftest)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
MULTI_REVISION = ("2024-11-05..2025-11-25", "2024-11-05..2026-07-28")
"""The multi-revision packages committed under generated/ beside the five single ones."""
EXTENDED = ("2026-07-28", ("tasks", "apps"), "mcp_2026_07_28_ext")
"""The package with extensions committed under generated/: its revision, extensions and name."""


def package_name(revision: str) -> str:
    """The default package name of a revision: `mcp_2025_11_25`."""
    from mcpgen.commands.generate import default_package

    return default_package(revision)


def link_runtime(alias: str) -> None:
    """Make `<alias>.runtime` and each of its modules the runtime source's, `mcpgen.runtime` (before
    `alias` is imported): the package's own tables then run on the source, which is what the tests and
    their coverage measure. The copy a package carries is the same text (test_runtime_copy.py)."""
    import pkgutil

    import mcpgen.runtime as source

    sys.modules[f"{alias}.runtime"] = source
    for info in pkgutil.walk_packages(source.__path__, "mcpgen.runtime."):
        module = importlib.import_module(info.name)
        sys.modules[f"{alias}.runtime.{info.name.removeprefix('mcpgen.runtime.')}"] = module


def load_package(directory: Path, alias: str, linked: bool = True) -> ModuleType:
    """Import the generated package in `directory` under the module name `alias` (other tests' copies stay
    apart), running on the runtime source unless `linked` is False."""
    if alias in sys.modules:
        return sys.modules[alias]
    if linked:
        link_runtime(alias)
    spec = importlib.util.spec_from_file_location(
        alias, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


def default_sigint() -> None:
    """`preexec_fn` for a child that must react to SIGINT even when pytest runs as a background job
    (a shell starts background jobs with SIGINT ignored, and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def missing(reason: str) -> NoReturn:
    """Skip a test whose prerequisite (corpus, Node, an npm package) is absent; under `CI=true`, fail instead."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (CI=true: a missing prerequisite fails the run)", pytrace=False)
    pytest.skip(reason)


def kept_by_a_docstring(text: str) -> str:
    """The docstring contract, stated independently of the emitter: links to the spec's site made
    absolute, lone surrogates shown as escapes, tabs expanded, line ends trimmed, then `inspect.cleandoc`."""
    text = text.replace("](/", "](https://modelcontextprotocol.io/")
    text = "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return inspect.cleandoc("\n".join(line.rstrip() for line in text.expandtabs().split("\n")))


def wire_problems(schema_dir: Path, revision: str, messages: list[Any]) -> list[str]:
    """What the revision's upstream schema rejects among `messages` (a conversation in order): requests
    and notifications by their method, results by the method of the request they answer, errors as errors."""
    from mcpgen.messages.table import method_table
    from mcpgen.messages.upstream import upstream

    schema, table = upstream(schema_dir, revision), method_table(schema_dir, revision)
    asked: dict[Any, str] = {}
    problems = []
    for message in messages:
        method = message.get("method")
        if isinstance(method, str):
            spec = table.methods.get(method)
            if spec is None or spec.embedded:
                problems.append(f"{method}: not a {revision} message")
                continue
            if "id" in message:
                asked[message["id"]] = method
            checks = [(spec.message, message)]
        elif "error" in message:
            checks = [(table.envelope.error, message)]
        else:
            spec = table.methods[asked[message["id"]]]
            accepted = any(schema.accepts(name, message["result"]) for name in spec.results)
            checks = [] if accepted else [(spec.results[0], message["result"])]
            checks.append((table.envelope.result, message))
        for name, value in checks:
            issue = schema.issue(name, value)
            if issue is not None:
                problems.append(f"{method or 'response'} as {name}: {issue}")
    return problems


def committed_packages() -> list[str]:
    """The package names under generated/: one per revision, then the multi-revision ones."""
    from mcpgen.commands.generate import default_package
    from mcpgen.inputs.pins import revision_set

    return [package_name(r) for r in REVISIONS] + [default_package(revision_set(m)) for m in MULTI_REVISION] + [EXTENDED[2]]
