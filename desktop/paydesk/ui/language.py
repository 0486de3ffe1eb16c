"""The staff's language in the window: Qt's own words for its standard dialogs, and
Settings → Language (saved for the next start: every window is built in one language)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from ..i18n import ENGLISH, LANGUAGES, PSEUDO, _, staff

_installed: list[QTranslator] = []  # the one in use: replaced when the application runs again
_system_locale: list[QLocale] = []  # Qt's default locale before any language was chosen


def install_qt_words(app: QCoreApplication, language: str) -> QTranslator | None:
    """Qt's own catalogue (its standard dialogs' buttons: Cancel, Open, Save) in ``language``,
    and the locale Qt's widgets format with, in place of any installed before."""
    while _installed:
        app.removeTranslator(_installed.pop())
    if not _system_locale:
        _system_locale.append(QLocale())
    code = ENGLISH if language == PSEUDO else language
    if code == ENGLISH:
        QLocale.setDefault(_system_locale[0])  # Qt's formats as they were
        return None
    QLocale.setDefault(QLocale(code))
    translator = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not translator.load(f"qtbase_{code}", folder):
        return None
    app.installTranslator(translator)
    _installed.append(translator)
    return translator


def language_menu(parent: QWidget, chosen: str | None, save: Callable[[str | None], None]) -> QMenu:
    """Settings → Language: the system's, or one of the languages offered, each named in
    itself; the choice is saved at once and used from the next start (said in the menu)."""
    menu = QMenu(_("&Language"), parent)
    menu.setObjectName("language-menu")
    group = QActionGroup(menu)
    group.setExclusive(True)
    choices: list[tuple[str | None, str]] = [(None, _("The system's language"))]
    choices += [(code, name) for code, name in LANGUAGES.items() if code != PSEUDO or staff().language == PSEUDO]
    for code, name in choices:
        action = QAction(name, menu)
        action.setCheckable(True)
        action.setChecked(code == chosen)
        action.setData(code)
        group.addAction(action)
        menu.addAction(action)
        action.triggered.connect(lambda _checked=False, code=code: save(code))
    menu.addSeparator()
    note = QAction(_("A new language is used from the next start."), menu)
    note.setEnabled(False)
    menu.addAction(note)
    return menu
