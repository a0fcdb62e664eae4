#!/bin/sh
# memory_churn.sh - whether --memory holds while the machine churns.
# An unprivileged user (nobody, when run as root) churns as a busy build
# host does: processes started back to back (ls -R, python3), a thread
# started and ended every millisecond or so, a fresh copy of a library
# (a new inode, so a new file to read) loaded and run every second, and
# files mapped executable and unmapped a hundred times a second.
# Meanwhile `shimtop -a --batch -F 10000 --memory MB` runs for DURATION
# seconds (default 3600) and its own resident memory (RssAnon: not the files it
# maps) is read every second; one line every INTERVAL seconds (default
# 60) gives it and the most it reached, then the report's own words.
# BESIDE=1: a clang++ -O2 compile of bench/heavy_cc.py's file started
# every BESIDE_EVERY seconds (default 120) beside the churn, as the
# activity of a build host in between (tens of thousands of new names).
#   SHIMTOP=build/shimtop [MEMORY=40] [DURATION=3600] [INTERVAL=60] [BESIDE=1] sh bench/memory_churn.sh
set -eu
: "${SHIMTOP:?set SHIMTOP to the shimtop binary}"
MEMORY=${MEMORY:-40}
SECONDS_RUN=${DURATION:-3600}
INTERVAL=${INTERVAL:-60}
lzma=$(ls /usr/lib/x86_64-linux-gnu/liblzma.so.5 2>/dev/null || true)
[ -n "$lzma" ] && command -v xz >/dev/null || { echo "memory_churn: needs xz and liblzma.so.5" >&2; exit 1; }

tmp=$(mktemp -d)
chmod 755 "$tmp"
churn=""
trap 'kill $churn 2>/dev/null; pkill -u "$who" -f memory_churn_loop 2>/dev/null; rm -rf "$tmp"' EXIT

as_user=""
who=$(id -un)
if [ "$(id -u)" = 0 ]; then
	as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
	who=nobody
fi
head -c 4000000 /dev/urandom >"$tmp/data"
chmod 644 "$tmp/data"
mkdir "$tmp/work" && chmod 777 "$tmp/work"

# The threads and the mappings: one python3, pid named in its argv for pkill.
cat >"$tmp/threads_and_maps.py" <<'PY'
import mmap, os, shutil, sys, threading, time
work, lib = sys.argv[1], sys.argv[2]
def brief():
    s = 0
    for i in range(2000):
        s += i * i
n = 0
while True:
    t = threading.Thread(target=brief)
    t.start()
    t.join()
    n += 1
    if n % 10 == 0:
        # A file mapped executable and unmapped: an MMAP2 record, no munmap record.
        path = os.path.join(work, "map-%d" % n)
        shutil.copyfile(lib, path)
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
            m.close()
        os.unlink(path)
PY
cat >"$tmp/loop.sh" <<EOF
# memory_churn_loop
python3 "$tmp/threads_and_maps.py" "$tmp/work" "$lzma" memory_churn_loop &
i=0
while :; do
	i=\$((i + 1))
	mkdir -p "$tmp/work/\$i" && cp "$lzma" "$tmp/work/\$i/"
	LD_LIBRARY_PATH="$tmp/work/\$i" xz -1 -T1 -c "$tmp/data" >/dev/null
	rm -rf "$tmp/work/\$i"
	ls -R /usr/share/locale >/dev/null
	python3 -c pass
done
EOF
$as_user sh "$tmp/loop.sh" memory_churn_loop &
churn=$!
if [ -n "${BESIDE:-}" ]; then
	python3 "$(dirname "$0")/heavy_cc.py" "$tmp/heavy.cc"
	chmod 644 "$tmp/heavy.cc"
	cat >"$tmp/beside.sh" <<EOF
# memory_churn_loop
while :; do
	sleep ${BESIDE_EVERY:-120}
	clang++ -std=c++17 -O2 -c "$tmp/heavy.cc" -o "$tmp/work/heavy.o"
done
EOF
	$as_user sh "$tmp/beside.sh" memory_churn_loop &
	churn="$churn $!"
fi
sleep 1

"$SHIMTOP" -a --batch --duration "$SECONDS_RUN" -F 10000 --memory "$MEMORY" \
	>"$tmp/report" 2>"$tmp/err" &
st=$!
echo "memory_churn: shimtop -a -F 10000 --memory $MEMORY for $SECONDS_RUN s; $(uptime); $(uname -r)"
most=0
t=0
while kill -0 "$st" 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	kb=$(awk '/^RssAnon/ { print $2 }' "/proc/$st/status" 2>/dev/null || echo 0)
	[ -n "$kb" ] || kb=0
	[ "$kb" -gt "$most" ] && most=$kb
	if [ $((t % INTERVAL)) = 0 ] && [ "$kb" -gt 0 ]; then
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$st/status" 2>/dev/null || echo 0)
		awk -v t="$t" -v a="$kb" -v m="$most" -v r="${rss:-0}" 'BEGIN {
			printf "%6d s  RssAnon %6.1f MB  most %6.1f MB  VmRSS %6.1f MB\n", t, a / 1024, m / 1024, r / 1024 }'
	fi
done
wait "$st" || { echo "shimtop failed: $(cat "$tmp/err")"; exit 1; }
awk -v m="$most" -v cap="$MEMORY" 'BEGIN { printf "most RssAnon %.1f MB under --memory %s\n", m / 1024, cap }'
grep -E "^(samples|history|memory|names)" "$tmp/report" || true
cat "$tmp/err"
