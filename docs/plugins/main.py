"""mkdocs hooks of the mcpgen site: the runtime source as `mcpgen.runtime` for mkdocstrings, and the
pictures and pages built from the repository's data (benchmark results, golden diff reports)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
_shims: list[Path] = []


def runtime_shim() -> Path:
    """A directory holding `mcpgen/runtime` as a link to the checkout's `runtime/`, for griffe to read.

    An editable install maps `mcpgen.runtime` to `runtime/` in an import hook that griffe cannot follow,
    and an ordinary install may be older than the checkout: the reference reads the checkout's source.
    """
    shim = Path(tempfile.mkdtemp(prefix="mcpgen-docs-"))
    package = shim / "mcpgen"
    package.mkdir()
    (package / "__init__.py").write_text('"""mcpgen: typed bindings for the Model Context Protocol."""\n', "utf-8")
    (package / "runtime").symlink_to(ROOT / "runtime", target_is_directory=True)
    _shims.append(shim)
    return shim


@event_priority(100)  # before mkdocstrings makes its handlers
def on_config(config: Any) -> Any:
    """Put the runtime shim first on the Python handler's search paths."""
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [str(runtime_shim()), *python.get("paths", [])]
    return config


def on_shutdown() -> None:
    """Remove the shims."""
    while _shims:
        shutil.rmtree(_shims.pop(), ignore_errors=True)
