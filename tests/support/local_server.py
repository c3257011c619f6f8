"""What the fake APIs share: a threaded HTTP server on 127.0.0.1 that starts, stops and works as
a context manager; each fake (``fake_anthropic``, ``fake_openai``) adds its handler and script."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self


class QuietServer(ThreadingHTTPServer):
    """The server; ``fake`` is the object its handler asks for answers."""

    daemon_threads = True
    fake: Any

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (closed keep-alive connections, dropped streams) are normal."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalServer:
    """A fake API's server side: serves ``handler`` on ``port`` (0: a free one) of 127.0.0.1."""

    handler: ClassVar[type[BaseHTTPRequestHandler]]
    url_path: ClassVar[str] = ""
    """What follows host and port in :attr:`url` (the base URL clients are given)."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._server: QuietServer | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.url_path}"

    def start(self) -> Self:
        self._server = QuietServer(("127.0.0.1", self._port), self.handler)
        self._server.fake = self
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=type(self).__name__,
            daemon=True,
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
