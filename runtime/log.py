"""The logger of the package the runtime lives in (`mcp_2025_11_25`, not `mcp_2025_11_25.runtime.peer`)."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__.rsplit(".", 2)[0])
