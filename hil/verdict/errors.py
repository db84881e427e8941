"""Errors a sample source raises when its measurement cannot be trusted.

The sampler turns these into an ERROR verdict (keeping the raw output for the report); any other
exception is a bug or a lab failure and propagates. Tool wrappers in hil/measure subclass these.
"""

from __future__ import annotations


class _WithRawOutput(Exception):
    def __init__(self, message: str, raw_output: str = "") -> None:
        super().__init__(message)
        self.raw_output = raw_output  # shown verbatim in the report, so keep it unedited


class MeasurementError(_WithRawOutput):
    """A sample could not be measured: the tool is missing, failed, or printed nothing usable."""


class ParseError(MeasurementError):
    """The tool ran but its output does not contain the expected figure."""


class DataCorruption(_WithRawOutput):
    """The data a transfer moved arrived changed: a finding about the board (FAIL of the metric whatever its
    rate), not a measurement that could not be made."""
