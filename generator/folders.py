"""Where mcpgen's packages (its code, runtime, templates and data) are on disk."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_folder(part: str) -> Path:
    """The folder package `part` is read from (in an editable install, wherever its mapping puts it).

    Read from its import spec: `importlib.resources` would find the same folder, and costs a check
    served by the cache more to import than the rest of its work on the pins.
    """
    spec = importlib.util.find_spec(part)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"mcpgen is installed without its {part} package")
    return Path(next(iter(spec.submodule_search_locations)))
