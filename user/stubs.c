// SPDX-License-Identifier: GPL-2.0
/*
 * TEMPORARY scaffolding while commands land in parallel: weak definitions
 * so the binary links. Each command's real file overrides its symbol.
 * This file must be deleted before the foundation is declared done.
 */
#include <errno.h>

#include "pc.h"

#define PC_WEAK_CMD(fn)							\
	__attribute__((weak)) int fn(int argc, char **argv)		\
	{								\
		(void)argc;						\
		pc_err("%s: not built yet", argv[0]);			\
		return -ENOSYS;						\
	}

PC_WEAK_CMD(cmd_scan)
PC_WEAK_CMD(cmd_list)
PC_WEAK_CMD(cmd_del)
PC_WEAK_CMD(cmd_clear)
PC_WEAK_CMD(cmd_arm)
PC_WEAK_CMD(cmd_disarm)
PC_WEAK_CMD(cmd_status)
PC_WEAK_CMD(cmd_gc)
PC_WEAK_CMD(cmd_add)
PC_WEAK_CMD(cmd_load)
PC_WEAK_CMD(cmd_unload)
PC_WEAK_CMD(cmd_preload)
PC_WEAK_CMD(cmd_trace)
PC_WEAK_CMD(cmd_export)
PC_WEAK_CMD(cmd_import)

__attribute__((weak)) void pc_cache_set_dir(const char *dir) { (void)dir; }
