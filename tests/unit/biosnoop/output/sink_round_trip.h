#pragma once

// A test fixture for a record's way out and back: written through the real
// sink of a format (JSON Lines, ECS, length-delimited protobuf) into a file
// of a scratch directory, and read back with bioreport's reader.  Shared by
// the tests of fields every writer must carry (kernel_lacks, stack).

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "ecs_sink.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"
#include "record_reader.h"

namespace biosnoop {

class SinkRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-sink-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  // What `write` writes through the sink of `format` ("jsonl", "ecs" or
  // "pb"), host "db-7", as the file's bytes.
  std::string Write(const std::function<absl::Status(FileSink&)>& write,
                    const std::string& format) {
    const std::string path = dir_ + "/stream." + format;
    std::filesystem::remove(path);  // OutputFile appends
    absl::StatusOr<std::unique_ptr<OutputFile>> file =
        OutputFile::Open(path, format == "pb" ? RecordFraming::kVarintDelimited
                                              : RecordFraming::kLines);
    EXPECT_TRUE(file.ok()) << file.status();
    if (!file.ok()) return "";
    std::unique_ptr<FileSink> sink;
    if (format == "pb") {
      sink = std::make_unique<ProtoSink>(std::move(*file), "db-7");
    } else if (format == "ecs") {
      sink = std::make_unique<EcsSink>(std::move(*file), "db-7");
    } else {
      sink = std::make_unique<JsonlSink>(std::move(*file), "db-7");
    }
    EXPECT_TRUE(write(*sink).ok());
    EXPECT_TRUE(sink->Flush().ok());
    sink.reset();
    return ReadFile(path);
  }

  // The one record of `bytes`, through bioreport's reader.
  report::ParsedRecord ReadBack(const std::string& bytes) {
    const std::string path = dir_ + "/read";
    std::ofstream(path, std::ios::binary) << bytes;
    report::ParsedRecord rec;
    auto reader = report::RecordReader::Open(path, report::ReaderOptions{});
    EXPECT_TRUE(reader.ok()) << reader.status();
    if (!reader.ok()) return rec;
    absl::StatusOr<bool> got = (*reader)->Next(&rec);
    EXPECT_TRUE(got.ok() && *got) << got.status();
    EXPECT_EQ((*reader)->records_skipped(), 0u);
    report::ParsedRecord more;
    got = (*reader)->Next(&more);
    EXPECT_TRUE(got.ok() && !*got);
    return rec;
  }

  // Whether bioreport's strict reader refuses the first record of `bytes`.
  bool StrictReaderRefuses(const std::string& bytes) {
    const std::string path = dir_ + "/bad";
    std::ofstream(path, std::ios::binary) << bytes;
    report::ReaderOptions strict;
    strict.strict = true;
    auto reader = report::RecordReader::Open(path, strict);
    EXPECT_TRUE(reader.ok()) << reader.status();
    if (!reader.ok()) return false;
    report::ParsedRecord rec;
    return !(*reader)->Next(&rec).ok();
  }

  std::string dir_;
};

}  // namespace biosnoop
