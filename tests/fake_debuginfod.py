#!/usr/bin/env python3
"""fake_debuginfod.py MODE PORTFILE [FILE]: a debuginfod server that
misbehaves, for t-debuginfo.sh.  It binds a free port on 127.0.0.1 and
writes the port to PORTFILE once it listens.

  hang     accepts connections and never answers
  garbage  answers every /buildid/.../debuginfo with 64 KiB of random bytes
  serve    answers every such request with FILE (a debug file of another
           build ID, say)
  huge     says 4 GiB follow and sends zeros for as long as it is read
  endless  sends zeros with no length, for as long as it is read
  trickle  sends 64 KiB, then nothing, holding the connection
"""
import os
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Threads that hold a connection must not keep the server from exiting.
ThreadingHTTPServer.daemon_threads = True


class Handler(BaseHTTPRequestHandler):
    body = b""

    mode = "serve"

    def do_GET(self):
        if "/debuginfo" not in self.path:
            self.send_error(404)
            return
        self.send_response(200)
        if self.mode in ("huge", "endless", "trickle"):
            if self.mode == "huge":
                self.send_header("Content-Length", str(4 << 30))
            self.end_headers()
            zeros = bytes(65536)
            try:
                self.wfile.write(zeros)
                while self.mode != "trickle":
                    self.wfile.write(zeros)
                time.sleep(3600)
            except OSError:
                pass
            return
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


def hang(portfile):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    held = []
    while True:
        conn, _ = s.accept()
        held.append(conn)  # read nothing, say nothing


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    if mode == "hang":
        hang(portfile)
        return
    Handler.mode = mode
    if mode == "garbage":
        Handler.body = os.urandom(65536)
    elif mode == "serve":
        Handler.body = open(sys.argv[3], "rb").read()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
