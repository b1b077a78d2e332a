#pragma once

// Copying the short strings every event carries (host, disk, partition,
// comm, op, rwbs) without a call into the library's memcpy: two
// overlapping moves of 8 or 4 bytes, or up to three single bytes.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace biosnoop {

// Copies n <= 16 bytes from `in` to `out`.
inline void CopyShort(const char* in, size_t n, char* out) {
  if (n >= 8) {
    uint64_t head, tail;
    std::memcpy(&head, in, 8);
    std::memcpy(&tail, in + n - 8, 8);
    std::memcpy(out, &head, 8);
    std::memcpy(out + n - 8, &tail, 8);
  } else if (n >= 4) {
    uint32_t head, tail;
    std::memcpy(&head, in, 4);
    std::memcpy(&tail, in + n - 4, 4);
    std::memcpy(out, &head, 4);
    std::memcpy(out + n - 4, &tail, 4);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = in[i];
  }
}

// Copies any n bytes: CopyShort when they are few.
inline void CopyBytes(const char* in, size_t n, char* out) {
  if (n <= 16) {
    CopyShort(in, n, out);
  } else {
    std::memcpy(out, in, n);
  }
}

}  // namespace biosnoop
