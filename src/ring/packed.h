/*
 * packed.h - the byte codec of the snapshot's model sections (snapshot.h):
 * numbers written one after another in x86-64's own (little-endian)
 * order, and a reader that never reads past its bytes.  A short read
 * sets `bad` and yields zeros, so a parser checks once, at the end of
 * each part, instead of after every field.
 */
#ifndef SHIMTOP_PACKED_H
#define SHIMTOP_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

struct packed_out {
	uint8_t *p;
	size_t n, cap;
};

struct packed_in {
	const uint8_t *p;
	size_t n, at;
	bool bad;			/* read past the end */
};

static inline void packed_put(struct packed_out *o, const void *data, size_t n)
{
	ST_GROW(o->p, o->cap, o->n + n);
	memcpy(o->p + o->n, data, n);
	o->n += n;
}

static inline void packed_u8(struct packed_out *o, uint8_t v)
{
	packed_put(o, &v, 1);
}

static inline void packed_u32(struct packed_out *o, uint32_t v)
{
	packed_put(o, &v, 4);
}

static inline void packed_u64(struct packed_out *o, uint64_t v)
{
	packed_put(o, &v, 8);
}

static inline void packed_f64(struct packed_out *o, double v)
{
	packed_put(o, &v, 8);
}

/* n bytes into to, or zeros and `bad` if fewer are left. */
static inline void packed_get(struct packed_in *in, void *to, size_t n)
{
	if (in->bad || n > in->n - in->at) {
		in->bad = true;
		memset(to, 0, n);
		return;
	}
	memcpy(to, in->p + in->at, n);
	in->at += n;
}

static inline uint8_t packed_get_u8(struct packed_in *in)
{
	uint8_t v;

	packed_get(in, &v, 1);
	return v;
}

static inline uint32_t packed_get_u32(struct packed_in *in)
{
	uint32_t v;

	packed_get(in, &v, 4);
	return v;
}

static inline uint64_t packed_get_u64(struct packed_in *in)
{
	uint64_t v;

	packed_get(in, &v, 8);
	return v;
}

static inline double packed_get_f64(struct packed_in *in)
{
	double v;

	packed_get(in, &v, 8);
	return v;
}

/* Bytes left unread. */
static inline size_t packed_left(const struct packed_in *in)
{
	return in->bad ? 0 : in->n - in->at;
}

#endif
