"""The Counter tab and the customer display (docs/COUNTER.md)."""
