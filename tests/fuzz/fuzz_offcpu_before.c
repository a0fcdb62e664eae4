/*
 * fuzz_offcpu_before.c - libFuzzer: what a thread found waiting gives
 * shimtop: the kernel's /proc/.../syscall text (its registers are the
 * target's) and its stack's bytes.  The input is sp (8 bytes), then the
 * text up to a NUL, then the stack.  A text taken is written back the
 * kernel's way and read again the same; the frame guessed lies in the
 * copy, 8-aligned, with a word above it.
 */
#include "fuzz.h"
#include "sampler/offcpu_before.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_text(const char *text)
{
	struct offcpu_at at, again;
	char back[256];

	if (!offcpu_at_parse(text, &at))
		return;
	if (at.nr < -1)
		abort();
	if (at.nr >= 0)
		snprintf(back, sizeof(back), "%ld 0x0 0x0 0x0 0x0 0x0 0x0 0x%llx 0x%llx\n", at.nr,
			 (unsigned long long)at.sp, (unsigned long long)at.pc);
	else
		snprintf(back, sizeof(back), "-1 0x%llx 0x%llx\n", (unsigned long long)at.sp,
			 (unsigned long long)at.pc);
	if (!offcpu_at_parse(back, &again) || again.nr != at.nr || again.sp != at.sp ||
	    again.pc != at.pc)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sp, bp;
	const uint8_t *nul;
	size_t tlen, slen;
	char *text;

	if (size < 8)
		return 0;
	memcpy(&sp, data, sizeof(sp));
	data += 8;
	size -= 8;
	nul = memchr(data, 0, size);
	tlen = nul ? (size_t)(nul - data) : size;
	text = malloc(tlen + 1);
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	check_text(text);
	free(text);
	slen = size - tlen - (nul != NULL);
	bp = offcpu_frame_guess(data + size - slen, slen, sp, NULL);
	if (bp && (bp < sp || bp & 7 || bp - sp + 16 > slen))
		abort();
	return 0;
}
