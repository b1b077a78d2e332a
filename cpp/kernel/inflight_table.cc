// The in-flight table read, scanned and pruned (inflight_table.h).

#include "inflight_table.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "biosnoop_skeleton.h"
#include "libbpf_status.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

bool IsStale(const biosnoop_inflight_val& val, uint64_t now_ns,
             uint64_t max_age_ns) {
  if (val.rq == 0) return false;
  uint64_t touched = std::max(val.submit_ns, val.issue_ns);
  return touched != 0 && now_ns > touched && now_ns - touched > max_age_ns;
}

}  // namespace

std::unique_ptr<InflightTable> InflightTable::Open(biosnoop_bpf* skel,
                                                   uint32_t dev) {
  std::unique_ptr<InflightTable> table(new InflightTable(skel));
  // The kernel's count of completed flushes, per disk, from now on
  // compared with the flushes the programs see complete (UnseenFlushes).
  // Read once they are attached: a flush that completes in between is
  // seen and counted by both.
  std::vector<uint32_t> disks;
  if (dev != 0) {
    disks.push_back(dev);
  } else {
    std::error_code ec;
    for (const auto& entry :
         std::filesystem::directory_iterator("/sys/block", ec)) {
      std::ifstream dev_file(entry.path() / "dev");
      uint32_t major = 0, minor = 0;
      char colon = 0;
      if (dev_file >> major >> colon >> minor && colon == ':') {
        disks.push_back((major << 20) | minor);
      }
    }
  }
  for (uint32_t d : disks) {
    if (std::optional<uint64_t> done = DiskFlushesDone(d)) {
      table->flush_baseline_[d] = *done;
    }
  }

  // The slot array's values start page-aligned in the mapping, one every
  // sizeof(biosnoop_inflight_val) bytes (a multiple of 8, as the kernel
  // lays array values out).
  static_assert(sizeof(biosnoop_inflight_val) % 8 == 0);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes =
      (sizeof(biosnoop_inflight_val) * BIOSNOOP_SLOTS + page - 1) / page * page;
  void* view = mmap(nullptr, bytes, PROT_READ, MAP_SHARED,
                    bpf_map__fd(skel->maps.slots), 0);
  if (view != MAP_FAILED) {
    table->slots_view_ = static_cast<const biosnoop_inflight_val*>(view);
    table->slots_view_bytes_ = bytes;
  }
  return table;
}

InflightTable::~InflightTable() {
  if (slots_view_ != nullptr) {
    munmap(const_cast<biosnoop_inflight_val*>(slots_view_), slots_view_bytes_);
  }
}

absl::StatusOr<uint64_t> InflightTable::CountUnfinished(
    uint64_t now_ns, uint64_t min_age_ns) const {
  uint64_t n = 0;
  RETURN_IF_ERROR(ForEach([&](const biosnoop_inflight_val& val,
                              bool /*in_slot*/, uint32_t /*slot*/) {
    // Until issue, flags hold only the preflush (bpf on_submit).
    if (val.issue_ns == 0 && (val.flags & BIOSNOOP_FLAG_PREFLUSH)) return;
    const uint64_t since = val.issue_ns != 0 ? val.issue_ns : val.submit_ns;
    if (since != 0 && now_ns > since && now_ns - since > min_age_ns) ++n;
  }));
  return n;
}

uint64_t InflightTable::UnseenFlushes(uint32_t dev) const {
  uint64_t seen = 0;
  bpf_map_lookup_elem(bpf_map__fd(skel_->maps.flushes_done), &dev, &seen);
  const std::optional<uint64_t> done = DiskFlushesDone(dev);
  if (!done.has_value()) return 0;
  auto base = flush_baseline_.find(dev);
  const uint64_t since =
      *done - std::min(*done, base == flush_baseline_.end() ? uint64_t{0}
                                                            : base->second);
  return since > seen ? since - seen : 0;
}

absl::Status InflightTable::ForEach(const Visitor& visit) const {
  // The slot array, read in batches.
  int slots_fd = bpf_map__fd(skel_->maps.slots);
  constexpr uint32_t kBatch = 1024;
  std::vector<biosnoop_inflight_val> values(kBatch);
  std::vector<uint32_t> keys(kBatch);
  uint32_t in_batch = 0, out_batch = 0;
  bool first = true;
  for (;;) {
    uint32_t count = kBatch;
    int err =
        bpf_map_lookup_batch(slots_fd, first ? nullptr : &in_batch, &out_batch,
                             keys.data(), values.data(), &count, nullptr);
    if (err != 0 && errno != ENOENT) {
      return ErrnoStatus(errno, "read in-flight slots");
    }
    for (uint32_t i = 0; i < count; ++i) {
      if (values[i].rq == 0) continue;  // free
      visit(values[i], /*in_slot=*/true, keys[i]);
    }
    if (err != 0) break;  // ENOENT: that was the last batch
    in_batch = out_batch;
    first = false;
  }

  ForEachOverflow(visit);
  return absl::OkStatus();
}

void InflightTable::ForEachOverflow(const Visitor& visit) const {
  int fd = bpf_map__fd(skel_->maps.inflight);
  uint64_t key = 0, next = 0;
  uint64_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    biosnoop_inflight_val val{};
    if (bpf_map_lookup_elem(fd, &next, &val) == 0 && val.rq != 0) {
      visit(val, /*in_slot=*/false, 0);
    }
    key = next;
    prev = &key;
  }
}

absl::StatusOr<uint64_t> InflightTable::Expire(uint64_t now_ns,
                                               uint64_t max_age_ns) {
  std::vector<InflightEntry> stale;
  RETURN_IF_ERROR(ForEach(
      [&](const biosnoop_inflight_val& val, bool in_slot, uint32_t slot) {
        if (!IsStale(val, now_ns, max_age_ns)) return;
        stale.push_back({val.dev, val.rq, val.issue_ns, false, in_slot, slot});
      }));
  return Remove(stale);
}

absl::StatusOr<std::vector<InflightEntry>> InflightTable::ReadIssued(
    const absl::flat_hash_set<uint32_t>& devs) const {
  std::vector<InflightEntry> out;
  RETURN_IF_ERROR(ForEach([&](const biosnoop_inflight_val& val, bool in_slot,
                              uint32_t slot) {
    // Reads and writes, which the kernel's in-flight count covers, and
    // flushes, which it leaves out (passthrough commands may be outside it
    // too: never judged).
    const bool flush = val.op == BIOSNOOP_OP_FLUSH;
    if (!devs.contains(val.dev) || val.issue_ns == 0 || val.requeued ||
        (val.op != BIOSNOOP_OP_READ && val.op != BIOSNOOP_OP_WRITE && !flush)) {
      return;
    }
    out.push_back({val.dev, val.rq, val.issue_ns, flush, in_slot, slot});
  }));
  return out;
}

absl::StatusOr<std::vector<biosnoop_inflight_val>>
InflightTable::ReadIssuedBefore(uint64_t issued_before_ns) const {
  std::vector<biosnoop_inflight_val> out;
  auto keep = [&](const biosnoop_inflight_val& val, bool /*in_slot*/,
                  uint32_t /*slot*/) {
    if (val.rq != 0 && val.issue_ns != 0 && !val.requeued &&
        val.issue_ns <= issued_before_ns) {
      out.push_back(val);
    }
  };
  if (slots_view_ == nullptr) {
    RETURN_IF_ERROR(ForEach(keep));
    return out;
  }
  // The programs write entries while we read: the mapping only picks the
  // candidates (a torn read can only add or miss one for a second), and
  // each is then copied whole through the syscall, as every other scan
  // reads the table.  Usually there is none: no syscall at all.
  const int fd = bpf_map__fd(skel_->maps.slots);
  for (uint32_t i = 0; i < BIOSNOOP_SLOTS; ++i) {
    const biosnoop_inflight_val& slot = slots_view_[i];
    const uint64_t rq = __atomic_load_n(&slot.rq, __ATOMIC_RELAXED);
    const uint64_t issue_ns = __atomic_load_n(&slot.issue_ns, __ATOMIC_RELAXED);
    if (rq == 0 || issue_ns == 0 || issue_ns > issued_before_ns) continue;
    biosnoop_inflight_val val{};
    if (bpf_map_lookup_elem(fd, &i, &val) != 0) {
      return ErrnoStatus(errno, "read in-flight slots");
    }
    keep(val, /*in_slot=*/true, i);
  }
  ForEachOverflow(keep);
  return out;
}

absl::StatusOr<std::string> InflightTable::StuckFiles(uint64_t rq,
                                                      uint64_t issue_ns) {
  // Not loaded without files (hook_table.h).
  if (!bpf_program__autoload(skel_->progs.attr_stuck)) return std::string();
  uint64_t args[2] = {rq, issue_ns};
  LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
              .ctx_size_in = sizeof(args));
  if (int err = bpf_prog_test_run_opts(bpf_program__fd(skel_->progs.attr_stuck),
                                       &opts)) {
    return ErrnoStatus(err, "run the stuck request's file walk");
  }
  if (opts.retval != 1) return std::string();
  const bpf_map* map = skel_->maps.stuck_buf;
  stuck_buf_.resize(bpf_map__value_size(map));
  const uint32_t zero = 0;
  if (bpf_map__lookup_elem(map, &zero, sizeof(zero), stuck_buf_.data(),
                           stuck_buf_.size(), 0) != 0) {
    return ErrnoStatus(errno, "read the stuck request's files");
  }
  // As the kernel writes a record: the event (its size covering the
  // rest), the attribution, its names.
  biosnoop_event ev;
  std::memcpy(&ev, stuck_buf_.data(), sizeof(ev));
  if (ev.size <= sizeof(ev) || ev.size > stuck_buf_.size()) {
    return std::string();
  }
  return std::string(stuck_buf_.data() + sizeof(ev), ev.size - sizeof(ev));
}

absl::StatusOr<uint64_t> InflightTable::Remove(
    const std::vector<InflightEntry>& entries) {
  // An entry is removed only while it still holds the same request: a
  // slot is freed by writing it back zeroed (the kernel claims slots only
  // when their owner is 0), an overflow element by deleting its key.  The
  // one race left (the same key reused between our check and our write)
  // costs that request an orphaned completion, which is counted.
  int slots_fd = bpf_map__fd(skel_->maps.slots);
  int hash_fd = bpf_map__fd(skel_->maps.inflight);
  uint64_t removed = 0;
  for (const InflightEntry& e : entries) {
    const int fd = e.in_slot ? slots_fd : hash_fd;
    const void* key = e.in_slot ? static_cast<const void*>(&e.slot) : &e.rq;
    biosnoop_inflight_val now{};
    if (bpf_map_lookup_elem(fd, key, &now) != 0 || now.rq != e.rq ||
        now.issue_ns != e.issue_ns) {
      continue;
    }
    if (e.in_slot) {
      biosnoop_inflight_val empty{};
      if (bpf_map_update_elem(fd, key, &empty, BPF_EXIST) == 0) ++removed;
    } else {
      if (bpf_map_delete_elem(fd, key) == 0) ++removed;
    }
  }
  return removed;
}

absl::StatusOr<std::vector<uint32_t>> InflightTable::DevsWithInflight() const {
  std::vector<uint32_t> devs;
  // The whole slot array in one call: this runs every second.
  int fd = bpf_map__fd(skel_->maps.depth_slots);
  std::vector<biosnoop_depth_slot> slots(BIOSNOOP_DEPTH_SLOTS);
  std::vector<uint32_t> indexes(BIOSNOOP_DEPTH_SLOTS);
  uint32_t out_batch = 0;
  uint32_t count = BIOSNOOP_DEPTH_SLOTS;
  if (bpf_map_lookup_batch(fd, nullptr, &out_batch, indexes.data(),
                           slots.data(), &count, nullptr) != 0 &&
      errno != ENOENT) {
    return ErrnoStatus(errno, "read in-flight depth");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const biosnoop_depth_slot& s = slots[i];
    if (s.dev != 0 && s.inflight != 0)
      devs.push_back(static_cast<uint32_t>(s.dev));
  }
  fd = bpf_map__fd(skel_->maps.dev_inflight);
  uint32_t key = 0, next = 0;
  uint32_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    uint64_t depth = 0;
    if (bpf_map_lookup_elem(fd, &next, &depth) == 0 && depth != 0) {
      devs.push_back(next);
    }
    key = next;
    prev = &key;
  }
  return devs;
}

absl::Status InflightTable::ResetDepth(uint32_t dev) {
  int fd = bpf_map__fd(skel_->maps.depth_slots);
  uint32_t idx = biosnoop_depth_slot_index(dev);
  biosnoop_depth_slot s{};
  if (bpf_map_lookup_elem(fd, &idx, &s) == 0 && s.dev == dev) {
    s.inflight = 0;
    if (bpf_map_update_elem(fd, &idx, &s, BPF_EXIST) != 0) {
      return ErrnoStatus(errno, "reset in-flight depth");
    }
    return absl::OkStatus();
  }
  fd = bpf_map__fd(skel_->maps.dev_inflight);
  uint64_t zero = 0;
  if (bpf_map_update_elem(fd, &dev, &zero, BPF_EXIST) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, "reset in-flight depth");
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
