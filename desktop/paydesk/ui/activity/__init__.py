"""The Activity window (View → Activity…): who exported, saved a profile's keys or switched
to live mode, and when (``window.py``); ``entry.py`` puts it in the View menu."""
