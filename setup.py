"""Only what pyproject.toml cannot say: the packages. Every package under desktop/ is found,
plus ``paydesk.resources``, which lives at the top level in resources/ (the desktop
integration files) and is mapped into the package by ``package-dir`` in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=find_packages("desktop") + ["paydesk.resources"])
