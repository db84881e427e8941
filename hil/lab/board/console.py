"""What a board's serial console adds to a command's output: kernel messages printed in between (hil lowers
the console log level, but a real board's console may still carry one in the middle of a tool's output)."""

from __future__ import annotations

import re

# printk's console format: "[   12.345678] usb 1-1: new high-speed USB device ..." (with or without a
# "<level>" prefix). Spaces only inside the brackets: `\s` would let a match run over line ends and take
# tool lines with it.
KERNEL_MESSAGE = re.compile(r"^(?:<[0-9]>)?\[ *[0-9]+\.[0-9]{6}\] .*(?:\n|$)", re.MULTILINE | re.ASCII)
KERNEL_TIMESTAMP = re.compile(r"\[ *[0-9]+\.[0-9]{6}\] ", re.ASCII)


def without_kernel_messages(text: str) -> str:
    """The output with kernel console lines removed (a line that is all printk is never tool output)."""
    return KERNEL_MESSAGE.sub("", text)


def console_error(exc: BaseException) -> str:
    """One line for an error of a console: pexpect's TIMEOUT and EOF append a 25-line dump of their spawn
    object to the line that says what happened; a report keeps that line."""
    text = str(exc).strip()
    if type(exc).__module__.startswith("pexpect"):
        text = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {' '.join(text.split())}" if text else type(exc).__name__
