#pragma once

// The fixture of the kernel guests' host-side tests: what one guest
// brought back (BIOSNOOP_KERNEL_RESULTS, set by tests/kernels/run-kernel),
// and on failure what biosnoop and dd said in each mode a test looked at.

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "results.h"

namespace biosnoop::kernels {

class GuestResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = Env("BIOSNOOP_KERNEL_RESULTS");
    ASSERT_FALSE(dir_.empty()) << "BIOSNOOP_KERNEL_RESULTS is not set: run "
                                  "this through tests/kernels/run-kernel";
    std::optional<std::string> manifest = ReadResult(dir_, "manifest");
    ASSERT_TRUE(manifest.has_value())
        << "no manifest in " << dir_ << ": the guest's checks did not run";
    manifest_ = *manifest;
    uname_ = Trim(ReadResult(dir_, "uname").value_or(""));
  }

  void TearDown() override {
    if (!HasFailure()) return;
    for (const std::string& mode : modes_) {
      std::cerr << "---- biosnoop's stderr in mode " << mode << ":\n"
                << ReadResult(dir_, mode + ".err").value_or("(none)\n");
      std::string dd = ReadResult(dir_, mode + ".dd.err").value_or("");
      if (!dd.empty() && dd.find("records out") == std::string::npos) {
        std::cerr << "---- dd's stderr in mode " << mode << ":\n" << dd;
      }
    }
  }

  std::string dir_;
  std::string manifest_;
  std::string uname_;
  std::vector<std::string> modes_;  // looked at: their stderr on failure
};

}  // namespace biosnoop::kernels
