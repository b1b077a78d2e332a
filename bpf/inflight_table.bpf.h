/* The in-flight table: request address -> submission and issue metadata.
 *
 * Every I/O claims, updates and frees one entry, so this is the hot path.
 * A BPF hash map costs a bucket lock and an element allocation per insert
 * (~150-250 ns); instead the first home of an entry is a slot in an array
 * indexed by a hash of the request's address.  Array lookups are inlined
 * by the verifier (an address computation), and a slot is claimed by
 * compare-and-swap on its owner field (rq), so no lock is taken.  Keying
 * by the request rather than by (dev, sector) also keeps the table hot:
 * a queue's requests are preallocated, so the same few hundred slots
 * serve every I/O, where sector keys scatter over the whole array (a
 * cache miss per hook).  An address whose slot holds another live request
 * falls back to the overflow hash map; `overflow_entries` lets the common
 * case skip looking there.
 *
 * Concurrency: an entry is written by the CPU that submits or issues the
 * request and read by the completing CPU; the block layer orders
 * submission before issue before completion.  Only the owner of a live
 * request frees its slot, so freeing is a plain store.
 */
#ifndef BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_
#define BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
/* Error numbers by name: vmlinux.h has the kernel's types, not its macros. */
#include <asm-generic/errno-base.h>

#include "biosnoop_abi.h"
#include "maps.bpf.h" /* slots, inflight, overflow_entries */

static __always_inline struct biosnoop_inflight_val *slot_for(__u64 rq) {
  __u32 idx = biosnoop_slot_index(rq);
  return bpf_map_lookup_elem(&slots, &idx);
}

/* The live entry of request `rq`, or NULL.  *slot is set when it lives in
 * the array, NULL when in the overflow map. */
static __always_inline struct biosnoop_inflight_val *table_find(
    __u64 rq, struct biosnoop_inflight_val **slot) {
  struct biosnoop_inflight_val *s = slot_for(rq);
  if (s && s->rq == rq) {
    *slot = s;
    return s;
  }
  *slot = 0;
  if (!overflow_entries) return 0;
  return bpf_map_lookup_elem(&inflight, &rq);
}

/* Claims the array slot of request `rq` for a new use and returns it, its
 * owner already `rq`, for the caller to fill in place; *reused is set when
 * the request still held it from an earlier use.  NULL when another live
 * request holds the slot: then table_store() uses the overflow map. */
static __always_inline struct biosnoop_inflight_val *table_claim(__u64 rq,
                                                                 bool *reused) {
  struct biosnoop_inflight_val *s = slot_for(rq);
  if (!s) return 0;
  /* Compare-and-swap first, without reading the owner before: the slot was
   * last written by the CPU that completed its previous request, and a
   * plain read first would fetch the line twice from there (shared for the
   * read, then exclusive for the swap). */
  __u64 owner = __sync_val_compare_and_swap(&s->rq, 0, rq);
  if (owner != 0 && owner != rq) return 0;
  /* owner == rq: the request still holds the slot from an earlier use,
   * and no other request claims a slot that is not free. */
  *reused = owner == rq;
  return s;
}

/* Stores `val` (val->rq != 0) as the entry of its request, replacing one
 * the request still holds from an earlier use.  Returns 0 or 1 (1: an
 * earlier use was replaced), or the overflow map's error (-E2BIG: full). */
static __always_inline long table_store(
    const struct biosnoop_inflight_val *val) {
  __u64 rq = val->rq;
  struct biosnoop_inflight_val *s = slot_for(rq);
  if (!s) return -ENOENT; /* never: the index is masked into the array */
  __u64 owner = s->rq;
  if (owner == 0 || owner == rq) {
    if (__sync_val_compare_and_swap(&s->rq, owner, rq) == owner) {
      *s = *val;
      return owner == rq;
    }
  }
  long err = bpf_map_update_elem(&inflight, &rq, val, BPF_NOEXIST);
  if (!err) {
    __sync_fetch_and_add(&overflow_entries, 1);
  } else if (err == -EEXIST) {
    err = bpf_map_update_elem(&inflight, &rq, val, BPF_ANY);
    if (!err) err = 1;
  }
  return err;
}

/* Frees the entry of `rq` found by table_find(). */
static __always_inline void table_remove(__u64 rq,
                                         struct biosnoop_inflight_val *slot) {
  if (slot) {
    slot->rq = 0;
    return;
  }
  if (bpf_map_delete_elem(&inflight, &rq) == 0)
    __sync_fetch_and_add(&overflow_entries, -1);
}

#endif /* BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_ */
