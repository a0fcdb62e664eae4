#!/bin/sh
# t-unwind-cache.sh - the unwind rows' copies in the cache directory
# (unwind_rows_cache.c): a first session on tests/call_paths_nofp makes
# its files' rows and writes them (owner-only, named by build-id); the
# second reads them and makes none, with the same known tree; copies cut
# short, with a rule the walk does not know, of another file, writable
# by others or planted as a link are refused or not used, and the tree is
# still right.
. "$TESTS_DIR/lib.sh"

NOFP="$TESTS_BIN/call_paths_nofp"
[ -x "$NOFP" ] || skip "call_paths_nofp is not built"
SHIMTOP_CACHE_DIR="$TMP/cache"
export SHIMTOP_CACHE_DIR
mkdir -m 700 "$SHIMTOP_CACHE_DIR"
id=$(readelf -n "$NOFP" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || skip "call_paths_nofp has no build-id"

# run NAME: a session on call_paths_nofp with the default chains, every
# copy walked here (SHIMTOP_KERNEL_WALK=0: rows are what walks here use
# where the kernel walks nothing, and where it does, a file whose compiled
# pages reach the kernel first never has its rows opened); its tree is the
# known one; prints its rows files (made, from_cache, cache_refused).
run() {
	SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" --batch --format json -- "$NOFP" --seconds 1 \
		>"$TMP/$1.json" 2>"$TMP/err" || fail "$1: $(cat "$TMP/err")"
	SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" --batch --format folded -- "$NOFP" --seconds 1 \
		>"$TMP/$1.folded" 2>"$TMP/err" || fail "$1, folded: $(cat "$TMP/err")"
	python3 "$TESTS_DIR/check_paths.py" "$TMP/$1.folded" ||
		fail "$1: the tree is not call_paths' ($(sort -t' ' -k2 -n "$TMP/$1.folded" | tail -5))"
	json_get "$TMP/$1.json" "' '.join(str(d['tree']['unwind_rows_files'][k]) for k in ('made', 'from_cache', 'cache_refused'))"
}

set -- $(run first)
[ "$1" -ge 2 ] && [ "$2" -eq 0 ] || fail "first session: rows files $*, want 2 or more made, none from the cache"
[ -f "$SHIMTOP_CACHE_DIR/rows-$id" ] || fail "no copy rows-$id: $(ls "$SHIMTOP_CACHE_DIR")"
[ "$(stat -c %a "$SHIMTOP_CACHE_DIR/rows-$id")" = 600 ] ||
	fail "rows-$id is mode $(stat -c %a "$SHIMTOP_CACHE_DIR/rows-$id"), not 600"
set -- $(run second)
[ "$2" -ge 2 ] && [ "$3" -eq 0 ] || fail "second session: rows files $*, want 2 or more from the cache"
echo "second session: $2 files' rows from the cache, $1 made"

copy="$SHIMTOP_CACHE_DIR/rows-$id"
cp "$copy" "$TMP/good"
# Cut short by a byte: the counts no longer add up.
head -c -1 "$TMP/good" >"$copy"
set -- $(run cut)
[ "$3" -ge 1 ] || fail "a copy cut short was not refused: rows files $*"
# A span's rule no walk knows: the first span's kind byte.
cp "$TMP/good" "$copy"
python3 - "$copy" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
nfdes = struct.unpack_from("<Q", b, 80)[0]
b[104 + 24 * nfdes + 16 + 10] = 0xEE
open(sys.argv[1], "wb").write(b)
PY
set -- $(run rule)
[ "$3" -ge 1 ] || fail "a copy with an unknown rule was not refused: rows files $*"
# Another file's copy under this file's name (libc's, say).
other=$(ls "$SHIMTOP_CACHE_DIR" | grep '^rows-' | grep -v "$id" | head -1)
cp "$SHIMTOP_CACHE_DIR/$other" "$copy"
set -- $(run foreign)
[ "$3" -ge 1 ] || fail "another file's copy was not refused: rows files $*"
# Writable by others, or a link: not read (made again, written back whole).
cp "$TMP/good" "$copy"
chmod 666 "$copy"
set -- $(run writable)
[ "$1" -ge 1 ] || fail "a copy others may write was read: rows files $*"
rm -f "$copy"
cp "$TMP/good" "$TMP/target"
cp "$TMP/good" "$TMP/target.orig"
ln -s "$TMP/target" "$copy"
set -- $(run link)
[ "$1" -ge 1 ] || fail "a copy planted as a link was read: rows files $*"
[ -L "$copy" ] && fail "the planted link is still there after a session wrote its copy"
cmp -s "$TMP/target" "$TMP/target.orig" || fail "a session wrote through the planted link"
finish
