/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded appender for text built piece by piece (argspec.c, sdtargs.c):
 * the first overflow is kept as -ENOSPC, the buffer stays NUL-terminated, later
 * calls do nothing. No unit: inline, so the pure parsers stay one file each.
 */
#ifndef _PC_OUTBUF_H
#define _PC_OUTBUF_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct pc_out {
	char *buf;
	size_t len, pos;
	int err;
};

static inline void __attribute__((format(printf, 2, 3))) pc_outf(struct pc_out *o,
								  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos) {
		o->err = -ENOSPC;
		if (o->len)
			o->buf[o->pos] = '\0';
		return;
	}
	o->pos += (size_t)n;
}

#endif /* _PC_OUTBUF_H */
