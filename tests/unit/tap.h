/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP for host unit tests: ok N - what. */
#ifndef _PC_TAP_H
#define _PC_TAP_H

#include <stdio.h>

static int tap_n, tap_fail;

#define TAP_OK(cond, ...)						\
	do {								\
		tap_n++;						\
		if (!(cond))						\
			tap_fail++;					\
		printf("%sok %d - ", (cond) ? "" : "not ", tap_n);	\
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

#endif
