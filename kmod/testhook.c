// SPDX-License-Identifier: GPL-2.0
/* Test builds only (testhook.h): race windows and an injected failure. */
#include <linux/delay.h>
#include <linux/module.h>
#include "testhook.h"

static unsigned int pc_test_arm_delay_ms;
module_param_named(test_arm_delay_ms, pc_test_arm_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_arm_delay_ms, "Tests only: sleep this long before registering and before marking armed");

static unsigned int pc_test_verify_delay_ms;
module_param_named(test_verify_delay_ms, pc_test_verify_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_verify_delay_ms, "Tests only: sleep this long between opening a file to verify and reading it");

/* One-shot: the next event publication sleeps this long, then fails. */
static unsigned int pc_test_publish_fail_ms;
module_param_named(test_publish_fail_ms, pc_test_publish_fail_ms, uint, 0600);
MODULE_PARM_DESC(test_publish_fail_ms, "Tests only: the next trace event publication sleeps this long, then fails with ENOMEM");

static unsigned int pc_test_proofs_read;
module_param_named(test_proofs_read, pc_test_proofs_read, uint, 0400);
MODULE_PARM_DESC(test_proofs_read, "Tests only: armings that read their file's build-id and notes again");

static unsigned int pc_test_proofs_kept;
module_param_named(test_proofs_kept, pc_test_proofs_kept, uint, 0400);
MODULE_PARM_DESC(test_proofs_kept, "Tests only: armings that used what a kept proof had read");

/* Racing increments may be lost: the tests that read these arm one at a time. */
void pc_test_count(enum pc_test_counter c)
{
	unsigned int *n = c == PC_TEST_PROOF_READ ? &pc_test_proofs_read :
			  &pc_test_proofs_kept;

	WRITE_ONCE(*n, READ_ONCE(*n) + 1);
}

void pc_test_delay(enum pc_test_window w)
{
	unsigned int ms = w == PC_TEST_ARM ? READ_ONCE(pc_test_arm_delay_ms) :
			  READ_ONCE(pc_test_verify_delay_ms);

	if (ms)
		msleep(ms);
}

int pc_test_publish_fail(void)
{
	unsigned int ms = xchg(&pc_test_publish_fail_ms, 0);

	if (!ms)
		return 0;
	msleep(ms);
	return -ENOMEM;
}
