"""Stage three: render the package view through the Jinja templates and format with black."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import black
import jinja2

from . import ir
from .errors import SchemaError
from .views import package_view

# Output file → template; one template per generated file.
FILES: tuple[tuple[str, str], ...] = (
    ("__init__.py", "init.py.jinja"),
    ("types.py", "types.py.jinja"),
    ("methods.py", "methods.py.jinja"),
    ("server.py", "server.py.jinja"),
    ("client.py", "client.py.jinja"),
    ("runtime.py", "runtime.py.jinja"),
    ("stdio.py", "stdio.py.jinja"),
)
MARKER_FILE = "py.typed"
_MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=100)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja environment over the packaged templates (strict about undefined names)."""
    root = resources.files("mcpgen.templates")
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text("utf-8")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def format_source(source: str, filename: str) -> str:
    """`source` formatted by black; a syntax error here is a generator bug, reported as such."""
    try:
        return black.format_file_contents(source, fast=True, mode=_MODE)
    except black.NothingChanged:
        return source
    except Exception as exc:
        raise SchemaError(f"generated {filename} is not valid Python ({exc}); please report this schema") from exc


def render_package(protocol: ir.Protocol) -> dict[str, str]:
    """Every file of the generated package, by relative path, formatted."""
    view = package_view(protocol)
    env = environment()
    files = {
        name: format_source(env.get_template(template).render(v=view), name)
        for name, template in FILES
    }
    files[MARKER_FILE] = ""
    return files
