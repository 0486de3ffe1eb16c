"""Widgets only. They call the session's async methods and listen to its signals."""
