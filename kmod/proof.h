/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A proof: what an inode's content says (its ELF layout, build-id and SDT
 * notes: struct pc_facts, verify.c), kept for as long as our own denial of
 * writes to it has been held without a gap (Documentation/design.md,
 * "Proofs kept while writes stay denied").
 */
#ifndef _PC_PROOF_H
#define _PC_PROOF_H

struct inode;
struct pc_facts;
struct pc_proof;

int pc_proof_deny(struct inode *inode, struct pc_proof **proofp);
struct pc_facts *pc_proof_join(struct inode *inode, struct pc_proof **proofp);
void pc_proof_allow(struct pc_proof *proof, struct inode *inode);
struct pc_facts *pc_proof_facts(struct pc_proof *proof);
struct pc_facts *pc_proof_keep(struct pc_proof *proof, struct pc_facts *facts);

#endif /* _PC_PROOF_H */
