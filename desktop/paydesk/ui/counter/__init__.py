"""The Counter tab and the customer display, the shift report and finance's Counter shifts
window (docs/COUNTER.md)."""
