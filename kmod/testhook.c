// SPDX-License-Identifier: GPL-2.0
/* Test builds only (testhook.h): race windows. */
#include <linux/delay.h>
#include <linux/module.h>
#include "testhook.h"

static unsigned int pc_test_arm_delay_ms;
module_param_named(test_arm_delay_ms, pc_test_arm_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_arm_delay_ms, "Tests only: sleep this long before registering and before marking armed");

static unsigned int pc_test_verify_delay_ms;
module_param_named(test_verify_delay_ms, pc_test_verify_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_verify_delay_ms, "Tests only: sleep this long between opening a file to verify and reading it");

void pc_test_delay(enum pc_test_window w)
{
	unsigned int ms = w == PC_TEST_ARM ? READ_ONCE(pc_test_arm_delay_ms) :
			  READ_ONCE(pc_test_verify_delay_ms);

	if (ms)
		msleep(ms);
}

/* One-shot: the next counted hit spins this long first. */
static unsigned int pc_test_hit_spin_ms;
module_param_named(test_hit_spin_ms, pc_test_hit_spin_ms, uint, 0600);
MODULE_PARM_DESC(test_hit_spin_ms, "Tests only: the next counted hit spins this long before counting");

static unsigned int pc_test_hit_spun;
module_param_named(test_hit_spun, pc_test_hit_spun, uint, 0400);
MODULE_PARM_DESC(test_hit_spun, "Tests only: hits that began spinning");

/* In a uprobe handler: a busy wait, preemptible where the kernel is. */
void pc_test_hit_spin(void)
{
	unsigned int ms = xchg(&pc_test_hit_spin_ms, 0);

	if (!ms)
		return;
	WRITE_ONCE(pc_test_hit_spun, READ_ONCE(pc_test_hit_spun) + 1);
	while (ms--)
		mdelay(1);
}
