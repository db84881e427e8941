"""Repository-level pytest configuration.

hil's own plugins (board pairs, measurement, verdict, reports) register through the `pytest11` entry
points in pyproject.toml, so this file only holds what belongs to this checkout.
"""

pytest_plugins = ("pytester",)
