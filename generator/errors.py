"""Errors mcpgen reports to users as one line, never as a traceback."""

from __future__ import annotations


class McpgenError(Exception):
    """Base of every error the CLI turns into a one-line message and a non-zero exit."""

    exit_code = 2


class SchemaError(McpgenError):
    """The schema cannot be read, parsed or turned into bindings."""


class SourceError(McpgenError):
    """The schema cannot be found, downloaded, or does not match its pin."""


class ErratumError(McpgenError):
    """An erratum no longer applies to the schema it was written for."""


class OutputError(McpgenError):
    """The output directory cannot be written."""
