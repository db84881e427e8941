"""Data integrity beside a throughput: what was written arrived, and what is read back is what was written.

A rate says nothing about the bytes: a path that corrupts them can be fast. So every check that moves data
verifies once, after its timed samples (`perf.check(verify=...)`): random data through a raw disk
(`block_device`, with the far side's copy placing a corruption on the way in or out) or a filesystem
(`file_round_trip`), copies against their original (`same_content`), or sent over TCP (`over_tcp`).

Bytes that differ are a `DataCorruption` (a FAIL of the metric whatever its speed); a check that cannot
finish (a short read, a disk that vanished, a tool that failed) is a MeasurementError: ERROR, output kept.
"""

from __future__ import annotations

import re
import secrets

from hil.lab.board import shell
from hil.lab.board.background import Background
from hil.lab.board.role import Role
from hil.measure import dd
from hil.measure.iperf3 import Endpoint, on_free_port
from hil.verdict.errors import DataCorruption, MeasurementError

SCRATCH = "/tmp/hil-integrity"  # + a random part: two checks on one machine (a PC lab, xdist) never share files
MIB = 1024 * 1024
VERIFY_MB = 16  # a verification's size: 4096 requests at 4K, a fraction of a second at 1M on the virtual lab
_SHA256 = re.compile(r"^([0-9a-f]{64})(?:\s|$)", re.MULTILINE)
# GNU cmp: "a b differ: byte 5, line 1" / "differ: char 5, line 1"; busybox cmp: "a b differ: char 5, line 1".
_DIFFER = re.compile(r"differ: (?:byte|char) (?P<offset>[0-9]+)")


def timeout_for(size_mb: int) -> float:
    """A minute, plus two seconds per MiB: a dead USB 2.0 link is slow, a hung one is caught by this bound."""
    return 60.0 + 2.0 * size_mb


def sha256(role: Role, path: str, *, size_mb: int | None = None, timeout: float = 300) -> str:
    """The SHA-256 of a file, or of its first `size_mb` MiB, computed on the role that holds it."""
    if size_mb is None:
        exitcode, output = role.run_status(shell.cmd("sha256sum", path), timeout=timeout)
    else:
        # dd's summary (in a file: a pipeline's exit status is sha256sum's) says it read all size_mb MiB.
        log = _scratch("dd")
        read = shell.cmd("dd", f"if={path}", "bs=1M", f"count={size_mb}") + f" 2>{shell.quote(log)} | sha256sum"
        shown = shell.cmd("cat", log) + "; " + shell.cmd("rm", "-f", log)
        exitcode, output = role.run_status(dd.C_LOCALE + read + "; " + shown, timeout=timeout)
        dd.parse(output, expected_bytes=size_mb * MIB)
    found = _SHA256.search(output)
    if exitcode != 0 or found is None:
        raise MeasurementError(f"{role.label}: no SHA-256 of {path} (exit {exitcode})", raw_output=output)
    return found[1]


def _scratch(what: str) -> str:
    return f"{SCRATCH}-{secrets.token_hex(4)}.{what}"


def _make_pattern(role: Role, pattern: str, size_mb: int, timeout: float) -> None:
    """Exactly `size_mb` MiB of random data (no compressing or zero-detecting layer can shortcut it): head
    counts bytes where dd would count reads (a read from /dev/urandom may come back short)."""
    make = shell.cmd("head", "-c", size_mb * MIB, "/dev/urandom") + " > " + shell.quote(pattern)
    exitcode, output = role.run_status(make + " 2>&1", timeout=timeout)
    if exitcode != 0:
        raise MeasurementError(f"{role.label}: could not make {size_mb} MiB of random data", raw_output=output)


def verify_mb(transfer_mb: int) -> int:
    """How much a verification moves: the transfer's size up to VERIFY_MB (it is not timed, only waited for)."""
    return max(1, min(transfer_mb, VERIFY_MB))


def _dd_exact(role: Role, command: str, expected_bytes: int, what: str, timeout: float) -> None:
    """Run one dd that must move exactly `expected_bytes` (a short read or write is no verification)."""
    exitcode, output = role.run_status(command + " 2>&1", timeout=timeout)
    if exitcode != 0:
        raise MeasurementError(f"{role.label}: {what} failed (dd exited {exitcode})", raw_output=output)
    dd.parse(output, expected_bytes=expected_bytes)  # a ParseError (a MeasurementError) names a short transfer


def compare_files(role: Role, expected: str, actual: str, what: str, timeout: float) -> None:
    """`cmp` the two files on the role: equal, corrupted (where the first byte differs), or not comparable."""
    # cmp exits 0 (equal), 1 (differ) or 2 (trouble: a short file, one that cannot be read).
    exitcode, output = role.run_status(shell.cmd("cmp", expected, actual) + " 2>&1", timeout=timeout)
    if exitcode == 0 and not output.strip():
        return
    differ = _DIFFER.search(output)
    if exitcode == 1 and differ is not None:
        count = _count_differences(role, expected, actual, timeout)
        raise DataCorruption(
            f"{what}: {count} differ from what was written, the first at byte {differ['offset']}", raw_output=output
        )
    # cmp's "EOF on ..." (a short file) or no cmp at all: the check could not be made, which is no pass.
    raise MeasurementError(f"{role.label}: {what} could not be compared ({output.strip()[:300]})", raw_output=output)


def _count_differences(role: Role, expected: str, actual: str, timeout: float) -> str:
    """How many bytes differ (`cmp -l` lists one per line), for the report: one flipped byte or a whole block."""
    output = role.run(shell.cmd("cmp", "-l", expected, actual) + " 2>/dev/null | wc -l", timeout=timeout, check=False)
    count = output.strip().splitlines()[-1].strip() if output.strip() else ""
    return f"{count} bytes" if count.isdigit() else "bytes"


def block_device(
    role: Role, node: str, *, size_mb: int, block_size: str = "1M", far: tuple[Role, str] | None = None
) -> str:
    """Write `size_mb` MiB of random data over the start of the raw disk `node` with O_DIRECT (in `block_size`
    requests, as the timed samples), drop the caches, read it back the same way and compare; one line for the
    report. far: the file holding the disk's bytes across the link (a gadget's backing file), checked between."""
    timeout = timeout_for(size_mb)
    expected = dd.total_bytes(block_size, size_mb)
    pattern, read_back = _scratch("pattern"), _scratch("back")
    try:
        _make_pattern(role, pattern, size_mb, timeout)
        write = dd.write_command(node, block_size, size_mb, source=pattern)
        # dd would create a regular file where a vanished disk's node was (and read it back intact): the node
        # must still be there. (coreutils' conv=nocreat says the same, busybox's dd does not know it.)
        write = f"if [ -e {shell.quote(node)} ]; then {write}; else echo {shell.quote(node + ': gone')}; false; fi"
        _dd_exact(role, write, expected, f"writing the pattern to {node}", timeout)
        where = ""
        if far is not None:
            far_role, far_path = far
            if sha256(far_role, far_path, size_mb=size_mb, timeout=timeout) != sha256(role, pattern, timeout=timeout):
                raise DataCorruption(
                    f"{far_role.label}'s {far_path} does not hold the {size_mb} MiB {role.label} wrote to {node}: "
                    "corrupted on the way in"
                )
            where = f", {far_role.label}'s {far_path} held them"
        role.run(dd.DROP_CACHES, timeout=60)
        read = dd.read_command(node, block_size, size_mb, into=read_back)
        _dd_exact(role, read, expected, f"reading the pattern back from {node}", timeout)
        way_out = "corrupted on the way out" if far is not None else "corrupted"
        compare_files(role, pattern, read_back, f"{node} read back: {way_out}", timeout)
    finally:
        if role.suspect_reason is None:
            role.run(shell.quiet(shell.cmd("rm", "-f", pattern, read_back)), timeout=60)
    return f"{size_mb} MiB of random data written to {node} and read back ({block_size} O_DIRECT) intact{where}"


def file_round_trip(role: Role, directory: str, *, size_mb: int, block_size: str = "1M") -> str:
    """Random data written to a file in `directory` (a mounted disk), synced, read back from the disk (caches
    dropped) and compared; one line for the report."""
    timeout = timeout_for(size_mb)
    on_disk = f"{directory}/hil-integrity.bin"
    pattern = _scratch("pattern")
    try:
        _make_pattern(role, pattern, size_mb, timeout)
        # The whole pattern, its last block short where the block size does not divide it (seed 001's 102400).
        write = dd.C_LOCALE + shell.cmd("dd", f"if={pattern}", f"of={on_disk}", f"bs={block_size}", "conv=fsync")
        _dd_exact(role, write, size_mb * MIB, f"writing {on_disk}", timeout)
        role.run(dd.DROP_CACHES, timeout=60)
        compare_files(role, pattern, on_disk, f"{on_disk} read back: corrupted", timeout)
    finally:
        if role.suspect_reason is None:
            role.run(shell.quiet(shell.cmd("rm", "-f", pattern, on_disk)), timeout=60)
    return f"{size_mb} MiB of random data written to {directory} (synced) and read back from the disk intact"


def same_content(original: tuple[Role, str], *copies: tuple[Role, str], timeout: float = 300) -> str:
    """Each copy holds the original's bytes (SHA-256 on the role that holds it); one line for the report."""
    role, path = original
    return matches(sha256(role, path, timeout=timeout), f"{role.label}'s {path}", *copies, timeout=timeout)


def matches(expected: str, original: str, *copies: tuple[Role, str], timeout: float = 300) -> str:
    """Each copy has the SHA-256 `expected` of `original` (taken before the original went: a file sent and
    removed to make room); one line for the report."""
    for copy_role, copy_path in copies:
        found = sha256(copy_role, copy_path, timeout=timeout)
        if found != expected:
            raise DataCorruption(
                f"{copy_role.label}'s {copy_path} is not a copy of {original} "
                f"(SHA-256 {found[:16]}... instead of {expected[:16]}...)"
            )
    held = ", ".join(f"{copy_role.label}'s {copy_path}" for copy_role, copy_path in copies)
    return f"{held}: the same SHA-256 as {original} ({expected[:16]}...)"


def over_tcp(receiver: Endpoint, sender: Endpoint, address: str, *, size_mb: int = VERIFY_MB) -> str:
    """`size_mb` MiB of random data over one TCP connection from `sender` to `receiver`'s `address` (hil's
    tcp_payload at both ends), what arrived against what was sent by SHA-256; one line for the report."""
    sent, received = _scratch("sent"), _scratch("received")
    timeout = timeout_for(size_mb)

    def receive(port: int) -> Background:
        command = receiver.wrap(shell.cmd("tcp_payload", "receive", port, received))
        return receiver.role.background(command, ready="tcp_payload: listening", name="tcp_payload receive")

    try:
        _make_pattern(sender.role, sent, size_mb, timeout)
        with on_free_port(receive) as (listener, port):
            command = sender.wrap(shell.cmd("tcp_payload", "send", address, port, sent))
            exitcode, output = sender.role.run_status(command + " 2>&1", timeout=timeout)
            if exitcode != 0:
                raise MeasurementError(f"{sender.role.label}: tcp_payload send exited {exitcode}", raw_output=output)
            listener.wait(timeout_s=60)
        if listener.exit_status != 0 or f"received {size_mb * MIB} bytes" not in listener.output:
            raise MeasurementError(f"{receiver.role.label}: tcp_payload received short", raw_output=listener.output)
        digest = sha256(sender.role, sent, timeout=timeout)
        matches(digest, f"{sender.role.label}'s {sent}", (receiver.role, received), timeout=timeout)
    finally:
        for end, path in ((sender, sent), (receiver, received)):
            end.role.run(shell.cmd("rm", "-f", path), timeout=30, check=False)
    return f"{size_mb} MiB of random data over TCP to {address} arrived whole (SHA-256 {digest[:16]}...)"
