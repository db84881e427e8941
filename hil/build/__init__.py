"""The build under test: a manifest naming its images (hil.build.manifest), and the board's own view of what
it booted (hil.build.boardview). Putting a build on a board is the lab's job (hil.lab.board.provision)."""

from hil.build.manifest import Build, BuildError, Image, load_build

__all__ = ["Build", "BuildError", "Image", "load_build"]
