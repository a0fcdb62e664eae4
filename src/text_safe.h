/*
 * text_safe.h - what the target named, made safe for a terminal.
 *
 * Symbol names, command names, module paths and tag names come from the
 * target (its ELF files, its memory, the records it causes).  A function
 * named "\e]0;PWNED\a\e[2J" printed raw would set the title and clear the
 * screen of whoever reads the report.  Every byte a terminal acts on
 * becomes '?': C0 controls and DEL, C1 controls (U+0080 to U+009F, which
 * some terminals take as CSI), and bytes of no valid UTF-8 sequence.
 * Valid UTF-8 text passes unchanged; one bad byte (or C1 control) is one
 * '?', so columns keep their widths.
 */
#ifndef SHIMTOP_TEXT_SAFE_H
#define SHIMTOP_TEXT_SAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* In place; returns s. */
char *st_text_safe(char *s);

/*
 * In place over len bytes, keeping '\n' when keep_newlines (a report's own
 * lines); returns the new length.  A sequence cut at the end is kept whole
 * in *carry (up to 3 bytes, *ncarry of them) when carry is not NULL, for
 * the next piece; otherwise it is made '?'.
 */
size_t st_text_safe_n(char *buf, size_t len, bool keep_newlines, char *carry, size_t *ncarry);

/*
 * A stream that writes to out what st_text_safe_n keeps (newlines too);
 * closing it flushes into out and leaves out open.  NULL without memory.
 */
FILE *st_text_safe_stream(FILE *out);

#endif
