"""Profiles, modes and secrets: Qt-free, so scripts and tests use them directly."""
