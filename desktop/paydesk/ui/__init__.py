"""The widgets. They call the desk's async methods (paydesk.desk) and hear its events through
the Qt signals of ui/signals.py."""
