/* SPDX-License-Identifier: GPL-2.0 */
/* CHECK(cond): a property a fuzz target asserts; abort() names the failed one. */
#ifndef _PC_FUZZ_CHECK_H
#define _PC_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif
