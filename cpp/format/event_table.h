#pragma once

// --format table: one aligned line per event for a person at a terminal,
// in the order they read it, as bcc's biosnoop prints its columns:
// TIME COMM PID DISK OP BYTES LAT(ms) QUE(ms) [CALL] FILE
// (docs/guide/terminal.md shows a table).  TIME is the time of day
// (HH:MM:SS.mmm in the given zone), PID the submitting process, DISK the
// partition (else the disk), LAT the latency biosnoop compared with its
// threshold and QUE the queue time ("-" when unknown), both in ms with 3
// decimals (from whole microseconds, as the JSON's latency_us).  With calls
// (--ops) a CALL column before FILE holds the call an event served (#op_id; "-"
// none).  FILE, the last column and the only one of unbounded width, holds the
// first file's path ("+N" more files), or what the pages are ([metadata],
// [device], [unknown]; "-" for no data or files off); a failed request's starts
// with its error
// ([EIO]).
//
// A call (--ops) is a row of its own: OP is the call's name with "()"
// (fsync(), pwrite64()), so it never reads as a request; BYTES what it
// read or wrote ("-" for the fsync family); LAT its whole time; CALL its
// own #op_id.  A stuck request is a row whose FILE starts with [stuck]
// and whose LAT is its time in flight so far.
//
// Widths: every column but FILE has a width that fits the usual values
// (COMM's 15 fits every process name).  A value that does not fit widens
// its column for good, and the row's formatter says so: the header goes
// out again before that row, so the table stays aligned.  Names and paths
// are terminal text (terminal_text.h), never raw bytes.  With a maximum
// width (a terminal's), FILE is shortened from the left to fit it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "event.h"
#include "file_op.h"
#include "stuck_request.h"
#include "terminal_text.h"

namespace biosnoop {

struct TableLayout {
  bool calls = false;  // a CALL column (--ops)
  TerminalCharset charset = TerminalCharset::kAscii;
  absl::TimeZone zone;  // of TIME; UTC by default
};

class EventTable {
 public:
  explicit EventTable(TableLayout layout);

  // The column header line, '\n'-terminated, at the widths as they are.
  std::string HeaderLine() const;

  // One row, '\n'-terminated, in *out (replaced).  True when a column had
  // to widen for it: the header then goes out again before the row.
  bool EventRow(const EnrichedEvent& e, std::string* out);
  bool OpRow(const EnrichedOp& o, std::string* out);
  bool StuckRow(const StuckRequest& s, std::string* out);

  // The width rows should fit in, in columns (a terminal's); 0: none.
  // Only FILE gives way, down to kMinFileColumns.
  void set_max_width(size_t columns) { max_width_ = columns; }
  static constexpr size_t kMinFileColumns = 20;

 private:
  enum Column { kTime, kComm, kPid, kDisk, kOp, kBytes, kLat, kQue, kCall };
  static constexpr size_t kColumns = kCall + 1;

  // A row's cells before padding: each fixed column's text and its
  // width in columns; the FILE column as its parts.
  struct Row {
    std::array<std::string, kColumns> cells;
    std::array<size_t, kColumns> widths{};
    std::string file_prefix;  // "[EIO] ", "[stuck] "
    std::string file_path;    // raw bytes: made terminal text when laid out
    std::string file_suffix;  // " +2"
  };

  // The cells every row kind fills alike.
  void SetTime(int64_t realtime_ns, Row* row);
  void SetText(Column c, absl::string_view bytes, Row* row) const;
  static void SetAscii(Column c, std::string text, Row* row);
  static std::string Millis(uint64_t ns);
  static void SetFiles(const Attribution& a, const AttributionLabel& label,
                       Row* row);
  // Widens columns for `row`, then lays it out into *out; true when a
  // column widened.
  bool Compose(const Row& row, std::string* out);

  const TableLayout layout_;
  std::array<size_t, kColumns> width_;
  size_t max_width_ = 0;
  // TIME's "HH:MM:SS" for the second last formatted.
  int64_t cached_second_ = INT64_MIN;
  std::string cached_hms_;
  Row row_;  // reused: no allocation per row once grown
};

}  // namespace biosnoop
