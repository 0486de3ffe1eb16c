"""The Payment links tab: form, QR, live state, recent links, website snippets."""
