"""py_work.py [SECONDS] - a fixed kind of work for Debian's python3 to be
sampled at (json and re, the interpreter's hot loops), for SECONDS of its
own CPU time (default 30; a loaded machine stretches them) or until killed."""
import json
import re
import sys
import time


def parse(n):
    return json.loads(json.dumps([{"a": i, "b": str(i) * 3} for i in range(n)]))


def match(n):
    r = re.compile(r"(\d+)-(\w+)")
    return sum(1 for i in range(n) if r.match(f"{i}-x{i}"))


t = time.process_time()
while time.process_time() - t < float(sys.argv[1] if len(sys.argv) > 1 else 30):
    parse(2000)
    match(5000)
