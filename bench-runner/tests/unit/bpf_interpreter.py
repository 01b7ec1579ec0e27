"""A classic BPF interpreter for the instructions ``bench_runner.wire.bpf`` emits, so the
filters can be run on hand-made packets without a kernel."""

from dataclasses import dataclass

from bench_runner.wire import bpf


@dataclass(frozen=True)
class Packet:
    frame: bytes
    """Link-layer header and IP packet, as an AF_PACKET SOCK_RAW socket sees it."""
    protocol: int = bpf.ETH_P_IP
    pkttype: int = 0


def _load(packet: Packet, size: int, offset: int) -> int | None:
    if offset < 0:  # ancillary data
        field = offset - bpf.SKF_AD_OFF
        return {bpf.SKF_AD_PROTOCOL: packet.protocol, bpf.SKF_AD_PKTTYPE: packet.pkttype}[field]
    width = {bpf.BPF_W: 4, bpf.BPF_H: 2, bpf.BPF_B: 1}[size]
    if offset + width > len(packet.frame):
        return None  # the kernel ends the program and drops the packet
    return int.from_bytes(packet.frame[offset : offset + width], "big")


def run(program: list[tuple[int, int, int, int]], packet: Packet) -> int:
    """The program's return value: bytes to keep (0 drops the packet)."""
    a = x = 0
    pc = 0
    while True:
        code, jt, jf, k = program[pc]
        k_signed = k - (1 << 32) if k & 0x80000000 else k
        klass = code & 0x07
        if klass == bpf.BPF_RET:
            return k
        if klass == bpf.BPF_LD:
            offset = k_signed + (x if code & 0xE0 == bpf.BPF_IND else 0)
            value = _load(packet, code & 0x18, offset)
            if value is None:
                return 0
            a = value
        elif klass == bpf.BPF_LDX:
            if code & 0xE0 == bpf.BPF_MSH:
                byte = _load(packet, bpf.BPF_B, k_signed)
                if byte is None:
                    return 0
                x = (byte & 0x0F) * 4
            else:
                x = k
        elif klass == bpf.BPF_ALU:
            operand = x if code & bpf.BPF_X else k
            operation = code & 0xF0
            if operation == bpf.BPF_ADD:
                a = (a + operand) & 0xFFFFFFFF
            elif operation == bpf.BPF_AND:
                a &= operand
            elif operation == bpf.BPF_RSH:
                a >>= operand
            else:
                raise AssertionError(f"ALU operation {operation:#x} not interpreted")
        elif klass == bpf.BPF_MISC and code & 0xF8 == bpf.BPF_TAX:
            x = a
        elif klass == bpf.BPF_JMP:
            op = code & 0xF0
            taken = a == k if op == bpf.BPF_JEQ else bool(a & k)
            pc += jt if taken else jf
        else:
            raise AssertionError(f"instruction {code:#x} not interpreted")
        pc += 1
