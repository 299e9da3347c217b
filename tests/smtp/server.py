"""An SMTP server for the black-box tests (tests/src/smtp.rs starts it).

aiosmtpd (PyPI, tests/smtp/requirements.txt) on 127.0.0.1:<port>, with
STARTTLS offered and required before MAIL (a client that does not upgrade is
refused with 530), under the certificate and key it is given. Each message
is written to <dir>/<n>.eml (written to a temporary name first, then
renamed, so a reader never sees half a message), with one header added in
front: `X-Test-Tls: <TLS version>` of the session it came over.

Usage: server.py <port> <dir> <cert.pem> <key.pem>. Prints "ready" once it
accepts connections; runs until killed.
"""

import os
import ssl
import sys
import threading
import time

from aiosmtpd.controller import Controller


class Outbox:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        # session.ssl: the TLS transport's extra info, once STARTTLS is done.
        cipher = (session.ssl or {}).get("cipher")
        tls = cipher[1] if cipher else None
        if not tls:
            # require_starttls refuses this before DATA; never store it.
            return "530 STARTTLS first"
        with self.lock:
            self.count += 1
            n = self.count
        body = envelope.original_content or envelope.content
        if isinstance(body, str):
            body = body.encode()
        tmp = os.path.join(self.directory, f".{n}.tmp")
        with open(tmp, "wb") as f:
            f.write(f"X-Test-Tls: {tls}\r\n".encode())
            f.write(body)
        os.rename(tmp, os.path.join(self.directory, f"{n}.eml"))
        return "250 Message accepted"


def main():
    port, directory, cert, key = sys.argv[1:5]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    controller = Controller(
        Outbox(directory),
        hostname="127.0.0.1",
        port=int(port),
        tls_context=context,
        require_starttls=True,
        ready_timeout=30,
    )
    controller.start()
    print("ready", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
