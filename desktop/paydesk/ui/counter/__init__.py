"""The Counter tab: a sale a minute, the customer display, the shift report and finance's
Counter shifts window (docs/COUNTER.md)."""
