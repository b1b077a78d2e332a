// The event figures.  Events come in runs of the same host, disk and op, so
// the last group and host used are kept and a map lookup is the exception.

#include "aggregator.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"

namespace biosnoop::report {
std::string Decimal(Sum v) {
  char buf[40];  // 2^128 has 39 digits
  char* p = buf + sizeof(buf);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, buf + sizeof(buf));
}

int Log2Bucket(uint64_t v) { return v < 2 ? 0 : 63 - std::countl_zero(v); }

uint64_t BucketLow(int b) { return b == 0 ? 0 : uint64_t{1} << b; }

uint64_t BucketHigh(int b) {
  return b == 0 ? 1 : b == 63 ? UINT64_MAX : (uint64_t{1} << (b + 1)) - 1;
}

void LatencyStats::Add(uint64_t latency_us, uint64_t io_bytes, bool error,
                       bool keep) {
  ++count;
  bytes += io_bytes;
  if (error) ++errors;
  sum_us += latency_us;
  min_us = std::min(min_us, latency_us);
  max_us = std::max(max_us, latency_us);
  ++hist[Log2Bucket(latency_us)];
  ++hist_ms[Log2Bucket(latency_us / 1000)];
  if (keep) latencies_us.push_back(latency_us);
}

void LatencyStats::Merge(const LatencyStats& other) {
  count += other.count;
  bytes += other.bytes;
  errors += other.errors;
  sum_us += other.sum_us;
  min_us = std::min(min_us, other.min_us);
  max_us = std::max(max_us, other.max_us);
  for (int b = 0; b < kBuckets; ++b) {
    hist[b] += other.hist[b];
    hist_ms[b] += other.hist_ms[b];
  }
  latencies_us.insert(latencies_us.end(), other.latencies_us.begin(),
                      other.latencies_us.end());
}

std::vector<uint64_t> Percentiles(std::vector<uint64_t>* latencies,
                                  const std::vector<int>& permilles) {
  std::vector<uint64_t> out;
  const uint64_t n = latencies->size();
  // Ascending ranks: each nth_element only needs the part above the last.
  auto begin = latencies->begin();
  for (int p : permilles) {
    if (n == 0) {
      out.push_back(0);
      continue;
    }
    uint64_t rank = (static_cast<uint64_t>(p) * n + 999) / 1000;
    if (rank == 0) rank = 1;
    const auto nth = latencies->begin() + static_cast<ptrdiff_t>(rank - 1);
    if (nth >= begin) {
      std::nth_element(begin, nth, latencies->end());
      begin = nth;
    }
    out.push_back(*nth);
  }
  return out;
}

void Aggregator::AddRecordTime(int64_t ns) {
  if (records_ == 0 || ns < first_record_ns_) first_record_ns_ = ns;
  if (records_ == 0 || ns > last_record_ns_) last_record_ns_ = ns;
  ++records_;
}

void Aggregator::AddEvent(const v1::Event& e, int64_t ns) {
  const uint64_t latency = e.latency_us();
  const bool error = e.error_code() != 0;
  if (overall_.count == 0 || ns < first_event_ns_) first_event_ns_ = ns;
  if (overall_.count == 0 || ns > last_event_ns_) last_event_ns_ = ns;
  overall_.Add(latency, e.bytes(), error, /*keep=*/false);
  const bool tail = latency >= options_.tail_us;
  if (tail) ++tail_events_;

  if (last_group_ == nullptr || e.host() != last_key_.host ||
      e.disk() != last_key_.disk || e.op() != last_key_.op) {
    last_key_.host = e.host();
    last_key_.disk = e.disk();
    last_key_.op = e.op();
    last_group_ = &groups_[last_key_];
  }
  last_group_->Add(latency, e.bytes(), error, options_.keep_latencies);

  if (last_host_totals_ == nullptr || e.host() != last_totals_host_) {
    last_totals_host_ = e.host();
    last_host_totals_ = &host_totals_[last_totals_host_];
  }
  HostTotals& h = *last_host_totals_;
  h.overall.Add(latency, e.bytes(), error, /*keep=*/false);
  if (tail) ++h.tail_events;

  AddProcess(processes_, e.host(), e.pid(), e.comm(), latency, e.bytes());

  if (e.has_cgroup()) {
    AddNamed(cgroups_, e.host(), e.cgroup(), latency, e.bytes());
  } else if (e.cgroup_id() != 0) {
    AddNamed(cgroups_, e.host(), absl::StrCat("cgroup id ", e.cgroup_id()),
             latency, e.bytes());
  }
  if (e.has_container_id()) {
    AddNamed(containers_, e.host(), e.container_id(), latency, e.bytes());
  }
  if (!e.content().empty()) AddAttribution(e);

  if (e.bytes() == 0) {
    ++zero_byte_events_;
    ++h.zero_byte_events;
  } else {
    const int b = Log2Bucket(e.bytes() / 1024);
    ++size_hist_kib_[b];
    ++h.size_hist_kib[b];
  }

  if (error) {
    const std::string name = e.has_error() && !e.error().empty()
                                 ? e.error()
                                 : absl::StrCat("errno ", e.error_code());
    ErrorTotals& t = errors_[ErrorKey{e.host(), e.disk(), name}];
    if (t.count == 0 || ns < t.first_ns) t.first_ns = ns;
    if (t.count == 0 || ns > t.last_ns) t.last_ns = ns;
    ++t.count;
  }
}

void Aggregator::AddNonEvent(const ParsedRecord& rec) {
  if (rec.kind == RecordKind::kHeader) {
    runs_.AddHeader(rec.header);
    SeeHost(rec.header.host());
  } else if (rec.kind == RecordKind::kStats) {
    runs_.AddStats(rec.stats);
  } else if (rec.kind == RecordKind::kOp) {
    runs_.AddOp(rec.op.op_id(), rec.op.host());
    SeeHost(rec.op.host());
    ++op_records_;
  } else {
    if (rec.kind == RecordKind::kStuck) SeeHost(rec.stuck.host());
    runs_.AddOther();
  }
}

std::vector<uint64_t> Aggregator::AllLatencies() const {
  std::vector<uint64_t> all;
  all.reserve(overall_.count);
  for (const auto& [key, g] : groups_) {
    all.insert(all.end(), g.latencies_us.begin(), g.latencies_us.end());
  }
  return all;
}

std::vector<uint64_t> Aggregator::LatenciesOf(absl::string_view host) const {
  std::vector<uint64_t> out;
  for (auto it = groups_.lower_bound(GroupKey{std::string(host), "", ""});
       it != groups_.end() && it->first.host == host; ++it) {
    out.insert(out.end(), it->second.latencies_us.begin(),
               it->second.latencies_us.end());
  }
  return out;
}

void Aggregator::AddNamed(NamedMap& m, const std::string& host,
                          absl::string_view name, uint64_t latency_us,
                          uint64_t bytes) {
  // As the process key: the host's length first.
  named_key_.clear();
  const uint32_t host_size = static_cast<uint32_t>(host.size());
  named_key_.append(reinterpret_cast<const char*>(&host_size),
                    sizeof(host_size));
  named_key_.append(host);
  named_key_.append(name.data(), name.size());
  auto it = m.find(named_key_);
  if (it == m.end()) {
    it = m.emplace(named_key_, NamedTotals{}).first;
    it->second.host = host;
    it->second.name = std::string(name);
  }
  NamedTotals& t = it->second;
  ++t.count;
  t.total_us += latency_us;
  t.max_us = std::max(t.max_us, latency_us);
  t.bytes += bytes;
}

void Aggregator::AddProcess(ProcessMap& m, const std::string& host,
                            uint32_t pid, const std::string& comm,
                            uint64_t latency_us, uint64_t bytes) {
  // host, pid and comm as one key: no allocation once the key has grown.
  // The host's length first, so that no host and comm pair reads as
  // another.
  process_key_.clear();
  const uint32_t host_size = static_cast<uint32_t>(host.size());
  process_key_.append(reinterpret_cast<const char*>(&host_size),
                      sizeof(host_size));
  process_key_.append(host);
  process_key_.append(reinterpret_cast<const char*>(&pid), sizeof(pid));
  process_key_.append(comm);
  auto it = m.find(process_key_);
  if (it == m.end()) {
    it = m.emplace(process_key_, ProcessTotals{}).first;
    it->second.host = host;
    it->second.pid = pid;
    it->second.comm = comm;
  }
  ProcessTotals& p = it->second;
  ++p.count;
  p.total_us += latency_us;
  p.max_us = std::max(p.max_us, latency_us);
  p.bytes += bytes;
}

void Aggregator::AddAttribution(const v1::Event& e) {
  const uint64_t latency = e.latency_us();
  AddNamed(contents_, e.host(), e.content(), latency, e.bytes());
  // Files are ranked by events whose first page is a file's: metadata
  // (its own content row) is no file, though a stream of an earlier
  // biosnoop names btrfs's btree as one ("inode 1").
  if (e.content() == "file" && e.files_size() > 0) {
    // The first page's file: the one the request was for, when it carries
    // several (a writeback batch).
    const v1::FileRef& f = e.files(0);
    if (!f.path().empty()) {
      AddNamed(files_, e.host(), f.path(), latency, e.bytes());
    } else {
      AddNamed(files_, e.host(),
               absl::StrCat("inode ", f.inode(), " on ", f.dev()), latency,
               e.bytes());
    }
  }
  if (e.has_dirtied_by()) {
    const v1::Dirtier& d = e.dirtied_by();
    AddProcess(dirtiers_, e.host(), d.pid(), d.comm(), latency, e.bytes());
    if (d.has_cgroup()) {
      AddNamed(dirtier_cgroups_, e.host(), d.cgroup(), latency, e.bytes());
    } else if (d.cgroup_id() != 0) {
      AddNamed(dirtier_cgroups_, e.host(),
               absl::StrCat("cgroup id ", d.cgroup_id()), latency, e.bytes());
    }
  }
}

std::vector<ProcessTotals> Aggregator::Processes() const {
  return Values(processes_);
}

std::vector<std::string> Aggregator::Hosts() const {
  std::vector<std::string> out;
  for (const std::string& host : hosts_) {
    if (host.empty()) continue;
    if (!options_.host.empty() && host != options_.host) continue;
    out.push_back(host);
  }
  return out;
}

}  // namespace biosnoop::report
