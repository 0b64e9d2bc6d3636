// SPDX-License-Identifier: GPL-2.0
/*
 * perf probe-definition parser (user/lib/probepoint.c): any bytes either parse
 * into a description whose pieces are consistent, or fail with a message and
 * leave nothing behind. The glob matchers get the same input as pattern.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../user/lib/probepoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_probe_desc pd;
	char *s = malloc(size + 1), err[128] = "", name[64];
	int ret;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	ret = pc_pp_parse(s, &pd, err, sizeof(err));
	if (ret) {
		if (ret != -ENOMEM && !err[0])
			abort();	/* every refusal says why */
		if (pd.function || pd.file || pd.nargs)
			abort();	/* and leaves nothing behind */
	} else {
		if (!pd.function && !pd.file)
			abort();
		if (pd.nargs > PC_PP_MAX_ARGS || (pd.retprobe && (pd.line || pd.lazy)))
			abort();
		for (size_t i = 0; i < pd.nargs; i++)
			pc_pp_arg_tvname(&pd.args[i], name, sizeof(name));
		pc_pp_free(&pd);
	}
	pc_glob_match("dw_work_something", s);
	pc_lazy_match("\tacc += it->weight * scale;", s);
	free(s);
	return 0;
}
