#!/usr/bin/env python3
"""stop_behind.py SHIMTOP ARGS... - SIGTERM into a replay whose reader has
read the whole recording while its model is still behind, the case a
loaded machine hits by chance: shimtop's main thread (the model's) is
held by ptrace from the moment the reader thread ("replay") is seen until
that thread has ended, then let go at nice 19 on CPU 0 beside a busy
loop, and SIGTERM comes at once, so the stop's half second of catching
up takes little of what is left (a recording the ring holds whole, of
many times what the model takes in that half second).  Prints "status N";
shimtop's stderr passes through.  Needs ptrace (root)."""
import ctypes, os, signal, subprocess, sys, time

PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


def ptrace(req, tid):
    if libc.ptrace(req, tid, None, None) < 0:
        sys.exit("stop_behind.py: ptrace %#x: %s" % (req, os.strerror(ctypes.get_errno())))


def threads(pid):
    names = []
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            names.append(open("/proc/%d/task/%s/comm" % (pid, t)).read().strip())
        except OSError:
            pass
    return names


def wait_until(cond, what, seconds=60):
    end = time.time() + seconds
    while not cond():
        if time.time() > end:
            sys.exit("stop_behind.py: %s did not happen in %d s" % (what, seconds))
        time.sleep(0.002)


def main():
    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
    wait_until(lambda: p.poll() is not None or "replay" in threads(p.pid), "the replay's start")
    if p.poll() is not None:
        sys.exit("stop_behind.py: shimtop ended before its replay was seen")
    ptrace(PTRACE_SEIZE, p.pid)
    ptrace(PTRACE_INTERRUPT, p.pid)
    os.waitpid(p.pid, 0x40000000)   # __WALL: the main thread's stop
    wait_until(lambda: "replay" not in threads(p.pid), "the reader's end")
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"],
                            preexec_fn=lambda: os.sched_setaffinity(0, {0}))
    os.sched_setaffinity(p.pid, {0})        # the main thread only: a thread's own
    os.setpriority(os.PRIO_PROCESS, p.pid, 19)
    os.kill(p.pid, signal.SIGTERM)
    ptrace(PTRACE_DETACH, p.pid)
    try:
        rc = p.wait(timeout=120)
    finally:
        busy.kill()
        busy.wait()
    print("status %d" % rc)


main()
