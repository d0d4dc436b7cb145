"""Structured logs, configured once per process: JSON lines where a machine reads them (Heroku, Fly,
any log drain: stderr is not a terminal there), readable lines in a terminal.

Everything goes through the standard library's root logger, so uvicorn's, Celery's and the
service's own `logging` calls come out in the same format as `structlog.get_logger()` events.
Call `configure()` at the start of a process (the `lupus` commands do).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

_configured = False


def configure(json: bool | None = None, level: int | str = logging.INFO) -> None:
    """`json`: None decides by whether stderr is a terminal. Later calls change nothing."""
    global _configured
    if _configured:
        return
    _configured = True
    tty = sys.stderr.isatty()
    as_json = not tty if json is None else json
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer(colors=tty)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *([structlog.processors.format_exc_info] if as_json else []),
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request to the stand-ins otherwise
