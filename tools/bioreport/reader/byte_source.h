#pragma once

// Where a stream's bytes come from: a file, stdin or memory, decompressed
// on the fly when they are gzip (detected by the magic bytes 1f 8b, never by
// the file name).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace biosnoop::report {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to `n` bytes into `buf`: the count read, 0 at the end only.
  // Errors name the input ("reading slow.jsonl: Input/output error").
  virtual absl::StatusOr<size_t> Read(char* buf, size_t n) = 0;

  // A note about how the data ended, for sources that can tell (a gzip
  // stream cut short): empty when the end was clean.  Valid after Read()
  // returned 0.
  virtual std::string EndNote() const { return ""; }

  // How a report names the damage when EndNote() is not empty, after the
  // input's name.
  virtual std::string EndDamage() const {
    return "ends inside a record (truncated)";
  }
};

// Opens `path` ("-" is stdin), and wraps it in a gzip decompressor when its
// first bytes are the gzip magic.  NotFoundError / PermissionDeniedError /
// ... "cannot open slow.jsonl: No such file or directory" otherwise; a
// directory is refused with FailedPreconditionError.
absl::StatusOr<std::unique_ptr<ByteSource>> OpenInput(absl::string_view path);

// The bytes of `data` (copied), decompressed when they are gzip.  For tests
// and fuzzing.
std::unique_ptr<ByteSource> MemoryInput(absl::string_view data);

}  // namespace biosnoop::report
