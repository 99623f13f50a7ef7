"""Interoperability tests against real MCP peers."""
