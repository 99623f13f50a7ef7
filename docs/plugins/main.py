"""mkdocs hooks of the mcpgen site: the runtime source as `mcpgen.runtime` for mkdocstrings, and the
pictures and pages built from the repository's data (benchmark results, golden diff reports)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
_shims: list[Path] = []
PLOTS = {
    "generation": "Generation: mcpgen's time ÷ the baseline's (lower is better)",
    "multi": "Multi-revision Server.handle: messages per second ÷ the single-revision package's (higher is better)",
    "http": "Streamable HTTP: requests per second ÷ the official SDK's, and ÷ a bare ASGI app's (higher is better)",
}
"""The results files of benchmarks/results/ drawn on the performance page, with their titles."""


def script(path: Path) -> ModuleType:
    """A script of the repository (benchmarks/plot.py, docs/plugins/timeline.py), imported by path."""
    spec = importlib.util.spec_from_file_location(f"mcpgen_docs_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def on_files(files: Files, config: Any) -> Files:
    """Add the pictures and pages built from data: the benchmark plots and the revision timeline."""
    plot = script(ROOT / "benchmarks" / "plot.py")
    for name, title in PLOTS.items():
        results = json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text("utf-8"))
        files.append(File.generated(config, f"assets/performance/{name}.svg", content=plot.chart(results, title)))
    timeline = script(Path(__file__).with_name("timeline.py"))
    reports = timeline.steps()
    files.append(File.generated(config, timeline.CHART, content=timeline.chart(reports)))
    files.append(File.generated(config, "revisions.md", content=timeline.page(reports)))
    return files


def on_shutdown() -> None:
    """Remove the shims."""
    while _shims:
        shutil.rmtree(_shims.pop(), ignore_errors=True)
