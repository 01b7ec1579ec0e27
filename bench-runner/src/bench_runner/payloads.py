"""The device's fixed download payloads (``/bulk/<size>`` over HTTPS, ``/<size>`` from the
tunnel target): their names and sizes. A leaf: plans, the CLI and the modes read it."""

from typing import Literal

BulkSize = Literal["10M", "100M", "1G"]
BULK_BYTES: dict[str, int] = {"10M": 10 << 20, "100M": 100 << 20, "1G": 1 << 30}
