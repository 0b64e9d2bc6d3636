// SPDX-License-Identifier: GPL-2.0
/*
 * Checks a control line with the module's own parser (common/record.c) before
 * it is printed or sent. Kept apart from builtin.h, whose struct pc_cmd shares the
 * tag namespace with record.h's enum pc_cmd.
 */
#include <stdio.h>
#include <stdlib.h>

#include "armed.h"
#include "record.h"

int pc_parse_any_machine(const char *line, size_t len, struct pc_command *cmd,
			 struct pc_parse_error *perr)
{
	struct pc_parse_error other;
	int ret, m;

	ret = pc_parse_command(line, len, PROBECACHE_MAX_ARGS, cmd, perr);
	for (m = 0; ret && m < PC_NR_MACHS; m++)
		if (m != PC_MACH_NATIVE &&
		    !pc_parse_command_mach(line, len, m, PROBECACHE_MAX_ARGS, cmd, &other)) {
			*perr = other;
			ret = 0;
		}
	return ret;
}

int pc_record_check(const char *line, size_t len, char *why, size_t whylen)
{
	struct pc_parse_error perr = { 0 };
	struct pc_command *cmd = malloc(sizeof(*cmd));
	int ret;

	if (!cmd)
		return -ENOMEM;
	ret = pc_parse_any_machine(line, len, cmd, &perr);
	free(cmd);
	if (ret)
		snprintf(why, whylen, "col %u: %s: %s", perr.column,
			 perr.field ? perr.field : "line", perr.why ? perr.why : "rejected");
	return ret;
}
