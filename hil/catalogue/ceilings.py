"""Which physical ceiling a metric's samples must stay under, given the pair's link and the case's
parameters. The figures themselves come from hil.verdict.ceilings (derived from the seeds' tables);
the rules here only pick one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hil.verdict import ceilings
from hil.verdict.spec import Ceiling


class CeilingRule(Protocol):
    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        """The ceiling for this link and case, or None when the rule does not apply to the link."""

    def describe(self) -> str:
        """One line for the catalogue listing."""


@dataclass(frozen=True)
class UsbBus:
    """USB per speed and transfer type: a fixed transfer type, or the one a test parameter names."""

    transfer: ceilings.Transfer | None = None
    param: str | None = None  # e.g. "transfer" for a UVC case parametrized isochronous/bulk

    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        if getattr(link, "type", None) != "usb":
            return None
        transfer = self.transfer if self.param is None else params.get(self.param, self.transfer)
        return None if transfer is None else ceilings.usb_ceiling(link.speed, transfer)

    def describe(self) -> str:
        if self.param is not None:
            return f"USB, transfer type from parameter `{self.param}`"
        return f"USB {self.transfer} per speed"


BULK = UsbBus(ceilings.Transfer.BULK)  # most rates cross a USB link in bulk transfers


@dataclass(frozen=True)
class UsbNetwork:
    """A USB network interface: the USB bulk bound, or a USB Ethernet adapter's PHY if that is lower."""

    phy_mbit_param: str | None = None

    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        if getattr(link, "type", None) != "usb":
            return None
        phy = params.get(self.phy_mbit_param) if self.phy_mbit_param else None
        return ceilings.usb_ethernet_ceiling(link.speed, float(phy) if phy is not None else None)

    def describe(self) -> str:
        return "USB bulk bound as a network rate (or the adapter's PHY, if lower)"


@dataclass(frozen=True)
class UsbInterrupt:
    """One interrupt endpoint: report length and polling interval from the case's parameters."""

    report_param: str = "report"  # bytes
    interval_param: str = "interval"  # "1ms", "125us"

    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        if getattr(link, "type", None) != "usb":
            return None
        report, interval = params.get(self.report_param), params.get(self.interval_param)
        if report is None or interval is None:
            return None
        return ceilings.usb_interrupt_ceiling(link.speed, int(report), interval_seconds(str(interval)))

    def describe(self) -> str:
        return (
            f"USB interrupt per speed: `{self.report_param}` bytes per report, one packet per `{self.interval_param}`"
        )


def interval_seconds(text: str) -> float:
    """An interval as the kernel's sysfs prints it ("1ms", "125us") in seconds."""
    for suffix, factor in (("ms", 1e-3), ("us", 1e-6)):
        number = text.removesuffix(suffix)
        if number != text and number.isascii() and number.isdigit():
            return int(number) * factor
    raise ValueError(f"interval {text!r} must look like 1ms or 125us")


@dataclass(frozen=True)
class PcieBus:
    """PCIe per generation and lanes, net of TLP overhead at the link's max payload size."""

    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        pcie = getattr(link, "type", None) == "pcie"
        return ceilings.pcie_ceiling(link.gen, link.lanes, payload=link.max_payload) if pcie else None

    def describe(self) -> str:
        return "PCIe per gen × lanes, net of TLP overhead at the max payload size"


def parse_stream(text: str) -> tuple[str, int, int]:
    """A stream parameter as the UVC and camera cases name it ("yuyv-640x480") as (format, width, height)."""
    fmt, _, size = str(text).partition("-")
    width, _, height = size.partition("x")
    if not (fmt.isalnum() and width.isdigit() and height.isdigit()):
        raise ValueError(f"stream {text!r} must look like yuyv-640x480 (format-WIDTHxHEIGHT)")
    return fmt.lower(), int(width), int(height)


def transfer_bytes(text: str) -> int | None:
    """A UVC transfer parameter: "iso2048" -> 2048 B per microframe, "bulk" -> None."""
    if text == "bulk":
        return None
    number = str(text).removeprefix("iso")
    if number == text or not (number.isascii() and number.isdigit()):
        raise ValueError(f"transfer {text!r} must be bulk or iso<bytes per microframe> (iso1024)")
    return int(number)


@dataclass(frozen=True)
class UsbFrames:
    """A frame rate: what the stream's USB transfer carries per second over the size of one uncompressed
    frame (a camera at 12 fps on 1 KiB per microframe, YUYV 640x480, is near its 13.33 fps ceiling). Without
    a transfer parameter the larger of the bulk and isochronous bounds at the link's speed applies. An
    isochronous transfer is serviced every 2^(interval-1) (micro)frames with maxburst+1 packets per service at
    super speed, from the case's `interval_param` and `maxburst_param` (absent: 1 and 0, f_uvc's defaults)."""

    stream_param: str = "stream"
    transfer_param: str | None = None
    interval_param: str = "streaming_interval"
    maxburst_param: str = "streaming_maxburst"

    def ceiling(self, link: Any, params: dict[str, Any]) -> Ceiling | None:
        if getattr(link, "type", None) != "usb" or self.stream_param not in params:
            return None
        fmt, width, height = parse_stream(params[self.stream_param])
        if self.transfer_param is None:
            transport = max(
                (ceilings.usb_ceiling(link.speed, kind, practical=False) for kind in ("bulk", "isochronous")),
                key=lambda bound: bound.value,
            )
        elif self.transfer_param not in params:
            return None
        else:
            transport = self._transport(link.speed, params)
        return ceilings.usb_frame_rate_ceiling(transport, fmt, width, height)

    def _transport(self, speed: str, params: dict[str, Any]) -> Ceiling:
        """What the case's transfer carries per second: bulk's bound, or its isochronous service."""
        per_packet = transfer_bytes(params[str(self.transfer_param)])
        if per_packet is None:
            return ceilings.usb_ceiling(speed, "bulk", practical=False)
        bursts = int(params.get(self.maxburst_param, 0)) + 1 if ceilings.UsbSpeed.parse(speed) == "super" else 1
        return ceilings.usb_isochronous_ceiling(speed, per_packet * bursts, int(params.get(self.interval_param, 1)))

    def describe(self) -> str:
        transfer = "bulk or isochronous, the larger"
        if self.transfer_param:
            transfer = f"`{self.transfer_param}`, `{self.interval_param}`, `{self.maxburst_param}`"
        return f"USB bytes per second ({transfer}) over one uncompressed `{self.stream_param}` frame"
