// The ECS sink over an OutputFile: one whole line per document, events
// counted apart from the other records (a summary is several documents).

#include "ecs_sink.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "histogram.h"
#include "nlohmann/json.hpp"
#include "output_file.h"

namespace biosnoop {
namespace {

using nlohmann::json;

class EcsSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-ecs-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<json> ReadDocuments(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    std::vector<json> docs;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!line.empty()) docs.push_back(json::parse(line));
    }
    return docs;
  }

  std::string dir_;
};

TEST_F(EcsSinkTest, WritesOneDocumentPerLineAndCountsEvents) {
  const std::string path = dir_ + "/stream.ecs.jsonl";
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(path, RecordFraming::kLines);
  ASSERT_TRUE(file.ok()) << file.status();
  EcsSink sink(std::move(*file), "db7");

  StreamInfo info;
  info.host = "db7";
  ASSERT_TRUE(sink.WriteHeader(info).ok());
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    EnrichedEvent e;
    e.disk = "vda";
    e.seq = seq;
    e.event.device_ns = seq * 1000000;
    ASSERT_TRUE(sink.Write(e).ok());
  }
  SummaryRecord summary;
  summary.groups.resize(2);
  summary.groups[0].disk = summary.groups[1].disk = "vda";
  summary.groups[0].op = "read";
  summary.groups[1].op = "write";
  ASSERT_TRUE(sink.WriteSummary(summary).ok());
  ASSERT_TRUE(sink.WriteSummary(SummaryRecord{}).ok());  // no group: nothing
  StatsSnapshot stats;
  stats.lost = 4;
  stats.final = true;
  ASSERT_TRUE(sink.WriteStats(stats).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(sink.events_written(), 3u);
  EXPECT_EQ(sink.events_dropped(), 0u);

  const std::vector<json> docs = ReadDocuments(path);
  ASSERT_EQ(docs.size(), 7u);
  EXPECT_EQ(docs[0]["event"]["action"], "stream-start");
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(docs[i]["event"]["sequence"], i);
    EXPECT_EQ(docs[i]["event"]["duration"], i * 1000000);
    EXPECT_EQ(docs[i]["host"]["name"], "db7");
  }
  EXPECT_EQ(docs[4]["biosnoop"]["op"], "read");
  EXPECT_EQ(docs[5]["biosnoop"]["op"], "write");
  EXPECT_EQ(docs[6]["event"]["kind"], "metric");
  EXPECT_EQ(docs[6]["biosnoop"]["stats"]["lost"], 4);
}

}  // namespace
}  // namespace biosnoop
