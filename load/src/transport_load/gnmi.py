"""A gNMI client for gevent: grpcio in its gevent mode (its completion queue polled by a
greenlet, its waits on gevent's patched locks), so a blocked Get or a stream waiting for its
next update yields to the other users of the process instead of blocking the hub.

The messages and the service stub are the ones pygnmi ships generated from the gNMI proto
(``pygnmi.spec.v080``): a pinned, hashed wheel, the same proto the runner's pygnmi client
speaks, and every field a Get or a STREAM SAMPLE subscription needs. pygnmi's own client is
not used: it opens its channels with its own options and blocks in ways gevent cannot see.

Certificates: the lab's devices present self-signed certificates and grpcio cannot skip
verification, so unless an inventory asks for verification (``gnmi_tls_verify``), the
device's own certificate, read from it once per process, is the one trusted root and the
name in it the one the channel checks: not verified, as the lab's HTTPS clients are not.
"""

import socket
import ssl
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from cryptography import x509
from cryptography.x509.oid import NameOID
from grpc.experimental import gevent as grpc_gevent
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

TIMEOUT_S = 20.0
"""The longest a connection or a Get may wait for its answer."""
NS_PER_MS = 1_000_000

_GEVENT_MODE: list[bool] = []


def use_gevent() -> None:
    """grpcio's gevent mode, once per process, before its first channel: after Locust has
    patched the standard library (its import does), and after any fork of ``--processes``
    (hence here and not at import)."""
    if not _GEVENT_MODE:
        grpc_gevent.init_gevent()
        _GEVENT_MODE.append(True)


class GnmiError(Exception):
    """An answer that is not what was asked for (RPC errors are grpc.RpcError)."""


PathElems = list[tuple[str, dict[str, str]]]


def parse_path(text: str) -> PathElems:
    """``/interfaces/interface[name=GigabitEthernet0/0/1]/config`` as (name, keys) elements;
    a key's value runs to its closing bracket (``\\]`` inside it is a bracket)."""
    elems: PathElems = []
    name, i = "", 0
    keys: dict[str, str] = {}
    text = text.strip()
    if not text.startswith("/"):
        raise ValueError(f"a gNMI path starts with /: {text!r}")
    while i <= len(text):
        char = text[i] if i < len(text) else "/"
        if char == "/":
            if name:
                elems.append((name, keys))
            elif keys or (0 < i < len(text)):
                raise ValueError(f"empty element in gNMI path {text!r}")
            name, keys = "", {}
            i += 1
        elif char == "[":
            close, value = i + 1, []
            while close < len(text) and text[close] != "]":
                escaped = text[close] == "\\" and close + 1 < len(text)
                value.append(text[close + 1] if escaped else text[close])
                close += 2 if escaped else 1
            key, equals, key_value = "".join(value).partition("=")
            if close >= len(text) or not name or not key or not equals:
                raise ValueError(f"malformed key in gNMI path {text!r}")
            keys[key] = key_value
            i = close + 1
        else:
            if keys:
                raise ValueError(f"a name after a key in gNMI path {text!r}")
            name += char
            i += 1
    return elems


def path_message(text: str) -> Any:
    return gnmi_pb2.Path(
        elem=[gnmi_pb2.PathElem(name=name, key=keys) for name, keys in parse_path(text)]
    )


def get_request(paths: Sequence[str], data_type: str = "CONFIG") -> Any:
    return gnmi_pb2.GetRequest(
        path=[path_message(path) for path in paths],
        type=gnmi_pb2.GetRequest.DataType.Value(data_type),
        encoding=gnmi_pb2.JSON_IETF,
    )


def sample_request(path: str, interval_ms: float) -> Any:
    """One STREAM subscription sampling ``path`` every ``interval_ms``."""
    return gnmi_pb2.SubscribeRequest(
        subscribe=gnmi_pb2.SubscriptionList(
            mode=gnmi_pb2.SubscriptionList.STREAM,
            encoding=gnmi_pb2.JSON_IETF,
            subscription=[
                gnmi_pb2.Subscription(
                    path=path_message(path),
                    mode=gnmi_pb2.SAMPLE,
                    sample_interval=round(interval_ms * NS_PER_MS),
                )
            ],
        )
    )


def device_certificate(address: str, port: int, timeout: float = TIMEOUT_S) -> bytes:
    """The PEM certificate the device presents on its gNMI port (ALPN h2, as gRPC offers)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    with (
        socket.create_connection((address, port), timeout=timeout) as raw,
        context.wrap_socket(raw) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    if der is None:
        raise GnmiError(f"{address}:{port} presented no certificate")
    return ssl.DER_cert_to_PEM_cert(der).encode()


def certificate_name(pem: bytes) -> str:
    """A name the certificate is valid for: its first DNS subjectAltName, else its CN."""
    certificate = x509.load_pem_x509_certificate(pem)
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        dns = names.value.get_values_for_type(x509.DNSName)
    except x509.ExtensionNotFound:
        dns = []
    if dns:
        return str(dns[0])
    common = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not common:
        raise GnmiError("the device's certificate names no host")
    return str(common[0].value)


@dataclass(frozen=True)
class Tls:
    """How a channel authenticates the device: the credentials and the name checked."""

    credentials: grpc.ChannelCredentials
    server_name: str


_TRUSTED: dict[tuple[str, int], Tls] = {}


def tls_for(address: str, port: int, *, host: str, verify: bool) -> Tls:
    """Verified against the system's roots and ``host``, or (the lab) the device's own
    certificate, fetched once per process and device."""
    if verify:
        return Tls(grpc.ssl_channel_credentials(), host)
    if (address, port) not in _TRUSTED:
        pem = device_certificate(address, port)
        _TRUSTED[(address, port)] = Tls(
            grpc.ssl_channel_credentials(root_certificates=pem), certificate_name(pem)
        )
    return _TRUSTED[(address, port)]


class Subscription:
    """A Subscribe call whose request side stays open until ``cancel``: one request, then
    nothing, as a collector holding a stream does (a half-close may end it on some targets)."""

    def __init__(self, stub: Any, request: Any, metadata: Sequence[tuple[str, str]]) -> None:
        self._ended = threading.Event()
        self.cancelled = False
        self._call = stub.Subscribe(self._requests(request), metadata=metadata)

    def _requests(self, request: Any) -> Iterator[Any]:
        yield request
        self._ended.wait()

    def responses(self) -> Iterator[Any]:
        """SubscribeResponses as they arrive; grpc.RpcError when the stream fails."""
        return iter(self._call)

    def cancel(self) -> None:
        self.cancelled = True
        self._ended.set()
        self._call.cancel()


class GnmiClient:
    """One channel (its own connection: a channel of another user never shares it) to a
    device, the credentials in every call's metadata."""

    def __init__(self, address: str, port: int, tls: Tls, username: str, password: str) -> None:
        use_gevent()
        self.channel = grpc.secure_channel(
            f"{address}:{port}",
            tls.credentials,
            options=[
                ("grpc.use_local_subchannel_pool", 1),
                ("grpc.ssl_target_name_override", tls.server_name),
            ],
        )
        self._stub = gnmi_pb2_grpc.gNMIStub(self.channel)
        self._metadata = (("username", username), ("password", password))

    def wait_ready(self, timeout: float = TIMEOUT_S) -> None:
        """Connected: TCP, TLS and HTTP/2's preface and SETTINGS done."""
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    def get(self, paths: Sequence[str], data_type: str = "CONFIG") -> Any:
        """A GetResponse with at least one update, else GnmiError."""
        response = self._stub.Get(
            get_request(paths, data_type), metadata=self._metadata, timeout=TIMEOUT_S
        )
        if not any(notification.update for notification in response.notification):
            raise GnmiError(f"Get {', '.join(paths)}: no update in the answer")
        return response

    def subscribe_sample(self, path: str, interval_ms: float) -> Subscription:
        return Subscription(self._stub, sample_request(path, interval_ms), self._metadata)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "GnmiClient":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def lag_ms(received_ns: int, notification: Any) -> float:
    """How long after the device stamped the update it arrived here (same host clock)."""
    return (received_ns - int(notification.timestamp)) / NS_PER_MS
