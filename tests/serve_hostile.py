#!/usr/bin/env python3
"""serve_hostile.py URL TOKEN - hostile and slow clients against shimtop --serve.

Without the token only /healthz answers; the token is taken as Bearer in
any case of the scheme, or as Basic credentials' password.  Malformed,
oversized and wrong requests get a 4xx with a body (or the connection
closed, for bytes that are no HTTP at all), strictly where HTTP says so:
two Content-Lengths that disagree, a space before a header's colon, an
escaped NUL in the path.  Five profiles at once get four windows and one
429; four whose clients hang up free their windows at once.  Clients that
trickle their headers from three addresses, 16 connections each, are cut
at the request deadline and never keep a fourth address out; idle
connections from one address never keep a scraper from that address
out; a flood of silent connections from 200 addresses never cuts a
scraper's request; sampling goes on under them all.  Prints each failure, exits 1 if
there was one.
"""
import base64
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

url, token = sys.argv[1], sys.argv[2]
host, port = re.match(r"http://([^:/]+):(\d+)", url).groups()
port = int(port)
failures = []
AUTH = b"Authorization: Bearer " + token.encode() + b"\r\n"


def fail(what):
    failures.append(what)
    print("FAIL:", what, file=sys.stderr)


def raw(data, timeout=5.0, source="127.0.0.1"):
    """Sends bytes, returns what came back (b'' if the server closed)."""
    s = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0))
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


def get(path, timeout=10.0, auth=True):
    req = urllib.request.Request(url + path)
    if auth:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError as e:
        return None, repr(e).encode()


def samples():
    status, body = get("/metrics")
    if status != 200:
        return None
    m = re.search(rb"^shimtop_samples_total (\d+)$", body, re.M)
    return int(m.group(1)) if m else None


# Wrong requests: a 4xx that says why.
cases = [
    (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + AUTH + b"\r\n", 405),
    (b"DELETE / HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 405),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n" + AUTH + b"\r\nhello", 413),
    (b"GET /nope HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 404),
    (b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 404),
    (b"GET /debug/pprof/profile?seconds=0 HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=301 HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=-1 HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=1e9 HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 400),
    (b"GET /debug/pprof/profile?seconds=99999999999999999999 HTTP/1.1\r\nHost: x\r\n" + AUTH +
     b"\r\n", 400),
    # Strict where HTTP says a server must be.
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n" + AUTH +
     b"\r\nhello", 400),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n" + AUTH +
     b"\r\n0\r\n\r\n", 400),
    (b"GET /metrics%00.html HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 404),
    (b"GET /%6detrics HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n", 404),
    # Without the token (or with it twice, or another): nothing but /healthz.
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 401),
    (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 401),
    (b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n\r\n", 401),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + AUTH + AUTH + b"\r\n", 401),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode()[:-1] +
     b"\r\n\r\n", 401),
    (b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " +
     base64.b64encode(b"shimtop:wrong-token-0123456789") + b"\r\n\r\n", 401),
]
for req, want in cases:
    reply = raw(req)
    got = status_of(reply)
    if got != want:
        fail(f"{req[:70]!r}: status {got}, expected {want}")
    elif not reply.split(b"\r\n\r\n", 1)[-1].strip():
        fail(f"{req[:70]!r}: a {got} with no body saying why")

# The token's accepted forms: schemes are case-insensitive; Basic is a URL's user:TOKEN@.
for auth in (b"bearer " + token.encode(), b"BEARER  " + token.encode(),
             b"Basic " + base64.b64encode(b"anyone:" + token.encode())):
    got = status_of(raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: " + auth +
                        b"\r\n\r\n"))
    if got != 200:
        fail(f"Authorization: {auth[:12]!r}...: status {got}, expected 200")
if status_of(raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")) != 200:
    fail("/healthz without the token is not 200")

# Oversized and malformed: refused (4xx/5xx) or closed, never a 200, never a hang.
hostile = [
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n",
    b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(5000)) + b"\r\n",
    bytes(range(256)) * 8,
    b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n" + AUTH +
    b"\r\n5\r\nhello\r\n0\r\n\r\n",
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

# Four windows whose clients hang up at once: free at once, not in five minutes.
for _ in range(4):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(b"GET /debug/pprof/profile?seconds=300 HTTP/1.1\r\nHost: x\r\n" + AUTH + b"\r\n")
    time.sleep(0.2)         # taken by the sampling loop
    s.close()
time.sleep(0.5)
status, body = get("/debug/pprof/profile?seconds=1", timeout=20)
if status != 200:
    fail(f"a profile after four abandoned windows: {status} {body[:60]!r}, expected 200")


def trickle(source, n, stop, cut):
    """n connections from source, each sending a header line every 2-4 s until stop."""
    held = []
    for _ in range(n):
        try:
            s = socket.create_connection((host, port), timeout=2, source_address=(source, 0))
            s.sendall(b"GET /metrics HTTP/1.1\r\n")
            held.append([s, time.monotonic()])
        except OSError:
            pass
    k = 0
    while not stop.is_set() and held:
        for h in list(held):
            s, t = h
            try:
                s.sendall(b"X-Slow-%d: y\r\n" % k)
            except OSError:
                cut.append(time.monotonic() - t)
                held.remove(h)
                s.close()
        k += 1
        stop.wait(2 + (k % 3))
    for s, _ in held:
        s.close()


# Slow clients: 16 connections from each of three addresses trickle their
# headers (an idle limit never fires); a fourth address is answered every
# time, and the tricklers are cut at the request deadline (5 s).
before, t0 = samples(), time.monotonic()
stop, cut = threading.Event(), []
tricklers = [threading.Thread(target=trickle, args=("127.0.0.%d" % a, 16, stop, cut))
             for a in (1, 2, 3)]
for t in tricklers:
    t.start()
time.sleep(1)
answered = 0
for _ in range(10):
    t = time.monotonic()
    try:
        if status_of(raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", timeout=3,
                         source="127.0.0.4")) == 200:
            answered += 1
    except OSError:
        pass
    time.sleep(max(0.0, 1.0 - (time.monotonic() - t)))
stop.set()
for t in tricklers:
    t.join()
if answered != 10:
    fail(f"/healthz from a fourth address beside 48 trickling connections: {answered} of 10")
if not cut or max(cut) > 12:
    fail(f"trickling connections were not cut at the request deadline: {sorted(cut)[-3:]}")

# Idle connections from one address: that address's scraper still gets in.
idle = []
for _ in range(16):
    try:
        idle.append(socket.create_connection((host, port), timeout=2))
    except OSError:
        pass
status, body = get("/metrics", timeout=10)
if status != 200:
    fail(f"/metrics from an address holding 16 idle connections: {status}")
for s in idle:
    s.close()

def flood(addresses, stop, made, cut):
    """Connections from addresses in turn, sending nothing, the newest 8 of each held."""
    held = []
    k = 0
    while not stop.is_set():
        try:
            s = socket.create_connection((host, port), timeout=1,
                                         source_address=(addresses[k % len(addresses)], 0))
            held.append(s)
            made.append(1)
        except OSError:
            pass
        k += 1
        time.sleep(0.001)	# about 4,000 a second from four threads, as seen
        if len(held) > 8 * len(addresses):
            held.pop(0).close()
    for s in held:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                cut.append(1)	# the server let it go
        except OSError:
            pass
        s.close()


# A flood: silent connections from 200 addresses, 8 of each held, 1,600
# in all, past the server's 1,024 slots.  A scraper from another address
# asks 40 times beside it and is answered every time: the most crowded
# address loses a connection, never the scraper's one.
stop, made, cut = threading.Event(), [], []
addrs = ["127.0.%d.%d" % (1 + i // 100, 1 + i % 100) for i in range(200)]
flooders = [threading.Thread(target=flood, args=(addrs[i::4], stop, made, cut))
            for i in range(4)]
for t in flooders:
    t.start()
while len(made) < 1600 and all(t.is_alive() for t in flooders):
    time.sleep(0.1)
# The slots full, as the server counts them: a CPU-starved server accepts
# slowly, and the flood goes on until it has filled them (60 s at most).
full_by, full = time.monotonic() + 60, None
while full is None and time.monotonic() < full_by:
    status, body = get("/metrics", timeout=15)
    live = re.search(rb"^shimtop_http_connections (\d+)$", body or b"", re.M)
    slots = re.search(rb"^shimtop_http_connection_slots (\d+)$", body or b"", re.M)
    if status == 200 and live and slots and int(live.group(1)) >= int(slots.group(1)):
        full = int(slots.group(1))
    else:
        time.sleep(0.2)
# A cut shows as an empty reply; a CPU-starved machine can only be slow
# (the flood waits in the kernel's accept queue before the scraper).
answered, missed = 0, []
for _ in range(40):
    t = time.monotonic()
    try:
        reply = raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", timeout=15)
        if status_of(reply) == 200:
            answered += 1
        else:
            missed.append(f"{reply[:20]!r} after {time.monotonic() - t:.1f} s")
    except OSError as e:
        missed.append(f"{e!r} after {time.monotonic() - t:.1f} s")
    time.sleep(0.05)
stop.set()
for t in flooders:
    t.join()
if full is None:
    fail(f"a flood of {len(made)} connections never filled the server's slots in 60 s")
if answered != 40:
    fail(f"/healthz beside a flood from 200 addresses: {answered} of 40 answered; "
         f"the others: {'; '.join(missed)}")
print(f"flood: {len(made)} connections from 200 addresses filled the server's {full} slots, "
      f"{len(cut)} of those held at the end cut by it; /healthz answered {answered} of 40 "
      f"beside it")

after = None
for _ in range(50):
    after = samples()
    if after is not None:
        break
    time.sleep(0.2)
elapsed = time.monotonic() - t0
if before is None or after is None:
    fail(f"/metrics did not answer around the slow clients ({before}, {after})")
elif after - before < 50 * elapsed:
    fail(f"sampling stalled under slow clients: {before} then {after} samples {elapsed:.1f} s later")

print(f"samples {before} -> {after} in {elapsed:.1f} s around the slow clients; "
      f"{len(cut)} trickling connections cut, the last after {max(cut or [0]):.1f} s")
sys.exit(1 if failures else 0)
