"""The TLS client context of every HTTPS client the runner drives itself. A leaf: the
HTTPS modes and the fleet listing (``GET /admin/fleet``) use it."""

import ssl


def tls13_context() -> ssl.SSLContext:
    """TLS 1.3 only. Certificate checks are off because the lab device generates a
    self-signed certificate at first start; the lab network is isolated."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
