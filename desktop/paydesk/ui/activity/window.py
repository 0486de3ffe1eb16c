"""The Activity window: the ledger's activity book, newest first, read a page at a time as
the view scrolls (``activity.page(before=…)``: never all rows). Each line says when, who
(the person signed in; a dash when no staff were set up), what, in which profile and mode,
and in a few words what (a file's name, which keys). Read when the window opens and on
Refresh; a ledger out of reach is said in one sentence, the lines shown kept."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...desk.session import Session
from ...desk.texts import ledger_words, local_time, mode_word, utc_time
from ...i18n import N_, _
from ...ledger import LedgerError
from ...ledger.activity import EXPORT, KEYS_SAVED, SWITCHED_TO_LIVE, Activity, ActivityBook
from .. import widgets
from ..paging import PagedModel
from ..table import Column

TITLE = N_("Activity — PayDesk")
PAGE = 100
WORDS = {EXPORT: N_("Exported"), KEYS_SAVED: N_("Keys saved"), SWITCHED_TO_LIVE: N_("Switched to live")}
NOBODY = "—"  # no staff were set up when it was done


class ActivityModel(PagedModel):
    PAGE_TASK = "activity-page"

    def __init__(self, book: ActivityBook, session: Session):
        super().__init__(session.tasks)
        self.book, self.session = book, session
        self.entries: list[Activity] = []
        self.columns = (
            Column(_("When"), lambda a: local_time(a.at), tip=lambda a: utc_time(a.at)),
            Column(_("By"), lambda a: a.actor or NOBODY),
            Column(_("What"), lambda a: _(WORDS[a.action]) if a.action in WORDS else a.action),
            Column(_("Profile / mode"), self._where),
            Column(_("Detail"), lambda a: ledger_words(a.detail), tip=lambda a: ledger_words(a.detail) or None),
        )

    def listed(self) -> list:
        return self.entries

    def _where(self, entry: Activity) -> str:
        if not entry.profile_id:
            return ""
        profile = self.session.settings.profile(entry.profile_id)
        name = profile.name if profile is not None else entry.profile_id
        return _("{profile} · {mode}").format(profile=name, mode=mode_word(entry.mode)) if entry.mode else name

    async def load(self) -> None:
        entries = await self.book.page(limit=PAGE)
        self.beginResetModel()
        self.entries = entries
        self.first_page("all", entries, entries[-1].id if entries else None, len(entries) == PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: Any, before: int) -> tuple[list, int | None, bool]:
        entries = await self.book.page(before=before, limit=PAGE)
        return entries, entries[-1].id if entries else before, len(entries) == PAGE


class ActivityWindow(widgets.OwnWindow):
    """A window of its own (closing it hides it; it ends with the main window)."""

    def __init__(self, session: Session, book: ActivityBook, parent: QWidget | None = None):
        super().__init__(parent, "activity-window", _(TITLE), (900, 480), _("Activity"))
        self.session = session
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)
        column.addWidget(QLabel(_("Exports, keys saved and switches to live mode, newest first, with who did them.")))
        self.model = ActivityModel(book, session)
        self.table = widgets.record_table("activity-table", self.model, _("Activity"), (150, 120, 130, 170))
        column.addWidget(self.table, 1)
        bottom = QHBoxLayout()
        self.message = QLabel("")
        self.message.setObjectName("activity-message")
        self.message.setWordWrap(True)
        bottom.addWidget(self.message, 1)
        self.refresh = QPushButton(_("Refresh"))
        self.refresh.setObjectName("activity-refresh")
        self.refresh.setAccessibleName(_("Refresh"))
        self.refresh.clicked.connect(self.reload)
        bottom.addWidget(self.refresh)
        column.addLayout(bottom)
        close = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # as a dialog closes
        close.activated.connect(self.close)

    def showEvent(self, event: Any) -> None:  # Qt's name
        super().showEvent(event)
        self.reload()

    def reload(self) -> None:
        self.tasks.replace("load", self.load())

    async def load(self) -> None:
        try:
            await self.model.load()
        except LedgerError as error:  # the lines shown stay; Refresh asks again
            self.message.setText(str(error))
            return
        self.message.setText("" if self.model.entries else _("Nothing yet."))
