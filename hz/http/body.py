"""An answer's body read within the size cap, as sent and as inflated (a 300 KB gzip can hold 300 MB).

Bodies are inflated here, chunk by chunk with the room left as zlib's bound, so a bomb costs its cap,
not its size; httpx is asked for the raw bytes only.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator


class Overflow(Exception):
    """The body (as sent or inflated) passed the cap."""


class BadEncoding(Exception):
    """The body's Content-Encoding is one hz does not read, or its compressed bytes are damaged."""


def read_capped(chunks: Iterator[bytes], encoding: str, cap: int) -> bytes:
    """The body of `chunks` decoded by its Content-Encoding; Overflow past `cap` bytes sent or inflated."""
    body = bytearray()
    sent = 0

    def counted() -> Iterator[bytes]:
        nonlocal sent
        for chunk in chunks:
            sent += len(chunk)
            if sent > cap:
                raise Overflow
            yield chunk

    for piece in _inflated(counted(), encoding, cap):
        body += piece
        if len(body) > cap:
            raise Overflow
    return bytes(body)


def _inflated(chunks: Iterator[bytes], encoding: str, cap: int) -> Iterator[bytes]:
    """`chunks` decoded, never inflating more than `cap` + 1 bytes in all."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        yield from chunks
        return
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise BadEncoding(f"the answer is encoded as {coding[:40]!r}, which hz does not read")
    inflater = zlib.decompressobj(47)  # 47: a gzip or a zlib header, whichever the stream has
    made = 0
    try:
        for chunk in chunks:
            piece = inflater.decompress(chunk, cap + 1 - made)
            made += len(piece)
            yield piece
            if inflater.unconsumed_tail:  # the cap stopped it: what is left would inflate past it
                raise Overflow
        yield inflater.flush()
    except zlib.error:
        raise BadEncoding(f"the answer's {coding} encoding is damaged") from None
