// SPDX-License-Identifier: GPL-2.0
/*
 * Proofs kept while writes stay denied. Arming re-reads a file's build-id
 * and SDT notes (issue 26, item 6: the times can be put back); a thousand
 * probes on one library would read them a thousand times. But while one
 * of our denials of writes to the inode is held, nobody can open it for
 * writing, truncate it or map it shared-writable, so what was read under
 * it still holds. A proof lives exactly while some holder's denial does:
 *
 *  - a holder denies writes on the inode first, then counts itself in the
 *    inode's proof (creating it); it leaves the proof first, then allows
 *    writes again. So while a proof is in the table, some holder's denial
 *    is in force, and has been since the proof was created;
 *  - facts read by a holder (verify.c) are kept in the proof and freed with
 *    it, once the last holder left: the next denial starts a new proof and
 *    reads the file again.
 *
 * pc_proof_lock is innermost: taken under a probe's lock or nothing, and
 * nothing is taken or waited for inside it.
 */
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pc.h"
#include "proof.h"

struct pc_proof {
	struct hlist_node node;		/* pc_proofs, under pc_proof_lock */
	struct inode *inode;		/* every holder's site references it */
	unsigned int holders;		/* under pc_proof_lock */
	struct pc_facts *facts;		/* set once (pc_proof_keep()) */
};

static DEFINE_SPINLOCK(pc_proof_lock);
static DEFINE_HASHTABLE(pc_proofs, 6);

static struct pc_proof *pc_proof_find(struct inode *inode)
{
	struct pc_proof *proof;

	lockdep_assert_held(&pc_proof_lock);
	hash_for_each_possible(pc_proofs, proof, node, (unsigned long)inode)
		if (proof->inode == inode)
			return proof;
	return NULL;
}

/*
 * Deny writes to @inode (-ETXTBSY if a writer has it) and hold its proof,
 * in *@proofp, until pc_proof_allow().
 */
int pc_proof_deny(struct inode *inode, struct pc_proof **proofp)
{
	struct pc_proof *new, *proof;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	if (pc_inode_deny_write(inode)) {
		kfree(new);
		return -ETXTBSY;
	}
	spin_lock(&pc_proof_lock);
	proof = pc_proof_find(inode);
	if (!proof) {
		proof = new;
		new = NULL;
		proof->inode = inode;
		hash_add(pc_proofs, &proof->node, (unsigned long)inode);
	}
	proof->holders++;
	spin_unlock(&pc_proof_lock);
	kfree(new);
	*proofp = proof;
	return 0;
}

/*
 * Deny writes to @inode and hold its proof only if that proof already has
 * facts: then a holder's denial is in force, so ours cannot fail, and the
 * file need not even be opened. NULL: nothing done.
 */
struct pc_facts *pc_proof_join(struct inode *inode, struct pc_proof **proofp)
{
	struct pc_facts *facts = NULL;
	struct pc_proof *proof;

	spin_lock(&pc_proof_lock);
	proof = pc_proof_find(inode);
	if (proof)
		facts = pc_proof_facts(proof);
	if (facts && !WARN_ON_ONCE(pc_inode_deny_write(inode))) {
		proof->holders++;
		*proofp = proof;
	} else {
		facts = NULL;
	}
	spin_unlock(&pc_proof_lock);
	return facts;
}

/* Leave @proof, then let writers in (in that order: see the top). */
void pc_proof_allow(struct pc_proof *proof, struct inode *inode)
{
	bool last;

	spin_lock(&pc_proof_lock);
	last = !--proof->holders;
	if (last)
		hash_del(&proof->node);
	spin_unlock(&pc_proof_lock);
	pc_inode_allow_write(inode);
	if (last) {
		pc_facts_free(proof->facts);
		kfree(proof);
	}
}

/* The facts a holder of @proof read, if any: the content's, now too. */
struct pc_facts *pc_proof_facts(struct pc_proof *proof)
{
	/* Pairs with pc_proof_keep(): the facts, then the pointer. */
	return smp_load_acquire(&proof->facts);
}

/*
 * Keep @facts, read by a holder of @proof with no change seen while
 * reading. Two holders may race to: the first keeps its own; returns the
 * facts now in @proof, having freed the caller's if they are not those.
 */
struct pc_facts *pc_proof_keep(struct pc_proof *proof, struct pc_facts *facts)
{
	struct pc_facts *old = cmpxchg_release(&proof->facts, NULL, facts);

	if (!old)
		return facts;
	pc_facts_free(facts);
	/* Another holder's, published by its cmpxchg_release() */
	return smp_load_acquire(&proof->facts);
}
