#!/bin/sh
# t-integrity.sh - a damaged recording or snapshot is always said.  A
# recording cut at record boundaries (where nothing else can tell it was
# cut) and anywhere else, and recordings and snapshots with one bit
# flipped at seeded random places: each replay exits 1 with one line
# saying it is truncated or corrupt, and what came before the damage is
# still reported.  The whole file replays with exit 0.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --demo --batch --duration 1.5 -o "$TMP/rec" >/dev/null 2>"$TMP/err" ||
	fail "recording the demo: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --snapshot-on-exit "$TMP/snap" >/dev/null 2>"$TMP/err" ||
	fail "the whole recording: $(cat "$TMP/err")"

# damaged.py FILE OUTDIR: cut copies at 40 record boundaries and 10 other
# places, and 40 copies with a bit flipped (seed 38), one per line:
# "cut|flip NAME".
python3 - "$TMP/rec" "$TMP" <<'PY' >"$TMP/cases" || fail "making the damaged copies"
import os, random, struct, sys
data = open(sys.argv[1], 'rb').read()
hsize = struct.unpack_from('<I', data, 12)[0]
bounds, at = [], hsize
while at < len(data):
    bounds.append(at)
    at += struct.unpack_from('<I', data, at + 4)[0]
assert at == len(data) and len(bounds) > 100, (at, len(data), len(bounds))
rnd = random.Random(38)
cuts = [bounds[i * (len(bounds) - 1) // 39] for i in range(40)]
cuts += [rnd.randrange(hsize, len(data)) for _ in range(10)]
for n, c in enumerate(cuts):
    open(os.path.join(sys.argv[2], 'cut%d' % n), 'wb').write(data[:c])
    print('cut', 'cut%d' % n)
def flips(kind, whole):
    for n in range(40):
        b = bytearray(whole)
        b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        open(os.path.join(sys.argv[2], '%s%d' % (kind, n)), 'wb').write(b)
        print(kind, '%s%d' % (kind, n))
flips('flip', data)
flips('snapflip', open(sys.argv[2] + '/snap', 'rb').read())
PY

whole=0
while read -r kind name; do
	"$SHIMTOP" -i "$TMP/$name" --batch >"$TMP/out" 2>"$TMP/err" </dev/null
	st=$?
	case $kind in
	cut) want="is truncated at byte" ;;
	flip) want="is corrupt|is truncated|is not a recording shimtop reads|is version" ;;
	snapflip) want="snapshot '.*': the file is (corrupt|truncated)|not a shim" ;;
	esac
	if [ "$st" -ne 1 ] || ! grep -Eq "$want" "$TMP/err"; then
		fail "$kind $name replayed with exit $st: $(cat "$TMP/err")"
		whole=$((whole + 1))
	fi
	[ "$(grep -c . "$TMP/err")" -le 1 ] || fail "$name: more than one line: $(cat "$TMP/err")"
	# What came before the damage is still shown.
	if [ "$kind" = cut ]; then
		grep -q "^samples " "$TMP/out" || fail "$name: no report of the records before the cut"
	fi
done <"$TMP/cases"
echo "$(wc -l <"$TMP/cases") damaged files, $whole read as whole"

finish
