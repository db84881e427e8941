"""Physical ceilings of the links a metric crosses: a sample above one is a wrong measurement.

All ceilings are derived from first principles (bytes per (micro)frame, transfer rate × encoding) so
that the arithmetic can be checked, and each carries a `basis` saying how. Units: storage and bus
figures in MB/s (10^6 B/s), network figures in Mbit/s; `convert` (re-exported from units) does the rest.

Sources: seed 000 (Rockchip USB guide) table 1-2 and the DWC2 note in its MTP section; seed 002
(Rockchip PCIe guide) §2.1 bandwidth and §2.2 TLP overhead tables. Note that seed 000 mixes units:
its 53.25 "MBps" bulk figure is decimal MB/s but its 23.44 and 375.04 "MBps" isochronous figures and
the 39 "MBps" DWC2 figure are MiB/s (3 × 1024 B × 8000/s = 24.576 MB/s = 23.44 MiB/s). Here each is
stated in MB/s, so a camera streaming a legitimate 24 MB/s is not flagged as above a 23.44 ceiling.
"""

from __future__ import annotations

from enum import StrEnum

from hil.verdict.spec import Ceiling
from hil.verdict.units import convert

MB = 1e6  # bytes per MB: the framework's storage unit


class UsbSpeed(StrEnum):
    FULL = "full"  # USB 1.1, 12 Mb/s, 1 ms frames
    HIGH = "high"  # USB 2.0, 480 Mb/s, 125 µs microframes
    SUPER = "super"  # USB 3.0 = 3.1 Gen1 = 3.2 Gen1x1, 5 Gb/s, 8b/10b

    @classmethod
    def parse(cls, value: UsbSpeed | str | int) -> UsbSpeed:
        """A speed by name ("high") or by its sysfs `speed` figure in Mb/s (480, "5000")."""
        by_mbps = {"12": cls.FULL, "480": cls.HIGH, "5000": cls.SUPER}
        text = str(value).strip().lower()
        if text in by_mbps:
            return by_mbps[text]
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown USB speed {value!r}; use full/high/super or 12/480/5000 (Mb/s)") from None


class Transfer(StrEnum):
    BULK = "bulk"  # mass storage, MTP, network gadgets
    INTERRUPT = "interrupt"  # HID
    ISOCHRONOUS = "isochronous"  # cameras, audio


FRAME = 1000  # full-speed frames per second (1 ms)
MICROFRAME = 8000  # high-speed microframes / super-speed service intervals per second (125 µs)

# (speed, transfer) -> (bytes per second, how it is derived).
# Interrupt and isochronous limits are per endpoint; bulk is the whole bus.
_MIB = "(seed 000 table 1-2: 23.44, which is MiB/s)"
_USB: dict[tuple[UsbSpeed, Transfer], tuple[float, str]] = {
    (UsbSpeed.FULL, Transfer.BULK): (19 * 64 * FRAME, "USB 1.1 full-speed bulk, 19 × 64 B per 1 ms frame"),
    (UsbSpeed.FULL, Transfer.INTERRUPT): (
        64 * FRAME,
        "USB 1.1 full-speed interrupt, 1 × 64 B per 1 ms frame per endpoint",
    ),
    (UsbSpeed.FULL, Transfer.ISOCHRONOUS): (
        1023 * FRAME,
        "USB 1.1 full-speed isochronous, 1 × 1023 B per 1 ms frame per endpoint",
    ),
    (UsbSpeed.HIGH, Transfer.BULK): (
        13 * 512 * MICROFRAME,
        "USB 2.0 high-speed bulk, 13 × 512 B per 125 µs microframe (seed 000 table 1-2: 53.25 MBps)",
    ),
    **{
        (UsbSpeed.HIGH, kind): (
            3 * 1024 * MICROFRAME,
            f"USB 2.0 high-speed {kind}, 3 × 1024 B per 125 µs microframe per endpoint {_MIB}",
        )
        for kind in (Transfer.INTERRUPT, Transfer.ISOCHRONOUS)
    },
    (UsbSpeed.SUPER, Transfer.BULK): (
        # Bulk has no scheduling limit below the line, so the hard bound is the 8b/10b payload rate.
        # The seed's ≈ 400 MB/s is what protocol overhead leaves in practice, and UAS disks on good
        # hosts exceed it: as a ceiling it would turn healthy results into ERRORs.
        5e9 * 8 / 10 / 8,
        "USB 3.0 super-speed, 5 Gb/s line rate with 8b/10b encoding, per direction",
    ),
    (UsbSpeed.SUPER, Transfer.INTERRUPT): (
        3 * 1024 * MICROFRAME,
        f"USB 3.0 super-speed interrupt, 3 × 1024 B per 125 µs service interval per endpoint {_MIB}",
    ),
    (UsbSpeed.SUPER, Transfer.ISOCHRONOUS): (
        16 * 3 * 1024 * MICROFRAME,
        "USB 3.0 super-speed isochronous, 16 bursts × 3 × 1024 B per 125 µs service interval per "
        "endpoint (seed 000 table 1-2: 375.04, which is MiB/s)",
    ),
}

# Informative figures: what real controllers reach, not a limit (exceeding them is no error).
_USB_PRACTICAL: dict[tuple[UsbSpeed, Transfer], tuple[float, str]] = {
    (UsbSpeed.HIGH, Transfer.BULK): (
        10 * 512 * MICROFRAME / MB,
        "Rockchip DWC2 bulk, 10 × 512 B per 125 µs microframe (seed 000 MTP note: 39 MBps, i.e. MiB/s)",
    ),
    (UsbSpeed.SUPER, Transfer.BULK): (
        400.0,
        "USB 3.0 bulk ≈ 400 MB/s after protocol overhead (seed 000 table 1-2 '400MBps?' and MTP note)",
    ),
}


def _key(speed: UsbSpeed | str | int, transfer: Transfer | str) -> tuple[UsbSpeed, Transfer]:
    try:
        kind = Transfer(str(transfer).lower())
    except ValueError:
        raise ValueError(f"unknown USB transfer type {transfer!r}; use bulk/interrupt/isochronous") from None
    return UsbSpeed.parse(speed), kind


def usb_ceiling(
    speed: UsbSpeed | str | int, transfer: Transfer | str = Transfer.BULK, *, practical: bool = True
) -> Ceiling:
    """Spec ceiling of one USB transfer type at one speed, in MB/s. With `practical` the basis also names
    the documents' practical figure where they give one: shown beside the limit, never enforced."""
    key = _key(speed, transfer)
    rate, basis = _USB[key]
    figure = _USB_PRACTICAL.get(key) if practical else None
    seen = "" if figure is None else f"; in practice ≈ {figure[0]:.1f} MB/s: {figure[1]}"
    return Ceiling(rate / MB, "MB/s", f"{basis} = {rate / MB:.3f} MB/s{seen}")


# The (micro)frame or service interval per speed: an isochronous endpoint's period and an interrupt one's shortest.
_INTERVAL_S = {UsbSpeed.FULL: 1e-3, UsbSpeed.HIGH: 125e-6, UsbSpeed.SUPER: 125e-6}
# Largest isochronous payload one endpoint may move per interval, per speed: full speed 1023 B; high speed
# 1024 B × up to 3 transactions (2048 and 3072 are the high-bandwidth settings); super speed 1024 B × 16 bursts × 3.
_ISO_MAX_BYTES = {UsbSpeed.FULL: 1023, UsbSpeed.HIGH: 3 * 1024, UsbSpeed.SUPER: 16 * 3 * 1024}


def usb_isochronous_ceiling(speed: UsbSpeed | str | int, bytes_per_interval: int, interval: int = 1) -> Ceiling:
    """One isochronous endpoint that moves `bytes_per_interval` per service interval, in MB/s: what a UVC
    camera announces as its streaming_maxpacket (× maxburst + 1 at super speed). `interval` is the
    endpoint's bInterval (UVC's streaming_interval, 1..16): it is serviced every 2^(interval-1) (micro)frames
    (USB 2.0 §9.6.6, USB 3.0 §9.6.6), so 1024 B at interval 4 moves 1024 B per 1 ms at high speed."""
    key = UsbSpeed.parse(speed)
    if not 1 <= bytes_per_interval <= _ISO_MAX_BYTES[key]:
        raise ValueError(
            f"{bytes_per_interval} B per interval is not an isochronous payload at {key} speed "
            f"(1..{_ISO_MAX_BYTES[key]} B)"
        )
    if not 1 <= interval <= 16:
        raise ValueError(f"isochronous bInterval {interval} is not 1..16 (a period of 2^(bInterval-1) (micro)frames)")
    frames = 2 ** (interval - 1)
    value = bytes_per_interval / (frames * _INTERVAL_S[key]) / MB
    every = f"{_INTERVAL_S[key] * 1e6:g} µs" if frames == 1 else f"{frames} × {_INTERVAL_S[key] * 1e6:g} µs"
    return Ceiling(
        value, "MB/s", f"USB {key}-speed isochronous, {bytes_per_interval} B per {every} interval = {value:.3f} MB/s"
    )


# Bytes per pixel of the uncompressed formats a UVC camera streams. A compressed frame (MJPEG, H264)
# has no fixed size, so its frame rate has no ceiling of its own (its bytes still cross the link).
UNCOMPRESSED_BYTES_PER_PIXEL = {"yuyv": 2.0, "uyvy": 2.0, "nv12": 1.5, "grey": 1.0}


def usb_frame_rate_ceiling(transport: Ceiling, fmt: str, width: int, height: int) -> Ceiling | None:
    """The most frames per second of `fmt` at width × height that `transport` (MB/s) can carry, or None
    for a compressed format. The UVC payload header each transfer adds only lowers the true figure."""
    per_pixel = UNCOMPRESSED_BYTES_PER_PIXEL.get(fmt.lower())
    if per_pixel is None:
        return None
    if width < 1 or height < 1:
        raise ValueError(f"frame size {width}x{height} must be at least 1x1")
    frame = width * height * per_pixel
    value = convert(transport.value, transport.unit, "MB/s") * MB / frame
    return Ceiling(
        value,
        "fps",
        f"{transport.basis}, over {fmt.upper()} {width}x{height} frames of {frame:.0f} B = {value:.2f} fps",
        transport.enforced,
    )


def usb_practical(speed: UsbSpeed | str | int, transfer: Transfer | str = Transfer.BULK) -> Ceiling | None:
    """The documents' practical figure for a transfer type, if they give one; informative only."""
    value, basis = _USB_PRACTICAL.get(_key(speed, transfer), (None, ""))
    return None if value is None else Ceiling(value, "MB/s", f"{basis} = {value:.3f} MB/s")


def usb_ethernet_ceiling(speed: UsbSpeed | str | int, link_mbit: float | None = None) -> Ceiling:
    """Ceiling of a USB network interface, in Mbit/s per direction. A gadget NIC (ECM, NCM, RNDIS) has no PHY:
    only the USB bulk ceiling bounds it (link_mbit=None). A USB Ethernet adapter is bounded by the lower of its
    PHY rate and the bulk ceiling: a gigabit adapter on USB 2.0 cannot exceed 53.248 MB/s × 8 = 425.984 Mbit/s."""
    bulk = usb_ceiling(speed, Transfer.BULK)
    bus_mbit = convert(bulk.value, bulk.unit, "Mbit/s")
    if link_mbit is not None and link_mbit <= 0:
        raise ValueError(f"link rate must be > 0 Mbit/s, got {link_mbit}")
    if link_mbit is None or bus_mbit <= link_mbit:
        suffix = "" if link_mbit is None else f" (below the {link_mbit:g} Mbit/s link)"
        bound = f"{bulk.value:.3f} MB/s × 8 = {bus_mbit:.3f} Mbit/s{suffix}"
        return Ceiling(bus_mbit, "Mbit/s", f"USB {UsbSpeed.parse(speed)}-speed bulk bound {bound}")
    return Ceiling(
        float(link_mbit),
        "Mbit/s",
        f"Ethernet link rate {link_mbit:g} Mbit/s (below the USB bulk bound {bus_mbit:.3f} Mbit/s)",
    )


_INTERRUPT_PACKET = {UsbSpeed.FULL: 64, UsbSpeed.HIGH: 1024, UsbSpeed.SUPER: 1024}  # largest packet per speed


def usb_interrupt_ceiling(speed: UsbSpeed | str | int, report_bytes: int, interval_s: float) -> Ceiling:
    """Reports of `report_bytes` through one interrupt endpoint polled every `interval_s`, in kB/s. One
    transaction per interval (no high-bandwidth multiplier, as Linux's f_hid declares none), so a report longer
    than the speed's largest packet takes several intervals: 1024 B at 1 ms moves at most 1024 kB/s at high
    speed, and at full speed (64 B packets) 64 kB/s whatever the report length."""
    key = UsbSpeed.parse(speed)
    if report_bytes < 1:
        raise ValueError(f"report length must be >= 1 byte, got {report_bytes}")
    if interval_s < _INTERVAL_S[key]:
        raise ValueError(f"{interval_s * 1e6:g} µs is below the shortest {key}-speed interrupt interval")
    packet = _INTERRUPT_PACKET[key]
    intervals = -(-report_bytes // packet)
    value = report_bytes / (intervals * interval_s) / 1e3
    return Ceiling(
        value,
        "kB/s",
        f"USB {key}-speed interrupt, one packet of <= {packet} B per {interval_s * 1e6:g} µs interval: "
        f"a {report_bytes} B report every {intervals} interval(s) = {value:.3f} kB/s",
    )


# Generation -> (transfer rate in GT/s per lane, encoding efficiency, encoding name); seed 002 §2.1.
_PCIE_GEN: dict[int, tuple[float, float, str]] = {
    1: (2.5, 8 / 10, "8b/10b"),
    2: (5.0, 8 / 10, "8b/10b"),
    3: (8.0, 128 / 130, "128b/130b"),
    4: (16.0, 128 / 130, "128b/130b"),
}
PCIE_GENERATIONS = tuple(sorted(_PCIE_GEN))
PCIE_LANES = (1, 2, 4, 8, 16)
PCIE_PAYLOADS = (128, 256, 512, 1024, 2048, 4096)  # legal Max Payload Size values
TLP_OVERHEAD = 28  # bytes per TLP: header 16, ECRC 4, LCRC 4, sequence 2, STP/END framing 2 (seed 002 §2.2)


def pcie_bandwidth(gen: int, lanes: int) -> float:
    """Link bandwidth per direction in MB/s: GT/s × lanes × encoding efficiency / 8 bits."""
    if gen not in _PCIE_GEN:
        raise ValueError(f"unknown PCIe generation {gen!r}; known: {sorted(_PCIE_GEN)}")
    if lanes not in PCIE_LANES:
        raise ValueError(f"unsupported PCIe lane count {lanes!r}; use one of {PCIE_LANES}")
    rate, encoding, _ = _PCIE_GEN[gen]
    return rate * 1e9 * encoding * lanes / 8 / MB


def pcie_ceiling(gen: int, lanes: int, *, payload: int | None = None) -> Ceiling:
    """PCIe ceiling in MB/s per direction; with `payload` (the negotiated MPS, bytes) net of TLP overhead, else
    the raw link bandwidth. DMA and NVMe throughput is bounded by the payload figure (seed 002 §4.1)."""
    raw = pcie_bandwidth(gen, lanes)
    rate, _, encoding = _PCIE_GEN[gen]
    basis = f"PCIe Gen{gen} x{lanes}, {rate:g} GT/s per lane, {encoding} = {raw:.1f} MB/s per direction"
    if payload is None:
        return Ceiling(raw, "MB/s", basis)
    if payload not in PCIE_PAYLOADS:
        raise ValueError(f"PCIe max payload size must be one of {PCIE_PAYLOADS} bytes, got {payload!r}")
    value = raw * payload / (payload + TLP_OVERHEAD)
    return Ceiling(
        value,
        "MB/s",
        f"{basis}; {payload} B payload with {TLP_OVERHEAD} B TLP overhead "
        f"({payload}/{payload + TLP_OVERHEAD}) = {value:.1f} MB/s",
    )


def efficiency(median: float, ceiling: Ceiling, unit: str) -> float:
    """median (in `unit`) as a fraction of the ceiling, converting units when they differ."""
    value = median if unit == ceiling.unit else convert(median, unit, ceiling.unit)
    return value / ceiling.value
