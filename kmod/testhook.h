/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows the VM tests widen to make a race happen on every run, and one
 * failure they inject. Compiled only into the harness's builds
 * (PROBECACHE_TEST_HOOKS=y, tests/vm/run.sh): a packaged module has neither
 * the parameters nor the sleeps.
 */
#ifndef PC_TESTHOOK_H
#define PC_TESTHOOK_H

enum pc_test_window {
	PC_TEST_ARM,		/* before registering, and before marking armed */
	PC_TEST_VERIFY,		/* file opened and write-denied, nothing read */
};

#ifdef PC_TEST_HOOKS
void pc_test_delay(enum pc_test_window w);
void pc_test_hit_spin(void);
#else
static inline void pc_test_delay(enum pc_test_window w)
{
}

static inline void pc_test_hit_spin(void)
{
}
#endif

#endif
