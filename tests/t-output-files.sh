#!/bin/sh
# t-output-files.sh - the files shimtop writes, as root must write them.
# A symbolic link planted where -o, --snapshot-on-exit or --export write
# (by an unprivileged user, when this runs as root) is refused, one line
# and exit 1, and what it points to is untouched; --follow-symlinks
# writes through it.  A hard link's other name keeps its content.  A
# FIFO and a character device are written in place and stay what they
# are: /dev/full's failure says "No space left on device"; a FIFO no one
# reads is refused, not waited on; /dev/stdout and "-" are standard
# output.  A directory is refused.  Record files and snapshots are 0600
# (they may hold the target's stack), exports follow the umask.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --demo --batch --duration 1 -o "$TMP/run.rec" >/dev/null 2>"$TMP/err" ||
	fail "recording the demo: $(cat "$TMP/err")"

mode() { stat -c %a "$1"; }

# Private files: 0600 whatever the umask; exports: 0666 less the umask.
[ "$(mode "$TMP/run.rec")" = 600 ] || fail "-o file mode $(mode "$TMP/run.rec"), expected 600"
(umask 0 && "$SHIMTOP" -i "$TMP/run.rec" --batch --snapshot-on-exit "$TMP/a.snap" \
	>/dev/null 2>"$TMP/err") || fail "snapshot: $(cat "$TMP/err")"
[ "$(mode "$TMP/a.snap")" = 600 ] || fail "snapshot mode $(mode "$TMP/a.snap"), expected 600"
(umask 022 && "$SHIMTOP" -i "$TMP/run.rec" --export folded -o "$TMP/out.folded" 2>"$TMP/err") ||
	fail "export: $(cat "$TMP/err")"
[ "$(mode "$TMP/out.folded")" = 644 ] || fail "export mode $(mode "$TMP/out.folded"), expected 644"

# The attack: a directory the attacker writes, a file only root reads.
ATTACK=$TMP/attacker
mkdir "$ATTACK"
printf 'root only\n' >"$TMP/victim"
chmod 600 "$TMP/victim"
plant() {	# plant NAME TARGET: a symbolic link made by the attacker
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups ln -sf "$2" "$ATTACK/$1"
	else
		ln -sf "$2" "$ATTACK/$1"
	fi
}
if [ "$(id -u)" -eq 0 ]; then
	chmod 711 "$TMP"
	chown 65534:65534 "$ATTACK"
fi
untouched() {
	[ "$(cat "$TMP/victim")" = "root only" ] || fail "$1 overwrote the link's target"
	[ -L "$ATTACK/$2" ] || fail "$1 replaced the symbolic link $2"
}

plant out.rec "$TMP/victim"
expect_run 1 "cannot create record file '$ATTACK/out.rec': it is a symbolic link" -- \
	"$SHIMTOP" --demo --batch --duration 0.3 -o "$ATTACK/out.rec"
untouched "-o" out.rec
plant out.snap "$TMP/victim"
"$SHIMTOP" -i "$TMP/run.rec" --batch --snapshot-on-exit "$ATTACK/out.snap" \
	>"$TMP/report" 2>"$TMP/err"
st=$?
[ "$st" -eq 1 ] || fail "--snapshot-on-exit through a link exited $st, expected 1"
grep -q "cannot write snapshot $ATTACK/out.snap: it is a symbolic link" "$TMP/err" ||
	fail "--snapshot-on-exit through a link: $(cat "$TMP/err")"
grep -q "^samples " "$TMP/report" || fail "the report was not printed before the snapshot failed"
untouched "--snapshot-on-exit" out.snap
plant out.folded "$TMP/victim"
expect_run 1 "cannot write $ATTACK/out.folded: it is a symbolic link" -- \
	"$SHIMTOP" -i "$TMP/run.rec" --export folded -o "$ATTACK/out.folded"
untouched "--export" out.folded
[ "$(ls "$ATTACK" | wc -l)" -eq 3 ] || fail "a temporary file was left: $(ls "$ATTACK")"

# Asked for: written where the link points, the link left as it is.
ln -s "$TMP/mine.rec" "$TMP/link.rec"
"$SHIMTOP" --demo --batch --duration 0.3 --follow-symlinks -o "$TMP/link.rec" \
	>/dev/null 2>"$TMP/err" || fail "--follow-symlinks -o: $(cat "$TMP/err")"
[ -L "$TMP/link.rec" ] && [ -s "$TMP/mine.rec" ] || fail "--follow-symlinks did not write the target"
ln -s "$TMP/mine.folded" "$TMP/link.folded"
"$SHIMTOP" -i "$TMP/run.rec" --export folded --follow-symlinks -o "$TMP/link.folded" \
	2>"$TMP/err" || fail "--follow-symlinks --export: $(cat "$TMP/err")"
[ -L "$TMP/link.folded" ] && cmp -s "$TMP/mine.folded" "$TMP/out.folded" ||
	fail "--follow-symlinks --export did not write the target"

# A hard link: the name gets a new file, the other name its old content.
printf 'keep\n' >"$TMP/other"
ln "$TMP/other" "$TMP/hard.rec"
"$SHIMTOP" --demo --batch --duration 0.3 -o "$TMP/hard.rec" >/dev/null 2>"$TMP/err" ||
	fail "-o over a hard link: $(cat "$TMP/err")"
[ "$(cat "$TMP/other")" = keep ] || fail "-o wrote into a hard link's other name"
ln "$TMP/other" "$TMP/hard.folded"
"$SHIMTOP" -i "$TMP/run.rec" --export folded -o "$TMP/hard.folded" 2>"$TMP/err" ||
	fail "--export over a hard link: $(cat "$TMP/err")"
[ "$(cat "$TMP/other")" = keep ] || fail "--export wrote into a hard link's other name"

# Devices in place: /dev/full stays a device and its error is named.
for how in "--snapshot-on-exit /dev/full" "--export folded -o /dev/full"; do
	# shellcheck disable=SC2086
	"$SHIMTOP" -i "$TMP/run.rec" --batch $how >/dev/null 2>"$TMP/err"
	st=$?
	[ "$st" -eq 1 ] || fail "$how exited $st, expected 1"
	grep -q "No space left on device" "$TMP/err" || fail "$how: $(cat "$TMP/err")"
	[ -c /dev/full ] || fail "$how replaced /dev/full"
done
expect_run 1 "record file '/dev/full'.*No space left on device" -- \
	"$SHIMTOP" --demo --batch --duration 0.5 -o /dev/full
[ -c /dev/full ] || fail "-o replaced /dev/full"
# /dev/null takes anything.
"$SHIMTOP" -i "$TMP/run.rec" --batch --snapshot-on-exit /dev/null >/dev/null 2>"$TMP/err" ||
	fail "--snapshot-on-exit /dev/null: $(cat "$TMP/err")"
[ -c /dev/null ] || fail "/dev/null was replaced"

# A FIFO: read by someone, written in place; read by no one, refused at once.
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from-fifo" &
reader=$!
"$SHIMTOP" -i "$TMP/run.rec" --export folded -o "$TMP/fifo" 2>"$TMP/err" ||
	fail "--export into a FIFO: $(cat "$TMP/err")"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
cmp -s "$TMP/from-fifo" "$TMP/out.folded" || fail "the FIFO's reader got other bytes"
expect_run 1 "cannot write snapshot $TMP/fifo: it is a FIFO no process reads" -- \
	"$SHIMTOP" -i "$TMP/run.rec" --batch --snapshot-on-exit "$TMP/fifo"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced by a snapshot"

# Standard output by name: written there, /dev/stdout left alone.
"$SHIMTOP" -i "$TMP/run.rec" --export folded -o /dev/stdout >"$TMP/stdout.folded" \
	2>"$TMP/err" || fail "-o /dev/stdout: $(cat "$TMP/err")"
cmp -s "$TMP/stdout.folded" "$TMP/out.folded" || fail "-o /dev/stdout wrote other bytes"
[ -L /dev/stdout ] || fail "/dev/stdout was replaced"
"$SHIMTOP" -i "$TMP/run.rec" --export folded -o - 2>"$TMP/err" | cmp -s - "$TMP/out.folded" ||
	fail "-o - did not write standard output: $(cat "$TMP/err")"

# A directory: refused.
mkdir "$TMP/dir.snap"
expect_run 1 "cannot write snapshot $TMP/dir.snap: Is a directory" -- \
	"$SHIMTOP" -i "$TMP/run.rec" --batch --snapshot-on-exit "$TMP/dir.snap"

finish
