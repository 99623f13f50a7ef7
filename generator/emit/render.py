"""Stage two: render the package's views through the Jinja templates; the runtime is copied beside them.

Black formats what the templates render (stage three, `formatting`); the runtime's files are already
black's layout and are written as they are.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal

import jinja2

from ..inputs.packaged_runtime import exports, runtime_files
from ..model import ir
from .dict_views import dicts_view
from .files import Sources
from .layout import bracketed, from_import, rhs, tuple_literal, wrapped
from .minimums import MIN_PYDANTIC
from .package_views import FACADES, facade_view, package_view
from .views import revision_view

# Output file → template: the files shared by every revision of a package.
SHARED_FILES: tuple[tuple[str, str], ...] = (
    ("__init__.py", "init.py.jinja"),
    ("revisions.py", "revisions.py.jinja"),
)
PEER_FILES: tuple[tuple[str, ir.Side], ...] = (("server.py", "server"), ("client.py", "client"))
PEER_TEMPLATE = "peer.py.jinja"
FACADE_TEMPLATE = "facade.py.jinja"
# The files of one revision: at the top of a single-revision package, in `v<revision>/` otherwise.
REVISION_FILES: tuple[tuple[str, str], ...] = (
    ("types.py", "types.py.jinja"),
    ("methods.py", "methods.py.jinja"),
)
DICTS = ("dicts.py", "dicts.py.jinja")
REVISION_INIT = ("__init__.py", "revision_init.py.jinja")
SURFACE_TEMPLATE = "surface.py.jinja"
SURFACE_MODULES = ("types", "dicts")
"""The modules a multi-revision package re-exports from its surface revision at its top."""
MARKER_FILE = "py.typed"
INCLUDED = ("definitions.py.jinja", "method_table.py.jinja")
"""Templates the others include (the definitions of a types module, the rows of a METHODS table)."""
TEMPLATES: tuple[str, ...] = (
    *(t for _, t in (*SHARED_FILES, *REVISION_FILES, DICTS, REVISION_INIT)),
    SURFACE_TEMPLATE,
    PEER_TEMPLATE,
    FACADE_TEMPLATE,
    *INCLUDED,
)
"""What rendering any package needs (`prepare` compiles them early); an extension's templates compile
when a package has one."""
Part = Literal["all", "shared", "revisions"]


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


def prepare() -> None:
    """Make ready now what rendering any schema needs (a pool worker does it while the parent is still
    parsing): every template compiled, the runtime's files read and its facade modules' exports found."""
    env = environment()
    for name in TEMPLATES:
        env.get_template(name)
    for _, module, _ in FACADES:
        exports(module)  # reads the runtime's files too


@lru_cache(maxsize=None)
def template_source(template: str) -> str:
    """The text of a template."""
    return resources.files("mcpgen.templates").joinpath(template).read_text("utf-8")


def render_sources(package: ir.Package, part: Part = "all") -> Sources:
    """The files of the generated package by relative path, before formatting: all of them, or only the
    files shared by its revisions, or only the others (for two processes to render a half each)."""
    env = environment()
    view = package_view(package)
    files: dict[str, str] = {}
    verbatim: dict[str, str] = {}
    if part != "revisions":
        files.update((name, env.get_template(template).render(v=view)) for name, template in SHARED_FILES)
        peer = env.get_template(PEER_TEMPLATE)
        for name, side in PEER_FILES:
            files[name] = peer.render(v=view, s=view.server if side == "server" else view.client)
        facade = env.get_template(FACADE_TEMPLATE)
        for name, module, doc in FACADES:
            files[name] = facade.render(v=view, f=facade_view(module, doc))
        if package.extensions:
            from .extension_views import extension_files  # only a package with extensions needs them

            files.update((name, env.get_template(t).render(v=v)) for name, t, v in extension_files(package, view.header))
        verbatim = runtime_files(view.header)
    if part != "shared":
        for revision in package.revisions:
            prefix = f"{revision.module}/" if package.multi else ""
            rview = revision_view(revision.protocol, view.header, ".." if package.multi else ".")
            targets = (*REVISION_FILES, REVISION_INIT) if package.multi else REVISION_FILES
            for name, template in targets:
                files[prefix + name] = env.get_template(template).render(v=rview)
            dicts = dicts_view(revision.protocol, view.header)
            files[prefix + DICTS[0]] = env.get_template(DICTS[1]).render(v=dicts)
        if package.multi:
            surface = env.get_template(SURFACE_TEMPLATE)
            for module in SURFACE_MODULES:
                files[f"{module}.py"] = surface.render(v=view, module=module)
        files[MARKER_FILE] = ""
    return Sources(files, verbatim)
