"""Stage three: render the package view through the Jinja templates and format with black."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2

from . import ir
from .formatting import format_files
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
    ("http.py", "http.py.jinja"),
)
MARKER_FILE = "py.typed"


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
    name = filename if filename.endswith(".py") else f"{filename}.py"
    return format_files([{name: source}])[0][name]


def render_sources(protocol: ir.Protocol) -> dict[str, str]:
    """Every file of the generated package, by relative path, before formatting."""
    view = package_view(protocol)
    env = environment()
    files = {name: env.get_template(template).render(v=view) for name, template in FILES}
    files[MARKER_FILE] = ""
    return files


def render_package(protocol: ir.Protocol) -> dict[str, str]:
    """Every file of the generated package, by relative path, formatted."""
    return format_files([render_sources(protocol)])[0]
