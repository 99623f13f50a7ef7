"""Packages rendered afresh, with the generation imported only when a package must be rendered."""

from __future__ import annotations

from .rendered import PackageRequest, Rendered


def render_fresh(requests: list[PackageRequest]) -> list[Rendered]:
    """`generate.render_fresh`, imported on the first call (a check served by the cache never makes one)."""
    from .generate import render_fresh as render

    return render(requests)
