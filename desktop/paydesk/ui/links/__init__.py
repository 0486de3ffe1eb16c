"""The Payment links tab: form, QR, live state, recent links, counter display, website snippets."""
