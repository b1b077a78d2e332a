/* The in-flight table: (dev, sector) -> issue metadata.
 *
 * Every I/O inserts, finds and removes one entry, so this is the hot path.
 * A BPF hash map costs a bucket lock and an element allocation per insert
 * (~150-250 ns); instead the first home of an entry is a slot in an array
 * indexed by a hash of the key.  Array lookups are inlined by the verifier
 * (an address computation), and a slot is claimed by compare-and-swap on
 * its owner field (val.rq, the request address), so no lock is taken.  A
 * key whose slot holds another live key falls back to the overflow hash
 * map; `overflow_entries` lets the common case skip looking there.
 *
 * Concurrency: an entry is written by the CPU that claims it (submit or
 * issue) and read by the completing CPU; the block layer orders issue
 * before the driver can complete.  A reader copies the value and then
 * checks the owner is unchanged, so a slot taken over meanwhile (a key
 * collision) is seen as such and never reported with another's data.
 */
#ifndef BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_
#define BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, BIOSNOOP_SLOTS);
  __type(key, __u32);
  __type(value, struct biosnoop_slot);
} slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, BIOSNOOP_INFLIGHT_MAX);
  __type(key, struct biosnoop_inflight_key);
  __type(value, struct biosnoop_inflight_val);
} inflight SEC(".maps");

/* Entries currently in the overflow map (approximate under races, never
 * negative for long: only a hint to skip lookups). */
__u64 overflow_entries = 0;

static __always_inline struct biosnoop_slot *slot_for(
    const struct biosnoop_inflight_key *key) {
  /* Sectors of neighbouring requests differ in their low bits; mix in the
   * device so two disks' sector 0 land apart (Fibonacci hashing). */
  __u64 h = (key->sector ^ ((__u64)key->dev << 32) ^ key->kind) *
            0x9E3779B97F4A7C15ULL;
  __u32 idx = (__u32)(h >> 50) & (BIOSNOOP_SLOTS - 1);
  return bpf_map_lookup_elem(&slots, &idx);
}

static __always_inline bool key_eq(const struct biosnoop_inflight_key *a,
                                   const struct biosnoop_inflight_key *b) {
  return a->dev == b->dev && a->kind == b->kind && a->sector == b->sector;
}

/* The live entry for `key`, or NULL.  *slot is set when it lives in the
 * array, NULL when in the overflow map. */
static __always_inline struct biosnoop_inflight_val *table_find(
    const struct biosnoop_inflight_key *key, struct biosnoop_slot **slot) {
  struct biosnoop_slot *s = slot_for(key);
  if (s && s->val.rq && key_eq(&s->key, key)) {
    *slot = s;
    return &s->val;
  }
  *slot = 0;
  if (!overflow_entries) return 0;
  return bpf_map_lookup_elem(&inflight, key);
}

/* Stores `val` (val->rq != 0) under `key`, replacing an entry with the same
 * key.  Returns 0, or the overflow map's error (-E2BIG when full). */
static __always_inline long table_store(const struct biosnoop_inflight_key *key,
                                        const struct biosnoop_inflight_val *val) {
  struct biosnoop_slot *s = slot_for(key);
  if (!s) return -1;
  __u64 owner = s->val.rq;
  if (owner == 0 || key_eq(&s->key, key)) {
    if (__sync_val_compare_and_swap(&s->val.rq, owner, val->rq) == owner) {
      s->key = *key;
      s->val = *val; /* rewrites rq with the value just swapped in */
      return 0;
    }
  }
  long err = bpf_map_update_elem(&inflight, key, val, BPF_NOEXIST);
  if (!err) {
    __sync_fetch_and_add(&overflow_entries, 1);
  } else if (err == -17 /* EEXIST */) {
    err = bpf_map_update_elem(&inflight, key, val, BPF_ANY);
  }
  return err;
}

/* Removes the entry found by table_find() if `rq` still owns it. */
static __always_inline void table_remove(const struct biosnoop_inflight_key *key,
                                         struct biosnoop_slot *slot, __u64 rq) {
  if (slot) {
    __sync_val_compare_and_swap(&slot->val.rq, rq, 0);
    return;
  }
  if (bpf_map_delete_elem(&inflight, key) == 0)
    __sync_fetch_and_add(&overflow_entries, -1);
}

#endif /* BIOSNOOP_BPF_INFLIGHT_TABLE_BPF_H_ */
