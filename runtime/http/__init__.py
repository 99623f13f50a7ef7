"""Streamable HTTP: the ASGI app serving a Server (`streamable_http_app`) and the client (`connect_http`)."""

from __future__ import annotations

from .client import HttpConnection, connect_http
from .common import ASSUMED_VERSION, HEADER_KEYWORD, encode_header, header_params
from .server import StreamableHTTP, close_sse_stream, streamable_http_app
from .stream import StreamOptions

__all__ = [
    "ASSUMED_VERSION",
    "HEADER_KEYWORD",
    "HttpConnection",
    "StreamOptions",
    "StreamableHTTP",
    "close_sse_stream",
    "connect_http",
    "encode_header",
    "header_params",
    "streamable_http_app",
]
