#!/usr/bin/env python3
"""serve_hostile.py URL - hostile and slow clients against shimtop --serve.

Malformed, oversized and wrong requests get a 4xx with a body (or the
connection closed, for bytes that are no HTTP at all); five profiles at
once get four windows and one 429; clients that open connections and say
nothing hold no more than their sockets: sampling goes on under them (the
samples counted after they are let go outgrow those before by what the
rate allows) and the server answers again.  Prints each failure, exits 1 if there was one.
"""
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

url = sys.argv[1]
host, port = re.match(r"http://([^:/]+):(\d+)", url).groups()
port = int(port)
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what, file=sys.stderr)


def raw(data, timeout=5.0):
    """Sends bytes, returns what came back (b'' if the server closed)."""
    s = socket.create_connection((host, port), timeout=timeout)
    got = b""
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got
            got += chunk
    except (ConnectionResetError, BrokenPipeError, OSError) as e:
        if isinstance(e, socket.timeout):
            raise
        return got
    finally:
        s.close()


def status_of(reply):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
    return int(m.group(1)) if m else None


def get(path, timeout=10.0):
    try:
        with urllib.request.urlopen(url + path, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def samples():
    status, body = get("/metrics")
    if status != 200:
        return None
    m = re.search(rb"^shimtop_samples_total (\d+)$", body, re.M)
    return int(m.group(1)) if m else None


# Wrong requests: a 4xx that says why.
cases = [
    (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405),
    (b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 413),
    (b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    (b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    (b"GET /debug/pprof/profile?seconds=0 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=301 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=-1 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=1e9 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=99999999999999999999 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
]
for req, want in cases:
    reply = raw(req)
    got = status_of(reply)
    if got != want:
        fail(f"{req[:60]!r}: status {got}, expected {want}")
    elif not reply.split(b"\r\n\r\n", 1)[-1].strip():
        fail(f"{req[:60]!r}: a {got} with no body saying why")

# Oversized and malformed: refused (4xx/5xx) or closed, never a 200, never a hang.
hostile = [
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n",
    b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(5000)) + b"\r\n",
    bytes(range(256)) * 8,
    b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
]
for req in hostile:
    t = time.monotonic()
    try:
        got = status_of(raw(req))
    except socket.timeout:
        got = "timeout"
    if got == "timeout" or (got is not None and got < 400):
        fail(f"{req[:40]!r}...: {got} after {time.monotonic() - t:.1f} s")

# Five profiles at once: four windows, one 429.
codes = []
lock = threading.Lock()


def profile():
    status, body = get("/debug/pprof/profile?seconds=1", timeout=20)
    with lock:
        codes.append((status, body[:2]))


threads = [threading.Thread(target=profile) for _ in range(5)]
for t in threads:
    t.start()
    time.sleep(0.05)
for t in threads:
    t.join()
ok = [c for c in codes if c[0] == 200]
if len(ok) != 4 or sorted(c[0] for c in codes) != [200, 200, 200, 200, 429]:
    fail(f"five profiles at once: {[c[0] for c in codes]}, expected four 200 and one 429")
if any(c[1] != b"\x1f\x8b" for c in ok):
    fail("a profile is not gzip")

# Slow clients: every connection taken, nothing said.  Sampling goes on.
before, t0 = samples(), time.monotonic()
held = []
for _ in range(40):
    try:
        s = socket.create_connection((host, port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        held.append(s)
    except OSError:
        pass
time.sleep(12)          # past the server's idle limit (10 s)
after = None
for _ in range(50):
    after = samples()
    if after is not None:
        break
    time.sleep(0.2)
elapsed = time.monotonic() - t0
for s in held:
    s.close()
if before is None or after is None:
    fail(f"/metrics did not answer around the slow clients ({before}, {after})")
elif after - before < 50 * elapsed:
    fail(f"sampling stalled under slow clients: {before} then {after} samples {elapsed:.1f} s later")

print(f"samples {before} -> {after} in {elapsed:.1f} s around the slow clients")
sys.exit(1 if failures else 0)
