// The terminal table's rows (event_table.h).

#include "event_table.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop {
namespace {

constexpr const char* kLabels[] = {"TIME",  "COMM",    "PID",     "DISK", "OP",
                                   "BYTES", "LAT(ms)", "QUE(ms)", "CALL"};

// Widths that hold the usual values: a time of day with ms, a whole
// process name (TASK_COMM_LEN - 1), PID_MAX_LIMIT (4194304), vda1 to
// nvme0n1 (loop12, dm-10), write and flush, 4 MiB, 9999.999 ms, 999.999
// ms, #99999.
constexpr size_t kStartWidths[] = {12, 15, 7, 7, 5, 7, 8, 7, 6};

// Right-aligned: the numbers.
constexpr bool kRight[] = {false, false, true, false, false,
                           true,  true,  true, false};

std::string OpId(uint64_t op_id) {
  return op_id == 0 ? std::string("-") : absl::StrCat("#", op_id);
}

}  // namespace

EventTable::EventTable(TableLayout layout) : layout_(layout) {
  std::copy(std::begin(kStartWidths), std::end(kStartWidths), width_.begin());
  // Calls' names: fdatasync() and pwrite64() without a widening.
  if (layout_.calls) width_[kOp] = 11;
}

std::string EventTable::HeaderLine() const {
  Row header;
  for (size_t c = 0; c < kColumns; ++c)
    SetAscii(Column(c), kLabels[c], &header);
  std::string line;
  for (size_t c = 0; c < kColumns; ++c) {
    if (c == kCall && !layout_.calls) continue;
    const size_t pad = width_[c] - header.widths[c];
    if (kRight[c]) line.append(pad, ' ');
    line += header.cells[c];
    if (!kRight[c]) line.append(pad, ' ');
    line.push_back(' ');
  }
  line += "FILE\n";
  return line;
}

void EventTable::SetTime(int64_t realtime_ns, Row* row) {
  const int64_t second = realtime_ns >= 0
                             ? realtime_ns / 1000000000
                             : (realtime_ns - 999999999) / 1000000000;
  if (second != cached_second_) {
    cached_second_ = second;
    cached_hms_ = absl::FormatTime("%H:%M:%S", absl::FromUnixSeconds(second),
                                   layout_.zone);
  }
  const int64_t ms = (realtime_ns - second * 1000000000) / 1000000;
  SetAscii(kTime, absl::StrFormat("%s.%03d", cached_hms_, ms), row);
}

void EventTable::SetText(Column c, absl::string_view bytes, Row* row) const {
  row->cells[c].clear();
  row->widths[c] = AppendTerminalText(bytes, layout_.charset, &row->cells[c]);
}

void EventTable::SetAscii(Column c, std::string text, Row* row) {
  row->widths[c] = text.size();
  row->cells[c] = std::move(text);
}

std::string EventTable::Millis(uint64_t ns) {
  const uint64_t us = ns / 1000;
  return absl::StrFormat("%d.%03d", us / 1000, us % 1000);
}

void EventTable::SetFiles(const Attribution& a, const AttributionLabel& label,
                          Row* row) {
  row->file_path.clear();
  row->file_suffix.clear();
  if (label.content.empty() || label.content == "none") {
    // Files off, or no data (a flush): nothing to name.
    if (row->file_prefix.empty()) row->file_prefix = "-";
    return;
  }
  if (label.content != "file") {
    absl::StrAppend(&row->file_prefix, "[", label.content, "]");
    return;
  }
  if (label.files.empty() || label.files[0].path.empty()) {
    // Named by inode only (no path could be made).
    absl::StrAppend(&row->file_prefix,
                    a.files.empty()
                        ? std::string("[file]")
                        : absl::StrCat("[inode ", a.files[0].ino, "]"));
  } else {
    row->file_path = label.files[0].path;
  }
  if (a.file_count > 1) {
    absl::StrAppend(&row->file_suffix, " +", a.file_count - 1,
                    a.incomplete ? "..." : "");
  }
}

bool EventTable::EventRow(const EnrichedEvent& e, std::string* out) {
  Row& row = row_;
  const Event& ev = e.event;
  SetTime(e.realtime_ns, &row);
  SetText(kComm, ev.Comm(), &row);
  SetAscii(kPid, absl::StrCat(ev.pid), &row);
  SetText(kDisk, e.partition.empty() ? e.disk : e.partition, &row);
  SetAscii(kOp, std::string(OpName(ev.op)), &row);
  SetAscii(kBytes, absl::StrCat(ev.bytes), &row);
  SetAscii(kLat, Millis(ev.LatencyNs(e.include_queue)), &row);
  SetAscii(kQue, ev.queue_ns.has_value() ? Millis(*ev.queue_ns) : "-", &row);
  SetAscii(kCall, OpId(ev.op_id), &row);
  row.file_prefix.clear();
  if (ev.blk_status != 0) {
    const BlkError err = BlkStatusToError(ev.blk_status);
    row.file_prefix = err.name.empty()
                          ? absl::StrCat("[error ", ev.blk_status, "] ")
                          : absl::StrCat("[", err.name, "] ");
  }
  SetFiles(ev.attribution, e.attribution, &row);
  return Compose(row, out);
}

bool EventTable::StuckRow(const StuckRequest& s, std::string* out) {
  Row& row = row_;
  const Request& r = s.request;
  SetTime(s.realtime_ns, &row);
  SetText(kComm, r.Comm(), &row);
  SetAscii(kPid, absl::StrCat(r.pid), &row);
  SetText(kDisk, s.partition.empty() ? s.disk : s.partition, &row);
  SetAscii(kOp, std::string(OpName(r.op)), &row);
  SetAscii(kBytes, absl::StrCat(r.bytes), &row);
  SetAscii(kLat, Millis(s.inflight_ns), &row);
  SetAscii(kQue, r.queue_ns.has_value() ? Millis(*r.queue_ns) : "-", &row);
  SetAscii(kCall, OpId(r.op_id), &row);
  row.file_prefix = "[stuck] ";
  SetFiles(s.attribution, s.attribution_label, &row);
  return Compose(row, out);
}

bool EventTable::OpRow(const EnrichedOp& o, std::string* out) {
  Row& row = row_;
  const FileOp& op = o.op;
  SetTime(o.realtime_ns, &row);
  SetText(kComm, op.Comm(), &row);
  SetAscii(kPid, absl::StrCat(op.pid), &row);
  SetText(kDisk, o.partition.empty() ? o.disk : o.partition, &row);
  SetAscii(kOp, absl::StrCat(CallName(op.call), "()"), &row);
  SetAscii(kBytes, IsSyncCall(op.call) ? "-" : absl::StrCat(op.BytesDone()),
           &row);
  SetAscii(kLat, Millis(op.LatencyNs()), &row);
  SetAscii(kQue, "-", &row);
  SetAscii(kCall, OpId(op.op_id), &row);
  row.file_prefix.clear();
  if (const int err = op.ErrorCode(); err != 0) {
    row.file_prefix = absl::StrCat("[", ErrnoName(err), "] ");
  }
  row.file_path = o.file.path;
  row.file_suffix.clear();
  if (row.file_path.empty()) {
    absl::StrAppend(&row.file_prefix,
                    op.file.ino != 0 ? absl::StrCat("[inode ", op.file.ino, "]")
                                     : std::string("-"));
  }
  return Compose(row, out);
}

bool EventTable::Compose(const Row& row, std::string* out) {
  bool widened = false;
  size_t used = 0;  // columns before FILE
  for (size_t c = 0; c < kColumns; ++c) {
    if (c == kCall && !layout_.calls) continue;
    if (row.widths[c] > width_[c]) {
      width_[c] = row.widths[c];
      widened = true;
    }
    used += width_[c] + 1;
  }
  out->clear();
  for (size_t c = 0; c < kColumns; ++c) {
    if (c == kCall && !layout_.calls) continue;
    const size_t pad = width_[c] - row.widths[c];
    if (kRight[c]) out->append(pad, ' ');
    *out += row.cells[c];
    if (!kRight[c]) out->append(pad, ' ');
    out->push_back(' ');
  }
  // FILE: its prefix and suffix are ASCII; the path gives way on a
  // terminal narrower than the row.
  *out += row.file_prefix;
  const size_t around = row.file_prefix.size() + row.file_suffix.size();
  if (max_width_ == 0) {
    AppendTerminalText(row.file_path, layout_.charset, out);
  } else {
    const size_t room =
        max_width_ > used + around ? max_width_ - used - around : 0;
    AppendTerminalTextTail(row.file_path, layout_.charset,
                           std::max(room, kMinFileColumns), out);
  }
  *out += row.file_suffix;
  // Trailing blanks of a row without a file column's text: none.
  while (!out->empty() && out->back() == ' ') out->pop_back();
  out->push_back('\n');
  return widened;
}

}  // namespace biosnoop
