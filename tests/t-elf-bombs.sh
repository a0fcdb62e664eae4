#!/bin/sh
# t-elf-bombs.sh - decompression bombs in a binary another user made:
# a .gnu_debugdata (MiniDebugInfo) xz stream, SHF_COMPRESSED and .zdebug
# sections (.debug_line, .debug_frame: the source lines and the unwinder
# read those), each inflating to 128 MiB of zeros from a few KB.  Each
# section past its cap is said once, by name, and not read: the peak
# resident memory stays within 32 MiB of the same file's without it, the
# file's other names are kept, and shimtop -p on such a target exits 0.
# Read in place when root owns the file, from a copy when another user
# does.  The bombs are built here (tests/elf_bomb.py), not committed.
. "$TESTS_DIR/lib.sh"

for tool in cc objcopy strip; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
cat >"$TMP/spin.c" <<'EOF'
#include <stdio.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_hot(void) { for (;;) sink++; }
int main(void) { puts("ready"); fflush(stdout); spin_hot(); }
EOF
# -rdynamic: spin_hot is in .dynsym, the name a stripped file keeps.
cc -O1 -g -rdynamic -o "$TMP/spin.g" "$TMP/spin.c" && strip -s -o "$TMP/spin" "$TMP/spin.g" ||
	fail "cannot build the target"
bomb() { python3 "$TESTS_DIR/elf_bomb.py" "$@" || fail "elf_bomb.py $*"; }
bomb xz "$TMP/spin" "$TMP/spin.xz" 128
bomb zlib "$TMP/spin.g" "$TMP/spin.line" .debug_line 128
bomb zlib "$TMP/spin.g" "$TMP/spin.frame" .debug_frame 128
bomb zdebug "$TMP/spin.g" "$TMP/spin.zdebug" .zdebug_line 128
# A header that declares 3 GiB before a stream of 1 MiB: refused unread.
bomb zlib "$TMP/spin.g" "$TMP/spin.liar" .debug_line 1 3072

field() { sed -n "s/.*$1 \([0-9]*\).*/\1/p" "$2"; }

# read FILE: tests/read_elf's symbols, lines and peak memory of FILE into $TMP/FILE's name.read
read_file() {
	"$TESTS_BIN/read_elf" "$1" >"$TMP/${1##*/}.read" 2>"$TMP/${1##*/}.err" ||
		fail "read_elf $1 failed: $(cat "$TMP/${1##*/}.err")"
}

# One bomb read as the symbolizer, unwinder and annotation read a file:
# against the same file unbombed (CLEAN), with SECTION said.
judge_read() {	# judge_read FILE CLEAN SECTION
	read_file "$1"
	read_file "$2"
	b=$TMP/${1##*/} c=$TMP/${2##*/}
	peak=$(field peak_kb "$b.read") base=$(field peak_kb "$c.read")
	[ -n "$peak" ] && [ -n "$base" ] && [ "$peak" -lt $((base + 32768)) ] ||
		fail "${1##*/}: peak $peak KiB, against $base KiB without the bomb"
	grep -q "warning: $1: section $3 .*: not read" "$b.err" ||
		fail "${1##*/}: $3 not said: $(cat "$b.err")"
	[ "$(grep -c . "$b.err")" -le 1 ] || fail "${1##*/}: said more than once: $(cat "$b.err")"
	[ "$(field symbols "$b.read")" = "$(field symbols "$c.read")" ] ||
		fail "${1##*/}: $(cat "$b.read"), without the bomb $(cat "$c.read")"
}
judge_read "$TMP/spin.xz" "$TMP/spin" .gnu_debugdata
judge_read "$TMP/spin.line" "$TMP/spin.g" .debug_line
judge_read "$TMP/spin.frame" "$TMP/spin.g" .debug_frame
judge_read "$TMP/spin.zdebug" "$TMP/spin.g" .zdebug_line
judge_read "$TMP/spin.liar" "$TMP/spin.g" .debug_line
# The other sections of a file are read: its lines, with .debug_frame refused.
[ "$(field lines "$TMP/spin.frame.read")" = "$(field lines "$TMP/spin.g.read")" ] &&
	[ "$(field lines "$TMP/spin.g.read")" -gt 0 ] ||
	fail "lines lost with .debug_frame refused: $(cat "$TMP/spin.frame.read")"

# shimtop -p on the MiniDebugInfo bomb, as root on another user's
# process: in place (root's file), and from a copy (nobody's).
cp "$TMP/spin.xz" "$TMP/spin.theirs"
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$TMP/spin.theirs"
	chmod 755 "$TMP"
fi
for target in spin spin.xz spin.theirs; do
	rm -f "$TMP/$target.out"
	"$TMP/$target" >"$TMP/$target.out" &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	wait_file "$TMP/$target.out" || fail "$target: no first line in 20 s"
	max_rss_kb "$TMP/$target.rss" "$SHIMTOP" --batch --duration 1 --format json -p "$pid"
	kill "$pid"
	read -r st kib <"$TMP/$target.rss"
	[ "$st" -eq 0 ] || fail "shimtop -p on $target exited $st: $(cat "$TMP/$target.rss.err")"
	eval "kib_$(echo "$target" | tr . _)=$kib"
	json_get "$TMP/$target.rss.out" \
		"max(d['rows'], key=lambda r: r['self'])['symbol']" >"$TMP/$target.top" 2>&1
	[ "$(cat "$TMP/$target.top")" = spin_hot ] ||
		fail "shimtop -p on $target: the top row is $(cat "$TMP/$target.top"), not spin_hot"
	[ "$target" = spin ] && continue
	grep -q "warning: .*/$target: section .gnu_debugdata would inflate to more than" \
		"$TMP/$target.rss.err" || fail "$target: not said: $(cat "$TMP/$target.rss.err")"
	[ "$(grep -c "gnu_debugdata" "$TMP/$target.rss.err")" -le 1 ] ||
		fail "$target: said more than once: $(cat "$TMP/$target.rss.err")"
done
for kib in "$kib_spin_xz" "$kib_spin_theirs"; do
	[ "$kib" -lt $((kib_spin + 32768)) ] ||
		fail "shimtop -p peaked at $kib KiB on a bomb, $kib_spin KiB without"
done

finish
