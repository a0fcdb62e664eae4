#!/bin/sh
# t-command-streams.sh - a command launched in batch: standard output is
# only what shimtop was asked to print (the command's output goes to
# standard error, said once), and the command reads shimtop's input.
. "$TESTS_DIR/lib.sh"

# A command that prints rows and reads its input, as sqlite3 does.
cat >"$TMP/query" <<'END'
echo "row 1|alpha"
read -r line && echo "read: $line"
i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done
echo "row 2|beta"
END

for format in json text; do
	echo "select 42;" | "$SHIMTOP" --batch --format "$format" -- sh "$TMP/query" \
		>"$TMP/out.$format" 2>"$TMP/err.$format" ||
		fail "--format $format: $(cat "$TMP/err.$format")"
	grep -q "row 1\|row 2\|read:" "$TMP/out.$format" &&
		fail "--format $format: the command's rows are in standard output: $(head -3 "$TMP/out.$format")"
	grep -q "^row 1|alpha" "$TMP/err.$format" && grep -q "^row 2|beta" "$TMP/err.$format" ||
		fail "--format $format: the command's rows are not in standard error: $(cat "$TMP/err.$format")"
	# Its input was shimtop's, not /dev/null.
	grep -q "^read: select 42;" "$TMP/err.$format" ||
		fail "--format $format: the command did not read shimtop's input: $(cat "$TMP/err.$format")"
	[ "$(grep -c "the command's output went to standard error" "$TMP/err.$format")" = 1 ] ||
		fail "--format $format: not said once: $(cat "$TMP/err.$format")"
done
json_get "$TMP/out.json" "d['schema']" >/dev/null || fail "the JSON report does not parse: $(head -c 300 "$TMP/out.json")"
grep -q "^samples [0-9]" "$TMP/out.text" || fail "no report in standard output: $(cat "$TMP/out.text")"

# --target-output FILE in batch: the output there, the input still shimtop's.
echo "select 7;" | "$SHIMTOP" --batch --target-output "$TMP/t.out" -- sh "$TMP/query" \
	>"$TMP/out" 2>"$TMP/err" || fail "--target-output: $(cat "$TMP/err")"
grep -q "^read: select 7;" "$TMP/t.out" ||
	fail "--target-output: the command's input was not shimtop's: $(cat "$TMP/t.out")"
grep -q "went to standard error" "$TMP/err" && fail "--target-output FILE said the output goes to stderr"

# '-' shares standard output, as asked.
echo "x" | "$SHIMTOP" --batch --target-output - -- sh "$TMP/query" >"$TMP/out" 2>"$TMP/err" ||
	fail "--target-output -: $(cat "$TMP/err")"
grep -q "^row 1|alpha" "$TMP/out" || fail "--target-output -: the rows left standard output"
grep -q "went to standard error" "$TMP/err" && fail "--target-output - said the output goes to stderr"

finish
