// Op names, rwbs strings, blk_status -> errno, and an event's latency
// (event.h).

#include "event.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace biosnoop {

absl::string_view Request::Comm() const {
  return absl::string_view(comm.data(), strnlen(comm.data(), comm.size()));
}

absl::string_view Dirtier::Comm() const {
  return absl::string_view(comm.data(), strnlen(comm.data(), comm.size()));
}

absl::string_view PathKindName(PathKind k) {
  switch (k) {
    case PathKind::kAbsolute:
      return "absolute";
    case PathKind::kFsRelative:
      return "fs_relative";
    case PathKind::kName:
      return "name";
    case PathKind::kNone:
      break;
  }
  return "";
}

uint64_t Event::LatencyNs(bool include_queue) const {
  if (include_queue && queue_ns.has_value()) return device_ns + *queue_ns;
  return device_ns;
}

absl::string_view OpName(Op op) {
  switch (op) {
    case Op::kRead:
      return "read";
    case Op::kWrite:
      return "write";
    case Op::kFlush:
      return "flush";
    case Op::kDiscard:
      return "discard";
    case Op::kSecureErase:
      return "secure_erase";
    case Op::kWriteZeroes:
      return "write_zeroes";
    case Op::kZoneAppend:
      return "zone_append";
    case Op::kOther:
      break;
  }
  return "other";
}

absl::string_view CompletionContextName(CompletionContext c) {
  switch (c) {
    case CompletionContext::kTask:
      return "task";
    case CompletionContext::kSoftirq:
      return "softirq";
    case CompletionContext::kHardirq:
      return "hardirq";
    case CompletionContext::kAbsent:
      return "";
    case CompletionContext::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

struct RwbsText {
  char text[kMaxRwbsLength] = {};
  uint8_t size = 0;

  constexpr void Add(char c) { text[size++] = c; }
};

// Mirrors blk_fill_rwbs() in block/blktrace.c.
constexpr RwbsText MakeRwbs(Op op, uint8_t flags) {
  RwbsText s;
  if (flags & kFlagPreflush) s.Add('F');
  switch (op) {
    case Op::kWrite:
      s.Add('W');
      break;
    case Op::kDiscard:
      s.Add('D');
      break;
    case Op::kSecureErase:
      s.Add('D');
      s.Add('E');
      break;
    case Op::kFlush:
      s.Add('F');
      break;
    case Op::kRead:
      s.Add('R');
      break;
    case Op::kWriteZeroes:
      s.Add('N');
      break;  // as the kernel: no case of
              // its own (op says which)
    case Op::kZoneAppend:
      s.Add('Z');
      s.Add('A');
      break;
    case Op::kOther:
      s.Add('N');
      break;
  }
  if (flags & kFlagFua) s.Add('F');
  if (flags & kFlagRahead) s.Add('A');
  if (flags & kFlagSync) s.Add('S');
  if (flags & kFlagMeta) s.Add('M');
  return s;
}

// Every op with every combination of the five flags, built at compile
// time: the encoders look the string up for every event.
constexpr int kRwbsFlagBits = 5;
constexpr uint8_t kRwbsFlagMask = (1 << kRwbsFlagBits) - 1;
constexpr int kOps = static_cast<int>(Op::kOther) + 1;
constexpr std::array<RwbsText, kOps << kRwbsFlagBits> kRwbsTable = [] {
  std::array<RwbsText, kOps << kRwbsFlagBits> t{};
  for (int op = 0; op < kOps; ++op) {
    for (int flags = 0; flags <= kRwbsFlagMask; ++flags) {
      t[op << kRwbsFlagBits | flags] =
          MakeRwbs(static_cast<Op>(op), static_cast<uint8_t>(flags));
    }
  }
  return t;
}();

}  // namespace

absl::string_view Rwbs(Op op, uint8_t flags) {
  // An op outside the enum prints as the kernel prints an unknown one: N.
  const unsigned o = std::min(static_cast<unsigned>(op), unsigned{kOps - 1});
  const RwbsText& r = kRwbsTable[o << kRwbsFlagBits | (flags & kRwbsFlagMask)];
  return absl::string_view(r.text, r.size);
}

// BLK_STS_* values from include/linux/blk_types.h: stable numbers since
// 4.13, new codes only appended.  The errno is blk_errors[] in blk-core.c.
BlkError BlkStatusToError(uint8_t blk_status) {
  switch (blk_status) {
    case 0:
      return {0, ""};
    case 1:
      return {EOPNOTSUPP, "EOPNOTSUPP"};
    case 2:
      return {ETIMEDOUT, "ETIMEDOUT"};
    case 3:
      return {ENOSPC, "ENOSPC"};
    case 4:
      return {ENOLINK, "ENOLINK"};
    case 5:
      return {EREMOTEIO, "EREMOTEIO"};
    case 6:
      return {EBADE, "EBADE"};
    case 7:
      return {ENODATA, "ENODATA"};
    case 8:
      return {EILSEQ, "EILSEQ"};
    case 9:
      return {ENOMEM, "ENOMEM"};
    case 10:
      return {EIO, "EIO"};
    case 11:
      return {EREMCHG, "EREMCHG"};
    case 12:
      return {EAGAIN, "EAGAIN"};
    case 13:
      return {EBUSY, "EBUSY"};
    case 14:
      return {ETOOMANYREFS, "ETOOMANYREFS"};
    case 15:
      return {EOVERFLOW, "EOVERFLOW"};
    case 16:
      return {ENODEV, "ENODEV"};
    case 17:
      return {ETIME, "ETIME"};
    case 19:
      return {EINVAL, "EINVAL"};
    default:
      return {EIO, "EIO"};  // blk_status_to_errno() for unknown codes
  }
}

}  // namespace biosnoop
