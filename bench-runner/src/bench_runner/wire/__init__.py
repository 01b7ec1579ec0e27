"""Packets, bytes and round trips counted on the wire, for every client library.

The runner process opens an ``AF_PACKET`` socket restricted by a classic BPF filter to the
TCP connections (UDP for QUIC) to and from the mode's ports on the target, reads it from a
background thread and keeps only counters (see ``tally``; ``quic_flows`` for what a QUIC
datagram is): what any client (asyncssh, paramiko, the ``ssh`` child process, ncclient,
requests, ...) sent and received, per iteration. A second socket keeps the packets that start a
handshake (``hello_capture``), from which each connection's negotiated algorithms are read
(``handshakes``, ``handshake_model``; QUIC's Initial packets opened by ``quic_initial`` and
read by ``quic_handshakes``).
"""
