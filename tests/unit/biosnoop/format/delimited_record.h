#pragma once

// One length-delimited Record (a varint length, then the message), as the
// protobuf stream holds it, parsed by the protobuf library: for the tests
// that read the hand-written wire encoder's bytes back.

#include <cstdint>
#include <string>

#include "biosnoop.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "gtest/gtest.h"

namespace biosnoop {

// The Record `bytes` holds; a test failure when they are not exactly one
// delimited Record.
inline v1::Record ParseDelimitedRecord(const std::string& bytes) {
  v1::Record record;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint32_t size = 0;
  EXPECT_TRUE(in.ReadVarint32(&size));
  EXPECT_EQ(size, bytes.size() - static_cast<size_t>(in.CurrentPosition()));
  EXPECT_TRUE(record.ParseFromArray(bytes.data() + in.CurrentPosition(),
                                    static_cast<int>(size)));
  return record;
}

}  // namespace biosnoop
