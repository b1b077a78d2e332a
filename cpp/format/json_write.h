#pragma once

// The pointer writers the JSON Lines writers of this folder share
// (json_escape.cc, event_json.cc, record_json.cc); not for other layers.
//
// Each writes at `p`, which has room for the bound its caller computed,
// and returns the end of what it wrote: per event that is plain stores,
// with no capacity check per piece and no temporary string.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "decimal_digits.h"
#include "event.h"

namespace biosnoop {

// Worst-case output bytes per input byte: a control byte becomes \u00XX.
inline constexpr size_t kMaxJsonBytesPerByte = 6;

// `s` as a quoted JSON string under AppendJsonString's rules (at most
// 2 + kMaxJsonBytesPerByte * s.size() bytes); `*replaced` set when some
// byte was not well-formed UTF-8.
char* WriteJsonString(absl::string_view s, char* p, bool* replaced);

// `s` as lowercase hex, two digits per byte, unquoted.
char* WriteHex(absl::string_view s, char* p);

// A string that is null when empty, else as WriteJsonString.
char* WriteNullableJsonString(absl::string_view s, char* p);

inline char* WriteRaw(absl::string_view s, char* p) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// Copies a string literal without its terminating NUL.
template <size_t N>
inline char* WriteLiteral(const char (&s)[N], char* p) {
  std::memcpy(p, s, N - 1);
  return p + (N - 1);
}

inline char* WriteInt(int64_t v, char* p) {
  if (v < 0) {
    *p++ = '-';
    return WriteUint(0 - static_cast<uint64_t>(v), p);
  }
  return WriteUint(static_cast<uint64_t>(v), p);
}

// The pieces an event and a stuck record share (event_json.cc), each
// with the upper bound of what it writes.

// "cgroup", "cgroup_id", "container_id", "pod_uid"; none when id is 0.
char* WriteCgroupJson(const CgroupLabel& c, uint64_t id, char* p);

// "content" to "dirtier_count", only when the kernel side looked.
char* WriteAttributionJson(const Attribution& a, const AttributionLabel& label,
                           char* p);
size_t AttributionJsonBound(const Attribution& a,
                            const AttributionLabel& label);

// "stack", absent when empty.
char* WriteStackJson(const std::vector<std::string>& stack, char* p);
size_t StackJsonBound(const std::vector<std::string>& stack);

// --ops: "op_id" (absent when 0); "dirtier_op_ids" and "dirtier_op_count"
// (each absent when empty or 0).
char* WriteRequestOpIdJson(uint64_t op_id, char* p);
char* WriteDirtierOpIdsJson(const Attribution& a, char* p);
size_t OpIdsJsonBound(const Attribution& a);

}  // namespace biosnoop
