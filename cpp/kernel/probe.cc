// The Probe's parts put together in the order a start needs (probe.h);
// each part's file says why it does what it does.

#include "probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "biosnoop_skeleton.h"
#include "kernel_counts.h"
#include "load_log.h"
#include "loaded_program.h"
#include "prerequisites.h"
#include "probe_settings.h"
#include "status_macros.h"

namespace biosnoop {

absl::Status Probe::CheckPrerequisites() {
  return biosnoop::CheckPrerequisites();
}

absl::StatusOr<std::unique_ptr<Probe>> Probe::Open(const ProbeConfig& requested,
                                                   RecordConsumer* consumer) {
  SetLibbpfVerbosity(requested.verbose);
  RETURN_IF_ERROR(biosnoop::CheckPrerequisites());
  ASSIGN_OR_RETURN(const RunningKernel kernel, ReadRunningKernel());

  std::unique_ptr<Probe> probe(new Probe());
  ProbeConfig config = requested;
  probe->kernel_lacks_ = AdaptToKernel(kernel.features, &config);
  // libbpf finds a module's tracepoint by listing every BTF object, which
  // the kernel allows with CAP_SYS_ADMIN only (CAP_BPF is not enough).
  if (kernel.features.nvme_in_module && config.driver_layer &&
      !HaveSysAdmin()) {
    config.driver_layer = false;
    probe->kernel_lacks_.push_back(
        {"nvme_core",
         "NVMe's tracepoints are in the nvme_core module, which libbpf "
         "attaches to only with CAP_SYS_ADMIN: events on NVMe carry no "
         "driver times"});
  }
  ASSIGN_OR_RETURN(
      probe->program_,
      LoadedProgram::Load(kernel.features, kernel.preempt_count_from_rq,
                          &config, &probe->kernel_lacks_));
  biosnoop_bpf* skel = probe->program_->skel();
  probe->direct_io_unfollowed_ = DirectIoUnfollowed(config, *skel);
  probe->inflight_ = InflightTable::Open(skel, config.dev);
  ASSIGN_OR_RETURN(probe->ring_,
                   RecordRing::Open(bpf_map__fd(skel->maps.events), consumer));
  return probe;
}

Probe::~Probe() = default;

absl::StatusOr<int> Probe::Poll(int timeout_ms) {
  return ring_->Poll(timeout_ms);
}

absl::StatusOr<int> Probe::Drain() { return ring_->Drain(); }

void Probe::Detach() { program_->Detach(); }

absl::StatusOr<Counters> Probe::ReadCounters() const {
  return biosnoop::ReadCounters(*program_->skel());
}

absl::StatusOr<KernelHistograms> Probe::ReadHistograms() const {
  return biosnoop::ReadHistograms(*program_->skel());
}

MissedHooks Probe::ReadMissed(const Counters& counters) const {
  const auto& progs = program_->skel()->progs;
  // Skipped completions that the rescue program did not pick up.
  const uint64_t skipped = RecursionMisses(progs.handle_rq_complete);
  const uint64_t rescued = counters.v[BIOSNOOP_CTR_RESCUED_COMPLETE];
  MissedHooks m;
  m.submit = RecursionMisses(progs.handle_io_start) +
             RecursionMisses(progs.handle_rq_insert);
  m.issue = RecursionMisses(progs.handle_rq_issue);
  m.complete = skipped > rescued ? skipped - rescued : 0;
  return m;
}

absl::StatusOr<uint64_t> Probe::RescueIfSkipped() {
  if (rescue_attached() || program_->detached()) return 0;
  const uint64_t skipped =
      RecursionMisses(program_->skel()->progs.handle_rq_complete);
  if (skipped == 0) return 0;
  RETURN_IF_ERROR(AttachRescue());
  return skipped;
}

// The rescue is the hook table's one deferred program (hook_table.h).
absl::Status Probe::AttachRescue() { return program_->AttachDeferred(); }

bool Probe::rescue_attached() const { return program_->deferred_attached(); }

void Probe::SetSectorRange(uint64_t start, uint64_t end) {
  biosnoop::SetSectorRange(program_->skel(), start, end);
}

void Probe::SetCgroupId(uint64_t id) {
  biosnoop::SetCgroupId(program_->skel(), id);
}

namespace {

// The keys of the hash map `fd` whose keys are a u32.
std::vector<uint32_t> MapKeys(int fd) {
  std::vector<uint32_t> keys;
  uint32_t key = 0, next = 0;
  uint32_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    key = next;
    prev = &key;
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

std::vector<uint32_t> Probe::TakeUnfollowedFs() {
  // The kernel notes a file system with 1; once returned it is marked 2,
  // so the map itself remembers what was said.
  const int fd = bpf_map__fd(program_->skel()->maps.ops_unfollowed_devs);
  std::vector<uint32_t> out;
  for (uint32_t key : MapKeys(fd)) {
    uint8_t v = 0;
    if (bpf_map_lookup_elem(fd, &key, &v) != 0 || v != 1) continue;
    const uint8_t noted = 2;
    bpf_map_update_elem(fd, &key, &noted, BPF_EXIST);
    out.push_back(key);
  }
  return out;
}

void Probe::SetLowerDisks(
    const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& disks) {
  const int fd = bpf_map__fd(program_->skel()->maps.op_lower_disks);
  absl::flat_hash_set<uint32_t> now;
  for (const auto& [dev, below] : disks) {
    biosnoop_op_lower value = {};
    for (size_t i = 0; i < below.size() && i < BIOSNOOP_OP_LOWER; ++i) {
      value.devs[i] = below[i];
    }
    uint32_t key = dev;
    // Full (256 stacked disks): the rest wait as before, on their own.
    if (bpf_map_update_elem(fd, &key, &value, BPF_ANY) == 0) now.insert(dev);
  }
  // Those gone since (an LVM volume removed).
  for (uint32_t dev : MapKeys(fd)) {
    if (!now.contains(dev)) bpf_map_delete_elem(fd, &dev);
  }
}

const std::vector<std::string>& Probe::attached() const {
  return program_->attached();
}

uint64_t Probe::VerifiedInstructions() const {
  return program_->VerifiedInstructions();
}

}  // namespace biosnoop
