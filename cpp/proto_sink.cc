#include "proto_sink.h"

#include <utility>

#include "proto_format.h"

namespace biosnoop {

ProtoSink::ProtoSink(std::unique_ptr<OutputFile> file, std::string host)
    : FileSink(std::move(file)), host_(std::move(host)) {
  // Setting the oneof once and never switching it keeps the Event (and its
  // strings' capacity) alive across events; switching would free it.
  event_ = event_record_.mutable_event();
  bytes_.reserve(512);  // a typical event is ~150 bytes
}

absl::Status ProtoSink::Write(const EnrichedEvent& e) {
  FillEventProto(e, host_, event_);
  bytes_.clear();
  AppendDelimited(event_record_, &bytes_);
  return AppendEvent(bytes_);
}

absl::Status ProtoSink::WriteHeader(const StreamInfo& info) {
  v1::Record record;
  FillHeaderProto(info, record.mutable_header());
  std::string bytes;
  AppendDelimited(record, &bytes);
  return AppendNonEvent(bytes);
}

absl::Status ProtoSink::WriteStats(const StatsSnapshot& stats) {
  v1::Record record;
  FillStatsProto(stats, record.mutable_stats());
  std::string bytes;
  AppendDelimited(record, &bytes);
  return AppendNonEvent(bytes);
}

}  // namespace biosnoop
