"""MTP throughput, as in the Rockchip USB guide (seed 000, "USB MTP 传输速率分析", table 3-1): the board is an
MTP responder, the host copies one large object to it (write) and off it (read), and the copy is timed.

The board runs umtprd on FunctionFS with its USB buffer length as the test parameter (the guide's
16K/64K/1M Tx/Rx buffer length); the host runs libmtp's mtp-sendfile / mtp-getfile. Objects are random
data (nothing along the path can shortcut zeros) and live in RAM; each sample removes the previous one's
file, and after the timed copies the last object must hold its source's bytes on both sides (SHA-256).
"""

import secrets

import pytest

import hil
from hil.catalogue.usb_device import MtpSettings
from hil.lab.board import shell
from hil.lab.usb_gadget.mtp import MtpResponder
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import integrity, mtp
from hil.verdict.errors import ParseError

pytestmark = [
    pytest.mark.hil_metrics("usb.mtp.read", "usb.mtp.write"),
    # umtprd runs under hil's ffs_superspeed library on a super-speed link (hil.lab.usb_gadget.mtp).
    pytest.mark.hil_tools(host=["mtp-sendfile", "mtp-getfile", "dd"], device=["ffs_superspeed"]),
]
HOST_DIR = "/tmp/hil-mtp-host"
RECEIVED = f"{HOST_DIR}/received"
BUFFERS = {"16K": 16 * 1024, "64K": 64 * 1024, "1M": 1024 * 1024}


def _random_file(role, path, size_mb):
    make = shell.cmd("dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={size_mb}") + " 2>/dev/null"
    role.run(shell.all_of([shell.cmd("mkdir", "-p", HOST_DIR), make]), timeout=300)


@hil.matrix("buffer", quick=["64K"], full=["16K", "64K", "1M"], ids="buffer={}")
# Named apart from the other tests' `direction` so a pair's quick_only can pick MTP's alone (boards.yaml).
@pytest.mark.parametrize("mtp_direction", ["read", "write"])
def test_mtp_throughput(pair, perf, mtp_direction, buffer):
    mtp_settings = pair.settings(MtpSettings)
    size_mb, timeout = mtp_settings.object_mb, mtp_settings.timeout_s
    expected = size_mb * 1024 * 1024
    host = pair.host
    facts = {"tool": mtp.version(host), "object": f"{size_mb} MiB of random data"}
    responder = MtpResponder(buffer_bytes=BUFFERS[buffer], speed=pair.link.speed)
    source = f"{HOST_DIR}/object"
    try:
        _random_file(host, source, size_mb)
        with gadget_on(pair, responder):
            facts["responder"] = responder.version(pair.device)
            if mtp_direction == "write":
                current = [source, None]  # where the object is now (each sample renames it), its name on the board
                try:
                    perf.check(
                        "usb.mtp.write",
                        buffer=buffer,
                        facts=facts,
                        sample=lambda: _write(pair, responder, current),
                        verify=lambda: integrity.same_content(
                            (host, current[0]), (pair.device, f"{responder.storage}/{current[1]}")
                        ),
                    )
                finally:
                    if current[1] is not None:
                        responder.remove_object(pair.device, current[1])
            else:
                # The object to read is put on the board the way a user would: sent over MTP once.
                sent, _ = mtp.run(
                    host, "write", local=source, remote="object", expected_bytes=expected, timeout=timeout
                )
                sent_sha256 = integrity.sha256(host, source)
                host.run(shell.cmd("rm", "-f", source))
                _check_stored(pair, responder, "object", expected, "")
                perf.check(
                    "usb.mtp.read",
                    buffer=buffer,
                    facts=facts,
                    sample=lambda: _read(pair, str(sent.object_id)),
                    verify=lambda: integrity.matches(
                        sent_sha256,
                        f"{host.label}'s {source} as sent",
                        (pair.device, f"{responder.storage}/object"),
                        (host, RECEIVED),
                    ),
                )
    finally:
        host.run(shell.cmd("rm", "-rf", HOST_DIR), check=False, timeout=60)


def _write(pair, responder, current):
    size_mb = pair.settings(MtpSettings).object_mb
    expected = size_mb * 1024 * 1024
    # mtp-sendfile names the object after the local file: a fresh name per sample (umtprd keeps the
    # handles of files removed behind its back, and a name it still knows could collide).
    name = f"object-{secrets.token_hex(4)}"
    local = f"{HOST_DIR}/{name}"
    pair.host.run(shell.cmd("mv", current[0], local), timeout=60)
    current[0] = local
    if current[1] is not None:  # the previous sample's object: the last one stays for the verification
        responder.remove_object(pair.device, current[1])
        current[1] = None
    _, sample = mtp.run(
        pair.host,
        "write",
        local=local,
        remote=name,
        expected_bytes=expected,
        timeout=pair.settings(MtpSettings).timeout_s,
    )
    current[1] = name
    _check_stored(pair, responder, name, expected, sample.raw)
    return sample


def _read(pair, object_id):
    size_mb = pair.settings(MtpSettings).object_mb
    pair.host.run(shell.cmd("rm", "-f", RECEIVED), timeout=60)  # the previous sample's: the last one stays
    _, sample = mtp.run(
        pair.host,
        "read",
        local=RECEIVED,
        remote=object_id,
        expected_bytes=size_mb * 1024 * 1024,
        timeout=pair.settings(MtpSettings).timeout_s,
    )
    return sample


def _check_stored(pair, responder, name, expected, raw):
    """The board must hold exactly what was sent: the host's word for it is not enough."""
    stored = responder.stored_bytes(pair.device, name)
    if stored != expected:
        raise ParseError(f"the board stored {stored} bytes of {name!r}, {expected} were sent", raw_output=raw)
