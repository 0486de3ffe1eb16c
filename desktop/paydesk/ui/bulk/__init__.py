"""Bulk links: the window that makes a link for every row of a spreadsheet, and Batches."""
