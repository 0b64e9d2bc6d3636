// SPDX-License-Identifier: GPL-2.0
/*
 * import reads archives that crossed a network: any bytes must be refused
 * with a "line N: why" message and nothing allocated, or parse into
 * binaries that each have a path and an entry, with counts that add up,
 * and that the cache then stores (validation must be complete before
 * import writes anything). Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
 * so the CRC does not hide the rest of the parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../user/lib/archive.h"
#include "../../user/lib/pc.h"

int pc_verbose;
const char *pc_prog = "fuzz_archive";
void pc_err(const char *fmt, ...) { (void)fmt; }
void pc_warn(const char *fmt, ...) { (void)fmt; }
void pc_debug(const char *fmt, ...) { (void)fmt; }
void pc_info(const char *fmt, ...) { (void)fmt; }

static char dir[64] = "/tmp/pc-fuzz-archive.XXXXXX";

static void rm_cache(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		abort();
}

static void store_all(const struct pc_archive *ar)
{
	if (!mkdtemp(dir))
		abort();
	pc_cache_set_dir(dir);
	for (size_t i = 0; i < ar->nbinaries; i++)
		if (pc_cache_store(ar->binaries[i]))
			abort();	/* accepted by import, refused by the cache */
	rm_cache();
	strcpy(dir, "/tmp/pc-fuzz-archive.XXXXXX");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_archive ar;
	char err[512] = "";
	size_t n = 0;

	if (pc_archive_parse((const char *)data, size, &ar, err, sizeof(err))) {
		if (strncmp(err, "line ", 5))
			abort();	/* every refusal names its line */
		if (ar.nbinaries || ar.binaries)
			abort();	/* and leaves nothing allocated */
		return 0;
	}
	for (size_t i = 0; i < ar.nbinaries; i++) {
		if (!ar.binaries[i]->npaths || !ar.binaries[i]->nentries)
			abort();
		n += ar.binaries[i]->nentries;
	}
	if (n != ar.nentries || !ar.nbinaries)
		abort();
	store_all(&ar);
	pc_archive_free(&ar);
	return 0;
}
