#!/bin/sh
# t-symbols-bad.sh - binaries that fight the symbolizer: deleted after
# start, stripped of .symtab, a corrupt ELF file in the maps, a JIT map
# with malformed lines, a library mapping replaced while sampling.  Each
# gives names where the bytes allow and [unknown] rows with the module
# named otherwise, and shimtop never fails.
. "$TESTS_DIR/lib.sh"

command -v cc >/dev/null || skip "cc is not installed"
SRC="$TESTS_DIR/fixtures/symbol-targets"
cc -O1 -o "$TMP/target" "$SRC/target.c" -ldl || fail "cannot build the target"
cc -O1 -shared -fPIC -DHOT_NAME=hot_a -o "$TMP/liba.so" "$SRC/hot.c" &&
	cc -O1 -shared -fPIC -DHOT_NAME=hot_b -o "$TMP/libb.so" "$SRC/hot.c" ||
	fail "cannot build the libraries"

# run_target NAME ARGS...: starts $TMP/NAME ARGS in the background ($TPID)
# and returns once it has said its set-up is done (its first line).
run_target() {
	name=$1
	shift
	rm -f "$TMP/$name.out"	# the last run's first line is no answer
	"$TMP/$name" "$@" >"$TMP/$name.out" &
	TPID=$!
	BG_PIDS="$BG_PIDS $TPID"
	wait_file "$TMP/$name.out" || fail "$name $*: no first line in 20 s"
}

# profile LABEL: 1.5 s of shimtop on $TPID into $TMP/p.json; fails unless
# it exits 0.
profile() {
	"$SHIMTOP" --batch --duration 1.5 --format json -p "$TPID" >"$TMP/p.json" \
		2>"$TMP/err" || fail "$1: shimtop failed: $(cat "$TMP/err")"
	kill "$TPID" 2>/dev/null
}

# share PYTHON-CONDITION-ON-r: the self share of the rows matching it.
share() {
	json_get "$TMP/p.json" "round(sum(r['self'] for r in d['rows'] if $1))"
}

# Deleted after start: still named, through the mapping (map_files).
cp "$TMP/target" "$TMP/deleted"
run_target deleted run
rm "$TMP/deleted"
profile "deleted binary"
s=$(share "r['symbol'] == 'hot_loop' and r['module'] == 'deleted (deleted)'")
[ "$s" -ge 50 ] || fail "deleted binary: hot_loop has $s%, expected most samples"

# Stripped (no .symtab): its static hot_loop is a row of its own all the
# same, by its .eh_frame entry: stripped+0xSTART, at the unstripped address.
cp "$TMP/target" "$TMP/stripped"
hot=$(nm "$TMP/target" | awk '$3 == "hot_loop" { sub(/^0+/, "", $1); print $1 }')
strip --strip-all "$TMP/stripped"
run_target stripped run
profile "stripped binary"
s=$(share "r['symbol'] == 'stripped+0x$hot' and r['module'] == 'stripped'")
[ "$s" -ge 50 ] || fail "stripped binary: stripped+0x$hot (hot_loop) has $s%, expected most"

# Stripped as Debian ships libraries (.dynsym only): its static functions
# become rows of their own by their .eh_frame entries, named
# MODULE+0xSTART at the addresses the unstripped copy's symbols give.
cc -O2 -shared -fPIC -o "$TMP/libstatic.so" "$SRC/static_hot.c" || fail "cannot build libstatic.so"
a=$(nm "$TMP/libstatic.so" | awk '$3 == "heavy_a" { sub(/^0+/, "", $1); print $1 }')
b=$(nm "$TMP/libstatic.so" | awk '$3 == "heavy_b" { sub(/^0+/, "", $1); print $1 }')
strip --strip-all "$TMP/libstatic.so"
readelf -SW "$TMP/libstatic.so" | grep -q '\.symtab' && fail "strip left a symbol table in libstatic.so"
run_target target lib "$TMP/libstatic.so"
profile "stripped library"
sa=$(share "r['symbol'] == 'libstatic.so+0x$a' and r['module'] == 'libstatic.so'")
sb=$(share "r['symbol'] == 'libstatic.so+0x$b' and r['module'] == 'libstatic.so'")
su=$(share "r['unknown'] and r['module'] == 'libstatic.so'")
echo "stripped library: heavy_a (0x$a) $sa%, heavy_b (0x$b) $sb%, [unknown] $su%"
[ "$sa" -ge 50 ] && [ "$sb" -ge 12 ] && [ "$su" -le 2 ] ||
	fail "stripped library: heavy_a $sa%, heavy_b $sb%, [unknown] $su% (expected about 75, 25, 0)"
kill "$TPID" 2>/dev/null

# A library whose ELF header is overwritten once loaded: not ELF any more.
cp "$TMP/liba.so" "$TMP/libcorrupt.so"
run_target target lib "$TMP/libcorrupt.so"
head -c 4096 /dev/urandom | dd of="$TMP/libcorrupt.so" bs=64 count=1 conv=notrunc 2>/dev/null
profile "corrupt ELF"
s=$(share "r['unknown'] and r['module'] == 'libcorrupt.so'")
[ "$s" -ge 50 ] || fail "corrupt ELF: [unknown] of libcorrupt.so has $s%, expected most"

# A JIT map with malformed lines around one good one.
run_target target jit
addr=$(head -1 "$TMP/target.out")
LEFT_FILES="$LEFT_FILES /tmp/perf-$TPID.map"
{
	printf 'not a line\n\n%s\nzz 10 bad_hex\n%s ffffffffffffffff wraps\n' "$addr" "$addr"
	printf '%s 100 jitted_spin\n' "$addr"
	head -c 300 /dev/urandom | tr -d '\n'
	printf '\n1 2\n'
} >"/tmp/perf-$TPID.map"
profile "malformed JIT map"
s=$(share "r['symbol'] == 'jitted_spin' and r['module'] == '[jit]'")
[ "$s" -ge 50 ] || fail "JIT map: jitted_spin has $s%, expected most samples"
rm -f "/tmp/perf-$TPID.map"

# A library unloaded and another loaded in its place, every 0.3 s.
run_target target swap "$TMP/liba.so" "$TMP/libb.so"
profile "replaced mapping"
a=$(share "r['symbol'] == 'hot_a' and r['module'] == 'liba.so'")
b=$(share "r['symbol'] == 'hot_b' and r['module'] == 'libb.so'")
[ "$a" -ge 15 ] && [ "$b" -ge 15 ] ||
	fail "replaced mapping: hot_a $a%, hot_b $b%; expected both named in their own library"
wrong=$(share "r['symbol'] in ('hot_a', 'hot_b') and r['module'] not in ('liba.so', 'libb.so')")
[ "$wrong" -eq 0 ] || fail "replaced mapping: $wrong% named in the wrong module"
finish
