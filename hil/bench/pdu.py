"""A network power switch for the rehearsal bench, speaking the REST API of a Digital Loggers Ethernet Power
Controller (the `digitalloggers_restapi` model of labgrid's NetworkPowerDriver), so an env file switches the
bench's boards exactly as it would a lab's PDU:

    NetworkPowerPort: {model: digitalloggers_restapi, host: 'http://admin:1234@127.0.0.1:18380', index: 0}

As the controller (restapi.pdf): `GET /restapi/relay/outlets/=N/state/` answers `[true]` or `[false]`, `PUT` with
form data `value=true|false` switches the outlet (204), both behind HTTP Digest authentication (MD5, qop=auth),
writes with an `X-CSRF` header. Switching an outlet calls its board's `power(on)`: the board dies at once. The
bench's control path (`POST /hil/fault`) makes the switch answer 500, answer nothing, or keep an outlet's relay
from closing (reported on, no power); other bench controls register under `/hil/<name>`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

log = logging.getLogger("hil.bench.pdu")
REALM = "DLI hil-bench"
OUTLET_PATH = re.compile(r"^/restapi/relay/outlets/=(\d+)/state/?$")
FAULTS = ("none", "http500", "silent", "dead-relay")


@dataclass
class Outlet:
    """One switched outlet: its state as the switch reports it, and what closing the relay powers."""

    name: str
    power: Callable[[bool], None]
    on: bool = False


@dataclass
class PowerSwitch:
    outlets: list[Outlet]
    user: str = "admin"
    password: str = "1234"
    fault: str = "none"
    dead_relays: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    controls: dict[str, Callable[[dict], dict]] = field(default_factory=dict)  # POST /hil/<name>: the bench's

    def set(self, index: int, on: bool) -> None:
        with self.lock:
            outlet = self.outlets[index]
            outlet.on = on
            if on and index in self.dead_relays:
                log.warning("outlet %d (%s): relay stuck open, the board gets no power", index, outlet.name)
                return
            outlet.power(on)


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def make_handler(switch: PowerSwitch) -> type[BaseHTTPRequestHandler]:
    nonces: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._serve("GET")

        def do_PUT(self) -> None:
            self._serve("PUT")

        def do_HEAD(self) -> None:
            # A controller's web server answers HEAD for any page (hil's strategy probes the switch so);
            # a silent switch answers nothing, whatever the method.
            if switch.fault == "silent":
                self.close_connection = True
                time.sleep(3600)
                return
            self.send_response(500 if switch.fault == "http500" else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            if self.path == "/hil/fault":  # the bench's control path, not the controller's API
                self._set_fault()
                return
            name = self.path.removeprefix("/hil/")
            if self.path.startswith("/hil/") and name in switch.controls:
                try:
                    answer = switch.controls[name](json.loads(self._body() or b"{}"))
                except (ValueError, KeyError, OSError) as exc:
                    self._answer(400, "text/plain", f"{name}: {exc}\n".encode())
                    return
                self._answer(200, "application/json", json.dumps(answer).encode())
                return
            self._serve("POST")

        def _serve(self, method: str) -> None:
            body = self._body()
            if switch.fault == "silent":
                self.close_connection = True
                time.sleep(3600)  # a switch that stopped answering: the client's own timeout decides
                return
            if switch.fault == "http500":
                self._answer(500, "text/plain", b"internal error\n")
                return
            if not self._authorized(method):
                nonce = secrets.token_hex(16)
                nonces.add(nonce)
                challenge = f'Digest realm="{REALM}", qop="auth", nonce="{nonce}", algorithm=MD5'
                self._answer(401, "text/plain", b"authorization required\n", {"WWW-Authenticate": challenge})
                return
            match = OUTLET_PATH.match(self.path)
            if match is None or int(match.group(1)) >= len(switch.outlets):
                self._answer(404, "text/plain", f"no such resource {self.path}\n".encode())
                return
            index = int(match.group(1))
            if method == "GET":
                self._answer(200, "application/json", json.dumps([switch.outlets[index].on]).encode())
            elif method == "PUT":
                if "X-CSRF" not in self.headers:
                    self._answer(403, "text/plain", b"missing X-CSRF header\n")
                    return
                value = parse_qs(body.decode("ascii", "replace")).get("value", [""])[0]
                if value not in ("true", "false"):
                    self._answer(400, "text/plain", b"value must be true or false\n")
                    return
                switch.set(index, value == "true")
                self._answer(204, "text/plain", b"")
            else:
                self._answer(405, "text/plain", b"method not allowed\n")

        def _authorized(self, method: str) -> bool:
            header = self.headers.get("Authorization", "")
            if not header.startswith("Digest "):
                return False
            fields = dict(re.findall(r'(\w+)="?([^",]*)"?', header[len("Digest ") :]))
            if fields.get("username") != switch.user or fields.get("nonce") not in nonces:
                return False
            ha1 = _md5(f"{switch.user}:{REALM}:{switch.password}")
            ha2 = _md5(f"{method}:{fields.get('uri', '')}")
            parts = (ha1, fields["nonce"], fields.get("nc", ""), fields.get("cnonce", ""), fields.get("qop", ""), ha2)
            return secrets.compare_digest(_md5(":".join(parts)), fields.get("response", ""))

        def _set_fault(self) -> None:
            request = json.loads(self._body() or b"{}")
            fault = request.get("fault", "none")
            if fault not in FAULTS:
                self._answer(400, "text/plain", f"fault must be one of {', '.join(FAULTS)}\n".encode())
                return
            switch.fault = "none" if fault == "dead-relay" else fault
            switch.dead_relays = {int(i) for i in request.get("outlets", [])} if fault == "dead-relay" else set()
            log.warning("fault injected: %s %s", fault, sorted(switch.dead_relays) or "")
            self._answer(200, "application/json", json.dumps({"fault": fault}).encode())

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _answer(self, status: int, kind: str, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            log.info("%s %s", self.client_address[0], format % args)

    return Handler


def serve(switch: PowerSwitch, port: int) -> ThreadingHTTPServer:
    """The switch on 127.0.0.1:port, served by a background thread (shut it down with `.shutdown()`)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(switch))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="pdu", daemon=True).start()
    return server
