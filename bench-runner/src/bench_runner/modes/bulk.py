"""Bulk downloads: the device's fixed payloads and what every mode that downloads one per
iteration shares. ``tunnel/bulk`` fetches them through ``ssh -L`` from the tunnel target,
``https/bulk`` straight from the HTTPS API; both serve the same sizes."""

from typing import Literal, Self

from bench_runner.modes.base import Mode

BulkSize = Literal["10M", "100M", "1G"]
BULK_BYTES: dict[str, int] = {"10M": 10 << 20, "100M": 100 << 20, "1G": 1 << 30}


class BulkDownload(Mode):
    """A mode that downloads ``size`` bytes per iteration: the size is its parameter
    (``bulk_size``) and its transfer, so the runner reports the throughput; a plan's
    ``tunnel_bulk_sizes`` measures one variant per size."""

    def __init__(self, size: BulkSize = "10M") -> None:
        self.size: BulkSize = size

    def with_size(self, size: BulkSize) -> Self:
        return type(self)(size)

    def parameters(self) -> dict[str, str | int]:
        return {"bulk_size": self.size}

    def transfer_bytes(self) -> int | None:
        return BULK_BYTES[self.size]
