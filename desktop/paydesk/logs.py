"""Logging for PayDesk: a rotating file in the data folder, every line redacted."""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue
import threading
from pathlib import Path

from .service.redact import redact


class Redactor(logging.Filter):
    """Removes key-looking text, Authorization headers and every known secret."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, secret: str) -> None:
        if secret and len(secret) >= 8:
            with self._lock:
                self._secrets.add(secret)

    def clean(self, text: str) -> str:
        with self._lock:
            known = tuple(self._secrets)
        return redact(text, *known)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.clean(record.getMessage())
        record.args = None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.clean(text)
            record.exc_info = None
        return True


REDACTOR = Redactor()


_listener: logging.handlers.QueueListener | None = None


def setup(log_dir: Path, level: int = logging.INFO) -> Path:
    """Log to a rotating file in ``log_dir``. Records are redacted where they are made and
    written to the file by a thread of their own, so logging never waits on the disk."""
    global _listener
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "paydesk.log"
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    records: queue.SimpleQueue = queue.SimpleQueue()
    front = logging.handlers.QueueHandler(records)
    front.addFilter(REDACTOR)  # before the record leaves the thread that made it
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_paydesk", False)]:
        root.removeHandler(old)
        old.close()
    _stop()
    _listener = logging.handlers.QueueListener(records, handler)
    _listener.start()
    front._paydesk = True  # type: ignore[attr-defined]
    root.addHandler(front)
    root.setLevel(level)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    return path


@atexit.register
def _stop() -> None:
    """Drain and stop the writing thread, once (a later setup, or the end of the process)."""
    if _listener is not None and _listener._thread is not None:
        _listener.stop()
        for handler in _listener.handlers:
            handler.close()


def flush() -> None:
    """Wait until every record logged so far is in the file (quit, or a report to read)."""
    if _listener is not None and _listener._thread is not None:
        _listener.stop()  # drains the queue
        _listener.start()
