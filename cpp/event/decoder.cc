// The kernel's record and in-flight entry -> Event and StuckRequest; the one
// place in event/ that sees their layout (decoder.h).

#include "decoder.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "absl/strings/str_format.h"
#include "biosnoop_abi.h"

namespace biosnoop {

static_assert(
    sizeof(biosnoop_event) == 128,
    "struct biosnoop_event layout changed: bump BIOSNOOP_ABI_VERSION");
static_assert(
    sizeof(biosnoop_op_record) == 736,
    "struct biosnoop_op_record layout changed: bump BIOSNOOP_ABI_VERSION");
static_assert(BIOSNOOP_CALL_URING_FSYNC == static_cast<int>(Call::kUringFsync));
static_assert(BIOSNOOP_CALL_SYNC_FILE_RANGE ==
              static_cast<int>(Call::kSyncFileRange));
static_assert(BIOSNOOP_OP_DISKS == 4);
static_assert(BIOSNOOP_OP_CULPRITS == 4);
static_assert(BIOSNOOP_QOS_WBT == kQosWbt &&
              BIOSNOOP_QOS_IOLATENCY == kQosIoLatency &&
              BIOSNOOP_QOS_IOCOST == kQosIoCost);
static_assert(BIOSNOOP_OP_OTHER == static_cast<int>(Op::kOther));
static_assert(BIOSNOOP_FLAG_META == kFlagMeta);
static_assert(BIOSNOOP_CTX_HARDIRQ ==
              static_cast<int>(CompletionContext::kHardirq));
static_assert(BIOSNOOP_CTX_SOFTIRQ ==
              static_cast<int>(CompletionContext::kSoftirq));
static_assert(BIOSNOOP_CTX_TASK == static_cast<int>(CompletionContext::kTask));

namespace {

uint32_t Major(uint32_t kernel_dev) { return kernel_dev >> 20; }
uint32_t Minor(uint32_t kernel_dev) { return kernel_dev & ((1u << 20) - 1); }

// One file as the kernel named it, its names read from names[] (the
// names_len bytes after the attribution or op record).
void DecodeFile(const biosnoop_file& f, const char* names, size_t names_len,
                FileRef* out) {
  FileRef& ref = *out;
  ref.ino = f.ino;
  ref.dev_major = Major(f.dev);
  ref.dev_minor = Minor(f.dev);
  ref.direct = (f.flags & BIOSNOOP_FILE_DIRECT) != 0;
  ref.reached_root = (f.flags & BIOSNOOP_FILE_ROOT) != 0;
  ref.names.resize(f.depth);
  size_t off = f.names_off;
  for (std::string& name : ref.names) {
    // Each name is NUL-terminated inside names[]; one running past the
    // end makes the chain stop there (read as not reaching the root).
    const void* nul = off < names_len
                          ? std::memchr(names + off, 0, names_len - off)
                          : nullptr;
    if (nul == nullptr) {
      ref.names.resize(&name - ref.names.data());
      ref.reached_root = false;
      break;
    }
    const size_t len = static_cast<const char*>(nul) - (names + off);
    name.assign(names + off, len);
    off += len + 1;
  }
}

// The struct biosnoop_attr and names after an event (`n` bytes; none when
// files are off).  Reuses the vectors and strings of `*out`.
absl::Status DecodeAttribution(const char* p, size_t n, Attribution* out) {
  out->file_count = 0;
  out->incomplete = false;
  out->dirtier.reset();
  out->dirtier_count = 0;
  out->dirtier_op_ids.clear();
  out->dirtier_op_count = 0;
  out->bdev_major = out->bdev_minor = 0;
  if (n == 0) {
    out->content = Content::kNotLooked;
    out->files.clear();
    return absl::OkStatus();
  }
  biosnoop_attr raw;
  if (n < sizeof(raw)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attribution of %d bytes, expected at least %d", n, sizeof(raw)));
  }
  std::memcpy(&raw, p, sizeof(raw));
  const char* names = p + sizeof(raw);
  const size_t names_len = n - sizeof(raw);
  if (raw.names_len != names_len || raw.listed > BIOSNOOP_MAX_FILES ||
      raw.op_ids_listed > BIOSNOOP_MAX_OP_IDS ||
      raw.op_ids_listed > raw.op_id_count ||
      raw.content < BIOSNOOP_CONTENT_NONE ||
      raw.content > BIOSNOOP_CONTENT_METADATA) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attribution does not add up: %d names bytes of %d, %d files, "
        "content %d, %d of %d op ids",
        raw.names_len, names_len, raw.listed, raw.content, raw.op_ids_listed,
        raw.op_id_count));
  }
  out->content = static_cast<Content>(raw.content);
  out->file_count = raw.file_count;
  out->incomplete = raw.incomplete != 0;
  out->bdev_major = Major(raw.bdev);
  out->bdev_minor = Minor(raw.bdev);
  out->files.resize(raw.listed);
  for (size_t i = 0; i < raw.listed; ++i) {
    DecodeFile(raw.files[i], names, names_len, &out->files[i]);
  }
  if (raw.has_dirtier) {
    Dirtier& d = out->dirtier.emplace();
    d.pid = raw.dirtier.pid;
    d.tid = raw.dirtier.tid;
    std::memcpy(d.comm.data(), raw.dirtier.comm, sizeof(raw.dirtier.comm));
    d.cgroup_id = raw.dirtier.cgroup_id;
    d.dirtied_ns = raw.dirtier.dirtied_ns;
    d.op_id = raw.dirtier.op_id;
  }
  out->dirtier_count = raw.dirtier_count;
  out->dirtier_op_ids.assign(raw.op_ids, raw.op_ids + raw.op_ids_listed);
  out->dirtier_op_count = raw.op_id_count;
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeRecordInto(const void* data, size_t size, Event* out) {
  if (size < sizeof(biosnoop_event)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "short record: %d bytes, expected %d", size, sizeof(biosnoop_event)));
  }
  // The ring buffer only guarantees 8-byte alignment; copy to be safe for
  // any caller (tests hand in arbitrary buffers).
  biosnoop_event raw;
  std::memcpy(&raw, data, sizeof(raw));
  if (raw.abi_version != BIOSNOOP_ABI_VERSION) {
    return absl::FailedPreconditionError(
        absl::StrFormat("record ABI version %d, this biosnoop speaks %d",
                        raw.abi_version, BIOSNOOP_ABI_VERSION));
  }
  if (raw.kind != BIOSNOOP_REC_EVENT) {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown record kind %d", raw.kind));
  }
  if (raw.size < sizeof(biosnoop_event) || raw.size > size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("record says it is %d bytes, got %d", raw.size, size));
  }

  Event& e = *out;
  e.complete_ns = raw.complete_ns;
  e.device_ns = raw.device_ns;
  if (raw.queue_ns != BIOSNOOP_QUEUE_UNKNOWN) {
    e.queue_ns = raw.queue_ns;
  } else {
    e.queue_ns.reset();
  }
  // The driver's layer, known (not 0) only on disks whose driver has
  // tracepoints (NVMe).
  e.values.ClearAll();
  if (raw.driver_prep_ns != 0) {
    e.values.Set(EventValue::kDriverPrepUs, raw.driver_prep_ns);
  }
  if (raw.driver_done_ns != 0) {
    e.values.Set(EventValue::kDriverDoneUs, raw.driver_done_ns);
  }
  e.blk_status = raw.blk_status;
  e.completion_context =
      raw.completion_context <= BIOSNOOP_CTX_HARDIRQ
          ? static_cast<CompletionContext>(raw.completion_context)
          : CompletionContext::kUnknown;
  CopyRequestFields(raw, &e);
  return DecodeAttribution(static_cast<const char*>(data) + sizeof(raw),
                           raw.size - sizeof(raw), &e.attribution);
}

absl::StatusOr<Event> DecodeRecord(const void* data, size_t size) {
  Event e;
  if (absl::Status s = DecodeRecordInto(data, size, &e); !s.ok()) return s;
  return e;
}

RecordKind RecordKindOf(const void* data, size_t size) {
  static_assert(offsetof(biosnoop_event, kind) == kRecordKindOffset);
  static_assert(offsetof(biosnoop_op_record, kind) == kRecordKindOffset);
  if (size <= kRecordKindOffset) return RecordKind::kUnknown;
  const uint8_t kind = static_cast<const uint8_t*>(data)[kRecordKindOffset];
  switch (kind) {
    case BIOSNOOP_REC_EVENT:
      return RecordKind::kEvent;
    case BIOSNOOP_REC_OP:
      return RecordKind::kOp;
    default:
      return RecordKind::kUnknown;
  }
}

namespace {

void CopyLayer(const biosnoop_op_layer& raw, OpLayer* out) {
  out->requests = raw.requests;
  out->bytes = raw.bytes;
  out->queue_ns_sum = raw.queue_ns_sum;
  out->queue_ns_max = raw.queue_ns_max;
  out->device_ns_sum = raw.device_ns_sum;
  out->device_ns_max = raw.device_ns_max;
  out->wait_ns = raw.wait_ns;
  out->culprits.clear();
}

// The layer a culprit's requests counted in; null for a class that has no
// culprits (the call's own block requests) or that this biosnoop does not
// know: such a slot is dropped rather than put in the wrong layer.
OpLayer* CulpritLayer(uint8_t layer, FileOp* op) {
  switch (layer) {
    case BIOSNOOP_OPCLASS_WRITEBACK:
      return &op->writeback;
    case BIOSNOOP_OPCLASS_JOURNAL:
      return &op->journal;
    case BIOSNOOP_OPCLASS_FLUSH:
      return &op->flush;
    case BIOSNOOP_OPCLASS_OTHERS:
      return &op->others_writeback;
    default:
      return nullptr;
  }
}

// The kernel keeps its culprit slots in claim order, for all layers at
// once; each layer lists its own, the most waited-for first (ties by pid,
// so that the order does not depend on which slot was claimed first).
void CopyCulprits(const biosnoop_op_record& raw, FileOp* op) {
  for (const biosnoop_op_culprit& c : raw.culprits) {
    if (c.pid == 0) continue;  // a free slot
    OpLayer* layer = CulpritLayer(c.layer, op);
    if (layer == nullptr) continue;
    OpCulprit& out = layer->culprits.emplace_back();
    out.pid = c.pid;
    static_assert(sizeof(c.comm) == sizeof(out.comm));
    std::memcpy(out.comm.data(), c.comm, sizeof(c.comm));
    out.cgroup_id = c.cgroup_id;
    out.dirtier = c.dirtier != 0;
    out.requests = c.requests;
    out.bytes = c.bytes;
    out.wait_ns = c.wait_ns;
  }
  for (OpLayer* l :
       {&op->writeback, &op->journal, &op->flush, &op->others_writeback}) {
    std::sort(l->culprits.begin(), l->culprits.end(),
              [](const OpCulprit& a, const OpCulprit& b) {
                if (a.wait_ns != b.wait_ns) return a.wait_ns > b.wait_ns;
                return a.pid < b.pid;
              });
  }
}

}  // namespace

absl::Status DecodeOpRecordInto(const void* data, size_t size, FileOp* out) {
  if (size < sizeof(biosnoop_op_record)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("short op record: %d bytes, expected %d", size,
                        sizeof(biosnoop_op_record)));
  }
  biosnoop_op_record raw;
  std::memcpy(&raw, data, sizeof(raw));
  if (raw.abi_version != BIOSNOOP_ABI_VERSION) {
    return absl::FailedPreconditionError(
        absl::StrFormat("record ABI version %d, this biosnoop speaks %d",
                        raw.abi_version, BIOSNOOP_ABI_VERSION));
  }
  if (raw.kind != BIOSNOOP_REC_OP) {
    return absl::InvalidArgumentError(
        absl::StrFormat("not an op record: kind %d", raw.kind));
  }
  if (raw.size < sizeof(biosnoop_op_record) || raw.size > size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "op record says it is %d bytes, got %d", raw.size, size));
  }
  const size_t names_len = raw.size - sizeof(raw);
  if (raw.names_len != names_len) {
    return absl::InvalidArgumentError(
        absl::StrFormat("op record does not add up: %d names bytes of %d",
                        raw.names_len, names_len));
  }
  if (raw.call == BIOSNOOP_CALL_NONE || raw.call > BIOSNOOP_CALL_URING_FSYNC) {
    return absl::InvalidArgumentError(
        absl::StrFormat("op record of unknown call %d", raw.call));
  }

  FileOp& op = *out;
  op.op_id = raw.op_id;
  op.call = static_cast<Call>(raw.call);
  op.uring = (raw.flags & BIOSNOOP_OPF_URING) != 0;
  op.pid = raw.pid;
  op.tid = raw.tid;
  static_assert(sizeof(raw.comm) == sizeof(op.comm));
  std::memcpy(op.comm.data(), raw.comm, sizeof(raw.comm));
  op.cgroup_id = raw.cgroup_id;
  op.start_ns = raw.start_ns;
  op.end_ns = raw.end_ns;
  op.result = raw.result;
  if (raw.offset != BIOSNOOP_OFFSET_NONE) {
    op.offset = raw.offset;
  } else {
    op.offset.reset();
  }
  op.bytes_requested = raw.bytes_requested;
  op.bytes_requested_partial = (raw.flags & BIOSNOOP_OPF_ASKED_PARTIAL) != 0;
  op.disk_major = Major(raw.disk_dev);
  op.disk_minor = Minor(raw.disk_dev);
  op.part_major = Major(raw.part_dev);
  op.part_minor = Minor(raw.part_dev);
  op.named = (raw.flags & BIOSNOOP_OPF_NAMED) != 0;
  DecodeFile(raw.file, static_cast<const char*>(data) + sizeof(raw), names_len,
             &op.file);
  if (!op.named) {
    // ino and dev are what entry saw; names only when named at return.
    op.file.names.clear();
    op.file.reached_root = false;
  }
  if (raw.flags & BIOSNOOP_OPF_REAL) {
    DecodeFile(raw.real_file, static_cast<const char*>(data) + sizeof(raw),
               names_len, &op.real_file.emplace());
  } else {
    op.real_file.reset();
  }
  CopyLayer(raw.block, &op.block);
  const size_t listed = raw.block_dev_count < BIOSNOOP_OP_DISKS
                            ? raw.block_dev_count
                            : BIOSNOOP_OP_DISKS;
  op.block_devs.assign(raw.block_devs, raw.block_devs + listed);
  op.block_dev_count = raw.block_dev_count;
  CopyLayer(raw.writeback, &op.writeback);
  op.dirty_known = raw.dirty_known;
  op.dirty_age_max_ns = raw.dirty_age_max_ns;
  op.dirty_age_min_ns = raw.dirty_age_min_ns;
  CopyLayer(raw.journal, &op.journal);
  CopyLayer(raw.flush, &op.flush);
  CopyLayer(raw.others, &op.others_writeback);
  CopyLayer(raw.throttle, &op.throttle);
  op.throttle_qos = raw.throttle.qos;
  CopyCulprits(raw, &op);
  return absl::OkStatus();
}

StuckRequest DecodeStuck(const biosnoop_inflight_val& v, uint64_t found_ns) {
  StuckRequest s;
  s.found_ns = found_ns;
  s.inflight_ns = found_ns > v.issue_ns ? found_ns - v.issue_ns : 0;
  // As the kernel computes an event's queue time (bpf on_complete).
  if (v.submit_ns != 0 && v.submit_ns <= v.issue_ns) {
    s.request.queue_ns = v.issue_ns - v.submit_ns;
  }
  CopyRequestFields(v, &s.request);
  return s;
}

absl::Status DecodeStuckFiles(const void* data, size_t size, StuckRequest* s) {
  absl::Status status =
      DecodeAttribution(static_cast<const char*>(data), size, &s->attribution);
  if (!status.ok()) s->attribution = Attribution();
  return status;
}

}  // namespace biosnoop
