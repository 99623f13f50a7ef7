"""`[[tool.mcpgen.packages]]`: each entry holds the options `mcpgen generate` takes on its command line.

```toml
[[tool.mcpgen.packages]]
revision = "2025-11-25"            # or a list: ["2024-11-05", "2025-11-25"]
package = "myapp._vendor.mcp"
output = "src/myapp/_vendor/mcp"   # paths are relative to the file's directory
schema-dir = "../shared/mcp-spec"
pairs = { SubscriptionsListenRequest = "EmptyResult" }
extensions = ["tasks", "apps"]     # known extensions, schema files or IDENTIFIER=FILE
```

An entry becomes the same keyword options the CLI passes to `GenerateConfig`; options given on the
command line replace the entry's. Sub-tables of `[tool.mcpgen]` (like `diff`) belong to other
commands and are left alone here.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Callable

from .console import shown
from .commands.generate import ALL, GenerateConfig, package_dirs
from .pyproject import ConfigError, find_pyproject, tool_table

PACKAGES = "packages"


def _text(value: Any, where: str, what: str = "a non-empty string") -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where} must be {what}")
    return value


def _revisions(value: Any, where: str) -> str:
    what = "a revision or a non-empty list of revisions"
    if isinstance(value, list) and value:
        return ",".join(_text(v, where, what) for v in value)
    return _text(value, where, what)


def _extensions(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where} must be a list of extensions (known names, schema files or IDENTIFIER=FILE)")
    return tuple(_text(v, where, "a known extension, a schema file or IDENTIFIER=FILE") for v in value)


def _pairs(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of REQUEST = \"RESULT\"")
    return tuple((_text(k, where), _text(v, f"{where}.{k}")) for k, v in value.items())


# TOML key → (GenerateConfig field, reader); paths are made relative to the config file later.
_KEYS: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
    "revision": ("revision", _revisions),
    "package": ("package", _text),
    "output": ("output", _text),
    "surface": ("surface", _text),
    "schema": ("schema_file", _text),
    "schema-dir": ("schema_dir", _text),
    "cache-dir": ("cache_dir", _text),
    "dist": ("dist", _text),
    "pairs": ("pairings", _pairs),
    "extensions": ("extensions", _extensions),
}
_PATHS = ("output", "schema_file", "schema_dir", "cache_dir", "dist")


def _extension_at(spec: str, base: Path) -> str:
    """An extension entry with its file (if it names one) made relative to the config file's directory."""
    from .inputs.extensions import known_extensions

    if spec in known_extensions():
        return spec
    identifier, sep, path = spec.partition("=")
    if sep:
        return f"{identifier}={base / Path(path).expanduser()}"
    return str(base / Path(spec).expanduser())


def config_file(explicit: Path | None) -> Path | None:
    """`--config FILE` when given, else the nearest `pyproject.toml` (None when there is none)."""
    return explicit if explicit is not None else find_pyproject()


def _entry_options(entry: Any, where: str, base: Path) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(entry) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    options = {}
    for key, value in entry.items():
        field, read = _KEYS[key]
        options[field] = read(value, f"{where}.{key}")
    for field in _PATHS:
        if field in options:
            options[field] = base / Path(options[field]).expanduser()
    if "extensions" in options:
        options["extensions"] = tuple(_extension_at(spec, base) for spec in options["extensions"])
    if "revision" not in options and "schema_file" not in options:
        raise ConfigError(f"{where} needs a revision or a schema")
    options["root"] = base
    return options


def configured_packages(path: Path) -> list[dict[str, Any]]:
    """The `GenerateConfig` options of every package `path` lists under `[[tool.mcpgen.packages]]`."""
    table = tool_table(path)
    stray = sorted(k for k, v in table.items() if k != PACKAGES and not isinstance(v, dict))
    if stray:
        raise ConfigError(f"{path}: unknown key {stray[0]!r} in [tool.mcpgen] (packages go in [[tool.mcpgen.packages]])")
    entries = table.get(PACKAGES)
    if entries is None:
        raise ConfigError(f"{path} lists no packages: add a [[tool.mcpgen.packages]] table")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: [tool.mcpgen] packages must be a non-empty list of tables")
    base = path.parent
    return [_entry_options(e, f"{path}: packages[{i}]", base) for i, e in enumerate(entries)]


def merged(entry: dict[str, Any], overrides: dict[str, Any]) -> GenerateConfig:
    """The entry's options with the command line's on top; a configured package is replaced when it is stale."""
    return GenerateConfig(**{"force": True, **entry, **overrides})


def command_line(config: GenerateConfig) -> str:
    """The `mcpgen generate` command line that does what `config` asks."""
    args = ["mcpgen", "generate"]
    output = config.output
    if output is None and config.dist is None and config.root is not None:  # the default, made explicit
        output = config.root if config.revision == ALL else package_dirs(config)[0]
    for flag, value in (
        ("--revision", config.revision),
        ("--package", config.package),
        ("--output", output),
        ("--dist", config.dist),
        ("--surface", config.surface),
        ("--schema", config.schema_file),
        ("--schema-dir", config.schema_dir),
        ("--cache-dir", config.cache_dir),
    ):
        if value is not None:
            args += [flag, shown(value) if isinstance(value, Path) else value]
    for request, result in config.pairings:
        args += ["--pair", f"{request}={result}"]
    for extension in config.extensions:
        args += ["--extension", extension]
    if config.force:
        args.append("--force")
    return shlex.join(args)
