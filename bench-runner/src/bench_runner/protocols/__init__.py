"""Management protocols on the wire, without I/O: what the clients send and how they read it.

Each protocol is pure (bytes in, bytes or errors out, no sockets, no asyncio, no third-party
import), so the runner's asyncio clients and the load generator's gevent users share one
implementation and their tests can feed it any byte sequence.
"""
