"""Locust users, one class per transport (transports.py). Each fires ``events.request``
exactly once per operation, with the bench mode's name as ``name`` and the client library,
profile and device in ``context``; a failed operation is a failure of that same name, and a
kept connection that failed is opened again, unmeasured, before the next operation."""

import base64
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import gevent
import grpc
import paramiko
from aioquic.tls import SessionTicket
from locust import FastHttpUser, User, constant, task
from locust.env import Environment

from bench_runner.protocols.netconf.messages import Framing
from transport_load import gnmi, http3, lab, libssh2, ssh
from transport_load.inventory import Device
from transport_load.netconf import NetconfSession
from transport_load.transports import (
    GNMI_GET_PATH,
    GNMI_INTERVAL_MS,
    GNMI_STREAM_PATH,
    NETCONF_REPLY_BYTES,
    TRANSPORTS,
    LoadTransport,
)

RESTCONF_PATH = "/restconf/data/Cisco-IOS-XE-native:native"


class _LabMixin:
    """The device, credentials and event context of a user."""

    transport: ClassVar[LoadTransport]
    environment: Environment

    def _assign(self) -> None:
        self.device: Device = lab.STATE.next_device()
        self.username, self.password = self.device.credentials()
        # Resolved once per process: a fresh connection per operation must not measure a
        # name lookup each time (Docker's resolver) on top of the handshakes.
        self.address = lab.resolve(self.device.host)
        self.lab_context = {
            "client": lab.client_label(self.transport.client),
            "profile": lab.STATE.profile,
            "device": self.device.name,
            "transport": self.transport.key,
        }

    def fire(self, started: float, elapsed_ms: float, length: int, error: Exception | None) -> None:
        self.environment.events.request.fire(
            request_type=self.transport.key,
            name=self.transport.mode,
            start_time=started,
            response_time=elapsed_ms,
            response_length=length,
            response=None,
            context=self.lab_context,
            exception=error,
        )

    def measure(self, operation: Callable[[], int]) -> bool:
        started, t0 = time.time(), time.perf_counter()
        error: Exception | None = None
        length = 0
        try:
            length = operation()
        except Exception as exc:
            error = exc
        self.fire(started, (time.perf_counter() - t0) * 1000.0, length, error)
        return error is None


def exec_path(command: str) -> str:
    return "/admin/exec/" + command.replace(" ", "+")


@dataclass(frozen=True)
class ExecLibrary:
    """An SSH library as the exec users drive it."""

    connect: Callable[[str, int, str, str], Any]
    exec_command: Callable[[Any, str], str]
    close: Callable[[Any], None]


PARAMIKO = ExecLibrary(ssh.connect, ssh.exec_command, lambda transport: transport.close())
LIBSSH2 = ExecLibrary(libssh2.connect, libssh2.exec_command, libssh2.close)


class _ExecUser(_LabMixin, User):
    """SSH exec with ``library``: a connection per operation, or one kept per user."""

    abstract = True
    wait_time = constant(0)
    library: ClassVar[ExecLibrary]

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._assign()
        self._connection: Any = None

    def open(self) -> Any:
        return self.library.connect(
            self.address, self.device.ssh_port, self.username, self.password
        )

    def close(self) -> None:
        if self._connection is not None:
            self.library.close(self._connection)
            self._connection = None

    def on_stop(self) -> None:
        self.close()


class _ExecFreshUser(_ExecUser):
    abstract = True

    @task
    def operation(self) -> None:
        command = lab.STATE.command

        def run() -> int:
            connection = self.open()
            try:
                return len(self.library.exec_command(connection, command))
            finally:
                self.library.close(connection)

        self.measure(run)


class _ExecReuseUser(_ExecUser):
    abstract = True

    @task
    def operation(self) -> None:
        if self._connection is None:
            try:
                self._connection = self.open()
            except Exception as exc:
                self.fire(time.time(), 0.0, 0, exc)
                return
        connection, command = self._connection, lab.STATE.command
        if not self.measure(lambda: len(self.library.exec_command(connection, command))):
            self.close()


class SshFreshUser(_ExecFreshUser):
    transport = TRANSPORTS["ssh-fresh"]
    library = PARAMIKO


class SshReuseUser(_ExecReuseUser):
    transport = TRANSPORTS["ssh-reuse"]
    library = PARAMIKO


class SshFreshLibssh2User(_ExecFreshUser):
    transport = TRANSPORTS["ssh-fresh-libssh2"]
    library = LIBSSH2


class SshReuseLibssh2User(_ExecReuseUser):
    transport = TRANSPORTS["ssh-reuse-libssh2"]
    library = LIBSSH2


class _ParamikoUser(_LabMixin, User):
    abstract = True
    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._assign()
        self._transport: paramiko.Transport | None = None

    def connection(self, port: int) -> paramiko.Transport:
        if self._transport is None or not self._transport.is_active():
            self.close()
            self._transport = ssh.connect(self.address, port, self.username, self.password)
        return self._transport

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def on_stop(self) -> None:
        self.close()


class SshPtyUser(_ParamikoUser):
    transport = TRANSPORTS["ssh-pty"]

    @task
    def operation(self) -> None:
        try:
            conn = self.connection(self.device.ssh_port)
        except Exception as exc:
            self.fire(time.time(), 0.0, 0, exc)
            return
        command = lab.STATE.command
        if not self.measure(lambda: len(ssh.pty_command(conn, command))):
            self.close()


class _NetconfUser(_ParamikoUser):
    abstract = True
    framing: ClassVar[Framing]

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.lab_context["framing"] = self.framing
        self._session: NetconfSession | None = None

    @task
    def operation(self) -> None:
        if self._session is None:
            try:
                conn = self.connection(self.device.netconf_port)
                self._session = NetconfSession.open(conn, self.framing)
            except Exception as exc:
                self.close()
                self.fire(time.time(), 0.0, 0, exc)
                return
        session = self._session
        if not self.measure(lambda: session.get(NETCONF_REPLY_BYTES)):
            self.close()

    def close(self) -> None:
        self._session = None
        super().close()


class Netconf11User(_NetconfUser):
    transport = TRANSPORTS["netconf-1.1"]
    framing = "1.1"


class Netconf10User(_NetconfUser):
    transport = TRANSPORTS["netconf-1.0"]
    framing = "1.0"


_TLS: list[ssl.SSLContext] = []


def shared_tls_context(**_: Any) -> ssl.SSLContext:
    """One TLS 1.3 client context for every HTTPS user of the process, certificates not
    checked (the lab's own devices). A context per user loads the CA bundle each time: with
    hundreds of users spawning, that CPU without a yield starves the worker's heartbeat and
    the master drops it."""
    if not _TLS:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        _TLS.append(context)
    return _TLS[0]


class _HttpsUser(_LabMixin, FastHttpUser):
    """FastHttpUser fires the request event itself (once per request); the response is
    checked inside ``catch_response``, so a wrong body is a failure of the same request."""

    abstract = True
    wait_time = constant(0)
    insecure = True
    ssl_context_factory = staticmethod(shared_tls_context)
    host = "https://device"
    path: str = ""
    """Empty: the run's command through the device's exec API."""
    headers: ClassVar[dict[str, str]] = {}

    def __init__(self, environment: Environment) -> None:
        self._assign()
        self.host = f"https://{self.address}:{self.device.https_port}"
        self.path = self.path or exec_path(lab.STATE.command)
        super().__init__(environment)

    def check(self, body: str) -> str | None:
        return None if body.strip() and not body.lstrip().startswith("%") else "empty or error"

    @task
    def operation(self) -> None:
        with self.client.get(
            self.path,
            name=self.transport.mode,
            auth=(self.username, self.password),
            headers=self.headers,
            context=self.lab_context,
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"HTTP {response.status_code}")
            elif (problem := self.check(response.text or "")) is not None:
                response.failure(problem)


class HttpsKeepAliveUser(_HttpsUser):
    transport = TRANSPORTS["https-keepalive"]


class HttpsFreshUser(_HttpsUser):
    transport = TRANSPORTS["https-fresh"]
    headers: ClassVar[dict[str, str]] = {"Connection": "close"}


class RestconfUser(_HttpsUser):
    transport = TRANSPORTS["restconf"]
    path = RESTCONF_PATH
    headers: ClassVar[dict[str, str]] = {"Accept": "application/yang-data+json"}

    def check(self, body: str) -> str | None:
        try:
            document: Any = json.loads(body)
        except ValueError:
            return "not JSON"
        if not isinstance(document, dict) or "Cisco-IOS-XE-native:native" not in document:
            return "no Cisco-IOS-XE-native:native"
        return None


class _Http3User(_LabMixin, User):
    """HTTP/3 with aioquic (http3.py) on this user's greenlet: the device's exec API, HTTP
    Basic auth, the body checked as the HTTPS users check theirs. Unlike ``FastHttpUser``,
    the request event is fired here (``measure``), once per operation."""

    abstract = True
    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._assign()
        self.command = lab.STATE.command
        self.path = exec_path(self.command)
        credentials = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        self.headers = (("authorization", f"Basic {credentials}"),)
        self._connection: http3.Http3Connection | None = None

    def open(self) -> http3.Http3Connection:
        return http3.connect(self.address, self.device.h3_port, server_name=self.device.host)

    def request(self, connection: http3.Http3Connection) -> int:
        response = connection.get(self.path, self.headers)
        if response.status != 200:
            raise ssh.OperationError(f"HTTP {response.status}")
        ssh.check_cli_output(self.command, response.body.decode("utf-8", "replace"))
        return len(response.body)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def on_stop(self) -> None:
        self.close()


class H3KeepAliveUser(_Http3User):
    transport = TRANSPORTS["h3-keepalive"]

    @task
    def operation(self) -> None:
        if self._connection is None or self._connection.terminated:
            self.close()
            try:
                self._connection = self.open()
            except Exception as exc:
                self.fire(time.time(), 0.0, 0, exc)
                return
        connection = self._connection
        if not self.measure(lambda: self.request(connection)):
            self.close()


class H3FreshUser(_Http3User):
    transport = TRANSPORTS["h3-fresh"]

    @task
    def operation(self) -> None:
        def run() -> int:
            with self.open() as connection:
                return self.request(connection)

        self.measure(run)


class H3ResumedUser(_Http3User):
    """A new connection per operation that resumes the session of the newest ticket; the
    first ticket comes from a connection opened, unmeasured, before the first operation."""

    transport = TRANSPORTS["h3-resumed"]

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._ticket: SessionTicket | None = None

    def keep(self, ticket: SessionTicket) -> None:
        # Without its early-data allowance: aioquic would send the connection's first
        # HTTP/3 frames as 0-RTT, and this user measures resumption alone.
        self._ticket = replace(ticket, max_early_data_size=None)

    def resuming(self) -> http3.Http3Connection:
        return http3.connect(
            self.address,
            self.device.h3_port,
            server_name=self.device.host,
            session_ticket=self._ticket,
            ticket_handler=self.keep,
        )

    @task
    def operation(self) -> None:
        if self._ticket is None:
            try:
                with self.resuming() as connection:
                    self.request(connection)  # its answer brings the ticket along
            except Exception as exc:
                self.fire(time.time(), 0.0, 0, exc)
                return

        def run() -> int:
            with self.resuming() as connection:
                if connection.handshake_completed is None or not (
                    connection.handshake_completed.session_resumed
                ):
                    raise ssh.OperationError("the device did not resume the session")
                return self.request(connection)

        self.measure(run)


class _GnmiUser(_LabMixin, User):
    """gNMI over grpcio in its gevent mode (gnmi.py), the device's gNMI port, username and
    password in each call's metadata; the request event is fired here."""

    abstract = True
    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._assign()
        self._client: gnmi.GnmiClient | None = None

    def open(self) -> gnmi.GnmiClient:
        tls = gnmi.tls_for(
            self.address,
            self.device.gnmi_port,
            host=self.device.host,
            verify=self.device.gnmi_tls_verify,
        )
        return gnmi.GnmiClient(
            self.address, self.device.gnmi_port, tls, self.username, self.password
        )

    def get(self, client: gnmi.GnmiClient) -> int:
        return int(client.get([GNMI_GET_PATH]).ByteSize())

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def on_stop(self) -> None:
        self.close()


class GnmiGetUser(_GnmiUser):
    """One channel, connected before the first Get (unmeasured), one Get per operation."""

    transport = TRANSPORTS["gnmi-get"]

    @task
    def operation(self) -> None:
        if self._client is None:
            try:
                self._client = self.open()
                self._client.wait_ready()
            except Exception as exc:
                self.close()
                self.fire(time.time(), 0.0, 0, exc)
                return
        client = self._client
        if not self.measure(lambda: self.get(client)):
            self.close()


class GnmiFreshUser(_GnmiUser):
    transport = TRANSPORTS["gnmi-fresh"]

    @task
    def operation(self) -> None:
        def run() -> int:
            with self.open() as client:
                return self.get(client)

        self.measure(run)


class UpdateFromTheFutureError(Exception):
    """An update stamped later than it arrived: the device's clock and this one differ."""


class GnmiStreamUser(_GnmiUser):
    """Holds one STREAM SAMPLE subscription (the run's sample interval, read when it
    subscribes) and fires one request event per update after the initial state
    (``sync_response``), its response time the update's lag: receive time minus the
    device's timestamp. The initial state is not measured (its timestamps are when the
    values last changed). A reader greenlet takes the updates; the task, once a second,
    subscribes again (unmeasured) if the stream ended, whose end is a failure."""

    transport = TRANSPORTS["gnmi-stream"]
    wait_time = constant(1)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._subscription: gnmi.Subscription | None = None
        self._reader: Any = None
        self.interval_ms = GNMI_INTERVAL_MS
        self.updates = 0

    @task
    def hold(self) -> None:
        if self._reader is not None and not self._reader.dead:
            return
        self.close()
        options = self.environment.parsed_options
        self.interval_ms = float(getattr(options, "lab_gnmi_interval_ms", GNMI_INTERVAL_MS))
        try:
            self._client = self.open()
            self._subscription = self._client.subscribe_sample(GNMI_STREAM_PATH, self.interval_ms)
        except Exception as exc:
            self.close()
            self.fire(time.time(), 0.0, 0, exc)
            return
        self._reader = gevent.spawn(self.read, self._subscription)

    def read(self, subscription: gnmi.Subscription) -> None:
        synced = False
        try:
            for response in subscription.responses():
                received_ns = time.time_ns()
                kind = response.WhichOneof("response")
                if kind == "sync_response":
                    synced = True
                elif kind == "update" and synced:
                    self.updates += 1
                    lag = gnmi.lag_ms(received_ns, response.update)
                    error = (
                        UpdateFromTheFutureError(f"update stamped {-lag:.3f} ms after it arrived")
                        if lag < 0
                        else None
                    )
                    self.fire(received_ns / 1e9, max(lag, 0.0), response.ByteSize(), error)
                elif kind == "error":
                    raise gnmi.GnmiError(f"error in the stream: {response.error.message}")
            raise gnmi.GnmiError("the device ended the subscription")
        except (grpc.RpcError, gnmi.GnmiError) as exc:
            if not subscription.cancelled:
                self.fire(time.time(), 0.0, 0, exc)

    def close(self) -> None:
        if self._subscription is not None:
            self._subscription.cancel()
            self._subscription = None
        if self._reader is not None:
            self._reader.kill(block=False)
            self._reader = None
        super().close()


USER_CLASSES: dict[str, type[User]] = {
    cls.transport.key: cls
    for cls in (
        SshFreshUser,
        SshReuseUser,
        SshFreshLibssh2User,
        SshReuseLibssh2User,
        SshPtyUser,
        HttpsKeepAliveUser,
        HttpsFreshUser,
        H3KeepAliveUser,
        H3ResumedUser,
        H3FreshUser,
        RestconfUser,
        GnmiGetUser,
        GnmiFreshUser,
        GnmiStreamUser,
        Netconf11User,
        Netconf10User,
    )
}
