"""Stage three: render the package's views through the Jinja templates (black formats them later)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Literal

import jinja2

from ..model import ir, names as stubnames
from .layout import bracketed, from_import, rhs, tuple_literal, wrapped
from .minimums import MIN_PYDANTIC
from .package_views import package_view
from .views import revision_view

# Output file → template: the files shared by every revision of a package.
SHARED_FILES: tuple[tuple[str, str], ...] = (
    ("__init__.py", "init.py.jinja"),
    ("jsonrpc.py", "jsonrpc.py.jinja"),
    ("revisions.py", "revisions.py.jinja"),
    ("runtime.py", "runtime.py.jinja"),
    ("server.py", "server.py.jinja"),
    ("client.py", "client.py.jinja"),
    ("stdio.py", "stdio.py.jinja"),
    ("http.py", "http.py.jinja"),
)
# The files of one revision: at the top of a single-revision package, in `v<revision>/` otherwise.
REVISION_FILES: tuple[tuple[str, str], ...] = (
    ("types.py", "types.py.jinja"),
    ("methods.py", "methods.py.jinja"),
)
REVISION_INIT = ("__init__.py", "revision_init.py.jinja")
SURFACE_TYPES = ("types.py", "surface_types.py.jinja")
MARKER_FILE = "py.typed"
TEMPLATES: tuple[str, ...] = tuple(t for _, t in (*SHARED_FILES, *REVISION_FILES, REVISION_INIT, SURFACE_TYPES))
Part = Literal["all", "shared", "revisions"]
# The side whose class's runtime member names (`{% set n = ... %}`) a template writes.
_MEMBER_SIDES: dict[str, ir.Side] = {"runtime.py.jinja": "server", "server.py.jinja": "server", "client.py.jinja": "client"}
_MEMBER = re.compile(r"\{\{ n\.(\w+) \}\}")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja environment over the packaged templates (strict about undefined names)."""
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(template_source),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals["min_pydantic"] = MIN_PYDANTIC
    env.globals["bracketed"] = bracketed
    env.globals["wrapped"] = wrapped
    env.globals["rhs"] = rhs
    env.globals["from_import"] = from_import
    env.filters["tuple_literal"] = tuple_literal
    return env


def compile_templates() -> None:
    """Compile every template now (a pool worker does it while the parent is still parsing)."""
    env = environment()
    for name in TEMPLATES:
        env.get_template(name)


def _templates_of(filename: str) -> tuple[str, ...]:
    """The templates an output file may come from (a multi-revision package's top `types.py` re-exports)."""
    if "/" in filename:
        name = filename.rsplit("/", 1)[1]
        return tuple(t for n, t in (*REVISION_FILES, REVISION_INIT) if n == name)
    return tuple(t for n, t in (*SHARED_FILES, *REVISION_FILES, SURFACE_TYPES) if n == filename)


@lru_cache(maxsize=None)
def template_source(template: str) -> str:
    """The text of a template."""
    return resources.files("mcpgen.templates").joinpath(template).read_text("utf-8")


@lru_cache(maxsize=None)
def template_text(template: str) -> str:
    """The text of a template with its `{{ n.<role> }}` placeholders replaced by the names of the runtime
    members: those names are the same for every schema (generated handlers and calls yield to them)."""
    side = _MEMBER_SIDES.get(template)
    if side is None:
        return template_source(template)
    names = dict(stubnames.runtime_members(side))
    return _MEMBER.sub(lambda m: names[m.group(1)], template_source(template))


def is_template_text(filename: str, chunk: str) -> bool:
    """True when `chunk` of `filename` is literal text of its template, the same for every schema.

    Such text is written black-formatted (tests/test_performance_paths.py proves it for every chunk
    the known revisions produce), so black can skip it.
    """
    text = chunk.rstrip()
    return bool(text) and any(text in template_text(t) for t in _templates_of(filename))


def render_sources(package: ir.Package, part: Part = "all") -> dict[str, str]:
    """The files of the generated package by relative path, before formatting: all of them, or only the
    files shared by its revisions, or only the others (for two processes to render a half each)."""
    env = environment()
    view = package_view(package)
    files: dict[str, str] = {}
    if part != "revisions":
        files.update((name, env.get_template(template).render(v=view)) for name, template in SHARED_FILES)
    if part != "shared":
        for revision in package.revisions:
            prefix = f"{revision.module}/" if package.multi else ""
            rview = revision_view(revision.protocol, view.header, ".." if package.multi else ".")
            targets = (*REVISION_FILES, REVISION_INIT) if package.multi else REVISION_FILES
            for name, template in targets:
                files[prefix + name] = env.get_template(template).render(v=rview)
        if package.multi:
            files[SURFACE_TYPES[0]] = env.get_template(SURFACE_TYPES[1]).render(v=view)
        files[MARKER_FILE] = ""
    return files
