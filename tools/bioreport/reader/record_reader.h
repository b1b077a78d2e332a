#pragma once

// Reads a biosnoop stream (JSON Lines or length-delimited protobuf, told
// apart by its first bytes, gzip or not) record by record, surviving damage:
//   - a corrupt record (a JSON line that does not parse, a protobuf message
//     that does not) is reported with the input name and line number or
//     byte offset, and skipped;
//   - input that ends inside a record (biosnoop killed mid-write, a .gz cut
//     short) yields every whole record before it and one report naming the
//     byte offset where the partial record starts;
//   - a protobuf length that cannot be right (over 1 MiB) means the framing
//     is lost: reported, and the rest of that input is not read;
//   - bytes after a gzip stream that are not gzip (zero padding is
//     skipped) are reported and ignored;
//   - NUL bytes where a record would start (a hole: a file truncated under
//     a writer that does not append) are skipped, with one report per run
//     of them;
//   - a JSON Lines input that starts in the middle of a line (cut by a
//     copy-and-truncate rotation) is read from its second line, the first
//     reported as a partial line;
//   - an empty input is simply an empty stream.
// With `strict`, the first such problem is returned as an error instead.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "byte_source.h"
#include "record.h"
#include "record_parsers.h"

namespace biosnoop::report {

enum class StreamFormat { kUnknown, kEmpty, kJsonLines, kProtobuf };

// "jsonl", "proto", "empty", "unknown".
const char* StreamFormatName(StreamFormat format);

// Records and lines longer than this are corrupt.
inline constexpr size_t kMaxRecordBytes = 1 << 20;

// How the first bytes of a stream identify its format: JSON Lines start with
// '{' (after optional whitespace: blank lines, a CR) or are only
// whitespace; protobuf with a varint length in 1..kMaxRecordBytes followed
// by the tag of Record field 1 to 6 (0x0a, 0x12, 0x1a, 0x22, 0x2a, 0x32),
// except that '{' then '"' is JSON (a protobuf stream whose first record is a
// 123-byte summary is not recognized; biosnoop starts every file with a
// header). kEmpty when `head` is empty.  `head` should hold at least the first
// 16 bytes when the stream has them.
StreamFormat DetectFormat(absl::string_view head);

struct ReaderOptions {
  bool strict = false;
  // Receives each problem, as "NAME:LINE: ..." or "NAME: byte N: ...".
  // May be empty (problems are then only counted).
  std::function<void(absl::string_view)> warn;
};

class RecordReader {
 public:
  RecordReader(std::string name, std::unique_ptr<ByteSource> source,
               ReaderOptions options);

  // OpenInput(path) (see byte_source.h) wrapped in a reader named `path`
  // ("stdin" for "-").
  static absl::StatusOr<std::unique_ptr<RecordReader>> Open(
      absl::string_view path, ReaderOptions options);

  // The next good record into `*rec`: true, or false at the end.
  // Errors: reading failed; the input is not a biosnoop stream
  // (InvalidArgumentError "NAME: not a biosnoop stream ..."); with strict,
  // the first problem (DataLossError).
  absl::StatusOr<bool> Next(ParsedRecord* rec);

  const std::string& name() const { return name_; }
  // Known after the first Next().
  StreamFormat format() const { return format_; }
  uint64_t records_read() const { return records_read_; }
  // Corrupt records skipped.
  uint64_t records_skipped() const { return records_skipped_; }
  // The input ended inside a record, or the rest of it could not be read.
  bool damaged_end() const { return damaged_end_; }
  // What damaged_end() was, for a report: "ends inside a record
  // (truncated)", ...
  const std::string& damage() const { return damage_; }

 private:
  // Reads more bytes after end_, moving or growing the buffer as needed.
  // Sets eof_ when the source is exhausted.
  absl::Status Fill();
  absl::Status Detect();
  // Whether the input is JSON Lines whose first line is partial: the line
  // after it is a record.  Reads ahead without consuming.
  absl::StatusOr<bool> StartsWithPartialLine();
  // Skips NUL bytes at begin_, however many: true (and Skipped()) when
  // there were some.
  absl::StatusOr<bool> SkipNuls();
  absl::Status NulsSkipped(uint64_t offset, uint64_t count);
  absl::StatusOr<bool> NextLine(ParsedRecord* rec);
  absl::StatusOr<bool> NextMessage(ParsedRecord* rec);
  // Reports a problem: warns and returns OK, or (strict) returns it.
  absl::Status Problem(std::string message);
  // A corrupt record skipped: counted, and a Problem for the first
  // kMaxNamedSkips of this input; after them one line says more follow.
  absl::Status Skipped(std::string message);
  static constexpr uint64_t kMaxNamedSkips = 100;
  // The current line (line_number_) is over kMaxRecordBytes: Skipped().
  absl::Status LineTooLong();
  absl::Status EndOfInput(size_t partial_bytes);
  uint64_t Offset(size_t buffer_pos) const { return base_offset_ + buffer_pos; }

  std::string name_;
  std::unique_ptr<ByteSource> source_;
  ReaderOptions options_;
  StreamFormat format_ = StreamFormat::kUnknown;

  std::string buf_;
  size_t begin_ = 0;          // first unconsumed byte
  size_t end_ = 0;            // end of valid bytes
  uint64_t base_offset_ = 0;  // stream offset of buf_[0]
  bool eof_ = false;
  bool finished_ = false;
  bool skipping_long_line_ = false;
  bool partial_first_line_ = false;

  uint64_t line_number_ = 0;
  uint64_t records_read_ = 0;
  uint64_t records_skipped_ = 0;
  bool damaged_end_ = false;
  std::string damage_ = "ends inside a record (truncated)";

  JsonRecordParser json_;
  ProtoRecordParser proto_;
};

}  // namespace biosnoop::report
