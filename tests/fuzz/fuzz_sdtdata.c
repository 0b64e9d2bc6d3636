// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for user/lib/sdtdata.c: a provider file's text. Besides
 * memory safety: a refusal says why and leaves nothing behind; what parses
 * has a provider, a source, and a valid name and a 'from' for every probe,
 * each findable by its name.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "../../user/lib/sdtdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_sdtdata d;
	char why[256] = "";
	int ret = pc_sdtdata_parse((const char *)data, size, &d, why, sizeof(why));

	if (ret) {
		CHECK(ret == -EINVAL || ret == -ENOMEM);
		CHECK(ret == -ENOMEM || why[0]);
		CHECK(!d.provider && !d.nprobes && !d.probes);
		return 0;
	}
	CHECK(d.provider && pc_sdtdata_name_ok(d.provider) && d.nsources);
	for (size_t i = 0; i < d.nprobes; i++) {
		CHECK(pc_sdtdata_name_ok(d.probes[i].name) && d.probes[i].from);
		CHECK(pc_sdtdata_find(&d, d.probes[i].name) == &d.probes[i]);
		pc_sdtdata_switch(&d, d.probes[i].name);
	}
	pc_sdtdata_free(&d);
	return 0;
}
