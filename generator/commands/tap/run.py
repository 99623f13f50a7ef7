"""Running a tap: check what it is asked, then relay over stdio or Streamable HTTP."""

from __future__ import annotations

from .config import TapConfig, TapError


def run_tap(config: TapConfig) -> int:
    """Run the tap `config` describes until its peers are done; the exit status (the server's, over stdio)."""
    if config.log is not None:
        try:
            config.log.open("w").close()
        except OSError as exc:
            raise TapError(f"cannot write the log {config.log}: {exc.strerror or exc}") from None
    if config.command:
        from .stdio import run_stdio

        return run_stdio(config)
    from .http import run_http

    return run_http(config)
