// Records -> domain values (to_domain.h).  Where a field is derived by the
// domain (latency, other_us, error names), the value is set and then
// derived again and compared: exact by construction, whatever the rule.

#include "to_domain.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "histogram.h"
#include "json_format.h"
#include "op_layer_json.h"
#include "record.h"

namespace biosnoop::report {
namespace {

// The refusal: "FIELD WHY", WHY saying what biosnoop would have written.
absl::Status Unrepresentable(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

// A string value as a refusal quotes it: escaped, and cut short.
std::string Quoted(absl::string_view v) {
  constexpr size_t kMax = 40;
  return absl::StrCat("\"", absl::CHexEscape(v.substr(0, kMax)),
                      v.size() > kMax ? "...\"" : "\"");
}

// us -> ns, when the ns fit.
bool NsOf(uint64_t us, uint64_t* ns) {
  if (us > std::numeric_limits<uint64_t>::max() / 1000) return false;
  *ns = us * 1000;
  return true;
}

absl::Status SetNs(absl::string_view field, uint64_t us, uint64_t* ns) {
  if (!NsOf(us, ns)) {
    return Unrepresentable(field, absl::StrCat(us, " is too large in ns"));
  }
  return absl::OkStatus();
}

// "MAJ:MIN" exactly as biosnoop writes it (StrCat of the two numbers).
bool ParseDev(absl::string_view dev, uint32_t* major, uint32_t* minor) {
  const size_t colon = dev.find(':');
  if (colon == absl::string_view::npos) return false;
  if (!absl::SimpleAtoi(dev.substr(0, colon), major) ||
      !absl::SimpleAtoi(dev.substr(colon + 1), minor)) {
    return false;
  }
  // SimpleAtoi takes "+1", " 1", "01": the canonical form only.
  return absl::StrCat(*major, ":", *minor) == dev;
}

absl::Status SetDev(absl::string_view field, absl::string_view dev,
                    uint32_t* major, uint32_t* minor) {
  if (!ParseDev(dev, major, minor))
    return Unrepresentable(field,
                           absl::StrCat(Quoted(dev),
                                        " is not MAJ:MIN as biosnoop writes "
                                        "a device"));
  return absl::OkStatus();
}

// The raw comm bytes that `comm` (and `comm_raw`, when set) stand for:
// the writers write comm_raw exactly when those bytes are not valid
// UTF-8, and comm as their text.
absl::Status SetComm(absl::string_view field, const std::string& comm,
                     const std::string* comm_raw, std::array<char, 16>* out) {
  const std::string& raw = comm_raw != nullptr ? *comm_raw : comm;
  if (raw.size() > out->size()) {
    return Unrepresentable(
        field, absl::StrCat(Quoted(raw), " is over the kernel's 16 bytes"));
  }
  if (raw.find('\0') != std::string::npos) {
    return Unrepresentable(field,
                           absl::StrCat(Quoted(raw), " holds a NUL byte"));
  }
  if (comm_raw != nullptr) {
    std::string text;
    if (!AppendSanitizedUtf8(raw, &text) || text != comm) {
      return Unrepresentable(
          field, absl::StrCat(Quoted(comm), " is not the text of comm_raw ",
                              Quoted(raw),
                              " (or comm_raw is UTF-8, which "
                              "biosnoop writes as comm alone)"));
    }
  } else if (!IsValidUtf8(comm)) {
    return Unrepresentable(field, absl::StrCat(Quoted(comm), " is not UTF-8"));
  }
  out->fill('\0');
  raw.copy(out->data(), raw.size());
  return absl::OkStatus();
}

// Optional strings the domain holds as "" for none: set but empty names
// nothing, the same as unset (normalised: written as none).
void SetNonEmpty(bool has, const std::string& value, std::string* out) {
  out->assign(has ? value : std::string());
}

// op and rwbs: the Op and flags they name.
absl::Status SetOpAndFlags(const std::string& op, const std::string& rwbs,
                           Request* r) {
  for (int o = 0; o <= static_cast<int>(Op::kOther); ++o) {
    if (OpName(static_cast<Op>(o)) != op) continue;
    r->op = static_cast<Op>(o);
    for (int flags = 0; flags < 32; ++flags) {  // the five kFlag* bits
      if (Rwbs(r->op, static_cast<uint8_t>(flags)) == rwbs) {
        r->flags = static_cast<uint8_t>(flags);
        return absl::OkStatus();
      }
    }
    return Unrepresentable("rwbs",
                           absl::StrCat(Quoted(rwbs),
                                        " is not a flag string biosnoop "
                                        "writes for op ",
                                        Quoted(op)));
  }
  return Unrepresentable(
      "op", absl::StrCat(Quoted(op), " is not an operation biosnoop writes"));
}

absl::Status SetPathKind(const std::string& name, PathKind* kind) {
  for (PathKind k : {PathKind::kNone, PathKind::kAbsolute,
                     PathKind::kFsRelative, PathKind::kName}) {
    if (PathKindName(k) == name) {
      *kind = k;
      return absl::OkStatus();
    }
  }
  return Unrepresentable("path_kind",
                         absl::StrCat(Quoted(name),
                                      " is not a path kind biosnoop "
                                      "writes"));
}

// The cgroup keys, as WriteCgroupJson writes them: all four when the id is
// known, none when it is 0.
template <typename Msg>
absl::Status SetCgroup(const Msg& m, uint64_t* id, CgroupLabel* c) {
  *id = m.cgroup_id();
  if (m.cgroup_id() == 0) {
    if (m.has_cgroup() || m.has_container_id() || m.has_pod_uid()) {
      return Unrepresentable(
          "cgroup",
          "(or container_id, pod_uid) is set with cgroup_id 0: "
          "biosnoop writes none of them then");
    }
    *c = CgroupLabel{};
    return absl::OkStatus();
  }
  c->known = m.has_cgroup();
  c->path = m.cgroup();
  SetNonEmpty(m.has_container_id(), m.container_id(), &c->container_id);
  SetNonEmpty(m.has_pod_uid(), m.pod_uid(), &c->pod_uid);
  return absl::OkStatus();
}

// The names content takes (the enricher's), and the kernel's value of
// each; "" is kNotLooked.
struct ContentName {
  absl::string_view name;
  Content content;
};
constexpr ContentName kContentNames[] = {
    {"file", Content::kFile},          {"metadata", Content::kBlockDevice},
    {"device", Content::kBlockDevice}, {"unknown", Content::kUnknown},
    {"none", Content::kNone},
};

// content .. dirtier_count (Msg: v1::Event or v1::Stuck, named alike), as
// WriteAttributionJson writes them: all six when content is named.
template <typename Msg>
absl::Status SetAttribution(const Msg& m, Attribution* a,
                            AttributionLabel* label) {
  *a = Attribution{};
  *label = AttributionLabel{};
  if (m.content().empty()) {
    if (m.files_size() != 0 || m.file_count() != 0 || m.files_incomplete() ||
        m.has_dirtied_by() || m.dirtier_count() != 0) {
      return Unrepresentable(
          "content",
          "is empty with files or a dirtier: biosnoop writes "
          "none of them then");
    }
    return absl::OkStatus();
  }
  for (const ContentName& c : kContentNames) {
    if (c.name == m.content()) {
      a->content = c.content;
      label->content = c.name;  // static: outlives the message
    }
  }
  if (a->content == Content::kNotLooked) {
    return Unrepresentable(
        "content",
        absl::StrCat(Quoted(m.content()), " is not a content biosnoop writes"));
  }
  for (const v1::FileRef& f : m.files()) {
    FileRef& ref = a->files.emplace_back();
    FileLabel& fl = label->files.emplace_back();
    fl.path = f.path();
    if (absl::Status s = SetPathKind(f.path_kind(), &fl.kind); !s.ok()) {
      return s;
    }
    ref.ino = f.inode();
    if (absl::Status s =
            SetDev("files.dev", f.dev(), &ref.dev_major, &ref.dev_minor);
        !s.ok()) {
      return s;
    }
    ref.direct = f.direct();
  }
  a->file_count = m.file_count();
  a->incomplete = m.files_incomplete();
  if (m.has_dirtied_by()) {
    const v1::Dirtier& d = m.dirtied_by();
    Dirtier& dirtier = a->dirtier.emplace();
    dirtier.pid = d.pid();
    dirtier.tid = d.tid();
    if (absl::Status s =
            SetComm("dirtied_by.comm", d.comm(),
                    d.has_comm_raw() ? &d.comm_raw() : nullptr, &dirtier.comm);
        !s.ok()) {
      return s;
    }
    dirtier.cgroup_id = d.cgroup_id();
    dirtier.op_id = d.op_id();
    label->dirtier_cgroup.known = d.has_cgroup();
    label->dirtier_cgroup.path = d.cgroup();
    label->dirtied_realtime_ns = ToNs(d.dirtied_at());
  }
  a->dirtier_count = m.dirtier_count();
  return absl::OkStatus();
}

// The fields Event and Stuck share, from timestamp to comm_raw but the
// durations.
template <typename Msg>
absl::Status SetRequest(const Msg& m, int64_t* realtime_ns, std::string* disk,
                        std::string* partition, std::vector<std::string>* stack,
                        Request* r) {
  *realtime_ns = ToNs(m.timestamp());
  *disk = m.disk();
  SetNonEmpty(m.has_partition(), m.partition(), partition);
  stack->assign(m.stack().begin(), m.stack().end());
  if (absl::Status s = SetDev("dev", m.dev(), &r->major, &r->minor); !s.ok()) {
    return s;
  }
  if (absl::Status s = SetOpAndFlags(m.op(), m.rwbs(), r); !s.ok()) return s;
  r->sector = m.sector();
  r->bytes = m.bytes();
  if (m.has_queue_us()) {
    uint64_t ns = 0;
    if (absl::Status s = SetNs("queue_us", m.queue_us(), &ns); !s.ok()) {
      return s;
    }
    r->queue_ns = ns;
  }
  r->queue_depth = m.queue_depth();
  r->pid = m.pid();
  r->tid = m.tid();
  r->op_id = m.op_id();
  return SetComm("comm", m.comm(), m.has_comm_raw() ? &m.comm_raw() : nullptr,
                 &r->comm);
}

// A layer's culprits: each as the op's own comm and cgroup, a role that
// names one, and in the order biosnoop lists them (the most waited-for
// first: wait_us never grows along the list).
absl::Status SetCulprits(absl::string_view name, const v1::OpLayer& m,
                         std::vector<OpCulprit>* out) {
  out->clear();
  if (m.culprits_size() > kMaxOpCulprits) {
    return Unrepresentable(
        name, absl::StrCat("has ", m.culprits_size(), " culprits (at most ",
                           kMaxOpCulprits, ")"));
  }
  for (int i = 0; i < m.culprits_size(); ++i) {
    const v1::OpCulprit& c = m.culprits(i);
    OpCulprit& d = out->emplace_back();
    const std::string field = absl::StrCat(name, ".culprits[", i, "]");
    d.pid = c.pid();
    absl::Status s = SetComm(
        "comm", c.comm(), c.has_comm_raw() ? &c.comm_raw() : nullptr, &d.comm);
    if (s.ok()) s = SetCgroup(c, &d.cgroup_id, &d.cgroup);
    if (!s.ok()) {
      // "<layer>.culprits[i].comm ...": the field, named in full.
      return absl::InvalidArgumentError(absl::StrCat(field, ".", s.message()));
    }
    if (c.role() != CulpritRoleName(true) &&
        c.role() != CulpritRoleName(false)) {
      return Unrepresentable(
          field, absl::StrCat("role ", Quoted(c.role()),
                              " is neither \"dirtier\" nor \"submitter\""));
    }
    d.dirtier = c.role() == CulpritRoleName(true);
    d.requests = c.requests();
    d.bytes = c.bytes();
    if (!NsOf(c.wait_us(), &d.wait_ns)) {
      return Unrepresentable(
          field, absl::StrCat("has ", c.wait_us(), " us, too large in ns"));
    }
    if (i > 0 && c.wait_us() > m.culprits(i - 1).wait_us()) {
      return Unrepresentable(
          field,
          "waited longer than the one before: biosnoop lists the most "
          "waited-for first");
    }
  }
  return absl::OkStatus();
}

absl::Status SetLayer(absl::string_view name, const v1::OpLayer& m,
                      OpLayer* l) {
  l->requests = m.requests();
  l->bytes = m.bytes();
  const struct {
    uint64_t us;
    uint64_t* ns;
  } durations[] = {{m.queue_us_sum(), &l->queue_ns_sum},
                   {m.queue_us_max(), &l->queue_ns_max},
                   {m.device_us_sum(), &l->device_ns_sum},
                   {m.device_us_max(), &l->device_ns_max},
                   {m.wait_us(), &l->wait_ns}};
  for (const auto& d : durations) {
    if (!NsOf(d.us, d.ns)) {
      return Unrepresentable(
          name, absl::StrCat("has ", d.us, " us, too large in ns"));
    }
  }
  return SetCulprits(name, m, &l->culprits);
}

// journal, flush and others_writeback: neither disks nor dirty ages (the
// kernel side records them for the block and writeback layers only).
absl::Status SetOtherLayer(absl::string_view name, const v1::OpLayer& m,
                           OpLayer* l) {
  if (absl::Status s = SetLayer(name, m, l); !s.ok()) return s;
  if (m.disks_size() != 0) {
    return Unrepresentable(
        name, absl::StrCat("has ", m.disks_size(),
                           " disks: biosnoop writes the block layer's only"));
  }
  if (m.dirty_known() != 0 || m.has_dirty_age_us_max() ||
      m.has_dirty_age_us_min()) {
    return Unrepresentable(name,
                           "has dirty ages: biosnoop writes them for the "
                           "writeback layer only");
  }
  return absl::OkStatus();
}

// Op.throttle_controllers as the kernel's bits: each name known, once,
// in the order biosnoop writes them (QosNames), else refused.
absl::Status SetQos(const v1::Op& m, uint32_t* qos) {
  *qos = 0;
  for (const std::string& name : m.throttle_controllers()) {
    uint32_t bit = 0;
    for (const uint32_t b : {kQosWbt, kQosIoLatency, kQosIoCost}) {
      if (QosNames(b).front() == name) bit = b;
    }
    if (bit == 0) {
      return Unrepresentable(
          "throttle_controllers",
          absl::StrCat("names \"", name, "\", which biosnoop never writes"));
    }
    *qos |= bit;
  }
  if (QosNames(*qos) !=
      std::vector<std::string>(m.throttle_controllers().begin(),
                               m.throttle_controllers().end())) {
    return Unrepresentable("throttle_controllers",
                           "repeats a name or lists them out of order");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ToDomainEvent(const v1::Event& m, DomainEvent* out) {
  *out = DomainEvent{};
  out->host = m.host();
  EnrichedEvent& e = out->event;
  Event& ev = e.event;
  if (absl::Status s =
          SetRequest(m, &e.realtime_ns, &e.disk, &e.partition, &e.stack, &ev);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SetNs("device_us", m.device_us(), &ev.device_ns);
      !s.ok()) {
    return s;
  }
  // latency_us is device_us, or with -Q the sum in ns of the device and
  // queue times, truncated: device_us + queue_us, or one more when their
  // sub-microsecond parts added up to one (500 ns each here).
  e.include_queue = m.latency_us() != m.device_us();
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (e.include_queue && ev.queue_ns.has_value() &&
      m.latency_us() - m.device_us() == m.queue_us() + 1 &&
      ev.device_ns <= kMax - 500 && *ev.queue_ns <= kMax - 500) {
    ev.device_ns += 500;
    *ev.queue_ns += 500;
  }
  if ((e.include_queue &&
       (!ev.queue_ns.has_value() || ev.device_ns > kMax - *ev.queue_ns)) ||
      ev.LatencyNs(e.include_queue) / 1000 != m.latency_us()) {
    return Unrepresentable(
        "latency_us",
        absl::StrCat(m.latency_us(),
                     " is neither device_us nor device_us + queue_us"));
  }
  // The status whose errno and name these are (0: success).
  bool found = false;
  for (int status = 0; status <= std::numeric_limits<uint8_t>::max();
       ++status) {
    const BlkError error = BlkStatusToError(static_cast<uint8_t>(status));
    if (error.errno_value == m.error_code() &&
        m.has_error() == !error.name.empty() && error.name == m.error()) {
      ev.blk_status = static_cast<uint8_t>(status);
      found = true;
      break;
    }
  }
  if (!found) {
    return Unrepresentable(
        "error", absl::StrCat(m.has_error() ? Quoted(m.error()) : "null",
                              " with error_code ", m.error_code(),
                              " is not an error biosnoop writes"));
  }
  e.seq = m.seq();
  if (absl::Status s = SetCgroup(m, &ev.cgroup_id, &e.cgroup); !s.ok()) {
    return s;
  }
  // "" (a stream from before the field): kAbsent, whose name it is.
  found = false;
  for (CompletionContext c :
       {CompletionContext::kAbsent, CompletionContext::kUnknown,
        CompletionContext::kTask, CompletionContext::kSoftirq,
        CompletionContext::kHardirq}) {
    if (CompletionContextName(c) == m.completion_context()) {
      ev.completion_context = c;
      found = true;
    }
  }
  if (!found) {
    return Unrepresentable("completion_context",
                           absl::StrCat(Quoted(m.completion_context()),
                                        " is not a context biosnoop writes"));
  }
  if (absl::Status s = SetAttribution(m, &ev.attribution, &e.attribution);
      !s.ok()) {
    return s;
  }
  ev.attribution.dirtier_op_ids.assign(m.dirtier_op_ids().begin(),
                                       m.dirtier_op_ids().end());
  ev.attribution.dirtier_op_count = m.dirtier_op_count();
  // The generic fields (event_values.h), each in the domain's unit.
#define BIOSNOOP_TO_DOMAIN_VALUE(value, name, number, divisor, ecs_object, \
                                 ecs_key)                                  \
  if (m.has_##name()) {                                                    \
    if (m.name() > std::numeric_limits<uint64_t>::max() / divisor) {       \
      return Unrepresentable(#name, "is too large in the domain's unit");  \
    }                                                                      \
    ev.values.Set(EventValue::value, m.name() * divisor);                  \
  }
  BIOSNOOP_EVENT_VALUES(BIOSNOOP_TO_DOMAIN_VALUE)
#undef BIOSNOOP_TO_DOMAIN_VALUE
  return absl::OkStatus();
}

absl::Status ToDomainStuck(const v1::Stuck& m, DomainStuck* out) {
  *out = DomainStuck{};
  out->host = m.host();
  StuckRequest& k = out->stuck;
  if (absl::Status s = SetRequest(m, &k.realtime_ns, &k.disk, &k.partition,
                                  &k.stack, &k.request);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SetNs("inflight_us", m.inflight_us(), &k.inflight_ns);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SetCgroup(m, &k.request.cgroup_id, &k.cgroup); !s.ok()) {
    return s;
  }
  return SetAttribution(m, &k.attribution, &k.attribution_label);
}

absl::Status ToDomainOp(const v1::Op& m, DomainOp* out) {
  *out = DomainOp{};
  out->host = m.host();
  EnrichedOp& o = out->op;
  FileOp& op = o.op;
  o.realtime_ns = ToNs(m.timestamp());
  op.op_id = m.op_id();
  bool found = false;
  for (int c = 0; c <= static_cast<int>(Call::kUringFsync); ++c) {
    if (CallName(static_cast<Call>(c)) == m.call()) {
      op.call = static_cast<Call>(c);
      found = true;
      break;
    }
  }
  if (!found) {
    return Unrepresentable(
        "call",
        absl::StrCat(Quoted(m.call()), " is not a call biosnoop writes"));
  }
  op.pid = m.pid();
  op.tid = m.tid();
  if (absl::Status s =
          SetComm("comm", m.comm(), m.has_comm_raw() ? &m.comm_raw() : nullptr,
                  &op.comm);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SetCgroup(m, &op.cgroup_id, &o.cgroup); !s.ok()) {
    return s;
  }
  o.file.path = m.file().path();
  if (absl::Status s = SetPathKind(m.file().path_kind(), &o.file.kind);
      !s.ok()) {
    return s;
  }
  op.named = o.file.kind != PathKind::kNone;
  op.file.ino = m.file().inode();
  if (absl::Status s = SetDev("file.dev", m.file().dev(), &op.file.dev_major,
                              &op.file.dev_minor);
      !s.ok()) {
    return s;
  }
  op.file.direct = m.file().direct();
  if (m.has_real_file()) {
    const v1::FileRef& rf = m.real_file();
    FileRef& real = op.real_file.emplace();
    o.real_file.path = rf.path();
    if (absl::Status s = SetPathKind(rf.path_kind(), &o.real_file.kind);
        !s.ok()) {
      return s;
    }
    real.ino = rf.inode();
    if (absl::Status s =
            SetDev("real_file.dev", rf.dev(), &real.dev_major, &real.dev_minor);
        !s.ok()) {
      return s;
    }
    real.direct = rf.direct();
  }
  o.disk = m.disk();
  SetNonEmpty(m.has_partition(), m.partition(), &o.partition);
  if (m.has_offset()) op.offset = m.offset();
  op.bytes_requested = m.bytes_requested();
  op.bytes_requested_partial = m.bytes_requested_partial();
  // bytes_done, error_code and error are the call's result.
  if (m.error_code() == 0) {
    if (m.bytes_done() > uint64_t{std::numeric_limits<int64_t>::max()}) {
      return Unrepresentable(
          "bytes_done",
          absl::StrCat(m.bytes_done(), " is over a call's result's range"));
    }
    op.result = static_cast<int64_t>(m.bytes_done());
  } else if (m.bytes_done() != 0) {
    return Unrepresentable(
        "bytes_done",
        absl::StrCat(m.bytes_done(), " with error_code ", m.error_code(),
                     ": a call's result is bytes done or an error, not both"));
  } else {
    op.result = -int64_t{m.error_code()};
  }
  if (op.ErrorCode() != m.error_code()) {
    return Unrepresentable("error_code",
                           absl::StrCat(m.error_code(), " is not an errno"));
  }
  if (m.has_error() != (op.ErrorCode() != 0) ||
      (m.has_error() && m.error() != ErrnoName(op.ErrorCode()))) {
    return Unrepresentable(
        "error",
        absl::StrCat(m.has_error() ? Quoted(m.error()) : "null",
                     " is not the name of error_code ", m.error_code()));
  }
  o.start_realtime_ns = ToNs(m.start_time());
  op.start_ns = 0;  // only the difference is written
  if (absl::Status s = SetNs("latency_us", m.latency_us(), &op.end_ns);
      !s.ok()) {
    return s;
  }
  // The block layer: its disks, no dirty ages (biosnoop writes none) and
  // no culprits (its requests are the call's own).
  if (m.block().culprits_size() != 0) {
    return Unrepresentable("block",
                           "has culprits: its requests are the call's own");
  }
  if (absl::Status s = SetLayer("block", m.block(), &op.block); !s.ok()) {
    return s;
  }
  if (m.block().dirty_known() != 0 || m.block().has_dirty_age_us_max() ||
      m.block().has_dirty_age_us_min()) {
    return Unrepresentable("block",
                           "has dirty ages: biosnoop writes them for the "
                           "writeback layer only");
  }
  o.block_disks.assign(m.block().disks().begin(), m.block().disks().end());
  // The writeback layer: no disks (the kernel side records none), both
  // ages exactly when dirty_known > 0.
  const v1::OpLayer& wb = m.writeback();
  if (absl::Status s = SetLayer("writeback", wb, &op.writeback); !s.ok()) {
    return s;
  }
  if (wb.disks_size() != 0) {
    return Unrepresentable(
        "writeback.disks",
        absl::StrCat("has ", wb.disks_size(),
                     ": biosnoop writes the disks of the block layer only"));
  }
  op.dirty_known = wb.dirty_known();
  const bool ages = wb.dirty_known() > 0;
  if (wb.has_dirty_age_us_max() != ages || wb.has_dirty_age_us_min() != ages) {
    return Unrepresentable("writeback",
                           "has dirty ages set other than exactly when "
                           "dirty_known > 0, as biosnoop writes them");
  }
  if (ages && (!NsOf(wb.dirty_age_us_max(), &op.dirty_age_max_ns) ||
               !NsOf(wb.dirty_age_us_min(), &op.dirty_age_min_ns))) {
    return Unrepresentable("writeback", "has dirty ages too large in ns");
  }
  const struct {
    const char* name;
    const v1::OpLayer& from;
    OpLayer* to;
  } others[] = {
      {"journal", m.journal(), &op.journal},
      {"flush", m.flush(), &op.flush},
      {"others_writeback", m.others_writeback(), &op.others_writeback},
      {"throttle", m.throttle(), &op.throttle}};
  for (const auto& l : others) {
    if (absl::Status s = SetOtherLayer(l.name, l.from, l.to); !s.ok()) {
      return s;
    }
  }
  if (!m.throttle().culprits().empty()) {
    return Unrepresentable("throttle", "has culprits: biosnoop names none");
  }
  if (absl::Status s = SetQos(m, &op.throttle_qos); !s.ok()) return s;
  if (op.OtherUs() != m.other_us()) {
    return Unrepresentable(
        "other_us",
        absl::StrCat(m.other_us(),
                     " is not latency_us less every layer's wait_us"));
  }
  return absl::OkStatus();
}

// A summary group's fine buckets into data->fine: biosnoop writes them
// at its one schema (kFineSchema), from the first non-empty bucket to the
// last, inside its kFineBuckets; anything else is not a stream it could
// have written.
absl::Status ToDomainFine(const v1::SummaryGroup& g, HistData* data) {
  if (!g.has_latency_fine_schema() && !g.has_latency_fine_first() &&
      g.latency_fine_size() == 0) {
    return absl::OkStatus();
  }
  if (!g.has_latency_fine_schema() || !g.has_latency_fine_first()) {
    return Unrepresentable("latency_fine",
                           "comes without latency_fine_schema and "
                           "latency_fine_first");
  }
  if (g.latency_fine_schema() != static_cast<uint32_t>(kFineSchema)) {
    return Unrepresentable(
        "latency_fine_schema",
        absl::StrCat("is ", g.latency_fine_schema(),
                     ": biosnoop writes schema ", kFineSchema));
  }
  const int64_t first = int64_t{g.latency_fine_first()} - kFineFirst;
  const int64_t size = g.latency_fine_size();
  if (size == 0 || first < 0 || first + size > kFineBuckets ||
      g.latency_fine(0) == 0 || g.latency_fine(size - 1) == 0) {
    return Unrepresentable(
        "latency_fine",
        absl::StrCat("spans buckets ", g.latency_fine_first(), " to ",
                     int64_t{g.latency_fine_first()} + size - 1,
                     ": biosnoop writes its non-empty buckets from ",
                     kFineFirst, " to ", kFineFirst + kFineBuckets - 1));
  }
  std::copy(g.latency_fine().begin(), g.latency_fine().end(),
            data->fine.begin() + first);
  return absl::OkStatus();
}

absl::Status ToDomainSummary(const v1::Summary& m, SummaryRecord* out) {
  *out = SummaryRecord{};
  out->realtime_ns = ToNs(m.timestamp());
  out->interval_s = m.interval_s();
  out->min_us = m.min_us();
  for (const v1::SummaryGroup& g : m.groups()) {
    HistGroup& group = out->groups.emplace_back();
    group.disk = g.disk();
    group.op = g.op();
    group.data.count = g.count();
    group.data.bytes = g.bytes();
    group.data.slow = g.slow();
    group.data.errors = g.errors();
    // The writer leaves trailing zero buckets out: a histogram with them
    // is the same histogram (normalised), also past kHistBuckets.
    const struct {
      const char* name;
      const google::protobuf::RepeatedField<uint64_t>& from;
      std::array<uint64_t, kHistBuckets>& to;
    } histograms[] = {
        {"latency_us_log2", g.latency_us_log2(), group.data.latency},
        {"size_log2", g.size_log2(), group.data.size}};
    for (const auto& h : histograms) {
      int size = h.from.size();
      while (size > 0 && h.from[size - 1] == 0) --size;
      if (size > static_cast<int>(kHistBuckets)) {
        return Unrepresentable(h.name,
                               absl::StrCat("has ", size,
                                            " buckets: biosnoop writes at "
                                            "most ",
                                            kHistBuckets));
      }
      std::copy(h.from.begin(), h.from.begin() + size, h.to.begin());
    }
    if (absl::Status s = ToDomainFine(g, &group.data); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ToDomainHeader(const v1::StreamHeader& m, StreamInfo* out) {
  *out = StreamInfo{};
  out->host = m.host();
  out->boot_id = m.boot_id();
  out->start_realtime_ns = ToNs(m.start_time());
  out->biosnoop_version = m.biosnoop_version();
  out->kernel_release = m.kernel_release();
  out->min_us = m.min_us();
  out->queued = m.queued();
  out->disk_filter = m.disk_filter();
  out->pid_filter = m.pid_filter();
  out->comm_filter = m.comm_filter();
  out->op_filter = m.op_filter();
  out->ringbuf_kib = m.ringbuf_kib();
  out->stuck_after_us = m.stuck_after_us();
  out->run_id = m.run_id();
  out->cgroup_filter = m.cgroup_filter();
  out->ops = m.ops();
  // Written with ops only: a threshold without them would be lost.
  if (!m.ops() && m.op_min_us() != 0) {
    return Unrepresentable("op_min_us",
                           absl::StrCat(m.op_min_us(),
                                        " without ops: biosnoop writes the "
                                        "threshold only with ops"));
  }
  out->op_min_us = m.op_min_us();
  out->kernel_lacks.assign(m.kernel_lacks().begin(), m.kernel_lacks().end());
  return absl::OkStatus();
}

absl::Status ToDomainStats(const v1::Stats& m, StatsSnapshot* out) {
  *out = StatsSnapshot{};
  out->realtime_ns = ToNs(m.timestamp());
  out->elapsed_s = m.elapsed_s();
  out->completions = m.completions();
  out->emitted = m.emitted();
  out->lost = m.lost();
  out->orphans = m.orphans();
  out->below_threshold = m.below_threshold();
  out->filtered = m.filtered();
  out->decode_errors = m.decode_errors();
  out->expired = m.expired();
  out->written = m.written();
  out->dropped = m.dropped();
  out->final = m.final();
  out->missed = m.missed();
  out->unfinished = m.unfinished();
  out->run_id = m.run_id();
  // Each pair or triple is written whole when one of it is not 0: exact.
  out->ledger_misses = m.ledger_misses();
  out->ledger_replaced = m.ledger_replaced();
  out->ops_lost = m.ops_lost();
  out->ops_written = m.ops_written();
  out->ops_untracked = m.ops_untracked();
  out->ops_unfollowed = m.ops_unfollowed();
  out->ledger_stale = m.ledger_stale();
  return absl::OkStatus();
}

}  // namespace biosnoop::report
