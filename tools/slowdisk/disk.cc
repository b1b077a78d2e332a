#include "disk.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "status_macros.h"

namespace biosnoop::slowdisk {

absl::StatusOr<std::unique_ptr<Disk>> Disk::Create(uint64_t size_bytes,
                                                   const Settings& initial) {
  if (size_bytes == 0) return absl::InvalidArgumentError("disk size is 0");
  // Anonymous memory reads as zeros and costs nothing until written, so a
  // large disk is as cheap as a sparse file, with no file to clean up.
  void* p = mmap(nullptr, size_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot map ", size_bytes, " bytes for the disk: ", strerror(errno)));
  }
  return std::unique_ptr<Disk>(
      new Disk(static_cast<char*>(p), size_bytes, initial));
}

Disk::Disk(char* data, uint64_t size, const Settings& initial)
    : data_(data), size_(size), settings_(initial) {}

Disk::~Disk() { munmap(data_, size_); }

Plan Disk::Admit(Op op, uint64_t offset, uint64_t length) {
  Plan plan{op, 0, false};
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Settings& s = settings_;
    if (op == Op::kFlush) {
      plan.delay_us = uint64_t{s.flush_delay_ms} * 1000;
    } else {
      bool slow =
          !s.slow_region.has_value() || s.slow_region->Overlaps(offset, length);
      plan.delay_us = slow ? uint64_t{op == Op::kRead ? s.read_delay_ms
                                                      : s.write_delay_ms} *
                                 1000
                           : s.fast_delay_us;
      plan.fail = s.error_region.has_value() &&
                  s.error_region->Overlaps(offset, length);
    }
  }
  uint64_t now = in_flight_.fetch_add(1) + 1;
  uint64_t peak = max_in_flight_.load();
  while (now > peak && !max_in_flight_.compare_exchange_weak(peak, now)) {
  }
  return plan;
}

void Disk::Complete(const Plan& plan, uint64_t bytes) {
  // Counted before the reply goes out, so a test that saw its I/O complete
  // also sees it counted.
  switch (plan.op) {
    case Op::kRead:
      reads_.fetch_add(1);
      if (!plan.fail) read_bytes_.fetch_add(bytes);
      break;
    case Op::kWrite:
      writes_.fetch_add(1);
      if (!plan.fail) write_bytes_.fetch_add(bytes);
      break;
    case Op::kFlush:
      flushes_.fetch_add(1);
      break;
  }
  if (plan.fail) errors_.fetch_add(1);
  in_flight_.fetch_sub(1);
}

void Disk::Store(uint64_t offset, const char* buf, size_t length) {
  std::memcpy(data_ + offset, buf, length);
}

CounterSnapshot Disk::Counters() const {
  CounterSnapshot c;
  c.reads = reads_.load();
  c.writes = writes_.load();
  c.flushes = flushes_.load();
  c.errors = errors_.load();
  c.read_bytes = read_bytes_.load();
  c.write_bytes = write_bytes_.load();
  c.in_flight = in_flight_.load();
  c.max_in_flight = max_in_flight_.load();
  return c;
}

std::string Disk::ControlText() const {
  Settings s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = settings_;
  }
  CounterSnapshot c = Counters();
  return absl::StrCat(
      FormatSettings(s), "size_bytes=", size_, "\n", "reads=", c.reads, "\n",
      "writes=", c.writes, "\n", "flushes=", c.flushes, "\n",
      "errors=", c.errors, "\n", "read_bytes=", c.read_bytes, "\n",
      "write_bytes=", c.write_bytes, "\n", "in_flight=", c.in_flight, "\n",
      "max_in_flight=", c.max_in_flight, "\n");
}

absl::Status Disk::ApplyControl(absl::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(const ControlRequest request,
                   ApplyControlText(text, settings_));
  settings_ = request.settings;
  if (request.reset_counters) {
    for (std::atomic<uint64_t>* c : {&reads_, &writes_, &flushes_, &errors_,
                                     &read_bytes_, &write_bytes_}) {
      c->store(0);
    }
    // The peak restarts from what is in flight now, not from zero.
    max_in_flight_.store(in_flight_.load());
  }
  return absl::OkStatus();
}

}  // namespace biosnoop::slowdisk
