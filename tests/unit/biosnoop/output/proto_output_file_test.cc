// OutputFile with varint-delimited framing: the whole-record guarantee for
// protobuf streams.

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "output_file.h"

namespace biosnoop {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A record of `size` payload bytes (< 128: one-byte length), all `fill`.
std::string Record(size_t size, char fill) {
  return std::string(1, static_cast<char>(size)) + std::string(size, fill);
}

class DelimitedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-delim-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    path_ = tmpl + "/stream.pb";
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, path_;
};

TEST_F(DelimitedFileTest, CountsRecordsNotNewlines) {
  auto file = OutputFile::Open(path_, RecordFraming::kVarintDelimited);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->framing(), RecordFraming::kVarintDelimited);
  // Payloads full of '\n' bytes: framing by length, not by newline.
  ASSERT_TRUE((*file)->Append(Record(10, '\n') + Record(0, 'x')).ok());
  std::string big(300, 'b');  // two-byte varint length 300
  ASSERT_TRUE((*file)->Append(std::string("\xac\x02", 2) + big).ok());
  EXPECT_EQ((*file)->records_buffered(), 3u);
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ((*file)->records_written(), 3u);
  EXPECT_EQ(ReadFile(path_).size(), 11u + 1u + 302u);
}

TEST_F(DelimitedFileTest, RejectsPartialRecords) {
  auto file = OutputFile::Open(path_, RecordFraming::kVarintDelimited);
  ASSERT_TRUE(file.ok()) << file.status();
  for (const std::string& bad :
       {Record(10, 'a').substr(0, 5), std::string("\x80", 1),
        Record(3, 'a') + "\x05"
                         "ab",
        std::string(11, '\xff')}) {
    const absl::Status s = (*file)->Append(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  }
  EXPECT_EQ((*file)->records_buffered(), 0u);
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(path_), "");
}

// 100 records of 40 bytes (+1 length byte) against a 1000-byte limit: the
// write stops inside record 24 (bytes 984..1024); the file is cut back to
// the 24 whole records.
std::string LimitBody(const std::string& path) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = 1000;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit";
  auto file = OutputFile::Open(path, RecordFraming::kVarintDelimited);
  if (!file.ok()) return "open";
  std::string all;
  for (int i = 0; i < 100; ++i)
    all += Record(40, static_cast<char>('A' + i % 26));
  if (!(*file)->Append(all).ok()) return "append";
  const absl::Status s = (*file)->Flush();
  return absl::StrCat(s.ok() ? "ok" : "failed", " ", (*file)->records_written(),
                      " ", (*file)->records_dropped(), " ",
                      (*file)->bytes_written());
}

TEST_F(DelimitedFileTest, PartialWriteIsTrimmedToTheLastWholeRecord) {
  // In a child: the file size limit stays there.
  const testing::ChildResult child =
      testing::RunInChild([this] { return LimitBody(path_); });
  ASSERT_TRUE(testing::ExitedWith(child, 0));
  EXPECT_EQ(child.report, "failed 24 76 984");
  const std::string content = ReadFile(path_);
  ASSERT_EQ(content.size(), 24u * 41u);
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(content.substr(i * 41, 41),
              Record(40, static_cast<char>('A' + i % 26)));
  }
}

}  // namespace
}  // namespace biosnoop
