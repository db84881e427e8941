"""A labgrid environment on this PC (hil's LocalShellDriver) and a pair on it: boards for tests of the
pytest side (scheduling, confirmation, options) that need a real pair but no emulator."""

PC_ENV = "targets:\n  lab-pc: {drivers: {LocalShellDriver: {}}}\nimports:\n  - hil.lab.board.local\n"

PC_PAIR = """\
pairs:
  pc-pair:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics:
      usb.msc.read: {unit: MB/s, min: 1, max: 100000}
"""
