// Framing and damage: one buffer, grown only for a record that does not
// fit, cut into lines or varint-delimited messages for the format's
// parser; every problem becomes a warning and a skip (or, strict, an
// error), never a silent end.

#include "record_reader.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "status_macros.h"

namespace biosnoop::report {
namespace {

// The first buffer; it grows (doubling) only for a record that does not fit.
constexpr size_t kChunk = 64 * 1024;

// The tags of Record fields 1 to 6 (header, event, stats, summary, stuck,
// op), each length-delimited.
bool IsRecordTag(unsigned char c) {
  return c == 0x0a || c == 0x12 || c == 0x1a || c == 0x22 || c == 0x2a ||
         c == 0x32;
}

// Decodes a varint of at most 10 bytes.  Returns its length, 0 when `data`
// ends first, or -1 when it is malformed (an 11th byte would be needed).
int ReadVarint(absl::string_view data, uint64_t* value) {
  uint64_t v = 0;
  for (size_t i = 0; i < data.size() && i < 10; ++i) {
    const auto byte = static_cast<unsigned char>(data[i]);
    v |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = v;
      return static_cast<int>(i + 1);
    }
  }
  return data.size() >= 10 ? -1 : 0;
}

std::string HexBytes(absl::string_view data) {
  std::string out;
  for (size_t i = 0; i < data.size() && i < 8; ++i) {
    absl::StrAppendFormat(&out, "%s%02x", i == 0 ? "" : " ",
                          static_cast<unsigned char>(data[i]));
  }
  return out;
}

}  // namespace

const char* StreamFormatName(StreamFormat format) {
  switch (format) {
    case StreamFormat::kUnknown:
      return "unknown";
    case StreamFormat::kEmpty:
      return "empty";
    case StreamFormat::kJsonLines:
      return "jsonl";
    case StreamFormat::kProtobuf:
      return "proto";
  }
  return "unknown";
}

StreamFormat DetectFormat(absl::string_view head) {
  if (head.empty()) return StreamFormat::kEmpty;
  // Whitespace, then '{' (or only whitespace): JSON Lines with blank lines
  // or a CR first.  Checked before the protobuf test, which would take
  // "\r\n{" for a 13-byte header record (0x0a is its tag), but after a
  // whitespace byte read as a length and the header tag (0x0a, itself
  // whitespace) a protobuf stream has the header's length and first tag,
  // and '{' (0x7b: field 15, wire type 3, a group) is never a tag of ours.
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == absl::string_view::npos) return StreamFormat::kJsonLines;
  if (first > 0 && head[first] == '{') return StreamFormat::kJsonLines;
  // '{' is also a valid one-byte varint (123): a JSON line's second byte is
  // '"', '}' or whitespace.  '"' is also the summary tag (0x22): "{\"" is
  // taken as JSON, which is what every biosnoop file starts with (a
  // protobuf file starts with its header, tag 0x0a).  "{\n" does not begin
  // a JSON Lines object.
  if (head[0] == '{' && (head.size() < 2 || head[1] == '"' ||
                         !IsRecordTag(static_cast<unsigned char>(head[1])))) {
    return StreamFormat::kJsonLines;
  }
  uint64_t length = 0;
  const int n = ReadVarint(head.substr(0, 5), &length);
  if (n > 0 && length >= 1 && length <= kMaxRecordBytes &&
      static_cast<size_t>(n) < head.size() &&
      IsRecordTag(static_cast<unsigned char>(head[n]))) {
    return StreamFormat::kProtobuf;
  }
  return StreamFormat::kUnknown;
}

RecordReader::RecordReader(std::string name, std::unique_ptr<ByteSource> source,
                           ReaderOptions options)
    : name_(std::move(name)),
      source_(std::move(source)),
      options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(
    absl::string_view path, ReaderOptions options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenInput(path));
  return std::make_unique<RecordReader>(
      path == "-" ? "stdin" : std::string(path), std::move(source),
      std::move(options));
}

absl::Status RecordReader::Fill() {
  if (eof_) return absl::OkStatus();
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    base_offset_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.empty()) buf_.resize(kChunk);
  if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  ASSIGN_OR_RETURN(const size_t got,
                   source_->Read(buf_.data() + end_, buf_.size() - end_));
  if (got == 0) {
    eof_ = true;
    const std::string note = source_->EndNote();
    if (!note.empty()) {
      damaged_end_ = true;
      damage_ = source_->EndDamage();
      return Problem(absl::StrCat(name_, ": ", note));
    }
  }
  end_ += got;
  return absl::OkStatus();
}

absl::Status RecordReader::Detect() {
  // NUL bytes first are a hole, not the format: what a writer without
  // O_APPEND leaves when its file is truncated under it (copytruncate), or
  // a crash before the data reached the disk.  Skipped, however long.
  uint64_t nuls = 0;
  for (;;) {
    while (begin_ < end_ && buf_[begin_] == '\0') {
      ++begin_;
      ++nuls;
    }
    if (eof_ || end_ - begin_ >= 16) break;
    if (absl::Status s = Fill(); !s.ok()) return s;
  }
  const absl::string_view head(buf_.data() + begin_, end_ - begin_);
  format_ = DetectFormat(head);
  if (format_ == StreamFormat::kUnknown) {
    ASSIGN_OR_RETURN(const bool partial, StartsWithPartialLine());
    if (partial) {
      format_ = StreamFormat::kJsonLines;
      partial_first_line_ = true;
    }
  }
  if (format_ == StreamFormat::kUnknown) {
    const absl::string_view now(buf_.data() + begin_, end_ - begin_);
    return absl::InvalidArgumentError(absl::StrCat(
        name_, ": not a biosnoop stream: it starts with bytes ", HexBytes(now),
        ", neither '{' (JSON Lines) nor a length-delimited "
        "biosnoop.v1.Record"));
  }
  if (nuls > 0) return NulsSkipped(0, nuls);
  return absl::OkStatus();
}

absl::StatusOr<bool> RecordReader::StartsWithPartialLine() {
  // The file was cut in the middle of a line (a copy-and-truncate rotation,
  // a `tail -c`): it is JSON Lines when the line after the first is a
  // biosnoop record.  The first line is then a corrupt line like any other.
  size_t nl = absl::string_view::npos;
  size_t next_end = absl::string_view::npos;
  for (;;) {
    const absl::string_view avail(buf_.data() + begin_, end_ - begin_);
    nl = avail.find('\n');
    if (nl != absl::string_view::npos) next_end = avail.find('\n', nl + 1);
    if (next_end != absl::string_view::npos || eof_ ||
        avail.size() > 2 * kMaxRecordBytes) {
      break;
    }
    if (absl::Status s = Fill(); !s.ok()) return s;
  }
  if (nl == absl::string_view::npos) return false;
  absl::string_view next(buf_.data() + begin_ + nl + 1, end_ - begin_ - nl - 1);
  if (next_end != absl::string_view::npos)
    next = next.substr(0, next_end - nl - 1);
  ParsedRecord trial;
  return json_.Parse(next, &trial).ok();
}

absl::Status RecordReader::NulsSkipped(uint64_t offset, uint64_t count) {
  return Skipped(absl::StrFormat(
      "%s: byte %d: %d NUL bytes skipped (a hole: the file was truncated "
      "under a writer that does not append, or not all written before a "
      "crash)",
      name_, offset, count));
}

absl::StatusOr<bool> RecordReader::SkipNuls() {
  if (begin_ == end_ || buf_[begin_] != '\0') return false;
  const uint64_t offset = Offset(begin_);
  uint64_t count = 0;
  for (;;) {
    while (begin_ < end_ && buf_[begin_] == '\0') {
      ++begin_;
      ++count;
    }
    if (begin_ < end_ || eof_) break;
    if (absl::Status s = Fill(); !s.ok()) return s;
  }
  if (absl::Status s = NulsSkipped(offset, count); !s.ok()) return s;
  return true;
}

absl::Status RecordReader::Problem(std::string message) {
  if (options_.strict) return absl::DataLossError(message);
  if (options_.warn) options_.warn(message);
  return absl::OkStatus();
}

absl::Status RecordReader::Skipped(std::string message) {
  ++records_skipped_;
  if (options_.strict || records_skipped_ <= kMaxNamedSkips) {
    return Problem(std::move(message));
  }
  if (records_skipped_ == kMaxNamedSkips + 1 && options_.warn) {
    // A pipeline that cut every line would otherwise bury the report.
    options_.warn(absl::StrCat(
        name_, ": more corrupt records: only the first ", kMaxNamedSkips,
        " are named (the report's warning block counts them all)"));
  }
  return absl::OkStatus();
}

absl::Status RecordReader::LineTooLong() {
  return Skipped(absl::StrCat(name_, ":", line_number_, ": line longer than ",
                              kMaxRecordBytes, " bytes: skipped"));
}

absl::Status RecordReader::EndOfInput(size_t partial_bytes) {
  finished_ = true;
  if (partial_bytes == 0) return absl::OkStatus();
  damaged_end_ = true;
  return Problem(absl::StrFormat(
      "%s: truncated: the input ends inside a record at byte offset %d "
      "(%d bytes of a partial record ignored)",
      name_, Offset(begin_), partial_bytes));
}

absl::StatusOr<bool> RecordReader::Next(ParsedRecord* rec) {
  if (finished_) return false;
  if (format_ == StreamFormat::kUnknown) {
    if (absl::Status s = Detect(); !s.ok()) {
      finished_ = true;
      return s;
    }
  }
  if (format_ == StreamFormat::kEmpty) {
    finished_ = true;
    return false;
  }
  absl::StatusOr<bool> got =
      format_ == StreamFormat::kJsonLines ? NextLine(rec) : NextMessage(rec);
  if (got.ok() && *got) ++records_read_;
  if (!got.ok()) finished_ = true;
  return got;
}

absl::StatusOr<bool> RecordReader::NextLine(ParsedRecord* rec) {
  for (;;) {
    if (!skipping_long_line_) {
      ASSIGN_OR_RETURN(const bool skipped, SkipNuls());
      if (skipped) continue;
    }
    const char* start = buf_.data() + begin_;
    const size_t avail = end_ - begin_;
    const void* nl = avail == 0 ? nullptr : std::memchr(start, '\n', avail);
    if (nl == nullptr) {
      if (skipping_long_line_) {
        begin_ = end_;  // still inside the over-long line: drop it
      } else if (avail > kMaxRecordBytes) {
        ++line_number_;
        skipping_long_line_ = true;
        begin_ = end_;
        if (absl::Status s = LineTooLong(); !s.ok()) return s;
      }
      if (eof_) {
        if (begin_ == end_) {
          finished_ = true;
          return false;
        }
        // A last line without '\n' is a whole record if it parses (someone
        // cut only the newline); otherwise it is the partial record of a
        // killed writer.
        const absl::string_view line(start, avail);
        ++line_number_;
        if (json_.Parse(line, rec).ok()) {
          begin_ = end_;
          finished_ = true;
          return true;
        }
        absl::Status s = EndOfInput(avail);
        begin_ = end_;
        if (!s.ok()) return s;
        return false;
      }
      if (absl::Status s = Fill(); !s.ok()) return s;
      continue;
    }
    const size_t len = static_cast<const char*>(nl) - start;
    begin_ += len + 1;
    if (skipping_long_line_) {
      skipping_long_line_ = false;
      continue;
    }
    ++line_number_;
    // Whether a line over the limit was read whole depends on how the
    // input arrived (a file's large reads, a pipe's small ones): it is
    // refused either way, so that a stream reads the same from both (and
    // `convert` never writes a record the protobuf reader refuses).
    if (len > kMaxRecordBytes) {
      if (absl::Status s = LineTooLong(); !s.ok()) return s;
      continue;
    }
    absl::string_view line(start, len);
    if (line.find_first_not_of(" \t\r") == absl::string_view::npos) continue;
    const absl::Status parsed = json_.Parse(line, rec);
    if (parsed.ok()) return true;
    if (line_number_ == 1 && partial_first_line_) {
      if (absl::Status s = Skipped(absl::StrCat(
              name_, ":1: partial line skipped (", len,
              " bytes: the input starts in the middle of a record, as a file "
              "cut by a copy-and-truncate rotation does)"));
          !s.ok()) {
        return s;
      }
      continue;
    }
    if (absl::Status s =
            Skipped(absl::StrCat(name_, ":", line_number_,
                                 ": corrupt line skipped: ", parsed.message()));
        !s.ok()) {
      return s;
    }
  }
}

absl::StatusOr<bool> RecordReader::NextMessage(ParsedRecord* rec) {
  for (;;) {
    // A zero length would be an empty Record, which biosnoop never writes:
    // NUL bytes where a record starts are a hole.
    ASSIGN_OR_RETURN(const bool skipped, SkipNuls());
    if (skipped) continue;
    const absl::string_view avail(buf_.data() + begin_, end_ - begin_);
    if (avail.empty() && eof_) {
      finished_ = true;
      return false;
    }
    uint64_t length = 0;
    const int n = ReadVarint(avail, &length);
    if (n < 0 || (n > 0 && length > kMaxRecordBytes)) {
      // The framing is lost: nothing after this point can be trusted.
      finished_ = true;
      damaged_end_ = true;
      ++records_skipped_;
      absl::Status s = Problem(absl::StrFormat(
          "%s: byte %d: corrupt stream: implausible record length%s; the rest "
          "of this input cannot be read",
          name_, Offset(begin_), n < 0 ? "" : absl::StrCat(" ", length)));
      if (!s.ok()) return s;
      return false;
    }
    if (n == 0 || avail.size() - static_cast<size_t>(n) < length) {
      if (eof_) {
        absl::Status s = EndOfInput(avail.size());
        begin_ = end_;
        if (!s.ok()) return s;
        return false;
      }
      if (absl::Status s = Fill(); !s.ok()) return s;
      continue;
    }
    const uint64_t offset = Offset(begin_);
    const absl::string_view payload = avail.substr(n, length);
    begin_ += n + length;
    ++line_number_;  // record number
    const absl::Status parsed = proto_.Parse(payload, rec);
    if (parsed.ok()) return true;
    if (absl::Status s = Skipped(
            absl::StrFormat("%s: byte %d: corrupt record %d skipped: %s", name_,
                            offset, line_number_, parsed.message()));
        !s.ok()) {
      return s;
    }
  }
}

}  // namespace biosnoop::report
