// Orders the inputs by a quiet first pass over each regular file (up to its
// first record after the header), then reads them one after another,
// adding up their damage.

#include "stream_set.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "status_macros.h"

namespace biosnoop::report {
namespace {

int64_t RecordTime(const ParsedRecord& rec) {
  switch (rec.kind) {
    case RecordKind::kHeader:
      return ToNs(rec.header.start_time());
    case RecordKind::kEvent:
      return ToNs(rec.event.timestamp());
    case RecordKind::kStats:
      return ToNs(rec.stats.timestamp());
    case RecordKind::kSummary:
      return ToNs(rec.summary.timestamp());
    case RecordKind::kStuck:
      return ToNs(rec.stuck.timestamp());
    case RecordKind::kOp:
      return ToNs(rec.op.timestamp());
  }
  return 0;
}

// Whether `path` can be read twice: a regular file.  A pipe, a FIFO or a
// terminal (`<(zcat ...)`, /dev/stdin) gives its bytes once, so a first
// pass for the time order would use them up.
bool Rereadable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
}

// The time of the first good record after the headers, quietly (the real
// pass reports problems), or the header's when nothing follows it.  Not
// the header's: every file of a run starts with the same header (its
// start time is the run's), and a file SIGHUP opened has a stats record
// of the reopening time right after it.  Opening errors are returned.
absl::StatusOr<std::optional<int64_t>> FirstTime(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                   RecordReader::Open(path, ReaderOptions{}));
  std::optional<int64_t> header_time;
  ParsedRecord rec;
  for (;;) {
    absl::StatusOr<bool> got = reader->Next(&rec);
    if (!got.ok() || !*got) return header_time;
    if (rec.kind != RecordKind::kHeader) return RecordTime(rec);
    if (!header_time.has_value()) header_time = RecordTime(rec);
  }
}

}  // namespace

absl::StatusOr<StreamSet> StreamSet::Open(std::vector<std::string> paths,
                                          ReaderOptions options) {
  struct Item {
    std::optional<int64_t> first;
    size_t index;
    std::string path;
  };
  std::vector<Item> items;
  int stdin_count = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::optional<int64_t> first;
    if (paths[i] == "-") {
      if (++stdin_count > 1) {
        return absl::InvalidArgumentError("stdin (-) named more than once");
      }
    } else if (Rereadable(paths[i])) {
      ASSIGN_OR_RETURN(first, FirstTime(paths[i]));
    }
    items.push_back({first, i, std::move(paths[i])});
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) {
                     if (a.first.has_value() != b.first.has_value())
                       return !a.first.has_value();
                     if (!a.first.has_value()) return false;
                     return *a.first < *b.first;
                   });
  std::vector<std::string> ordered;
  for (Item& item : items) ordered.push_back(std::move(item.path));
  return StreamSet(std::move(ordered), std::move(options));
}

absl::Status StreamSet::ForEach(
    const std::function<void(const RecordReader&)>& start_input,
    const std::function<absl::Status(const ParsedRecord&)>& visit) {
  ParsedRecord rec;
  for (const std::string& path : paths_) {
    ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                     RecordReader::Open(path, options_));
    RecordReader& r = *reader;
    start_input(r);
    for (;;) {
      ASSIGN_OR_RETURN(const bool got, r.Next(&rec));
      if (!got) break;
      if (absl::Status s = visit(rec); !s.ok()) return s;
    }
    if (r.format() == StreamFormat::kJsonLines) saw_jsonl_ = true;
    if (r.format() == StreamFormat::kProtobuf) saw_proto_ = true;
    damage_.records_skipped += r.records_skipped();
    if (r.damaged_end())
      damage_.damaged_inputs.push_back({r.name(), r.damage()});
  }
  return absl::OkStatus();
}

std::string StreamSet::formats() const {
  if (saw_jsonl_ && saw_proto_) return "jsonl+proto";
  if (saw_jsonl_) return "jsonl";
  if (saw_proto_) return "proto";
  return "empty";
}

}  // namespace biosnoop::report
