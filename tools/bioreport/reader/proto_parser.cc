// The protobuf record parser, and what both parsers share: resetting the
// reused record for a new one (ResetForKind) and the checks record.h
// promises (ValidateRecord).

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "record_parsers.h"
#include "status_macros.h"
#include "stream_info.h"

namespace biosnoop::report {
namespace {

// The longest interval a summary may cover.  biosnoop's last for seconds
// to hours (one run at most), so longer is a damaged or forged record;
// summed as they are, two of 1e308 s overflowed the baseline's covered time
// to inf (which is not JSON).  Any bound far above a real run and far
// below overflow would do: 100 years is both, and easy to say.
constexpr double kMaxIntervalS = 100 * 365.25 * 86400;

// A record's time, which biosnoop always writes: present (absent, it
// reads as the epoch, which no record of a running system has) and valid.
absl::Status CheckTimestamp(const char* record, const char* field,
                            const google::protobuf::Timestamp& t) {
  if (t.seconds() == 0 && t.nanos() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(record, " without a ", field, " (its time is the epoch)"));
  }
  ASSIGN_OR_RETURN(
      [[maybe_unused]] const int64_t ns, TimestampToNs(t),
      absl::InvalidArgumentError(absl::StrCat(field, ": ", _.message())));
  return absl::OkStatus();
}

// What every event biosnoop writes has, whatever the format: a protobuf
// record cannot tell a zero or empty field from an absent one, so an event
// without a time, disk, device or operation (a record cut down by some
// pipeline, or not biosnoop's) is refused rather than reported at the epoch
// or under a disk named "".  The JSON parser also wants every non-nullable
// key present.  A stuck record (the same request fields, found in flight)
// is held to the same rules: `what` is "event" or "stuck record".
template <typename Message>
absl::Status CheckRequest(const char* what, const Message& m) {
  if (absl::Status s = CheckTimestamp(what, "timestamp", m.timestamp());
      !s.ok()) {
    return s;
  }
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string*>{"disk", &m.disk()},
        {"dev", &m.dev()},
        {"op", &m.op()},
        {"rwbs", &m.rwbs()}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " with no \"", name, "\""));
    }
  }
  return absl::OkStatus();
}

// An event's files and dirtier, whatever the format.  They come with a
// content (biosnoop writes all six fields or none, and so do the writers
// here: an event with files but no content would lose them on
// conversion; a pipeline that dropped "content" would be read as
// attribution off); at most kMaxEventFiles files, no more than file_count
// says there were; a dirtier with a valid time (the wall clock of its
// dirtying, never the epoch).  A stuck record's alike (Msg: v1::Event or
// v1::Stuck).
template <typename Msg>
absl::Status CheckAttribution(const char* what, const Msg& e) {
  if (e.content().empty()) {
    if (e.files_size() > 0 || e.file_count() != 0 || e.files_incomplete() ||
        e.has_dirtied_by() || e.dirtier_count() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " with files or a dirtier but no \"content\""));
    }
    return absl::OkStatus();
  }
  if (e.files_size() > kMaxEventFiles) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " with ", e.files_size(), " files (at most ",
                     kMaxEventFiles, ")"));
  }
  if (e.file_count() < static_cast<uint32_t>(e.files_size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("file_count ", e.file_count(), " is below the ",
                     e.files_size(), " files listed"));
  }
  if (e.has_dirtied_by()) {
    return CheckTimestamp("dirtier", "dirtied_at", e.dirtied_by().dirtied_at());
  }
  return absl::OkStatus();
}

// An event's dirtier calls: at most kMaxDirtierOps named, no more than
// dirtier_op_count says there were (as its files and file_count).
absl::Status CheckDirtierOps(const v1::Event& e) {
  if (e.dirtier_op_ids_size() > kMaxDirtierOps) {
    return absl::InvalidArgumentError(
        absl::StrCat("event with ", e.dirtier_op_ids_size(),
                     " dirtier_op_ids (at most ", kMaxDirtierOps, ")"));
  }
  if (e.dirtier_op_count() < static_cast<uint32_t>(e.dirtier_op_ids_size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dirtier_op_count ", e.dirtier_op_count(), " is below the ",
        e.dirtier_op_ids_size(), " dirtier_op_ids listed"));
  }
  return absl::OkStatus();
}

// What every op record biosnoop writes has, whatever the format (a
// protobuf record cannot tell 0 or "" from absent): its times (return and
// entry), an op_id (numbered from 1: 0 is "no call" on an event, and a
// call under it could not be found again), the call's name; and layers
// that list at most kMaxOpLayerDisks disks and kMaxOpCulprits culprits.
absl::Status CheckOp(const v1::Op& op) {
  if (absl::Status s = CheckTimestamp("op record", "timestamp", op.timestamp());
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckTimestamp("op record", "start_time", op.start_time());
      !s.ok()) {
    return s;
  }
  if (op.op_id() == 0) {
    return absl::InvalidArgumentError("op record with op_id 0");
  }
  if (op.call().empty()) {
    return absl::InvalidArgumentError("op record with no \"call\"");
  }
  for (const auto& [name, layer] :
       {std::pair<const char*, const v1::OpLayer*>{"block", &op.block()},
        {"writeback", &op.writeback()},
        {"journal", &op.journal()},
        {"flush", &op.flush()},
        {"others_writeback", &op.others_writeback()},
        {"throttle", &op.throttle()}}) {
    if (layer->disks_size() > kMaxOpLayerDisks) {
      return absl::InvalidArgumentError(absl::StrCat(
          "op record's ", name, " layer with ", layer->disks_size(),
          " disks (at most ", kMaxOpLayerDisks, ")"));
    }
    if (layer->culprits_size() > kMaxOpCulprits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "op record's ", name, " layer with ", layer->culprits_size(),
          " culprits (at most ", kMaxOpCulprits, ")"));
    }
  }
  if (op.throttle_controllers_size() > kMaxThrottleControllers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "op record with ", op.throttle_controllers_size(),
        " throttle_controllers (at most ", kMaxThrottleControllers, ")"));
  }
  return absl::OkStatus();
}

template <typename Message>
void ResetKeepingTimestamp(Message* msg,
                           google::protobuf::Timestamp* (Message::*release)(),
                           void (Message::*set)(google::protobuf::Timestamp*)) {
  google::protobuf::Timestamp* ts = (msg->*release)();
  msg->Clear();
  if (ts == nullptr) ts = new google::protobuf::Timestamp;
  ts->Clear();
  (msg->*set)(ts);
}

// Parses `size` bytes into `msg`, merging into its current (reset) state.
bool MergeFrom(const char* data, int size, google::protobuf::MessageLite* msg) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(data), size);
  return msg->MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage();
}

}  // namespace

void ResetForKind(RecordKind kind, ParsedRecord* rec) {
  rec->kind = kind;
  switch (kind) {
    case RecordKind::kEvent:
      ResetKeepingTimestamp(&rec->event, &v1::Event::release_timestamp,
                            &v1::Event::set_allocated_timestamp);
      break;
    case RecordKind::kHeader:
      ResetKeepingTimestamp(&rec->header, &v1::StreamHeader::release_start_time,
                            &v1::StreamHeader::set_allocated_start_time);
      break;
    case RecordKind::kStats:
      ResetKeepingTimestamp(&rec->stats, &v1::Stats::release_timestamp,
                            &v1::Stats::set_allocated_timestamp);
      break;
    case RecordKind::kSummary:
      ResetKeepingTimestamp(&rec->summary, &v1::Summary::release_timestamp,
                            &v1::Summary::set_allocated_timestamp);
      break;
    case RecordKind::kStuck:
      ResetKeepingTimestamp(&rec->stuck, &v1::Stuck::release_timestamp,
                            &v1::Stuck::set_allocated_timestamp);
      break;
    case RecordKind::kOp:
      ResetKeepingTimestamp(&rec->op, &v1::Op::release_timestamp,
                            &v1::Op::set_allocated_timestamp);
      break;
  }
}

absl::Status ValidateRecord(ParsedRecord* rec) {
  switch (rec->kind) {
    case RecordKind::kEvent: {
      if (absl::Status s = CheckRequest("event", rec->event); !s.ok()) {
        return s;
      }
      if (absl::Status s = CheckAttribution("event", rec->event); !s.ok()) {
        return s;
      }
      return CheckDirtierOps(rec->event);
    }
    case RecordKind::kStuck: {
      if (absl::Status s = CheckRequest("stuck record", rec->stuck); !s.ok()) {
        return s;
      }
      return CheckAttribution("stuck record", rec->stuck);
    }
    case RecordKind::kOp:
      return CheckOp(rec->op);
    case RecordKind::kHeader: {
      // The version biosnoop writes is the one this bioreport reads: a
      // stream of another version may mean other things by the same
      // fields, and read as this one it would be reported wrong.  (0 is an
      // absent field: biosnoop has always written it.)
      const uint32_t version = rec->header.format_version();
      if (version != kStreamFormatVersion) {
        return absl::InvalidArgumentError(absl::StrCat(
            "format_version ", version, " not supported (this bioreport reads ",
            kStreamFormatVersion, ")"));
      }
      return CheckTimestamp("header", "start_time", rec->header.start_time());
    }
    case RecordKind::kStats: {
      v1::Stats& st = rec->stats;
      if (!std::isfinite(st.elapsed_s())) {
        return absl::InvalidArgumentError("elapsed_s is not a finite number");
      }
      return CheckTimestamp("stats record", "timestamp", st.timestamp());
    }
    case RecordKind::kSummary: {
      v1::Summary& su = rec->summary;
      if (!std::isfinite(su.interval_s())) {
        return absl::InvalidArgumentError("interval_s is not a finite number");
      }
      if (su.interval_s() < 0 || su.interval_s() > kMaxIntervalS) {
        return absl::InvalidArgumentError(
            absl::StrCat("interval_s ", su.interval_s(),
                         " is not a plausible interval (0 to 100 years)"));
      }
      for (const v1::SummaryGroup& g : su.groups()) {
        if (g.latency_us_log2_size() > kMaxSummaryBuckets ||
            g.size_log2_size() > kMaxSummaryBuckets) {
          return absl::InvalidArgumentError(
              absl::StrCat("a summary histogram has more than ",
                           kMaxSummaryBuckets, " buckets"));
        }
        if (g.latency_fine_size() > kMaxFineBuckets) {
          return absl::InvalidArgumentError(
              absl::StrCat("a summary's latency_fine has more than ",
                           kMaxFineBuckets, " buckets"));
        }
      }
      return CheckTimestamp("summary", "timestamp", su.timestamp());
    }
  }
  return absl::OkStatus();
}

absl::Status ProtoRecordParser::Parse(absl::string_view bytes,
                                      ParsedRecord* rec) {
  // What biosnoop writes: one field (1 to 6, length-delimited) holding
  // the whole member.  Parsing the member into the reused message directly
  // keeps its strings' capacity; a general Record parse would free and
  // reallocate the member each time.
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  bool parsed = false;
  if (n >= 2 && (p[0] == 0x0a || p[0] == 0x12 || p[0] == 0x1a || p[0] == 0x22 ||
                 p[0] == 0x2a || p[0] == 0x32)) {
    uint64_t len = 0;
    size_t i = 1;
    int shift = 0;
    bool complete = false;
    while (i < n && shift < 35) {
      len |= static_cast<uint64_t>(p[i] & 0x7f) << shift;
      shift += 7;
      if ((p[i++] & 0x80) == 0) {
        complete = true;
        break;
      }
    }
    if (complete && len == n - i) {
      const char* payload = bytes.data() + i;
      const int size = static_cast<int>(len);
      bool ok = false;
      switch (p[0]) {
        case 0x0a:
          ResetForKind(RecordKind::kHeader, rec);
          ok = MergeFrom(payload, size, &rec->header);
          break;
        case 0x12:
          ResetForKind(RecordKind::kEvent, rec);
          ok = MergeFrom(payload, size, &rec->event);
          break;
        case 0x1a:
          ResetForKind(RecordKind::kStats, rec);
          ok = MergeFrom(payload, size, &rec->stats);
          break;
        case 0x22:
          ResetForKind(RecordKind::kSummary, rec);
          ok = MergeFrom(payload, size, &rec->summary);
          break;
        case 0x2a:
          ResetForKind(RecordKind::kStuck, rec);
          ok = MergeFrom(payload, size, &rec->stuck);
          break;
        default:
          ResetForKind(RecordKind::kOp, rec);
          ok = MergeFrom(payload, size, &rec->op);
          break;
      }
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot parse the ", RecordKindName(rec->kind),
                         " message (corrupt bytes or invalid UTF-8)"));
      }
      parsed = true;
    }
  }
  if (!parsed) {
    if (!scratch_.ParseFromArray(bytes.data(), static_cast<int>(n))) {
      return absl::InvalidArgumentError("cannot parse as a biosnoop.v1.Record");
    }
    switch (scratch_.kind_case()) {
      case v1::Record::kHeader:
        rec->kind = RecordKind::kHeader;
        rec->header.Swap(scratch_.mutable_header());
        break;
      case v1::Record::kEvent:
        rec->kind = RecordKind::kEvent;
        rec->event.Swap(scratch_.mutable_event());
        break;
      case v1::Record::kStats:
        rec->kind = RecordKind::kStats;
        rec->stats.Swap(scratch_.mutable_stats());
        break;
      case v1::Record::kSummary:
        rec->kind = RecordKind::kSummary;
        rec->summary.Swap(scratch_.mutable_summary());
        break;
      case v1::Record::kStuck:
        rec->kind = RecordKind::kStuck;
        rec->stuck.Swap(scratch_.mutable_stuck());
        break;
      case v1::Record::kOp:
        rec->kind = RecordKind::kOp;
        rec->op.Swap(scratch_.mutable_op());
        break;
      case v1::Record::KIND_NOT_SET:
        return absl::InvalidArgumentError(
            "record holds no header, event, stats, summary, stuck or op "
            "record (unknown kind?)");
    }
  }
  return ValidateRecord(rec);
}

}  // namespace biosnoop::report
