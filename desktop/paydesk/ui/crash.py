"""The exception hook: log it, show what happened with a copyable report, keep running.

A ledger's error (``LedgerError``: a shared ledger out of reach, a newer PayDesk's ledger, a
ledger that refused this desk) is never an unexpected problem: its text is the one sentence
a person is told. Each path that meets one says it where the person acted; one that slipped
through is logged with its traceback (to be fixed) and said in the main window's status bar,
never in a crash dialog."""

from __future__ import annotations

import logging
import platform
import sys
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from ..i18n import _
from ..logs import REDACTOR
from .screen_fit import resize_within_screen

log = logging.getLogger("paydesk.crash")
SAID_FOR_MS = 15_000  # a ledger's sentence that slipped through stays in the status bar


def report_text(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> str:
    lines = traceback.format_exception(exc_type, exc, tb)
    head = f"PayDesk {__version__}, Python {platform.python_version()}, {platform.system()} {platform.release()}\n\n"
    return REDACTOR.clean(head + "".join(lines))


class CrashDialog(QDialog):
    def __init__(self, summary: str, report: str, log_path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crash-dialog")
        self.setWindowTitle(_("PayDesk hit an unexpected problem"))
        layout = QVBoxLayout(self)
        headline = QLabel(_("Something went wrong"))
        headline.setObjectName("crash-headline")
        bold = headline.font()
        bold.setBold(True)
        headline.setFont(bold)
        layout.addWidget(headline)
        # what went wrong may quote the service or the network: shown as text, never markup
        text = QLabel(
            _(
                "{summary}\nPayDesk is still running and nothing you saved was lost. You can copy the "
                "report below for support."
            ).format(summary=summary)
        )
        text.setObjectName("crash-summary")
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setWordWrap(True)
        text.setAccessibleName(_("Something went wrong"))
        layout.addWidget(text)
        self.report = QPlainTextEdit(report)
        self.report.setObjectName("crash-report")
        self.report.setReadOnly(True)
        self.report.setAccessibleName(_("Problem report"))
        layout.addWidget(self.report)
        where = QLabel(_("The log is at {log_path}").format(log_path=log_path) if log_path else "")
        where.setTextFormat(Qt.TextFormat.PlainText)
        where.setObjectName("crash-log-path")
        where.setAccessibleName(where.text() or _("Log location"))
        where.setTextInteractionFlags(where.textInteractionFlags() | where.textInteractionFlags().TextSelectableByMouse)
        layout.addWidget(where)
        buttons = QDialogButtonBox()
        copy = buttons.addButton(_("Copy report"), QDialogButtonBox.ButtonRole.ActionRole)
        copy.setAccessibleName(_("Copy report"))
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report.toPlainText()))
        close = buttons.addButton(_("Close"), QDialogButtonBox.ButtonRole.AcceptRole)
        close.setAccessibleName(_("Close"))
        close.clicked.connect(self.accept)
        layout.addWidget(buttons)
        resize_within_screen(self, 640, 420)


def _ledger_error(exc_type: type[BaseException]) -> bool:
    """Whether it is a ledger's ``LedgerError``: one exists only once the ledger's errors are
    imported (the hook is installed before the ledger is: not imported here for it)."""
    errors = sys.modules.get(__name__.rsplit(".", 2)[0] + ".ledger.errors")
    return errors is not None and issubclass(exc_type, errors.LedgerError)


class ExceptionHook:
    """Installed as sys.excepthook: also catches exceptions from async slots and tasks."""

    def __init__(self, log_path: Path | None):
        self.log_path = log_path
        self.dialogs: list[CrashDialog] = []
        self._previous = sys.excepthook

    def install(self) -> ExceptionHook:
        sys.excepthook = self
        return self

    def uninstall(self) -> None:
        sys.excepthook = self._previous

    def __call__(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        report = report_text(exc_type, exc, tb)
        if _ledger_error(exc_type):
            log.warning("a ledger's refusal reached the exception hook (its path should say it):\n%s", report)
            if QApplication.instance() is not None:
                self._say(REDACTOR.clean(str(exc)))
            return
        log.error("unexpected error:\n%s", report)
        if QApplication.instance() is None:
            sys.stderr.write(report)
            return
        summary = REDACTOR.clean(f"{exc_type.__name__}: {exc}")[:300]
        dialog = CrashDialog(summary, report, self.log_path, QApplication.activeWindow())
        dialog.finished.connect(lambda _result=0, d=dialog: self._closed(d))
        self.dialogs.append(dialog)
        dialog.open()

    @staticmethod
    def _say(text: str) -> None:
        """``text`` in the status bar of PayDesk's main window (the active one first)."""
        windows = [QApplication.activeWindow(), *QApplication.topLevelWidgets()]
        for window in windows:
            main = window.window() if window is not None else None
            if isinstance(main, QMainWindow) and main.isVisible():
                main.statusBar().showMessage(text, SAID_FOR_MS)
                return

    def _closed(self, dialog: CrashDialog) -> None:
        if dialog in self.dialogs:
            self.dialogs.remove(dialog)
        dialog.deleteLater()
