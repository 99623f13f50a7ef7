"""Find and import the generated bindings package of a revision."""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from ..errors import McpgenError

REPO_GENERATED = Path(__file__).resolve().parents[2] / "generated"


def package_name(revision: str) -> str:
    """`mcp_2025_06_18` for revision `2025-06-18`."""
    return "mcp_" + revision.replace("-", "_")


def _generate_into(directory: Path, revision: str, schema_dir: Path | None) -> None:
    """Generate the package of `revision` under `directory` with mcpgen's library entry point."""
    from ..generate import GenerateConfig, generate

    generate(GenerateConfig(revision=revision, output=directory / package_name(revision), schema_dir=schema_dir))


def import_package(revision: str, generated_dir: Path | None = None, schema_dir: Path | None = None) -> ModuleType:
    """The generated package of `revision`, imported from `generated_dir` (default: the repository's
    `generated/`), or generated into a temporary folder when that folder does not have it."""
    root = generated_dir or REPO_GENERATED
    name = package_name(revision)
    if not (root / name / "__init__.py").is_file():
        root = Path(tempfile.mkdtemp(prefix="mcpgen-validate-"))
        _generate_into(root, revision, schema_dir)
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__ or "").parent.resolve() == (root / name).resolve():
        return loaded
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]
    sys.path.insert(0, str(root))
    try:
        importlib.invalidate_caches()
        package = importlib.import_module(name)
        importlib.import_module(f"{name}.types")
        importlib.import_module(f"{name}.methods")
    except Exception as exc:  # any failure here means the generated code is broken
        raise McpgenError(f"generated package {root / name} cannot be imported: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(root))
    return package
