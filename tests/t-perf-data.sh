#!/bin/sh
# t-perf-data.sh - shimtop -i reads what perf record writes: perf.data
# with frame-pointer chains, with --call-graph dwarf (unwound here), with
# a fixed period, and perf record -a's; the same samples as perf report
# counts, tests/call_paths' known tree, the header line from the file's
# features and its samples' span; PERF_RECORD_MMAP of old kernels,
# perf.data version 1, LBR call stacks, old perf's pipes (tracepoints
# named by the tracing data), gzip'd files; records put back in time
# order; group reads ({a,b}:S, IPC); files found by build-id, in perf's
# cache and under --symfs; perf record -z's compressed records; diff, range,
# export, snapshot and the UI on a perf.data; records not read counted.
# Damaged files: cut short (what came before is shown, exit 1, one line
# saying where; a pipe cut between records too), cut in its feature
# sections (every sample, a line saying what it lost), bad sizes and
# layouts (one line, exit 1).
. "$TESTS_DIR/lib.sh"
# The cases below say where perf's build-id cache is (HOME, PERF_BUILDID_DIR):
# perf exports PERF_BUILDID_DIR to what it runs, a suite run under perf included.
unset PERF_BUILDID_DIR

command -v perf >/dev/null || skip "perf is not installed"
FP="$TESTS_BIN/call_paths"
NOFP="$TESTS_BIN/call_paths_nofp"

# perf_samples FILE: how many samples perf itself reads in FILE.
perf_samples() {
	perf report -i "$1" -D --stdio 2>/dev/null | grep -c "PERF_RECORD_SAMPLE("
}

perf record -q -g -o "$TMP/fp.data" -- "$FP" --seconds 1 >/dev/null 2>"$TMP/err" ||
	skip "perf record cannot sample here: $(tail -1 "$TMP/err")"
"$SHIMTOP" -i "$TMP/fp.data" -b --format json >"$TMP/fp.json" 2>"$TMP/err" ||
	fail "-i perf.data: $(cat "$TMP/err")"
want=$(perf_samples "$TMP/fp.data")
fp_samples=$want	# (expect_run sets want)
got=$(json_get "$TMP/fp.json" "d['samples']")
[ "$got" -eq "$want" ] || fail "-i perf.data: $got samples, perf reads $want"
[ "$want" -gt 1000 ] || fail "perf recorded only $want samples"
"$SHIMTOP" -i "$TMP/fp.data" -b --format folded >"$TMP/fp.folded" 2>"$TMP/err" ||
	fail "-i perf.data folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/fp.folded" ||
	fail "perf.data's fp chains: $(sort -t' ' -k2 -n "$TMP/fp.folded" | tail -5)"
"$SHIMTOP" -i "$TMP/fp.data" -b >"$TMP/fp.txt" 2>&1 || fail "-i perf.data text: $(cat "$TMP/fp.txt")"
grep -Eq "^note: perf.data from perf [0-9][^ ]* on .*: .*perf record -q -g -o $TMP/fp.data -- $FP --seconds 1" \
	"$TMP/fp.txt" || fail "the header line: $(sed -n 1,4p "$TMP/fp.txt")"
grep -q "leaf_work" "$TMP/fp.txt" || fail "no leaf_work row: $(sed -n 6,9p "$TMP/fp.txt")"
# A recording's broken chains name how to record whole ones, not the UI's U.
perf record -q -g -o "$TMP/nofp.data" -- "$TESTS_BIN/call_paths_nofp" --seconds 0.3 \
	>/dev/null 2>&1 || fail "perf record -g of call_paths_nofp failed"
"$SHIMTOP" -i "$TMP/nofp.data" -b >"$TMP/nofp.txt" 2>&1 || fail "-i nofp.data: $(cat "$TMP/nofp.txt")"
grep -q "^chains: .*code without frame pointers (as Debian builds); perf record --call-graph dwarf records what unwinds it\$" \
	"$TMP/nofp.txt" || fail "a perf.data's chains hint: $(grep '^chains' "$TMP/nofp.txt")"
# A command recorded from a long path (a deep build directory): batch says it whole.
long=$TMP/$(printf 'a-long-directory-name-%03d/' 1 2 3 4 5 6 7 8 9 10 11 12)
mkdir -p "$long" && cp "$FP" "$long/prog"
perf record -q -o "$TMP/long.data" -- "$long/prog" --seconds 0.2 >/dev/null 2>&1 ||
	fail "perf record from a long path failed"
"$SHIMTOP" -i "$TMP/long.data" -b >"$TMP/long.txt" 2>&1 || fail "-i long.data: $(cat "$TMP/long.txt")"
grep -q "^note: perf.data .*: .*perf record -q -o $TMP/long.data -- $long/prog --seconds 0.2\$" \
	"$TMP/long.txt" || fail "a long command is cut: $(grep '^note' "$TMP/long.txt")"

# agrees_with_perf_script NAME WHAT: shimtop -i $TMP/NAME.data (JSON in
# $TMP/NAME.json) has perf script's samples, and its symbols' shares
# overlap perf script's by 99% or more.
agrees_with_perf_script() {
	perf script -i "$TMP/$1.data" -G -F ip,sym >"$TMP/$1.perf" 2>/dev/null
	[ -s "$TMP/$1.perf" ] || fail "$2: perf script does not read the file"
	"$SHIMTOP" -i "$TMP/$1.data" -b --format json >"$TMP/$1.json" 2>"$TMP/err" ||
		fail "-i a perf.data of $2: $(cat "$TMP/err")"
	[ "$(json_get "$TMP/$1.json" "d['samples']")" -eq "$(wc -l <"$TMP/$1.perf")" ] ||
		fail "$2: $(json_get "$TMP/$1.json" "d['samples']") samples, perf script $(wc -l <"$TMP/$1.perf")"
	set -- "$2" $(python3 "$TESTS_DIR/overlap.py" "$TMP/$1.json" "$TMP/$1.perf" 2>"$TMP/overlap.err")
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 99 else 1)" "${2:-0}" ||
		fail "$1: overlap ${2:-none}% with perf script: $(head -3 "$TMP/overlap.err")"
}

# Kernels before 3.16 wrote PERF_RECORD_MMAP, not MMAP2: the same file
# with every map so (perf_rewrite.py mmap1) reads as perf reads it.
python3 "$TESTS_DIR/perf_rewrite.py" mmap1 "$TMP/fp.data" "$TMP/mmap1.data" ||
	fail "cannot rewrite the maps as PERF_RECORD_MMAP"
agrees_with_perf_script mmap1 PERF_RECORD_MMAP
[ "$(json_get "$TMP/mmap1.json" "sum(r['self'] for r in d['rows'] if r['module'] == '[anon]') < 1")" = True ] ||
	fail "PERF_RECORD_MMAP: samples in [anon]: $(head -c 400 "$TMP/mmap1.json")"

# perf.data version 1 ("PERFFILE", 64-byte attributes, no features), of
# the PERF_RECORD_MMAP file: a file as perf of 2010 wrote it.
python3 "$TESTS_DIR/perf_rewrite.py" v1 "$TMP/mmap1.data" "$TMP/v1.data" ||
	fail "cannot rewrite the header as version 1"
agrees_with_perf_script v1 "version 1"
json_get "$TMP/v1.json" "d['source']['note']" | grep -q "^perf.data version 1 (perf of Linux 2.6.36 or before" ||
	fail "version 1's note: $(json_get "$TMP/v1.json" "d['source']['note']")"

# --call-graph lbr (Intel's call-stack LBR, which a VM cannot record):
# the same samples with their user callers as branch records and the
# user chain cut to garbage (perf_rewrite.py lbr) give the known tree and
# perf script's chains, frame by frame.  Each record as the hardware
# makes it: from the call instruction, to the callee's entry (perf
# script's offsets of the frames give the entries).
perf script -i "$TMP/fp.data" -F ip,sym,symoff >"$TMP/fp.syms" 2>/dev/null
python3 "$TESTS_DIR/perf_rewrite.py" lbr "$TMP/fp.data" "$TMP/lbr.data" "$TMP/fp.syms" ||
	fail "cannot rewrite the chains as LBR call stacks"
agrees_with_perf_script lbr "--call-graph lbr"
"$SHIMTOP" -i "$TMP/lbr.data" -b --format folded >"$TMP/lbr.folded" 2>"$TMP/err" ||
	fail "--call-graph lbr folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/lbr.folded" ||
	fail "LBR call stacks: $(sort -t' ' -k2 -n "$TMP/lbr.folded" | tail -5)"
perf script -i "$TMP/lbr.data" -F ip,sym >"$TMP/lbr.chains" 2>/dev/null
lbr_paths=$(python3 "$TESTS_DIR/path_overlap.py" "$TMP/lbr.folded" "$TMP/lbr.chains" 64 \
	2>"$TMP/overlap.err")
echo "--call-graph lbr: whole chains overlap perf script's by $lbr_paths%"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 99.5 else 1)" "${lbr_paths:-0}" ||
	fail "LBR chains overlap perf script's ${lbr_paths:-none}%: $(head -4 "$TMP/overlap.err")"
# A precise event's ip on the newest call's own instruction, which the
# records already hold as made: perf's chain starts at the call's target
# (each function once); the table keeps the ip, as perf report's.
python3 "$TESTS_DIR/perf_rewrite.py" lbr-on-call "$TMP/fp.data" "$TMP/lbrcall.data" "$TMP/fp.syms" ||
	fail "cannot rewrite LBR samples onto their calls"
agrees_with_perf_script lbrcall "--call-graph lbr, ip on the call"
"$SHIMTOP" -i "$TMP/lbrcall.data" -b --format folded >"$TMP/lbrcall.folded" 2>"$TMP/err" ||
	fail "--call-graph lbr on calls, folded: $(cat "$TMP/err")"
perf script -i "$TMP/lbrcall.data" -F ip,sym >"$TMP/lbrcall.chains" 2>/dev/null
lbr_paths=$(python3 "$TESTS_DIR/path_overlap.py" "$TMP/lbrcall.folded" "$TMP/lbrcall.chains" 64 \
	2>"$TMP/overlap.err")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 99.5 else 1)" "${lbr_paths:-0}" ||
	fail "LBR chains with the ip on a call overlap perf script's ${lbr_paths:-none}%: $(head -4 "$TMP/overlap.err")"

# Gzip'd (perf.data.gz, as another perf GUI opens it): the same samples,
# in one member or two, inflated into a file with no name (nothing is left
# in $TMPDIR); cut or damaged, what came before and exit 1; a compression
# bomb and gzip'd other data refused in one line.
mkdir "$TMP/gztmp"
gzip -c "$TMP/fp.data" >"$TMP/fp.data.gz"
TMPDIR="$TMP/gztmp" "$SHIMTOP" -i "$TMP/fp.data.gz" -b --format json >"$TMP/gz.json" 2>"$TMP/err" ||
	fail "-i perf.data.gz: $(cat "$TMP/err")"
[ "$(json_get "$TMP/gz.json" "d['samples']")" -eq "$fp_samples" ] ||
	fail "perf.data.gz: $(json_get "$TMP/gz.json" "d['samples']") samples, not $fp_samples"
[ -z "$(ls -A "$TMP/gztmp")" ] || fail "-i perf.data.gz left $(ls -A "$TMP/gztmp") in \$TMPDIR"
size=$(stat -c %s "$TMP/fp.data")
{ head -c $((size / 2)) "$TMP/fp.data" | gzip -c; tail -c +$((size / 2 + 1)) "$TMP/fp.data" | gzip -c; } \
	>"$TMP/two.gz"
"$SHIMTOP" -i "$TMP/two.gz" -b --format json >"$TMP/two.json" 2>"$TMP/err" ||
	fail "-i of a perf.data gzip'd in two members: $(cat "$TMP/err")"
[ "$(json_get "$TMP/two.json" "d['samples']")" -eq "$fp_samples" ] || fail "two gzip members: not every sample"
gz=$(stat -c %s "$TMP/fp.data.gz")
head -c $((gz / 2)) "$TMP/fp.data.gz" >"$TMP/cut.gz"
"$SHIMTOP" -i "$TMP/cut.gz" -b --format json >"$TMP/cutgz.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut perf.data.gz did not exit 1"
grep -q "^shimtop: warning: perf.data '$TMP/cut.gz': its gzip data is cut short at byte $((gz / 2)); what the [0-9]* bytes before held is read" \
	"$TMP/err" || fail "a cut perf.data.gz said: $(cat "$TMP/err")"
[ "$(json_get "$TMP/cutgz.json" "d['samples']")" -gt 0 ] || fail "a cut perf.data.gz: nothing shown"
# Cut past its data, in the features: the samples are whole, yet bytes
# were lost, and the exit says so whatever the recording's size.
python3 - "$TMP/fp.data" "$TMP/cutfeat.gz" <<'PY'
import gzip, struct, sys
b = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', b, 40)
end = off + size + 16
whole = gzip.compress(b[:end]) + gzip.compress(b[end:])
open(sys.argv[2], 'wb').write(whole[:len(whole) - 20])
PY
"$SHIMTOP" -i "$TMP/cutfeat.gz" -b --format json >"$TMP/cutfeat.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a perf.data.gz cut in its features did not exit 1: $(cat "$TMP/err")"
[ "$(json_get "$TMP/cutfeat.json" "d['samples']")" -eq "$fp_samples" ] ||
	fail "a perf.data.gz cut in its features: not every sample"
grep -q "^shimtop: perf.data '$TMP/cutfeat.gz': its gzip data is cut short at byte [0-9]*: what came before is shown; the table" \
	"$TMP/err" || fail "a perf.data.gz cut in its features said: $(cat "$TMP/err")"
python3 - "$TMP/fp.data.gz" "$TMP/bad.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for k in range(len(b) // 2, len(b) // 2 + 64):
    b[k] ^= 0x5a
open(sys.argv[2], 'wb').write(b)
PY
"$SHIMTOP" -i "$TMP/bad.gz" -b --format json >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || fail "a damaged perf.data.gz did not exit 1"
grep -q "^shimtop: warning: perf.data '$TMP/bad.gz': its gzip data is damaged (zlib: [^)]*) at byte" \
	"$TMP/err" || fail "a damaged perf.data.gz said: $(cat "$TMP/err")"
head -c 300000000 /dev/zero | gzip -c >"$TMP/bomb.gz"
expect_run 1 "^shimtop: perf.data '$TMP/bomb.gz' inflates past 200 times its size \(a compression bomb\?\)" -- \
	"$SHIMTOP" -i "$TMP/bomb.gz" -b
echo "not perf data at all" | gzip -c >"$TMP/text.gz"
expect_run 1 "^shimtop: '$TMP/text.gz' is gzip'd, and what it holds is not a perf.data file" -- \
	"$SHIMTOP" -i "$TMP/text.gz" -b
TMPDIR=/nonexistent "$SHIMTOP" -i "$TMP/fp.data.gz" -b >/dev/null 2>"$TMP/err" ||
	fail "-i perf.data.gz with \$TMPDIR missing (/tmp then): $(cat "$TMP/err")"

# Pipe mode (perf record -o - | shimtop -i -): the attributes and the
# features come as records; the same samples and tree.
perf record -q -g -o - -- "$FP" --seconds 1 2>/dev/null >"$TMP/pipe.data" ||
	fail "perf record -o - failed"
"$SHIMTOP" -i - -b --format json <"$TMP/pipe.data" >"$TMP/pipe.json" 2>"$TMP/err" ||
	fail "-i - (pipe mode): $(cat "$TMP/err")"
[ "$(json_get "$TMP/pipe.json" "d['samples']")" -eq "$(perf_samples "$TMP/pipe.data")" ] ||
	fail "pipe mode: not perf's sample count"
json_get "$TMP/pipe.json" "d['source']['note']" | grep -q "perf record -q -g -o - -- $FP" ||
	fail "pipe mode's header line: $(json_get "$TMP/pipe.json" "d['source']['note']")"
perf record -q -g -o - -- "$FP" --seconds 0.5 2>/dev/null |
	"$SHIMTOP" -i - -b --format folded >"$TMP/pipe.folded" 2>"$TMP/err" || fail "a live pipe: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/pipe.folded" ||
	fail "pipe mode's tree: $(sort -t' ' -k2 -n "$TMP/pipe.folded" | tail -5)"
size=$(stat -c %s "$TMP/pipe.data")
head -c $((size / 2)) "$TMP/pipe.data" >"$TMP/pipecut.data"
"$SHIMTOP" -i - -b --format json <"$TMP/pipecut.data" >"$TMP/pipecut.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut pipe did not exit 1"
grep -Eq "perf.data '-' stops at byte [0-9]+ of its data \(a record cut short\)" "$TMP/err" ||
	fail "a cut pipe's message: $(cat "$TMP/err")"
# Cut at a record's boundary (the final round's start): samples after the
# last round say the stream was cut off, exit 1; the samples before shown.
python3 - "$TMP/pipe.data" "$TMP/pipebound.data" <<'PY' || fail "cannot cut the pipe at a record"
import struct, sys
d = open(sys.argv[1], "rb").read()
at, last = 16, 16
while at + 8 <= len(d):
    last = at
    at += struct.unpack_from("<IHH", d, at)[2]
assert struct.unpack_from("<I", d, last)[0] == 68, "the stream does not end with a round"
open(sys.argv[2], "wb").write(d[:last])
PY
"$SHIMTOP" -i - -b --format json <"$TMP/pipebound.data" >"$TMP/pipebound.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a pipe cut at a record's boundary did not exit 1"
grep -Eq "^shimtop: perf.data stream '-' stops inside a round, [0-9]+ samples after the last \(perf record was cut off" \
	"$TMP/err" || fail "a pipe cut at a record's boundary: $(cat "$TMP/err")"
[ "$(json_get "$TMP/pipebound.json" "d['samples']")" -eq "$(json_get "$TMP/pipe.json" "d['samples']")" ] ||
	fail "a pipe cut after its last sample lost samples"
# Perf before 5.x (no feature records) wrote no round at a stream's end:
# the same stream as such a perf wrote it ends whole, exit 0, nothing said.
python3 "$TESTS_DIR/perf_rewrite.py" oldpipe "$TMP/pipebound.data" "$TMP/oldbound.data" ||
	fail "cannot rewrite the pipe as old perf's"
"$SHIMTOP" -i - -b --format json <"$TMP/oldbound.data" >"$TMP/oldbound.json" 2>"$TMP/err" ||
	fail "an old perf's stream with no final round: $(cat "$TMP/err")"
[ ! -s "$TMP/err" ] || fail "an old perf's whole stream: $(cat "$TMP/err")"
[ "$(json_get "$TMP/oldbound.json" "d['samples']")" -eq "$(json_get "$TMP/pipebound.json" "d['samples']")" ] ||
	fail "an old perf's stream with no final round lost samples"
# A file cut in its feature sections: every sample, and what is missing said.
python3 - "$TMP/fp.data" "$TMP/featcut.data" <<'PY' || fail "cannot cut the features"
import struct, sys
d = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", d, 40)
open(sys.argv[2], "wb").write(d[:off + size + 40])
PY
"$SHIMTOP" -i "$TMP/featcut.data" -b --format json >"$TMP/featcut.json" 2>"$TMP/err" ||
	fail "a file cut in its features: $(cat "$TMP/err")"
grep -q "^shimtop: warning: perf.data '$TMP/featcut.data' is cut short in its feature sections, which held its .*command line.*build-ids: its samples are all here" \
	"$TMP/err" || fail "a file cut in its features said: $(cat "$TMP/err")"
[ "$(json_get "$TMP/featcut.json" "d['samples']")" -eq "$want" ] ||
	fail "a file cut in its features lost samples"
# Whole recordings that end unlike perf's: perf's messages after a pipe's
# stream (2>&1), a file perf record never closed (killed: its header gives
# no data size, nor features).  Every sample, said in the status, exit 0;
# the killed file cut inside a record, exit 1.
{ cat "$TMP/pipe.data"; echo "[ perf record: Woken up 1 times to write data ]"; } >"$TMP/pipemsg.data"
"$SHIMTOP" -i - -b <"$TMP/pipemsg.data" >"$TMP/pipemsg.txt" 2>&1 ||
	fail "a pipe with perf's messages after it: $(cat "$TMP/pipemsg.txt")"
grep -q "^status: end of recording (bytes from $(stat -c %s "$TMP/pipe.data") on are no record, left: perf's messages by 2>&1?) after" \
	"$TMP/pipemsg.txt" || fail "a pipe with perf's messages after it said: $(grep -v '^ ' "$TMP/pipemsg.txt" | head -5)"
grep -q "^samples $(json_get "$TMP/pipe.json" "d['samples']") " "$TMP/pipemsg.txt" ||
	fail "a pipe with perf's messages after it lost samples: $(grep '^samples' "$TMP/pipemsg.txt")"
python3 - "$TMP/fp.data" "$TMP/killed.data" "$TMP/killedcut.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', d, 40)
d = d[:off + size]
struct.pack_into('<Q', d, 48, 0)                  # no data size
d[72:104] = bytes(32)                              # no features
open(sys.argv[2], 'wb').write(d)
open(sys.argv[3], 'wb').write(d[:off + size // 2 + 3])
PY
"$SHIMTOP" -i "$TMP/killed.data" -b >"$TMP/killed.txt" 2>&1 || fail "a killed perf's file: $(cat "$TMP/killed.txt")"
grep -q "^status: end of recording (read to the file's end: perf record never closed it, killed?) after" \
	"$TMP/killed.txt" || fail "a killed perf's file said: $(grep -v '^ ' "$TMP/killed.txt" | head -5)"
grep -q "^samples $fp_samples " "$TMP/killed.txt" || fail "a killed perf's file: $(grep '^samples' "$TMP/killed.txt")"
"$SHIMTOP" -i "$TMP/killedcut.data" -b >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || fail "a killed perf's file cut inside a record did not exit 1"
grep -q "stops at byte [0-9]* of its data (a record cut short)" "$TMP/err" ||
	fail "a killed perf's file cut inside a record said: $(cat "$TMP/err")"
# An AUX area trace (Intel PT, CoreSight, SPE; none here): a file's by its
# feature bit, a pipe's by its AUXTRACE_INFO record; refused in one line
# naming perf's command that makes samples of it.
python3 - "$TMP/fp.data" "$TMP/aux.data" "$TMP/pipe.data" "$TMP/auxpipe.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', d, 72, struct.unpack_from('<Q', d, 72)[0] | 1 << 18)  # HEADER_AUXTRACE
open(sys.argv[2], 'wb').write(d)
d = bytearray(open(sys.argv[3], 'rb').read())
at = 16
while struct.unpack_from('<I', d, at)[0] >= 64:   # perf's header records first
    at += struct.unpack_from('<H', d, at + 6)[0]
struct.pack_into('<I', d, at, 70)                  # PERF_RECORD_AUXTRACE_INFO
open(sys.argv[4], 'wb').write(d)
PY
aux="it holds an AUX area trace \(Intel PT, CoreSight, SPE\), which shimtop does not decode: perf inject --itrace=i100us -i FILE -o OUT makes samples of it for shimtop"
expect_run 1 "^shimtop: perf.data '$TMP/aux.data': $aux\$" -- "$SHIMTOP" -i "$TMP/aux.data" -b
expect_run 1 "^shimtop: perf.data '-': $aux" -- sh -c "'$SHIMTOP' -i - -b <'$TMP/auxpipe.data'"
head -c 16 "$TMP/pipe.data" >"$TMP/pipehead.data"
expect_run 1 "perf.data '-': the stream ends before it says what was sampled" -- \
	sh -c "'$SHIMTOP' -i - -b <'$TMP/pipehead.data'"
printf 'not perf data at all' >"$TMP/junk"
expect_run 1 "perf.data '-': not a perf.data file \(bad header\)" -- sh -c "'$SHIMTOP' -i - -b <'$TMP/junk'"

# --call-graph dwarf: the user registers and stack copies unwound here.
perf record -q --call-graph dwarf -o "$TMP/dw.data" -- "$NOFP" --seconds 1 >/dev/null 2>&1 ||
	fail "perf record --call-graph dwarf failed"
"$SHIMTOP" -i "$TMP/dw.data" -b --format folded >"$TMP/dw.folded" 2>"$TMP/err" ||
	fail "-i a dwarf perf.data: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/dw.folded" ||
	fail "perf.data's dwarf stacks: $(sort -t' ' -k2 -n "$TMP/dw.folded" | tail -5)"

# -e a,b: each event its own column, its samples told apart by their ids,
# in a file and in a pipe; each event's count as perf script counts it.
perf record -q -e cpu-clock,task-clock -o "$TMP/two.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -e cpu-clock,task-clock failed"
perf script -i "$TMP/two.data" -F event 2>/dev/null | sort | uniq -c >"$TMP/two.counts"
"$SHIMTOP" -i "$TMP/two.data" -b --format json >"$TMP/two.json" 2>"$TMP/err" ||
	fail "-i a two-event perf.data: $(cat "$TMP/err")"
perf record -q -e cpu-clock,task-clock -o - -- "$FP" --seconds 0.5 2>/dev/null |
	"$SHIMTOP" -i - -b --format json >"$TMP/twopipe.json" 2>"$TMP/err" ||
	fail "-i - with two events: $(cat "$TMP/err")"
python3 - "$TMP/two.json" "$TMP/two.counts" "$TMP/twopipe.json" <<'PY' || fail "-e a,b: see above"
import json, sys
d = json.load(open(sys.argv[1]))
perf = {l.split()[1].rstrip(':'): int(l.split()[0]) for l in open(sys.argv[2]) if l.strip()}
got = {e['event']: e['samples'] for e in d['source']['sampled']}
if got != perf:
    sys.exit(f"per-event samples {got}, perf script counts {perf}")
leaf = [r for r in d['rows'] if r['symbol'] == 'leaf_work']
if not leaf or set(leaf[0]['events']) != {'cpu-clock', 'task-clock'} or min(leaf[0]['events'].values()) < 90:
    sys.exit(f"leaf_work's shares by event: {leaf[:1]}")
p = json.load(open(sys.argv[3]))
if [e['event'] for e in p['source']['sampled']] != ['cpu-clock', 'task-clock'] or \
   min(e['samples'] for e in p['source']['sampled']) < 100:
    sys.exit(f"pipe mode's events: {p['source']['sampled']}")
PY

# Six events (perf 3.4's files hold six): each its own, as perf counts them.
six=cpu-clock,task-clock,page-faults,minor-faults,context-switches,cpu-migrations
perf record -q -e "$six" -o "$TMP/six.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -e $six failed"
perf script -i "$TMP/six.data" -F event 2>/dev/null | sort | uniq -c >"$TMP/six.counts"
"$SHIMTOP" -i "$TMP/six.data" -b --format json >"$TMP/six.json" 2>"$TMP/err" ||
	fail "-i a six-event perf.data: $(cat "$TMP/err")"
expect_run 2 "^shimtop: -e cycles: '$TMP/six.data' sampled $six; with -i, -e names one of them to show\$" -- \
	"$SHIMTOP" -i "$TMP/six.data" -e cycles -b
expect_run 2 "^shimtop: -e chooses how samples are taken; a recording \(-i\) was sampled already" -- \
	"$SHIMTOP" -i "$TMP/six.data" -e cpu-clock,task-clock -b
python3 - "$TMP/six.json" "$TMP/six.counts" "$six" <<'PY' || fail "six events: see above"
import json, sys
d = json.load(open(sys.argv[1]))
perf = {l.split()[1].rstrip(':'): int(l.split()[0]) for l in open(sys.argv[2]) if l.strip()}
got = {e['event']: e['samples'] for e in d['source']['sampled']}
if [e['event'] for e in d['source']['sampled']] != sys.argv[3].split(','):
    sys.exit(f"events {list(got)}, recorded {sys.argv[3]}")
if {k: v for k, v in got.items() if v} != perf:
    sys.exit(f"per-event samples {got}, perf script counts {perf}")
PY

# Nine events, more than shimtop reads at once: refused in one line that
# names them; -e NAME reads that one, the others' samples counted apart,
# so every sample perf script reads is one or the other.
nine=$six,alignment-faults,emulation-faults,major-faults
perf record -q -e "$nine" -o "$TMP/nine.data" -- "$FP" --seconds 0.3 >/dev/null 2>&1 ||
	fail "perf record -e $nine failed"
expect_run 1 "^shimtop: perf.data '$TMP/nine.data': it samples 9 events \($(echo "$nine" | sed 's/,/, /g')\), more than the 8 shimtop reads at once: choose one with -e NAME\$" -- \
	"$SHIMTOP" -i "$TMP/nine.data" -b
expect_run 1 "^shimtop: perf.data '$TMP/nine.data': -e cycles: it sampled $(echo "$nine" | sed 's/,/, /g'); -e names one of them to read\$" -- \
	"$SHIMTOP" -i "$TMP/nine.data" -e cycles -b
total=$(perf script -i "$TMP/nine.data" -F event 2>/dev/null | grep -c .)
for ev in cpu-clock page-faults; do
	"$SHIMTOP" -i "$TMP/nine.data" -e $ev -b --format json >"$TMP/nine.json" 2>"$TMP/err" ||
		fail "-i nine events -e $ev: $(cat "$TMP/err")"
	want=$(perf script -i "$TMP/nine.data" -F event 2>/dev/null | awk -v e="$ev:" '$1 == e' | grep -c .)
	got=$(json_get "$TMP/nine.json" "d['samples']")
	out=$(json_get "$TMP/nine.json" "d['source']['samples_left_out']")
	[ "$got" -eq "$want" ] && [ $((got + out)) -eq "$total" ] && [ "$want" -gt 0 ] ||
		fail "nine events, -e $ev: $got samples and $out left out; perf script: $want of $total"
done

# same_events JSON COUNTS: shimtop's samples of each event are perf
# script's (sort | uniq -c of -F event), sched:sched_switch's among them.
same_events() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
perf = {l.split()[1].rstrip(':'): int(l.split()[0]) for l in open(sys.argv[2]) if l.strip()}
got = {e['event']: e['samples'] for e in d['source']['sampled']}
if got != perf or got.get('sched:sched_switch', 0) < 3:
    sys.exit(f"per-event samples {got}, perf script counts {perf}")
PY
}

# A tracepoint beside a clock, with DWARF stacks (the off-CPU recipe of
# a perf GUI): laid out apart (its raw data, its CPU), each record read by
# its own event's layout, in a file and in a pipe; the clock's stacks
# unwound to call_paths' tree, each event's count perf script's.
for mode in file pipe; do
	out="$TMP/tp.data"
	[ $mode = pipe ] && out=-
	perf record -q -e cpu-clock -e sched:sched_switch --call-graph dwarf -o "$out" -- \
		sh -c "\"$NOFP\" --seconds 0.5; sleep 0.05" 2>/dev/null >"$TMP/tp.pipe" ||
		fail "perf record -e cpu-clock -e sched:sched_switch --call-graph dwarf ($mode) failed"
	[ $mode = pipe ] && mv "$TMP/tp.pipe" "$TMP/tp.data"
	perf script -i "$TMP/tp.data" -G -F event 2>/dev/null | sort | uniq -c >"$TMP/tp.counts"
	[ $mode = file ] && cp "$TMP/tp.data" "$TMP/tpfile.data" && cp "$TMP/tp.counts" "$TMP/tpfile.counts"
	"$SHIMTOP" -i - -b --format json <"$TMP/tp.data" >"$TMP/tp.json" 2>"$TMP/err" ||
		fail "-i a tracepoint with dwarf stacks ($mode): $(cat "$TMP/err")"
	"$SHIMTOP" -i - -b --format folded <"$TMP/tp.data" >"$TMP/tp.folded" 2>"$TMP/err" ||
		fail "-i a tracepoint with dwarf stacks, folded ($mode): $(cat "$TMP/err")"
	python3 "$TESTS_DIR/check_paths.py" "$TMP/tp.folded" ||
		fail "a tracepoint beside the clock ($mode): $(sort -t' ' -k2 -rn "$TMP/tp.folded" | head -3)"
	# Each event's stacks: the shown one's (-e NAME picks it), summing to its samples.
	for ev in cpu-clock sched:sched_switch; do
		n=$("$SHIMTOP" -i - -e $ev -b --format folded <"$TMP/tp.data" 2>"$TMP/err" | awk '{ s += $NF } END { print s + 0 }')
		[ "$n" -eq "$(awk -v e="$ev:" '$2 == e { print $1 }' "$TMP/tp.counts")" ] ||
			fail "-e $ev --format folded ($mode): $n samples, perf script $(grep " $ev:" "$TMP/tp.counts") $(cat "$TMP/err")"
	done
	same_events "$TMP/tp.json" "$TMP/tp.counts" || fail "tracepoint with dwarf stacks ($mode): see above"
done

# A pipe of perf before 5.x (no event-update or feature records): the
# tracepoint named by its format in the tracing data, as perf script names it.
python3 "$TESTS_DIR/perf_rewrite.py" oldpipe "$TMP/tp.data" "$TMP/oldpipe.data" ||
	fail "cannot rewrite the pipe as old perf's"
perf script -i "$TMP/oldpipe.data" -G -F event 2>/dev/null | sort | uniq -c >"$TMP/oldpipe.counts"
"$SHIMTOP" -i "$TMP/oldpipe.data" -b --format json >"$TMP/oldpipe.json" 2>"$TMP/err" ||
	fail "-i an old perf's pipe: $(cat "$TMP/err")"
same_events "$TMP/oldpipe.json" "$TMP/oldpipe.counts" || fail "an old perf's pipe: see above"

# simpleperf's file: the formats in a record of its own kind (a 32-bit
# size) at the data's start, no event descriptions; the tracepoint named
# from them, every sample after that record read.
python3 "$TESTS_DIR/perf_rewrite.py" simpleperf "$TMP/tpfile.data" "$TMP/simpleperf.data" ||
	fail "cannot rewrite the file as simpleperf's"
"$SHIMTOP" -i "$TMP/simpleperf.data" -b --format json >"$TMP/simpleperf.json" 2>"$TMP/err" ||
	fail "-i simpleperf's file: $(cat "$TMP/err")"
same_events "$TMP/simpleperf.json" "$TMP/tpfile.counts" || fail "simpleperf's tracepoint file: see above"
# Its record's 32-bit size past the data's end: cut short, said, exit 1.
python3 - "$TMP/simpleperf.data" "$TMP/spbad.data" <<'PY' || fail "cannot damage simpleperf's record"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
data_off = struct.unpack_from("<Q", d, 40)[0]
assert struct.unpack_from("<I", d, data_off)[0] == 32777
struct.pack_into("<H", d, data_off + 4, 0xffff)
open(sys.argv[2], "wb").write(d)
PY
expect_run 1 "^shimtop: perf.data '$TMP/spbad.data' stops at byte [0-9]+ of its data \\(a record cut short\\)" -- \
	"$SHIMTOP" -i "$TMP/spbad.data" -b

# --switch-events: records shimtop does not read, skipped and counted.  A
# program on the CPU alone may never be switched out, so the shell's waits
# and the sleep make the switches themselves.
perf record -q --switch-events -o "$TMP/sw.data" -- \
	sh -c "\"$FP\" --seconds 0.3; sleep 0.05" >/dev/null 2>&1 ||
	fail "perf record --switch-events failed"
nsw=$(perf report -i "$TMP/sw.data" -D 2>/dev/null | grep -c "PERF_RECORD_SWITCH")
"$SHIMTOP" -i "$TMP/sw.data" -b >"$TMP/sw.txt" 2>"$TMP/err" || fail "--switch-events' file: $(cat "$TMP/err")"
n=$(sed -n 's/^skipped: \([0-9]*\) records of kinds shimtop does not read$/\1/p' "$TMP/sw.txt")
[ -n "$n" ] && [ "$n" -ge "$nsw" ] && [ "$nsw" -gt 0 ] ||
	fail "--switch-events: ${n:-no} records said skipped, perf lists $nsw switches"
grep -q " leaf_work$" "$TMP/sw.txt" || fail "--switch-events: no leaf_work row"
# perf's own records of a plain recording are all read: skipped are only
# the BPF programs' symbols any tool on the host may load meanwhile (perf
# record -g asks for them; kallsyms names the kernel here).
nbpf=$(perf report -i "$TMP/fp.data" -D 2>/dev/null | grep -cE "PERF_RECORD_(KSYMBOL|BPF_EVENT)")
n=$(sed -n 's/^skipped: \([0-9]*\) records of kinds shimtop does not read$/\1/p' "$TMP/fp.txt")
[ "${n:-0}" -eq "$nbpf" ] ||
	fail "perf's own records said skipped: ${n:-0}, of which BPF programs' symbols $nbpf"
expect_run 2 "--call-graph callerchain needs each sample's stack depth, which perf.data does not hold" -- \
	"$SHIMTOP" -i "$TMP/fp.data" --call-graph callerchain -b

# -c: a fixed period, which the samples do not carry.
perf record -q -c 500000 -o "$TMP/c.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -c failed"
"$SHIMTOP" -i "$TMP/c.data" -b --format json >"$TMP/c.json" 2>"$TMP/err" ||
	fail "-i perf.data -c: $(cat "$TMP/err")"
[ "$(json_get "$TMP/c.json" "d['source']['period']['value']")" = 500000 ] ||
	fail "-c's period: $(json_get "$TMP/c.json" "d['source']['period']")"
[ "$(json_get "$TMP/c.json" "sum(r['weight'] for r in d['rows']) == 500000 * d['samples']")" = True ] ||
	fail "-c's samples do not weigh the period"

# -a: perf's side-band event beside the sampled one; every process's rows.
if perf record -q -a -g -o "$TMP/a.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1; then
	"$SHIMTOP" -i "$TMP/a.data" -b --format json >"$TMP/a.json" 2>"$TMP/err" ||
		fail "-i perf record -a's file: $(cat "$TMP/err")"
	[ "$(json_get "$TMP/a.json" "d['samples']")" -eq "$(perf_samples "$TMP/a.data")" ] ||
		fail "-a: not perf's sample count"
	json_get "$TMP/a.json" "[r['comm'] for r in d['rows'] if r['symbol'] == 'leaf_work']" |
		grep -q call_paths || fail "-a: no call_paths row for leaf_work"
fi

# The header's elapsed time is the samples' span, as perf's "sample duration".
perf_ms=$(perf report --header-only -i "$TMP/fp.data" 2>/dev/null | sed -n 's/^# sample duration : *\([0-9.]*\) ms/\1/p')
[ -n "$perf_ms" ] || fail "perf report gives no sample duration"
python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) * 1000 - float(sys.argv[2])) < 5 else 1)" \
	"$(json_get "$TMP/fp.json" "d['elapsed']")" "$perf_ms" ||
	fail "elapsed $(json_get "$TMP/fp.json" "d['elapsed']") s, perf's sample duration $perf_ms ms"

# Records out of time order in the file (perf writes each CPU's buffer in
# turn): the program's mmap moved after samples it explains, within its
# round, is applied first, as perf report's ordered events do.  (Where
# perf ended a round between the mmap and the samples, the two are made
# one.)
python3 - "$TMP/fp.data" "$TMP/late-mmap.data" "$FP" <<'PY' || fail "no mmap to move"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', b, 40)
recs, at = [], data_off
while at < data_off + data_size:
    t, misc, size = struct.unpack_from('<IHH', b, at)
    recs.append((t, bytes(b[at:at + size])))
    at += size
target = sys.argv[3].encode()
i = next(k for k, (t, r) in enumerate(recs) if t == 10 and target in r)   # PERF_RECORD_MMAP2
j, moved, rounds = i + 1, 0, []
while j < len(recs) and moved < 200:
    if recs[j][0] == 68:                                                  # FINISHED_ROUND
        if moved:
            break
        # perf flushed its buffers before the program's first sample: the
        # two rounds made one (as a file without rounds is), not host luck.
        # The round's end goes after the mmap, so the data keeps its size.
        rounds.append(recs.pop(j))
        continue
    moved += recs[j][0] == 9                                              # SAMPLE
    j += 1
if moved == 0:
    sys.exit("the program's mmap has no sample after it")
recs.insert(j - 1, recs.pop(i))
recs[j:j] = rounds
out = b[:data_off] + b"".join(r for _, r in recs) + b[data_off + data_size:]
assert len(out) == len(b)
open(sys.argv[2], 'wb').write(out)
print(f"moved the mmap past {moved} samples")
PY
"$SHIMTOP" -i "$TMP/late-mmap.data" -b --format json >"$TMP/late.json" 2>"$TMP/err" ||
	fail "-i a file with a late mmap: $(cat "$TMP/err")"
[ "$(json_get "$TMP/late.json" "d['unknown']")" = "$(json_get "$TMP/fp.json" "d['unknown']")" ] ||
	fail "a late mmap: $(json_get "$TMP/late.json" "d['unknown']") samples unknown, \
$(json_get "$TMP/fp.json" "d['unknown']") in time order"

# A group read with each sample ({a,b}:S): the members are counters, not
# events. Constructed: perf's attributes made cycles and instructions
# (this machine has no hardware counters), so IPC is task-clock over
# cpu-clock, each thread's counts its own.  Each row's IPC is the ratio
# of the members' deltas perf script gives its samples (perf delivers a
# group read as a sample per member, its period the member's delta), for
# the demo's own functions (100 samples or more; --rounds gives each
# phase 0.1 s of its CPU time, 400 samples however busy the machine),
# within 0.001: a sample the two name differently moved a row by 1e-4
# once; a member or a thread taken for another moves it by far more.
# Near 1.00, not 1.00: an interval a preemption or an interrupt's exit
# ends reads the two clocks apart, by 1% in a row on a loaded machine.
perf record -q -e '{cpu-clock,task-clock}:S' -o "$TMP/grp.data" -- "$SHIMTOP_DEMO" --rounds 1 \
	>/dev/null 2>&1 || fail "perf record -e '{cpu-clock,task-clock}:S' failed"
perf script -i "$TMP/grp.data" -F event,period,ip,sym >"$TMP/grp.txt" 2>/dev/null ||
	fail "perf script of a group read failed"
python3 - "$TMP/grp.data" "$TMP/ipc.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
attr_size, off, _ = struct.unpack_from('<QQQ', b, 16)
for i, config in enumerate((0, 1)):          # PERF_COUNT_HW_CPU_CYCLES, _INSTRUCTIONS
    struct.pack_into('<I', b, off + i * attr_size, 0)          # PERF_TYPE_HARDWARE
    struct.pack_into('<Q', b, off + i * attr_size + 8, config)
open(sys.argv[2], 'wb').write(b)
PY
"$SHIMTOP" -i "$TMP/ipc.data" -b --format json >"$TMP/ipc.json" 2>"$TMP/err" ||
	fail "-i a group read: $(cat "$TMP/err")"
grep -q "group read (.*:S): each sample is the leader's, its members' counts in it (perf report" \
	"$TMP/ipc.json" || fail "a group read's note does not say how it is counted"
python3 - "$TMP/ipc.json" "$TMP/grp.txt" <<'PY' || fail "a group read's IPC: see above"
import collections, json, sys
d = json.load(open(sys.argv[1]))
if d['source']['events'] != '{cpu-clock,task-clock}' or d['source']['sampled']:
    sys.exit(f"events {d['source']['events']!r}, sampled {d['source']['sampled']}")
deltas = collections.defaultdict(lambda: [0, 0])      # symbol: cpu-clock's, task-clock's
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 4 and f[1] in ('cpu-clock:', 'task-clock:'):
        deltas[f[3]][f[1] == 'task-clock:'] += int(f[0])
rows = [r for r in d['rows'] if r['samples'] >= 100 and r['module'] == 'shimtop-demo']
want = {r['symbol']: deltas[r['symbol']][1] / deltas[r['symbol']][0] if deltas[r['symbol']][0] else None
        for r in rows}
bad = [(r['symbol'], r['ipc'], want[r['symbol']]) for r in rows
       if r['ipc'] is None or want[r['symbol']] is None or abs(r['ipc'] - want[r['symbol']]) > 1e-3
       or abs(r['ipc'] - 1) > 0.05]
print("group read IPC, shimtop against perf script:",
      ", ".join(f"{r['symbol']} {r['ipc']:.4f}" for r in rows if r['ipc'] is not None))
if len(rows) < 3 or bad:
    sys.exit(f"rows whose IPC is not perf script's (symbol, shimtop, perf): {bad} of {len(rows)}")
PY

# Build-ids: the file at a path is used only if it is the recorded build;
# else perf's build-id cache (~/.debug, $PERF_BUILDID_DIR), else --symfs;
# else [unknown] in its module and one line naming the build-id.
mkdir -p "$TMP/bid/home" "$TMP/bid/sym$TMP/bid"
cp "$FP" "$TMP/bid/prog"
HOME="$TMP/bid/home" perf record -q -g -o "$TMP/bid.data" -- "$TMP/bid/prog" --seconds 0.3 \
	>/dev/null 2>&1 || fail "perf record of a copy failed"
id=$(perf buildid-list -i "$TMP/bid.data" 2>/dev/null | awk -v p="$TMP/bid/prog" '$2 == p { print $1 }')
[ -n "$id" ] || fail "perf lists no build-id for $TMP/bid/prog"
cp "$FP" "$TMP/bid/sym$TMP/bid/prog"
rm "$TMP/bid/prog"
cp "$TESTS_BIN/plt_loop" "$TMP/bid/prog"	# another build at the path (a new file)
HOME="$TMP/bid/home" "$SHIMTOP" -i "$TMP/bid.data" -b >"$TMP/bid.txt" 2>&1 ||
	fail "-i with perf's build-id cache: $(cat "$TMP/bid.txt")"
grep -Eq " prog +leaf_work$" "$TMP/bid.txt" || fail "perf's cached copy not used: $(sed -n 1,8p "$TMP/bid.txt")"
HOME="$TMP/none" "$SHIMTOP" -i "$TMP/bid.data" -b >"$TMP/nobid.txt" 2>&1 ||
	fail "-i without the build: $(cat "$TMP/nobid.txt")"
grep -q "^shimtop: warning: $TMP/bid/prog with build-id $id is another build here, nor in $TMP/none/.debug/.build-id: its functions are \[unknown\]" \
	"$TMP/nobid.txt" || fail "no line names the missing build-id: $(sed -n 1,3p "$TMP/nobid.txt")"
grep -Eq " prog +\[unknown\]$" "$TMP/nobid.txt" || fail "another build's names used: $(sed -n 1,9p "$TMP/nobid.txt")"
grep -q "leaf_work" "$TMP/nobid.txt" && fail "another build named leaf_work"
PERF_BUILDID_DIR="$TMP/bid/home/.debug" HOME="$TMP/none" "$SHIMTOP" -i "$TMP/bid.data" -b \
	>"$TMP/envbid.txt" 2>&1 || fail "-i with \$PERF_BUILDID_DIR: $(cat "$TMP/envbid.txt")"
grep -Eq " prog +leaf_work$" "$TMP/envbid.txt" || fail "\$PERF_BUILDID_DIR not read: $(sed -n 1,8p "$TMP/envbid.txt")"
HOME="$TMP/none" "$SHIMTOP" -i "$TMP/bid.data" --symfs "$TMP/bid/sym" -b >"$TMP/symfs.txt" 2>&1 ||
	fail "--symfs: $(cat "$TMP/symfs.txt")"
grep -Eq " prog +leaf_work$" "$TMP/symfs.txt" || fail "--symfs's copy not used: $(sed -n 1,8p "$TMP/symfs.txt")"
expect_run 2 "shimtop: --symfs '$TMP/nowhere' is not a directory" -- \
	"$SHIMTOP" -i "$TMP/bid.data" --symfs "$TMP/nowhere" -b
expect_run 2 "--symfs finds a recording's files: give -i perf.data with it" -- \
	"$SHIMTOP" --symfs "$TMP" -b -- true

# perf record -z (-m 8: small buffers, so many compressed records): the
# records inside them (one zstd stream), in a file and in a pipe;
# damaged compressed data: what came before, one line, exit 1.
perf record -q -z -g -m 8 -o "$TMP/z.data" -- "$FP" --seconds 0.5 >/dev/null 2>&1 ||
	fail "perf record -z failed"
"$SHIMTOP" -i "$TMP/z.data" -b --format folded >"$TMP/z.folded" 2>"$TMP/err" ||
	fail "-i a compressed perf.data: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/z.folded" ||
	fail "a compressed perf.data's tree: $(sort -t' ' -k2 -n "$TMP/z.folded" | tail -5)"
"$SHIMTOP" -i "$TMP/z.data" -b --format json >"$TMP/z.json" 2>"$TMP/err" || fail "-i -z: $(cat "$TMP/err")"
[ "$(json_get "$TMP/z.json" "d['samples']")" -eq "$(perf_samples "$TMP/z.data")" ] ||
	fail "-z: $(json_get "$TMP/z.json" "d['samples']") samples, perf reads $(perf_samples "$TMP/z.data")"
perf record -q -z -g -o - -- "$FP" --seconds 0.3 2>/dev/null >"$TMP/zpipe.data" ||
	fail "perf record -z -o - failed"
"$SHIMTOP" -i - -b --format json <"$TMP/zpipe.data" >"$TMP/zpipe.json" 2>"$TMP/err" ||
	fail "-i - of a compressed pipe: $(cat "$TMP/err")"
[ "$(json_get "$TMP/zpipe.json" "d['samples']")" -eq "$(perf_samples "$TMP/zpipe.data")" ] ||
	fail "-z pipe: not perf's sample count"
python3 - "$TMP/z.data" "$TMP/zbad.data" <<'PY' || fail "no compressed record to damage"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', b, 40)
at, seen = data_off, []
while at < data_off + data_size:
    t, misc, size = struct.unpack_from('<IHH', b, at)
    if t == 81:                                   # PERF_RECORD_COMPRESSED
        seen.append((at, size))
    at += size
if len(seen) < 2:
    sys.exit("fewer than two compressed records")
# perf flushes the stream at each record's end, so a later record opens
# with a block header; type 3 is reserved, which every zstd refuses.  (Noise
# in a raw block's bytes decodes without error: perf writes no checksum.)
at, size = seen[-1]
b[at + 8] |= 0x06
open(sys.argv[2], 'wb').write(b)
PY
"$SHIMTOP" -i "$TMP/zbad.data" -b --format json >"$TMP/zbad.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "damaged compressed data did not exit 1"
grep -Eq "perf.data '$TMP/zbad.data' at byte [0-9]+: (its compressed data is damaged \(zstd: .*\)|a compressed record holds a record of size [0-9]+); what came before is shown" \
	"$TMP/err" || fail "damaged compressed data's message: $(cat "$TMP/err")"
[ "$(json_get "$TMP/zbad.json" "d['samples']")" -gt 0 ] || fail "damaged compressed data: nothing shown"

# A compression bomb: 12 M records (96 MB) in a few kB of zstd. Read in
# bounded pieces: memory stays small whatever the data inflates to.
command -v zstd >/dev/null || fail "zstd (Debian's zstd) is not installed"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<IHH', 68, 0, 8) * (12 << 20))" |
	zstd -19 -q -c >"$TMP/bomb.zst"
python3 - "$TMP/fp.data" "$TMP/bomb.zst" "$TMP/bomb.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
z = open(sys.argv[2], 'rb').read()
data_off, data_size = struct.unpack_from('<QQ', b, 40)
recs = b"".join(struct.pack('<IHH', 81, 0, 8 + len(z[i:i + 60000])) + z[i:i + 60000]
                for i in range(0, len(z), 60000))          # PERF_RECORD_COMPRESSED
out = b[:data_off] + recs + b[data_off:]
struct.pack_into('<Q', out, 48, data_size + len(recs))
nfeat = sum(bin(x).count('1') for x in struct.unpack_from('<4Q', b, 72))
tab = data_off + data_size + len(recs)
for k in range(nfeat):                                      # the features moved by len(recs)
    o, sz = struct.unpack_from('<QQ', out, tab + 16 * k)
    struct.pack_into('<QQ', out, tab + 16 * k, o + len(recs), sz)
open(sys.argv[3], 'wb').write(out)
PY
max_rss_kb "$TMP/bomb" "$SHIMTOP" -i "$TMP/bomb.data" -b --format json
read -r rc kib <"$TMP/bomb"
[ "$rc" -eq 0 ] || fail "the bomb: exit $rc: $(cat "$TMP/bomb.err")"
[ "$(json_get "$TMP/bomb.out" "d['samples']")" -eq "$fp_samples" ] ||
	fail "the bomb's file: $(json_get "$TMP/bomb.out" "d['samples']") samples, not $fp_samples"
[ "$kib" -lt 102400 ] || fail "a $(stat -c %s "$TMP/bomb.data")-byte file took $kib KiB"
echo "a compression bomb of $(stat -c %s "$TMP/bomb.data") bytes: $kib KiB"

# The kernel: this machine's functions only if the file lists this
# kernel's build-id (else, with none, its release); else perf's saved
# copy of the recorded kernel's kallsyms (~/.debug/[kernel.kallsyms]/ID/
# kallsyms) or --kallsyms FILE; else [kernel] unnamed and one line. dd
# spends its time in the kernel (clearing and copying pages).
if [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/notes ]; then
	perf record -q -o "$TMP/dd.data" -- dd if=/dev/zero of=/dev/null bs=1M count=3000 \
		>/dev/null 2>&1 || fail "perf record of dd failed"
	kid=$(perf buildid-list -i "$TMP/dd.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
	[ -n "$kid" ] || fail "perf lists no kernel build-id"
	# kern.data: another kernel's build-id; norel.data: no kernel build-id
	# (its name changed) and another release; rel.data: no build-id, this release.
	other=$(python3 - "$TMP/dd.data" "$TMP" "$kid" "$(uname -r)" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
tmp, release = sys.argv[2], sys.argv[4].encode()
data_off, data_size = struct.unpack_from('<QQ', b, 40)
kid = bytes.fromhex(sys.argv[3])
i = b.find(kid, data_off + data_size)          # in the build-id feature
k = bytearray(b)
k[i] ^= 0xff
open(tmp + '/kern.data', 'wb').write(k)
n = bytearray(b)
j = n.find(b'[kernel.kallsyms]', i)
n[j:j + 17] = b'[kernel.kallsymz]'
open(tmp + '/rel.data', 'wb').write(n)
r = n.find(release, data_off + data_size)
n[r + len(release) - 1] ^= 0x01
open(tmp + '/norel.data', 'wb').write(n)
print((bytes([kid[0] ^ 0xff]) + kid[1:]).hex())
PY
)
	HOME="$TMP/none" "$SHIMTOP" -i "$TMP/dd.data" -b >"$TMP/dd.txt" 2>&1 || fail "-i dd: $(cat "$TMP/dd.txt")"
	grep -Eq "kallsyms +\[kernel\] +[a-z_]" "$TMP/dd.txt" || fail "dd: no kernel function named: $(sed -n 1,9p "$TMP/dd.txt")"
	HOME="$TMP/none" "$SHIMTOP" -i "$TMP/kern.data" -b >"$TMP/kern.txt" 2>&1 ||
		fail "-i another kernel's file: $(cat "$TMP/kern.txt")"
	said="shimtop: warning: the recorded kernel (build-id $other) is not this one: its addresses"
	said="$said are left unnamed; give --kallsyms FILE (/proc/kallsyms of the machine that recorded)"
	said="$said or put perf's saved copy at $TMP/none/.debug/[kernel.kallsyms]/$other/kallsyms"
	said="$said, or its vmlinux (with symbols) under --symfs DIR"
	grep -Fq "$said" \
		"$TMP/kern.txt" || fail "another kernel: no line says so: $(sed -n 1,2p "$TMP/kern.txt")"
	grep -Eq "kallsyms +\[kernel\]" "$TMP/kern.txt" && fail "another kernel named by this one's functions"
	grep -Eq " \[kernel\] +\[unknown\]$" "$TMP/kern.txt" || fail "another kernel: no [kernel] [unknown] row"
	mkdir -p "$TMP/kh/.debug/[kernel.kallsyms]/$other"
	cp /proc/kallsyms "$TMP/kh/.debug/[kernel.kallsyms]/$other/kallsyms"
	HOME="$TMP/kh" "$SHIMTOP" -i "$TMP/kern.data" -b >"$TMP/kh.txt" 2>&1 || fail "-i with perf's kallsyms"
	grep -Eq "kallsyms +\[kernel\] +[a-z_]" "$TMP/kh.txt" ||
		fail "perf's saved kallsyms not used: $(sed -n 1,9p "$TMP/kh.txt")"
	# --kallsyms FILE: that machine's functions, whatever the file says.
	cp /proc/kallsyms "$TMP/given.kallsyms"
	HOME="$TMP/none" "$SHIMTOP" -i "$TMP/kern.data" --kallsyms "$TMP/given.kallsyms" -b \
		>"$TMP/given.txt" 2>&1 || fail "--kallsyms: $(cat "$TMP/given.txt")"
	grep -Eq "kallsyms +\[kernel\] +[a-z_]" "$TMP/given.txt" ||
		fail "--kallsyms not used: $(sed -n 1,9p "$TMP/given.txt")"
	grep -q "is not this one" "$TMP/given.txt" && fail "--kallsyms given, yet a line says the kernel is another"
	"$SHIMTOP" -i "$TMP/kern.data" --kallsyms "$TMP/no-such-file" -b >"$TMP/nofile.txt" 2>&1 &&
		fail "--kallsyms of no file exits 0"
	grep -q "^shimtop: --kallsyms '$TMP/no-such-file' cannot be read (No such file or directory): give a copy" \
		"$TMP/nofile.txt" || fail "--kallsyms of no file: $(cat "$TMP/nofile.txt")"
	# A vmlinux with its symbols, of the recorded kernel's build-id (made
	# here from kallsyms: the functions at their addresses), named as perf
	# finds one: under --symfs by the release, and in perf's cache by the
	# build-id; one of another build is not taken.
	if command -v as >/dev/null && command -v ld >/dev/null; then
		base=$(python3 "$TESTS_DIR/make_vmlinux.py" /proc/kallsyms "$TMP/vmlinux.s") ||
			fail "cannot write a vmlinux's assembly"
		as -o "$TMP/vmlinux.o" "$TMP/vmlinux.s" || fail "cannot assemble a vmlinux"
		rm -f "$TMP/vmlinux.s"
		link() { ld -static -nostdlib -z max-page-size=4096 -e 0 --build-id="0x$1" \
			--section-start=.ktext="$base" -o "$2" "$TMP/vmlinux.o" || fail "cannot link a vmlinux"; }
		mkdir -p "$TMP/sfs/boot" "$TMP/vh/.debug/.build-id/$(echo "$other" | cut -c1-2)/$(echo "$other" | cut -c3-)"
		link "$other" "$TMP/sfs/boot/vmlinux-$(uname -r)"
		HOME="$TMP/none" "$SHIMTOP" -i "$TMP/kern.data" --symfs "$TMP/sfs" -b >"$TMP/vml.txt" 2>&1 ||
			fail "-i with a vmlinux under --symfs: $(cat "$TMP/vml.txt")"
		grep -q "is not this one" "$TMP/vml.txt" && fail "a vmlinux of the recorded kernel under --symfs not taken"
		grep -Eq "\[kernel\] +[a-z_]" "$TMP/vml.txt" ||
			fail "the vmlinux under --symfs names no kernel function: $(sed -n 1,9p "$TMP/vml.txt")"
		link "$other" "$TMP/vh/.debug/.build-id/$(echo "$other" | cut -c1-2)/$(echo "$other" | cut -c3-)/elf"
		HOME="$TMP/vh" "$SHIMTOP" -i "$TMP/kern.data" -b >"$TMP/vmc.txt" 2>&1 ||
			fail "-i with a vmlinux in perf's cache: $(cat "$TMP/vmc.txt")"
		grep -Eq "\[kernel\] +[a-z_]" "$TMP/vmc.txt" ||
			fail "the vmlinux in perf's cache names no kernel function: $(sed -n 1,9p "$TMP/vmc.txt")"
		link "$kid" "$TMP/sfs/boot/vmlinux-$(uname -r)"
		HOME="$TMP/none" "$SHIMTOP" -i "$TMP/kern.data" --symfs "$TMP/sfs" -b >"$TMP/vmx.txt" 2>&1 ||
			fail "-i with another build's vmlinux: $(cat "$TMP/vmx.txt")"
		grep -q "is not this one" "$TMP/vmx.txt" || fail "a vmlinux of another build taken for the recorded kernel"
		rm -rf "$TMP/sfs" "$TMP/vh" "$TMP/vmlinux.o"
		echo "a vmlinux of the recorded kernel names it (under --symfs, in perf's cache); another build's does not"
	fi
	# No kernel build-id: the release decides, as perf report goes by it.
	HOME="$TMP/none" "$SHIMTOP" -i "$TMP/rel.data" -b >"$TMP/rel.txt" 2>&1 || fail "-i rel: $(cat "$TMP/rel.txt")"
	grep -Eq "kallsyms +\[kernel\] +[a-z_]" "$TMP/rel.txt" ||
		fail "this release, no build-id: no kernel function named: $(sed -n 1,9p "$TMP/rel.txt")"
	HOME="$TMP/none" "$SHIMTOP" -i "$TMP/norel.data" -b >"$TMP/norel.txt" 2>&1 || fail "-i norel: $(cat "$TMP/norel.txt")"
	grep -q "^shimtop: warning: the recorded kernel (release .*) is not this one: its addresses are left unnamed" \
		"$TMP/norel.txt" || fail "another release: no line says so: $(sed -n 1,3p "$TMP/norel.txt")"
	grep -Eq "kallsyms +\[kernel\]" "$TMP/norel.txt" && fail "another release named by this kernel's functions"
fi

# Diff, range, export and snapshot read a perf.data as a recording.
"$SHIMTOP" -i "$TMP/fp.data" --diff "$TMP/c.data" -b >"$TMP/diff.txt" 2>"$TMP/err" ||
	fail "--diff of two perf.data: $(cat "$TMP/err")"
grep -q "^diff: A $TMP/fp.data (pid 0, $fp_samples samples) against B $TMP/c.data" "$TMP/diff.txt" ||
	fail "--diff's first line: $(head -1 "$TMP/diff.txt")"
grep -Eq "^ +[0-9.]+% +[0-9.]+% .* leaf_work\$" "$TMP/diff.txt" || fail "--diff: no leaf_work row"
# The samples perf script times from a fifth to two fifths of the way
# (a loaded machine spreads the program's second of CPU over more).
perf script -i "$TMP/fp.data" -F time --ns 2>/dev/null | tr -d ' :' >"$TMP/fp.times"
span=$(python3 -c 'import sys; t = [float(l) for l in open(sys.argv[1]) if l.strip()]; print("%.3f" % (max(t) - min(t)))' \
	"$TMP/fp.times")
range=$(python3 -c 'import sys; s = float(sys.argv[1]); print("%.3f:%.3f" % (0.2 * s, 0.4 * s))' "$span")
"$SHIMTOP" -i "$TMP/fp.data" --range "$range" -b --format json >"$TMP/range.json" 2>"$TMP/err" ||
	fail "--range on a perf.data: $(cat "$TMP/err")"
python3 - "$TMP/range.json" "$TMP/fp.times" "$range" <<'PY' || fail "--range $range of a perf.data"
import json, sys
n = json.load(open(sys.argv[1]))['samples']
t = [round(float(l) * 1e9) for l in open(sys.argv[2]) if l.strip()]
a, b = (round(float(x) * 1e9) for x in sys.argv[3].split(":"))
want = sum(min(t) + a <= x < min(t) + b for x in t)
if abs(n - want) > 2 or want < 100:
    sys.exit(f"--range {sys.argv[3]}: {n} samples, perf script times {want} of {len(t)} there")
PY
"$SHIMTOP" -i "$TMP/fp.data" --export folded -o "$TMP/exp.folded" 2>"$TMP/err" ||
	fail "--export folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/exp.folded" || fail "the exported tree"
"$SHIMTOP" -i "$TMP/fp.data" -b --snapshot-on-exit "$TMP/fp.snap" >/dev/null 2>"$TMP/err" ||
	fail "a snapshot of a perf.data: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/fp.snap" -b --format json >"$TMP/snap.json" 2>"$TMP/err" ||
	fail "-i the snapshot: $(cat "$TMP/err")"
[ "$(json_get "$TMP/snap.json" "d['samples']")" -eq "$fp_samples" ] || fail "the snapshot's samples"

# The UI at 80x24: what the file is stays in the header; table, tree and timeline.
if command -v tmux >/dev/null; then
	replay_ui "$TMP/fp.data" 80 24
	# Its span as perf script times it, however long a loaded machine made it.
	wait_for "^shimtop [^ ]+  replay of fp.data  threads 0 \(1 seen\)  elapsed [0-9.]+ s"
	wait_for "^end of recording after [0-9.]+ s; perf.data from perf [0-9]"
	for said in "$(screen | sed -n 's/.*  elapsed \([0-9.]*\) s.*/\1/p')" \
		"$(screen | sed -n 's/^end of recording after \([0-9.]*\) s;.*/\1/p')"; do
		# (tenths below 10 s, whole seconds above)
		python3 -c 'import sys; s = sys.argv[1] or "-9"; sys.exit(not abs(float(s) - float(sys.argv[2])) <= (0.15 if "." in s else 0.55))' \
			"$said" "$span" || fail "the header says ${said:-nothing} s of a recording that spans $span s"
	done
	wait_for "^ +[0-9.]+% +[0-9]+ +- +[0-9]+ call_paths? +call_paths +leaf_work"	# 80 columns narrow PID COMMAND
	$T send-keys -t ui F5
	wait_for "^ +[0-9.]+% +[0-9.]+% +- main\$"
	# c: CallerChaining's tree alone (80 columns cannot hold two panes), which says why it is empty.
	$T send-keys -t ui c
	wait_for "^no stack depths: perf.data holds none \(perf records no stack base\)"
	$T send-keys -t ui 2
	wait_for "^[0-9]+ call_[a-z]* +[0-9]+/s "
	quit_ui
fi

# Cut short: what came before, and where it stops (exit 1).
size=$(stat -c %s "$TMP/fp.data")
head -c $((size / 2)) "$TMP/fp.data" >"$TMP/cut.data"
"$SHIMTOP" -i "$TMP/cut.data" -b --format json >"$TMP/cut.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut perf.data did not exit 1"
grep -Eq "perf.data '$TMP/cut.data' (stops at byte [0-9]+ of its data|is cut short)" "$TMP/err" ||
	fail "a cut perf.data's message: $(cat "$TMP/err")"
n=$(json_get "$TMP/cut.json" "d['samples']")
[ "$n" -gt $((fp_samples / 4)) ] || fail "a cut perf.data showed $n of $fp_samples samples"

# Damaged headers and layouts: one line each, exit 1, nothing read.
python3 - "$TMP/fp.data" "$TMP" <<'PY'
import struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
def put(name, data):
    open(f"{tmp}/{name}.data", 'wb').write(data)
bad = bytearray(b); struct.pack_into('<Q', bad, 16, 7); put('attrsize', bad)      # attr_size
bad = bytearray(b); struct.pack_into('<Q', bad, 24, 1 << 60); put('attrs', bad)   # attrs.offset
bad = bytearray(b); struct.pack_into('<Q', bad, 8, 12); put('hsize', bad)          # header size
attr_size, attrs_off, attrs_len = struct.unpack_from('<QQQ', b, 16)
bad = bytearray(b); struct.pack_into('<Q', bad, 32, attrs_len + attr_size); put('two', bad)  # two events
bad = bytearray(b); st = attrs_off + 24; struct.pack_into('<Q', bad, st, 0); put('noip', bad)  # sample_type 0
PY
expect_run 1 "perf.data '$TMP/attrsize.data': the file is corrupt: its header's sizes do not fit it; record it again" -- \
	"$SHIMTOP" -i "$TMP/attrsize.data" -b
expect_run 1 "perf.data '$TMP/attrs.data': the file is corrupt: its header's sizes do not fit it" -- \
	"$SHIMTOP" -i "$TMP/attrs.data" -b
expect_run 1 "perf.data '$TMP/hsize.data': the file is corrupt" -- "$SHIMTOP" -i "$TMP/hsize.data" -b
expect_run 1 "perf.data '$TMP/two.data': " -- "$SHIMTOP" -i "$TMP/two.data" -b
expect_run 1 "perf.data '$TMP/noip.data': its samples carry no address or thread" -- \
	"$SHIMTOP" -i "$TMP/noip.data" -b
finish
