#include "event.h"

#include <cerrno>
#include <cstring>

namespace biosnoop {

absl::string_view Event::Comm() const {
  return absl::string_view(comm.data(), strnlen(comm.data(), comm.size()));
}

uint64_t Event::LatencyNs(bool include_queue) const {
  if (include_queue && queue_ns.has_value()) return device_ns + *queue_ns;
  return device_ns;
}

absl::string_view OpName(Op op) {
  switch (op) {
    case Op::kRead: return "read";
    case Op::kWrite: return "write";
    case Op::kFlush: return "flush";
    case Op::kDiscard: return "discard";
    case Op::kSecureErase: return "secure_erase";
    case Op::kWriteZeroes: return "write_zeroes";
    case Op::kZoneAppend: return "zone_append";
    case Op::kOther: break;
  }
  return "other";
}

// Mirrors blk_fill_rwbs() in block/blktrace.c.
std::string Rwbs(Op op, uint8_t flags) {
  std::string s;
  if (flags & kFlagPreflush) s += 'F';
  switch (op) {
    case Op::kWrite: s += 'W'; break;
    case Op::kDiscard: s += 'D'; break;
    case Op::kSecureErase: s += "DE"; break;
    case Op::kFlush: s += 'F'; break;
    case Op::kRead: s += 'R'; break;
    case Op::kWriteZeroes: s += 'W'; break;  // the kernel prints N; W is
                                             // what the request does
    case Op::kZoneAppend: s += "ZA"; break;
    case Op::kOther: s += 'N'; break;
  }
  if (flags & kFlagFua) s += 'F';
  if (flags & kFlagRahead) s += 'A';
  if (flags & kFlagSync) s += 'S';
  if (flags & kFlagMeta) s += 'M';
  return s;
}

// BLK_STS_* values from include/linux/blk_types.h: stable numbers since
// 4.13, new codes only appended.  The errno is blk_errors[] in blk-core.c.
BlkError BlkStatusToError(uint8_t blk_status) {
  switch (blk_status) {
    case 0: return {0, ""};
    case 1: return {EOPNOTSUPP, "EOPNOTSUPP"};
    case 2: return {ETIMEDOUT, "ETIMEDOUT"};
    case 3: return {ENOSPC, "ENOSPC"};
    case 4: return {ENOLINK, "ENOLINK"};
    case 5: return {EREMOTEIO, "EREMOTEIO"};
    case 6: return {EBADE, "EBADE"};
    case 7: return {ENODATA, "ENODATA"};
    case 8: return {EILSEQ, "EILSEQ"};
    case 9: return {ENOMEM, "ENOMEM"};
    case 10: return {EIO, "EIO"};
    case 11: return {EREMCHG, "EREMCHG"};
    case 12: return {EAGAIN, "EAGAIN"};
    case 13: return {EBUSY, "EBUSY"};
    case 14: return {ETOOMANYREFS, "ETOOMANYREFS"};
    case 15: return {EOVERFLOW, "EOVERFLOW"};
    case 16: return {ENODEV, "ENODEV"};
    case 17: return {ETIME, "ETIME"};
    case 19: return {EINVAL, "EINVAL"};
    default: return {EIO, "EIO"};  // blk_status_to_errno() for unknown codes
  }
}

}  // namespace biosnoop
