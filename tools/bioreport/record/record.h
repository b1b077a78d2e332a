#pragma once

// One record of a biosnoop stream, as the readers deliver it: the member of
// biosnoop.v1.Record's oneof that is set, in a reused message.

#include <cstdint>

#include "biosnoop.pb.h"

namespace biosnoop::report {

enum class RecordKind { kHeader, kEvent, kStats, kSummary, kStuck, kOp };

// Only the message named by `kind` is meaningful.  Readers reuse one
// ParsedRecord for a whole stream, so that the messages' strings keep their
// capacity: reading an event allocates (almost) nothing.
//
// Every record a reader returns has been validated: its timestamp (always
// set; an absent one reads as the epoch) is within the int64-nanosecond
// range, a Stats' elapsed_s is finite, a Summary's interval_s is between 0
// and 100 years (record_parsers.h), a
// SummaryGroup's histograms have at most kMaxSummaryBuckets buckets, an
// event or stuck record names its disk, device, op and rwbs, an event's
// files and dirtier come with its content (and its files number at most
// kMaxEventFiles and file_count, its dirtier's time is valid), and all
// strings are valid UTF-8.
//
// A Stuck record (a request still in flight past biosnoop's --stuck-after)
// is not an event: it has no seq, and biosnoop does not count it in
// `written`; reports keep it apart from the events.
//
// An Op record (--ops: an application call that took at least
// --op-min-us) is not an event either: it has no seq; its op_id is
// non-zero, its call named, its start_time valid, its layers list at most
// kMaxOpLayerDisks disks each.  Events name the calls behind them by
// op_id (Event.op_id, Event.dirtier_op_ids: at most kMaxDirtierOps).
struct ParsedRecord {
  RecordKind kind = RecordKind::kEvent;
  v1::StreamHeader header;
  v1::Event event;
  v1::Stats stats;
  v1::Summary summary;
  v1::Stuck stuck;
  v1::Op op;
};

// The most buckets a SummaryGroup histogram may have: one per bit of a
// uint64 value (biosnoop writes at most 32).
inline constexpr int kMaxSummaryBuckets = 64;
// The most buckets SummaryGroup.latency_fine may have (biosnoop writes at
// most 512).
inline constexpr int kMaxFineBuckets = 1024;

// The most files an event may list (Event.files: "at most 8").
inline constexpr int kMaxEventFiles = 8;

// The most disks an op's layer may list (OpLayer.disks: "at most 4").
inline constexpr int kMaxOpLayerDisks = 4;
// The most culprits a layer may list (OpLayer.culprits: "at most 4").
inline constexpr int kMaxOpCulprits = 4;
// Op.throttle_controllers: wbt, io.latency, io.cost.
inline constexpr int kMaxThrottleControllers = 3;

// The most write calls an event may name as its dirtiers
// (Event.dirtier_op_ids: "at most 8").
inline constexpr int kMaxDirtierOps = 8;

// "header", "event", "stats", "summary", "stuck", "op": the oneof member
// names.
const char* RecordKindName(RecordKind kind);

// Nanoseconds since the epoch of a validated Timestamp (every record's
// time, see above).
inline int64_t ToNs(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * 1'000'000'000 + ts.nanos();
}

}  // namespace biosnoop::report
