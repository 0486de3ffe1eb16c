"""PayDesk: a desktop back-office for a payment collection service."""

__version__ = "0.1.0"
