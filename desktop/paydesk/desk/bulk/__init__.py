"""Bulk links from a spreadsheet (issue 20), Qt-free: the file read (read.py), its columns
mapped to the link's fields (mapping.py), every row checked before any call (check.py), a
template to start from (template.py)."""
