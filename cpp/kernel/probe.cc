// Loading, attaching and polling the BPF program, and reading its maps;
// libbpf's negative errno becomes a Status here, with context (probe.h).

#include "probe.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/membarrier.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "attribution_config.h"
#include "biosnoop_skeleton.h"
#include "exit_codes.h"
#include "kernel_btf.h"
#include "kernel_features.h"
#include "libbpf_status.h"
#include "load_log.h"
#include "ops_config.h"
#include "preempt_count.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

bool HasCapability(const __user_cap_data_struct (&data)[2], int cap) {
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

bool HaveSysAdmin() {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(SYS_capget, &header, data) == 0 &&
         HasCapability(data, CAP_SYS_ADMIN);
}

absl::Status CheckPrivilege() {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return absl::InternalError(absl::StrCat("capget: ", strerror(errno)));
  }
  // CAP_BPF and CAP_PERFMON came in 5.8; before that CAP_SYS_ADMIN covers both.
  constexpr int kCapPerfmon = 38;
  constexpr int kCapBpf = 39;
  bool ok = HasCapability(data, CAP_SYS_ADMIN) ||
            (HasCapability(data, kCapBpf) && HasCapability(data, kCapPerfmon));
  if (!ok) {
    return absl::PermissionDeniedError(
        "permission denied: biosnoop loads a BPF program into the kernel and "
        "needs root, or the CAP_BPF and CAP_PERFMON capabilities: run it with "
        "sudo");
  }
  return absl::OkStatus();
}

constexpr char kVmlinuxBtf[] = "/sys/kernel/btf/vmlinux";
constexpr char kNeedBtf[] =
    "biosnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (the default "
    "on Debian 11+, Ubuntu 20.10+, RHEL 8.2+)";

absl::Status UnusableBtf(absl::string_view why) {
  return absl::UnavailableError(
      absl::StrCat(kVmlinuxBtf, " is not valid BTF (", why, "): ", kNeedBtf));
}

// Whether the file is BTF at all, from its header alone (the kernel's
// struct btf_header): a cheap check before anything is created, so that
// an empty or foreign file (seen bind-mounted over it in containers) is
// refused as missing BTF is, not after loading as "No such process".
// The full parse comes at load.
absl::Status CheckBtfHeader() {
  struct {
    uint16_t magic;
    uint8_t version;
    uint8_t flags;
    uint32_t hdr_len;
    uint32_t type_off, type_len, str_off, str_len;
  } h;
  static_assert(sizeof(h) == 24);
  const int fd = open(kVmlinuxBtf, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return UnusableBtf(strerror(errno));
  struct stat st;
  const bool sized = fstat(fd, &st) == 0;
  const ssize_t n = pread(fd, &h, sizeof(h), 0);
  const int err = errno;
  close(fd);
  if (n < 0) return UnusableBtf(strerror(err));
  if (n == 0) return UnusableBtf("it is empty");
  // Native byte order: the kernel's own BTF is never byte-swapped.
  if (static_cast<size_t>(n) < sizeof(h) || h.magic != 0xeB9F) {
    return UnusableBtf("no BTF header");
  }
  const uint64_t end =
      uint64_t{h.hdr_len} + std::max(uint64_t{h.type_off} + h.type_len,
                                     uint64_t{h.str_off} + h.str_len);
  if (h.version != 1 || h.hdr_len < sizeof(h) ||
      (sized && st.st_size > 0 && end > static_cast<uint64_t>(st.st_size))) {
    return UnusableBtf("a corrupt BTF header");
  }
  return absl::OkStatus();
}

absl::Status CheckBtf() {
  if (access(kVmlinuxBtf, R_OK) != 0) {
    return absl::UnavailableError(absl::StrCat("this kernel exposes no BTF (",
                                               kVmlinuxBtf,
                                               " is missing): ", kNeedBtf));
  }
  return CheckBtfHeader();
}

// Loading failed with ENOMEM.  Almost all of what biosnoop asks the kernel
// for is the ring buffer (2 MiB by default, up to 1 GiB), charged to the
// memory cgroup like any BPF map: if a ring buffer of that size alone
// cannot be had either, name it and the option that sizes it.  Exit 71
// (EX_OSERR): the system refused memory, which is neither a bug (70) nor a
// kernel without support (69, "this machine cannot run biosnoop").
absl::Status OutOfMemoryAtLoad(uint32_t ringbuf_bytes) {
  const int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "biosnoop_rb_try", 0, 0,
                                ringbuf_bytes, nullptr);
  const int err = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  if (err == ENOMEM) {
    return WithExitCode(
        absl::ResourceExhaustedError(absl::StrCat(
            "the kernel could not allocate the ring buffer of ",
            ringbuf_bytes / 1024,
            " KiB (Cannot allocate memory; BPF memory counts against the "
            "memory cgroup's limit): try a smaller --ringbuf-kib (default "
            "2048)")),
        kExitOsError);
  }
  return WithExitCode(
      absl::ResourceExhaustedError(
          "load BPF program: Cannot allocate memory (the kernel is short of "
          "memory, or of the memory cgroup's allowance)"),
      kExitOsError);
}

// Whether `program` serves --ops alone (switched off with it).
bool IsOpsProgram(const std::string& program) {
  return absl::StartsWith(program, "handle_sys_") ||
         absl::StartsWith(program, "handle_uring_");
}

// The kernel's statistics of a loaded program; all zero for one not
// loaded (a hook this kernel lacks) or when they cannot be read.
bpf_prog_info ProgInfo(const bpf_program* prog) {
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  const int fd = bpf_program__fd(prog);
  if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) != 0) return {};
  return info;
}

}  // namespace

absl::Status Probe::CheckPrerequisites() {
  if (absl::Status s = CheckPrivilege(); !s.ok()) return s;
  return CheckBtf();
}

absl::StatusOr<std::unique_ptr<Probe>> Probe::Open(const ProbeConfig& requested,
                                                   RecordConsumer* consumer) {
  SetLibbpfVerbosity(requested.verbose);
  if (absl::Status s = CheckPrerequisites(); !s.ok()) return s;

  // The running kernel's BTF (one copy of it in memory, see kernel_btf.h;
  // loading parses it again the same way): what it offers, and the
  // distance the completion context needs.
  struct btf* vmlinux = LoadKernelBtf();
  if (vmlinux == nullptr) {
    // The header was fine (CheckBtf), the rest does not parse.  (errno is
    // that of libbpf's search of other places, ESRCH: nothing to say.)
    return UnusableBtf("its types do not parse");
  }
  const KernelFeatures features = ReadKernelFeatures(vmlinux);
  const int64_t preempt_count_from_rq = PreemptCountFromRunqueue(vmlinux);
  btf__free(vmlinux);
  malloc_trim(0);  // before libbpf parses the same BTF again during load

  if (!features.block_rq) {
    return absl::UnavailableError(
        "this kernel has no block_rq_issue or block_rq_complete tracepoint "
        "in its BTF: biosnoop cannot follow block requests here");
  }
  ProbeConfig config = requested;
  std::vector<KernelLack> lacks = AdaptToKernel(features, &config);
  // libbpf finds a module's tracepoint by listing every BTF object, which
  // the kernel allows with CAP_SYS_ADMIN only (CAP_BPF is not enough).
  if (features.nvme_in_module && config.driver_layer && !HaveSysAdmin()) {
    config.driver_layer = false;
    lacks.push_back({"nvme_core",
                     "NVMe's tracepoints are in the nvme_core module, which "
                     "libbpf attaches to only with CAP_SYS_ADMIN: events on "
                     "NVMe carry no driver times"});
  }
  for (;;) {
    ResetLoadRefusal();
    absl::StatusOr<std::unique_ptr<Probe>> probe =
        Load(config, features, preempt_count_from_rq, consumer);
    if (probe.ok()) {
      (*probe)->kernel_lacks_ = std::move(lacks);
      return probe;
    }
    const LoadRefusal refused = LastLoadRefusal();
    if (refused.program.empty()) return probe.status();
    // The kernel's verifier refused a program: privilege was checked
    // above, so this kernel lacks something the program needs.  A program
    // of a feature that can be switched off costs the feature, not the run.
    std::string effect;
    if (config.ops && IsOpsProgram(refused.program)) {
      config.ops = false;
      effect = "--ops is off, no call is followed";
    } else if (config.ledger_entries > 0 &&
               refused.program == "handle_dirty_folio") {
      config.ledger_entries = 0;
      effect = "no dirtied-page ledger, writes name no dirtier";
    } else if (config.driver_layer &&
               absl::StartsWith(refused.program, "handle_nvme_")) {
      config.driver_layer = false;
      effect = "events on NVMe do not split out the driver's time";
    } else {
      return WithExitCode(
          absl::UnavailableError(absl::StrCat(
              "load BPF program: the kernel's verifier refused ",
              refused.program,
              refused.verdict.empty()
                  ? ""
                  : absl::StrCat(" (", refused.verdict, ")"),
              ": this kernel lacks something biosnoop needs (biosnoop -vv "
              "prints the verifier's log)")),
          kExitUnsupported);
    }
    lacks.push_back(
        {absl::StrCat("verifier:", refused.program),
         absl::StrCat("the kernel's verifier refused ", refused.program,
                      refused.verdict.empty()
                          ? ""
                          : absl::StrCat(" (", refused.verdict, ")"),
                      ": ", effect)});
  }
}

absl::StatusOr<std::unique_ptr<Probe>> Probe::Load(
    const ProbeConfig& config, const KernelFeatures& features,
    int64_t preempt_count_from_rq, RecordConsumer* consumer) {
  std::unique_ptr<Probe> probe(new Probe());
  probe->consumer_ = consumer;

  probe->skel_ = biosnoop_bpf__open();
  if (probe->skel_ == nullptr) return ErrnoStatus(errno, "open BPF program");
  biosnoop_bpf* skel = probe->skel_;

  skel->rodata->min_ns = config.min_ns;
  skel->rodata->include_queue = config.include_queue ? 1 : 0;
  skel->rodata->filter_dev = config.dev;
  skel->rodata->filter_partition = config.partition.empty() ? 0 : 1;
  skel->data->filter_sectors.start = config.sector_start;
  skel->data->filter_sectors.end = config.sector_end;
  skel->rodata->filter_pid = config.pid;
  skel->rodata->filter_op = static_cast<uint32_t>(config.op_filter);
  skel->rodata->filter_cgroup_id = config.cgroup_id;
  skel->rodata->filter_cgroup_level = config.cgroup_level;
  skel->rodata->hist_enabled = config.histograms ? 1 : 0;
  skel->rodata->hist_unit_ns = config.hist_unit_ns;
  skel->rodata->events_disabled = config.events_disabled ? 1 : 0;
  skel->rodata->queue_from_alloc = features.block_io_start ? 0 : 1;
  skel->rodata->preempt_count_from_rq = preempt_count_from_rq;
  if (!config.comm.empty()) {
    skel->rodata->filter_comm_set = 1;
    std::memset(const_cast<char*>(skel->rodata->filter_comm), 0,
                sizeof(skel->rodata->filter_comm));
    std::memcpy(
        const_cast<char*>(skel->rodata->filter_comm), config.comm.data(),
        std::min(config.comm.size(), sizeof(skel->rodata->filter_comm) - 1));
  }
  // Wake the consumer once a quarter of the ring (at most 256 KiB) waits.
  skel->rodata->wakeup_batch_bytes =
      std::min<uint64_t>(config.ringbuf_bytes / 4, 256 * 1024);
  if (int err =
          bpf_map__set_max_entries(skel->maps.events, config.ringbuf_bytes)) {
    return ErrnoStatus(err, "size ring buffer");
  }

  RETURN_IF_ERROR(ConfigureAttribution(config, skel));
  skel->rodata->dm_tio_clone_off = static_cast<uint64_t>(features.dm_tio_clone);
  skel->rodata->dm_tio_io_off = static_cast<uint64_t>(features.dm_tio_io);
  skel->rodata->dm_io_orig_bio_off =
      static_cast<uint64_t>(features.dm_io_orig_bio);
  RETURN_IF_ERROR(ConfigureOps(config, skel));
  probe->direct_io_unfollowed_ =
      config.files && skel->rodata->iomap_dio_end_io == 0;

  // Each program with its tracepoint, and whether this run loads it; the
  // rescue program comes right after its primary: attach order is call
  // order on a tracepoint, and the rescue must run after the primary.  It
  // is loaded now and attached now only with config.rescue_always;
  // otherwise RescueIfSkipped() attaches it when first needed.
  struct Hook {
    bpf_program* prog;
    const char* tracepoint;
    bool wanted;
  };
  const bool ledger = config.ledger_entries > 0;
  const bool cast = features.rdonly_cast;
  const bool uring_req = features.uring_submit == "io_uring_submit_req";
  const bool uring_sqe = features.uring_submit == "io_uring_submit_sqe";
  // io_uring's submission program of this kernel (the _sqe one reads
  // without bpf_rdonly_cast), and its completion's.
  const bool uring = config.ops && features.uring_complete &&
                     (uring_sqe || (uring_req && cast));
  const std::vector<Hook> hooks = {
      {skel->progs.handle_rq_issue, "block_rq_issue", true},
      {skel->progs.handle_rq_complete, "block_rq_complete", true},
      {skel->progs.rescue_rq_complete, "block_rq_complete", true},
      // Submission: block_io_start since 6.5, else block_rq_insert (and
      // the issue program for requests issued directly: queue_from_alloc).
      {skel->progs.handle_io_start, "block_io_start", features.block_io_start},
      {skel->progs.handle_rq_insert, "block_rq_insert",
       !features.block_io_start && features.block_rq_insert},
      {skel->progs.handle_rq_requeue, "block_rq_requeue",
       features.block_rq_requeue},
      {skel->progs.handle_rq_merge, "block_rq_merge", features.block_rq_merge},
      {skel->progs.handle_dirty_folio, "writeback_dirty_folio", ledger},
      // The driver's layer on NVMe disks (their I/O alone runs these).
      {skel->progs.handle_nvme_setup, "nvme_setup_cmd",
       features.nvme && config.driver_layer},
      {skel->progs.handle_nvme_complete, "nvme_complete_rq",
       features.nvme && config.driver_layer},
      // Calls (--ops): the raw syscall tracepoints, and io_uring's where
      // the kernel has io_uring; the programs for this kernel's version
      // (kernel_features.h).
      {skel->progs.handle_sys_enter, "sys_enter", config.ops && cast},
      {skel->progs.handle_sys_enter_nocast, "sys_enter", config.ops && !cast},
      {skel->progs.handle_sys_exit, "sys_exit", config.ops},
      {skel->progs.handle_uring_submit, "io_uring_submit_req",
       uring && uring_req},
      {skel->progs.handle_uring_submit_sqe, "io_uring_submit_sqe",
       uring && uring_sqe},
      {skel->progs.handle_uring_complete, "io_uring_complete",
       uring && features.uring_complete_cqe},
      {skel->progs.handle_uring_complete_fields, "io_uring_complete",
       uring && !features.uring_complete_cqe},
  };
  for (const Hook& h : hooks) bpf_program__set_autoload(h.prog, h.wanted);
  // The stuck request's walk is run on demand (StuckFiles), never
  // attached; without files there is nothing for it to do.
  bpf_program__set_autoload(skel->progs.attr_stuck, config.files);

  if (int err = biosnoop_bpf__load(skel)) {
    if (err == -ENOMEM) return OutOfMemoryAtLoad(config.ringbuf_bytes);
    return ErrnoStatus(err, "load BPF program");
  }
  // Loading parsed the kernel's BTF (megabytes) and freed it; hand the
  // memory back so the long-running process stays small.
  malloc_trim(0);
  for (const Hook& h : hooks) {
    if (!h.wanted) continue;
    if (h.prog == skel->progs.rescue_rq_complete && !config.rescue_always) {
      continue;
    }
    RETURN_IF_ERROR(probe->Attach(h.prog, h.tracepoint));
  }

  // The kernel's count of completed flushes, per disk, from now on
  // compared with the flushes our program sees complete (UnseenFlushes).
  // Read after attaching: a flush that completes in between is seen and
  // counted by both.
  std::vector<uint32_t> disks;
  if (config.dev != 0) {
    disks.push_back(config.dev);
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
  for (uint32_t dev : disks) {
    if (std::optional<uint64_t> done = DiskFlushesDone(dev)) {
      probe->flush_baseline_[dev] = *done;
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
    probe->slots_view_ = static_cast<const biosnoop_inflight_val*>(view);
    probe->slots_view_bytes_ = bytes;
  }

  probe->rb_ = ring_buffer__new(bpf_map__fd(skel->maps.events),
                                &Probe::OnRecord, probe.get(), nullptr);
  if (probe->rb_ == nullptr) return ErrnoStatus(errno, "open ring buffer");
  return probe;
}

absl::Status Probe::Attach(bpf_program* prog, const char* tracepoint) {
  bpf_link* link = bpf_program__attach(prog);
  if (link == nullptr) {
    return ErrnoStatus(errno, absl::StrCat("attach ", tracepoint));
  }
  // Keep the link in the skeleton so biosnoop_bpf__detach and __destroy
  // detach it.
  for (int i = 0; i < skel_->skeleton->prog_cnt; ++i) {
    if (*skel_->skeleton->progs[i].prog == prog) {
      *skel_->skeleton->progs[i].link = link;
    }
  }
  std::string name = absl::StrCat("tp_btf/", tracepoint);
  if (attached_.empty() || attached_.back() != name) {
    attached_.push_back(std::move(name));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> Probe::RescueIfSkipped() {
  if (rescue_attached() || detached_) return 0;
  const uint64_t skipped =
      ProgInfo(skel_->progs.handle_rq_complete).recursion_misses;
  if (skipped == 0) return 0;
  RETURN_IF_ERROR(AttachRescue());
  return skipped;
}

void Probe::SetSectorRange(uint64_t start, uint64_t end) {
  // The programs read the two bounds without a lock, so each moment in
  // between is a range too: first narrowed to what the old and new ranges
  // share (maybe nothing), then widened to the new one.  A completion in
  // between is thus judged by a part of either range, never by more.
  biosnoop_sector_range& r = skel_->data->filter_sectors;
  const uint64_t old_start = __atomic_load_n(&r.start, __ATOMIC_RELAXED);
  const uint64_t old_end = __atomic_load_n(&r.end, __ATOMIC_RELAXED);
  __atomic_store_n(&r.start, std::max(old_start, start), __ATOMIC_RELEASE);
  __atomic_store_n(&r.end, std::min(old_end, end), __ATOMIC_RELEASE);
  __atomic_store_n(&r.end, end, __ATOMIC_RELEASE);
  __atomic_store_n(&r.start, start, __ATOMIC_RELEASE);
}

bool Probe::rescue_attached() const {
  return skel_->links.rescue_rq_complete != nullptr;
}

absl::Status Probe::AttachRescue() {
  if (rescue_attached()) return absl::OkStatus();
  if (detached_) return absl::FailedPreconditionError("probe detached");
  if (!bpf_program__autoload(skel_->progs.rescue_rq_complete)) {
    return absl::UnavailableError("no block_rq_complete tracepoint");
  }
  return Attach(skel_->progs.rescue_rq_complete, "block_rq_complete");
}

Probe::~Probe() {
  if (slots_view_ != nullptr) {
    munmap(const_cast<biosnoop_inflight_val*>(slots_view_), slots_view_bytes_);
  }
  if (rb_ != nullptr) ring_buffer__free(rb_);
  if (skel_ != nullptr) biosnoop_bpf__destroy(skel_);
}

int Probe::OnRecord(void* ctx, void* data, size_t size) {
  auto* self = static_cast<Probe*>(ctx);
  // Events disabled: the kernel emits none (ProbeConfig::events_disabled).
  if (self->consumer_ == nullptr) return 0;
  absl::Status s = self->consumer_->Consume(data, size);
  if (s.ok()) return 0;
  self->consumer_status_ = std::move(s);
  return -ECANCELED;
}

absl::StatusOr<int> Probe::Poll(int timeout_ms) {
  int n = ring_buffer__poll(rb_, timeout_ms);
  // Records submitted without a wakeup (see wakeup_flags in the BPF
  // program) do not end the wait: collect them when it times out.
  if (n == 0 || n == -EINTR) n = ring_buffer__consume(rb_);
  if (n == -ECANCELED && !consumer_status_.ok()) {
    absl::Status s = std::move(consumer_status_);
    consumer_status_ = absl::OkStatus();
    return s;
  }
  if (n == -EINTR) return 0;
  if (n < 0) return ErrnoStatus(n, "poll ring buffer");
  return n;
}

absl::StatusOr<int> Probe::Drain() {
  int n = ring_buffer__consume(rb_);
  if (n == -ECANCELED && !consumer_status_.ok()) {
    absl::Status s = std::move(consumer_status_);
    consumer_status_ = absl::OkStatus();
    return s;
  }
  if (n < 0) return ErrnoStatus(n, "drain ring buffer");
  return n;
}

void Probe::Detach() {
  detached_ = true;
  biosnoop_bpf__detach(skel_);
  // A program that started before its link went away may still be
  // running.  Tracepoint probes run with preemption disabled, so one RCU
  // grace period outlasts them all; MEMBARRIER_CMD_GLOBAL waits for one
  // (synchronize_rcu).  It is refused on nohz_full kernels: then wait far
  // longer than a program runs.
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0) usleep(20000);
}

uint64_t Probe::VerifiedInstructions() const {
  uint64_t total = 0;
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    total += ProgInfo(prog).verified_insns;
  }
  return total;
}

absl::StatusOr<Counters> Probe::ReadCounters() const {
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return ErrnoStatus(ncpus, "count possible CPUs");
  std::vector<uint64_t> per_cpu(static_cast<size_t>(ncpus));
  int fd = bpf_map__fd(skel_->maps.counters);
  Counters c;
  for (uint32_t i = 0; i < BIOSNOOP_CTR_MAX; ++i) {
    if (bpf_map_lookup_elem(fd, &i, per_cpu.data()) != 0) {
      return ErrnoStatus(errno, "read counters");
    }
    for (uint64_t v : per_cpu) c.v[i] += v;
  }
  return c;
}

absl::StatusOr<KernelHistograms> Probe::ReadHistograms() const {
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return ErrnoStatus(ncpus, "count possible CPUs");
  std::vector<biosnoop_hist> per_cpu(static_cast<size_t>(ncpus));
  KernelHistograms set;
  auto add = [&set](uint64_t key, const biosnoop_hist& h) {
    if (key == 0 || h.count == 0) return;
    auto [it, inserted] = set.try_emplace(key, biosnoop_hist{});
    if (inserted) it->second.key = key;
    AddKernelHist(h, &it->second);
  };
  int fd = bpf_map__fd(skel_->maps.hist_slots);
  for (uint32_t i = 0; i < BIOSNOOP_HIST_SLOTS; ++i) {
    if (bpf_map_lookup_elem(fd, &i, per_cpu.data()) != 0) {
      return ErrnoStatus(errno, "read histograms");
    }
    // A slot's key is per CPU: each CPU claims its own copy.
    for (const biosnoop_hist& h : per_cpu) add(h.key, h);
  }
  // An overflow entry's key is the map key.  Its value's key field is set
  // only in the copy of the CPU that inserted it: a BPF program's insert
  // into a per-CPU hash zero-fills the other CPUs' copies, and those CPUs
  // then count into a copy whose key field stays 0.
  fd = bpf_map__fd(skel_->maps.hist_overflow);
  uint64_t key = 0, next = 0;
  uint64_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    if (bpf_map_lookup_elem(fd, &next, per_cpu.data()) == 0) {
      for (const biosnoop_hist& h : per_cpu) add(next, h);
    }
    key = next;
    prev = &key;
  }
  return set;
}

MissedHooks Probe::ReadMissed(const Counters& counters) const {
  auto misses = [](bpf_program* prog) {
    return ProgInfo(prog).recursion_misses;
  };
  // Skipped completions that the rescue program did not pick up.
  auto lost = [](uint64_t skipped, uint64_t rescued) {
    return skipped > rescued ? skipped - rescued : 0;
  };
  MissedHooks m;
  m.submit = misses(skel_->progs.handle_io_start) +
             misses(skel_->progs.handle_rq_insert);
  m.issue = misses(skel_->progs.handle_rq_issue);
  m.complete = lost(misses(skel_->progs.handle_rq_complete),
                    counters.v[BIOSNOOP_CTR_RESCUED_COMPLETE]);
  return m;
}

absl::StatusOr<std::string> Probe::StuckFiles(uint64_t rq, uint64_t issue_ns) {
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

}  // namespace biosnoop
