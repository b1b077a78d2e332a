#include "proto_sink.h"

#include <utility>

#include "proto_format.h"
#include "proto_wire.h"

namespace biosnoop {

ProtoSink::ProtoSink(std::unique_ptr<OutputFile> file, std::string host)
    : FileSink(std::move(file)), host_(std::move(host)) {
  scratch_.reserve(512);  // a typical event is ~150 bytes
  bytes_.reserve(512);
}

absl::Status ProtoSink::Write(const EnrichedEvent& e) {
  // The hot path encodes the wire format directly (proto_wire.h): the same
  // bytes as FillEventProto + AppendDelimited, about twice as fast.
  bytes_.clear();
  AppendEventRecordDelimited(e, host_, &scratch_, &bytes_);
  return AppendEvent(bytes_);
}

absl::Status ProtoSink::WriteHeader(const StreamInfo& info) {
  v1::Record record;
  FillHeaderProto(info, record.mutable_header());
  return AppendNonEventRecord(record);
}

absl::Status ProtoSink::WriteStats(const StatsSnapshot& stats) {
  v1::Record record;
  FillStatsProto(stats, record.mutable_stats());
  return AppendNonEventRecord(record);
}

absl::Status ProtoSink::WriteSummary(const SummaryRecord& summary) {
  v1::Record record;
  FillSummaryProto(summary, record.mutable_summary());
  return AppendNonEventRecord(record);
}

absl::Status ProtoSink::AppendNonEventRecord(const v1::Record& record) {
  std::string bytes;
  AppendDelimited(record, &bytes);
  return AppendNonEvent(bytes);
}

}  // namespace biosnoop
