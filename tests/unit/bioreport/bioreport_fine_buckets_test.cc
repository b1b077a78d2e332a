// Fine buckets (fine_buckets.h): what a packed record's buckets give back,
// their sums exact near and past 2^64, schema changes, and the merge of
// summary intervals kept packed.

#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

#include "baseline.h"
#include "fine_buckets.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

constexpr uint64_t kMax = UINT64_MAX;

using Buckets = std::vector<std::pair<int, Sum>>;

Buckets BucketsOf(const FineBuckets& f) {
  Buckets out;
  f.ForEach([&out](int k, Sum n) { out.emplace_back(k, n); });
  return out;
}

TEST(BioreportFineBucketsTest, PackedGivesBackEveryBucketInOrder) {
  FineBuckets f;
  EXPECT_TRUE(f.empty());
  f.Append(INT_MIN, 1);
  f.Append(-320, 0);  // empty: left out
  f.Append(-212, 127);
  f.Append(-211, 128);  // the first count of two varint bytes
  f.Append(-90, kMax);
  f.Append(0, 1);
  f.Append(100000, kMax - 1);
  f.Append(INT_MAX, 2);
  f.ShrinkToFit();
  EXPECT_FALSE(f.empty());
  const Buckets want = {{INT_MIN, 1}, {-212, 127}, {-211, 128},
                        {-90, kMax},  {0, 1},      {100000, kMax - 1},
                        {INT_MAX, 2}};
  EXPECT_EQ(BucketsOf(f), want);
  EXPECT_EQ(f.at(-90), kMax);
  EXPECT_EQ(f.at(-91), 0u);
  EXPECT_EQ(f.Total(), Sum{kMax} * 2 + 1 + 127 + 128 + 1 + 2 - 1);
  f.clear();
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(BucketsOf(f).empty());
  f.Append(5, 3);  // packs anew after clear()
  EXPECT_EQ(BucketsOf(f), (Buckets{{5, 3}}));
}

// Adding to packed buckets sums them from then on, exactly: two counts of
// 2^64 - 1 in one bucket are 2^65 - 2.
TEST(BioreportFineBucketsTest, AddSumsPackedCountsExactly) {
  FineBuckets f;
  f.Append(-91, kMax);
  f.Append(-90, 7);
  f.Add(-91, kMax);
  f.Add(-100, 1);
  const Buckets want = {{-100, 1}, {-91, Sum{kMax} * 2}, {-90, 7}};
  EXPECT_EQ(BucketsOf(f), want);
  EXPECT_EQ(f.Total(), Sum{kMax} * 2 + 8);
}

// Schema 4 to 3: (2k-1, 2k] -> k, so -91 and -90 are -45 at schema 3;
// counts near 2^64 add up without overflow.
TEST(BioreportFineBucketsTest, AtSchemaMergesPairsExactly) {
  FineBuckets f;
  f.Append(-91, kMax);
  f.Append(-90, kMax);
  f.Append(-89, 1);
  f.Append(1, 2);
  f.Append(2, 3);
  const Buckets want3 = {{-45, Sum{kMax} * 2}, {-44, 1}, {1, 5}};
  EXPECT_EQ(BucketsOf(f.AtSchema(4, 3)), want3);
  const Buckets want1 = {{-11, Sum{kMax} * 2 + 1}, {1, 5}};
  EXPECT_EQ(BucketsOf(f.AtSchema(4, 1)), want1);
  EXPECT_EQ(BucketsOf(f.AtSchema(4, 4)), BucketsOf(f));
  // The packed form is left as it was.
  EXPECT_EQ(f.at(-91), kMax);
}

TEST(BioreportFineBucketsTest, AddAllOfItselfDoubles) {
  FineBuckets f;
  f.Append(-90, kMax);
  f.Append(-80, 2);
  f.AddAll(f, 4, 4);
  EXPECT_EQ(BucketsOf(f), (Buckets{{-90, Sum{kMax} * 2}, {-80, 4}}));
}

// A summary with one group whose fine buckets (schema `schema`, from
// `first`) hold `counts`; the group's count is their sum (at most 2^64-1).
v1::Summary SummaryAt(int64_t end_s, int schema, int first,
                      const std::vector<uint64_t>& counts) {
  v1::Summary s;
  s.mutable_timestamp()->set_seconds(end_s);
  s.set_interval_s(60);
  v1::SummaryGroup* g = s.add_groups();
  g->set_disk("vdb");
  g->set_op("read");
  uint64_t count = 0;
  for (uint64_t n : counts) count += n;
  g->set_count(count);
  g->add_latency_us_log2(count);
  g->set_latency_fine_schema(schema);
  g->set_latency_fine_first(first);
  for (uint64_t n : counts) g->add_latency_fine(n);
  return s;
}

// Intervals kept packed merge as before: counts of 2^64 - 1 in one bucket
// from three intervals, one of them at a coarser schema, sum exactly, and
// fine_total still equals count (the buckets are used).
TEST(BioreportFineBucketsTest, MergedIntervalsAreExactAcrossSchemas) {
  BaselineCollector c(Filter{});
  c.AddHeader(v1::StreamHeader());
  c.Add(SummaryAt(1795239960, 4, -91, {kMax, 0}));
  c.Add(SummaryAt(1795240020, 4, -92, {0, 0, kMax}));
  c.Add(SummaryAt(1795240080, 3, -45, {kMax}));
  ASSERT_EQ(c.intervals().size(), 3u);
  const BaselineGroup& first = c.intervals()[0].groups[0];
  EXPECT_EQ(BucketsOf(first.fine), (Buckets{{-91, kMax}}));
  EXPECT_EQ(first.fine_schema, 4);
  const std::vector<BaselineGroup> merged = c.Merged();
  ASSERT_EQ(merged.size(), 1u);
  const BaselineGroup& g = merged[0];
  EXPECT_EQ(g.fine_schema, 3);
  EXPECT_EQ(g.count, Sum{kMax} * 3);
  EXPECT_EQ(g.fine_total, g.count);
  EXPECT_TRUE(HasFineBuckets(g));
  EXPECT_EQ(BucketsOf(g.fine), (Buckets{{-45, Sum{kMax} * 3}}));
  // The intervals themselves are left as they were read.
  EXPECT_EQ(BucketsOf(first.fine), (Buckets{{-91, kMax}}));
  EXPECT_EQ(BucketsOf(c.intervals()[1].groups[0].fine), (Buckets{{-90, kMax}}));
}

}  // namespace
}  // namespace biosnoop::report
