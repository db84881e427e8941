"""The build under test: a manifest naming its images (hil.build.manifest), what a run keeps of it
(hil.build.identity), and the board's own view of what it booted (hil.build.boardview). Putting a build on a board is
the lab's job (hil.lab.board.provision). Nothing is imported here: naming a build loads no manifest reader."""
