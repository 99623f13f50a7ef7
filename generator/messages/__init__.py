"""Checking JSON-RPC messages against a revision: the upstream schema's verdict and the bindings' round trip."""
