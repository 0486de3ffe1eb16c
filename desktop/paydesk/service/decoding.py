"""An answer's body as the service meant it: decoded from gzip or deflate (a compressing
proxy may stand in front of the service), and never larger than a limit, counted on the
bytes received and on the bytes decoded, so a small compressed bomb cannot fill memory."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

ACCEPTED = "gzip, deflate"  # what the client advertises: exactly what it can decode


class TooLarge(Exception):
    """The body passed the limit (received or decoded)."""


class Undecodable(Exception):
    """A content coding the client does not know, or bytes that do not decode."""


class _Inflater:
    def __init__(self, coding: str):
        self.coding = coding
        # gzip: its own header; deflate: zlib-wrapped as the standard says, or raw as
        # some servers send it (decided on the first bytes)
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
        self._first = coding == "deflate"

    def feed(self, data: bytes, room: int) -> bytes:
        try:
            out = self._z.decompress(data, room + 1)
        except zlib.error:
            if not self._first:
                raise Undecodable(f"the {self.coding} answer does not decode") from None
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._inflate_raw(data, room)
        self._first = False
        if len(out) > room:
            raise TooLarge()
        return out

    def _inflate_raw(self, data: bytes, room: int) -> bytes:
        try:
            return self._z.decompress(data, room + 1)
        except zlib.error:
            raise Undecodable(f"the {self.coding} answer does not decode") from None

    def flush(self, room: int) -> bytes:
        try:
            out = self._z.flush()
        except zlib.error:
            raise Undecodable(f"the {self.coding} answer does not decode") from None
        if len(out) > room:
            raise TooLarge()
        return out


async def read_body(chunks: AsyncIterator[bytes], coding: str | None, limit: int) -> bytes:
    """The decoded body of ``chunks`` (raw bytes as received) in ``coding``.

    Raises TooLarge past ``limit`` bytes received or decoded, Undecodable for a coding
    other than identity, gzip and deflate or for bytes that do not decode.
    """
    coding = (coding or "identity").strip().lower()
    if coding in ("", "identity"):
        inflater = None
    elif coding in ("gzip", "x-gzip", "deflate"):
        inflater = _Inflater("gzip" if coding == "x-gzip" else coding)
    else:
        raise Undecodable(f"the answer is encoded as {coding[:40]!r}")
    received = 0
    body = bytearray()
    async for chunk in chunks:
        received += len(chunk)
        if received > limit:
            raise TooLarge()
        body += inflater.feed(chunk, limit - len(body)) if inflater else chunk
    if inflater:
        body += inflater.flush(limit - len(body))
    return bytes(body)
