"""NETCONF over SSH (RFC 6241, RFC 6242) without I/O, one layer per module.

- ``errors``: the one exception type of the layer.
- ``framing``: RFC 6242 message framing, end-of-message and chunked, and an incremental
  decoder fed the bytes a channel delivers.
- ``messages``: the hellos, the RPCs the lab sends, the framing negotiation and the reply
  check.

The caller owns the channel: it writes what ``framing.encode`` returns, feeds what it reads
to a ``framing.Decoder`` and switches the decoder to chunked framing when
``messages.negotiate_chunked`` says so.
"""
