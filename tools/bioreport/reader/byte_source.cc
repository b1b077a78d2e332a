// The byte sources: a file descriptor, memory, and zlib's inflate over
// either.  The first two bytes are sniffed for the gzip magic and served
// again, so that a pipe need not be seekable.

#include "byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "status_macros.h"

namespace biosnoop::report {
namespace {

constexpr size_t kCompressedChunk = 64 * 1024;

// Bytes already read while sniffing for the gzip magic are served first.
class FdSource : public ByteSource {
 public:
  FdSource(std::string name, int fd, bool owns_fd)
      : name_(std::move(name)), fd_(fd), owns_fd_(owns_fd) {}
  ~FdSource() override {
    if (owns_fd_) close(fd_);
  }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      const ssize_t got = read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("reading ", name_));
    }
  }

 private:
  std::string name_;
  int fd_;
  bool owns_fd_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string data) : data_(std::move(data)) {}

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

// Serves `prefix` (bytes sniffed from `inner`) before the rest of `inner`.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> inner)
      : prefix_(std::move(prefix)), inner_(std::move(inner)) {}

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      const size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return inner_->Read(buf, n);
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

// gzip through zlib's inflate.  Several concatenated members (what `cat
// a.gz b.gz` or some rotation tools produce) are read as one stream, as
// gzip -d does.  Corrupt or truncated compressed data ends the stream with
// a note naming the compressed byte offset: what was decompressed before
// it is still delivered, since whole records in it are good.  After a
// member, zero bytes are padding (tape blocks, some copy tools), skipped
// as gzip -d does; other bytes that do not start a member end the stream
// with a note saying so: the data before them is whole.
class GzipSource : public ByteSource {
 public:
  GzipSource(std::string name, std::unique_ptr<ByteSource> inner)
      : name_(std::move(name)),
        inner_(std::move(inner)),
        in_(kCompressedChunk, '\0') {
    std::memset(&z_, 0, sizeof(z_));
    ok_ = inflateInit2(&z_, 15 + 16) == Z_OK;  // 16: gzip wrapper only
  }
  ~GzipSource() override { inflateEnd(&z_); }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (!ok_) return absl::ResourceExhaustedError("zlib: cannot initialise");
    if (done_ || n == 0) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0) {
        ASSIGN_OR_RETURN(const size_t got,
                         inner_->Read(in_.data(), in_.size()));
        if (got == 0) {
          if (in_member_) {
            note_ =
                absl::StrCat("gzip data ends mid-stream at compressed byte ",
                             consumed_, " (truncated .gz)");
          }
          done_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      if (!in_member_ && members_ > 0) {
        while (z_.avail_in > 0 && *z_.next_in == 0) {
          ++z_.next_in;
          --z_.avail_in;
          ++consumed_;
        }
        if (z_.avail_in == 0) continue;
        if (*z_.next_in != 0x1f) {  // not the gzip magic
          note_ = absl::StrCat(
              "the bytes after the gzip data, from compressed "
              "byte ",
              consumed_, ", are not gzip: ignored");
          damage_ = "has bytes after its gzip data that are not gzip (ignored)";
          done_ = true;
          break;
        }
      }
      const uInt avail_before = z_.avail_in;
      in_member_ = true;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      consumed_ += avail_before - z_.avail_in;
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        ++members_;
        inflateReset(&z_);  // another member may follow
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input
      if (rc != Z_OK) {
        note_ = absl::StrCat("corrupt gzip data at compressed byte ", consumed_,
                             z_.msg != nullptr ? absl::StrCat(" (", z_.msg, ")")
                                               : std::string());
        done_ = true;
        break;
      }
    }
    return n - z_.avail_out;
  }

  std::string EndNote() const override { return note_; }
  std::string EndDamage() const override {
    return damage_.empty() ? ByteSource::EndDamage() : damage_;
  }

 private:
  std::string name_;
  std::unique_ptr<ByteSource> inner_;
  std::string in_;
  z_stream z_;
  bool ok_ = false;
  bool done_ = false;
  bool in_member_ = false;
  uint64_t members_ = 0;  // complete members read
  uint64_t consumed_ = 0;
  std::string note_;
  std::string damage_;  // EndDamage(), when not the default
};

// Reads up to two bytes; wraps in gzip when they are the magic.
absl::StatusOr<std::unique_ptr<ByteSource>> Sniff(
    std::string name, std::unique_ptr<ByteSource> raw) {
  std::string prefix(2, '\0');
  size_t have = 0;
  while (have < 2) {
    ASSIGN_OR_RETURN(const size_t got,
                     raw->Read(prefix.data() + have, 2 - have));
    if (got == 0) break;
    have += got;
  }
  prefix.resize(have);
  const bool gzip = have == 2 &&
                    static_cast<unsigned char>(prefix[0]) == 0x1f &&
                    static_cast<unsigned char>(prefix[1]) == 0x8b;
  std::unique_ptr<ByteSource> source =
      std::make_unique<PrefixedSource>(std::move(prefix), std::move(raw));
  if (gzip) {
    source = std::make_unique<GzipSource>(std::move(name), std::move(source));
  }
  return source;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> OpenInput(absl::string_view path) {
  if (path == "-") {
    return Sniff("stdin", std::make_unique<FdSource>("stdin", STDIN_FILENO,
                                                     /*owns_fd=*/false));
  }
  const std::string p(path);
  int fd;
  do {
    fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", p));
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", p, ": it is a directory"));
  }
  return Sniff(p, std::make_unique<FdSource>(p, fd, /*owns_fd=*/true));
}

std::unique_ptr<ByteSource> MemoryInput(absl::string_view data) {
  // Memory cannot fail to read, so neither can sniffing it.
  return *Sniff("memory", std::make_unique<MemorySource>(std::string(data)));
}

}  // namespace biosnoop::report
