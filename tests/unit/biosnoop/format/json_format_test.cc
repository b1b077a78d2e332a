#include "json_format.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "event.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "stacked_devices.h"
#include "worst_case_event.h"

namespace biosnoop {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr absl::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

// --- Independent references (deliberately not table-driven like the code
// under test): decode the code point, then apply the rules.

// Length of the well-formed sequence at s[i], 0 when s[i] starts none.
size_t ReferenceSequenceLength(absl::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    len = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    len = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len]) return 0;       // overlong
  if (cp > 0x10ffff) return 0;                 // beyond Unicode
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;  // surrogate
  return len;
}

bool ReferenceValid(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = ReferenceSequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// The documented rule: valid sequences kept, each other byte -> U+FFFD.
std::string ReferenceSanitize(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t len = ReferenceSequenceLength(s, i);
    if (len == 0) {
      out.append(kReplacement.data(), kReplacement.size());
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  return out;
}

// A second oracle: nlohmann's strict parser rejects ill-formed UTF-8.
bool NlohmannAcceptsUtf8(absl::string_view s) {
  std::string doc = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      doc += '\\';
      doc += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      doc += buf;
    } else {
      doc += static_cast<char>(c);
    }
  }
  doc += '"';
  return !json::parse(doc, nullptr, /*allow_exceptions=*/false).is_discarded();
}

std::string HexDecode(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string Json(absl::string_view bytes) {
  std::string out;
  AppendJsonString(bytes, &out);
  return out;
}

// --- Events.

int64_t RealtimeNs(int year, int month, int day, int h, int m, int s,
                   int64_t nanos) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1000000000 + nanos;
}

void SetComm(Event* ev, absl::string_view bytes) {
  ev->comm.fill('\0');
  std::memcpy(ev->comm.data(), bytes.data(),
              std::min(bytes.size(), ev->comm.size() - 1));
}

EnrichedEvent FullEvent() {
  EnrichedEvent e;
  e.event.complete_ns = 987654321;
  e.event.device_ns = 12345678;
  e.event.queue_ns = 2500999;
  e.event.sector = 123456789012;
  e.event.major = 259;
  e.event.minor = 0;
  e.event.bytes = 4096;
  e.event.pid = 4242;
  e.event.tid = 4243;
  e.event.queue_depth = 32;
  e.event.op = Op::kWrite;
  e.event.flags = kFlagFua | kFlagSync;
  e.event.blk_status = 0;
  e.event.submit_known = true;
  SetComm(&e.event, "postgres");
  e.disk = "nvme0n1";
  e.partition = "nvme0n1p2";
  e.realtime_ns = RealtimeNs(2026, 11, 21, 5, 44, 1, 123456789);
  e.seq = 77;
  e.include_queue = false;
  e.event.cgroup_id = 5123;
  e.event.completion_context = CompletionContext::kHardirq;
  e.cgroup.known = true;
  e.cgroup.path = "/system.slice/postgresql.service";
  return e;
}

std::string Line(const EnrichedEvent& e, absl::string_view host = "db-7") {
  std::string out;
  AppendEventJson(e, host, &out);
  return out;
}

// A line is one JSON object, strict UTF-8, with exactly one '\n', at the end.
ordered_json ParseLine(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_EQ(line.back(), '\n') << line;
  ordered_json j = ordered_json::parse(line, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not strict JSON: " << line;
  EXPECT_TRUE(j.is_object()) << line;
  return j;
}

// Checks the comm rule for an event whose comm array holds `raw_bytes`.
void ExpectCommRule(absl::string_view raw_bytes) {
  EnrichedEvent e = FullEvent();
  SetComm(&e.event, raw_bytes);
  const std::string raw(e.event.Comm());  // up to the first NUL
  const std::string line = Line(e);
  const ordered_json j = ParseLine(line);
  ASSERT_FALSE(j.is_discarded()) << line;
  ASSERT_TRUE(j.contains("comm")) << line;
  const std::string comm = j["comm"].get<std::string>();
  if (ReferenceValid(raw)) {
    EXPECT_EQ(comm, raw) << line;
    EXPECT_FALSE(j.contains("comm_raw")) << line;
  } else {
    EXPECT_EQ(comm, ReferenceSanitize(raw)) << line;
    EXPECT_NE(comm.find(std::string(kReplacement)), std::string::npos) << line;
    ASSERT_TRUE(j.contains("comm_raw")) << line;
    const std::string hex = j["comm_raw"].get<std::string>();
    EXPECT_EQ(hex.size(), 2 * raw.size()) << line;
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos)
        << line;
    EXPECT_EQ(HexDecode(hex), raw) << line;
  }
}

// --- AppendJsonString / IsValidUtf8.

TEST(JsonStringTest, EscapesPerTheRule) {
  EXPECT_EQ(Json(""), R"("")");
  EXPECT_EQ(Json("kworker/u8:2"), R"("kworker/u8:2")");  // '/' untouched
  EXPECT_EQ(Json("a\"b"), R"("a\"b")");
  EXPECT_EQ(Json("a\\b"), R"("a\\b")");
  EXPECT_EQ(Json("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Json(absl::string_view("\0", 1)), R"("\u0000")");
  EXPECT_EQ(Json("\x01\x1a\x1f"), R"("\u0001\u001a\u001f")");
  EXPECT_EQ(Json("\x7f"), R"("\u007f")");
  EXPECT_EQ(Json(" ~"), R"(" ~")");
}

TEST(JsonStringTest, ValidUtf8PassesThrough) {
  for (absl::string_view s :
       {"\xc2\x80", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe2\x82\xac",
        "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
        "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xe2\x80\xa8"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << Json(s);
    EXPECT_EQ(Json(s), absl::StrCat("\"", s, "\""));
  }
}

TEST(JsonStringTest, EachInvalidByteBecomesReplacement) {
  const std::string r(kReplacement);
  struct Case {
    absl::string_view in;
    std::string out;
  };
  const Case cases[] = {
      {"\x80", r},  // stray continuation
      {"\xbf", r},
      {"\xff", r},                          // never in UTF-8
      {"\xf5\x80\x80\x80", r + r + r + r},  // lead beyond U+10FFFF
      {"\xc0\xaf", r + r},                  // overlong '/'
      {"\xc1\xbf", r + r},                  // overlong
      {"\xe0\x80\xaf", r + r + r},          // overlong 3-byte
      {"\xe0\x9f\xbf", r + r + r},          // overlong 3-byte
      {"\xf0\x80\x80\xaf", r + r + r + r},  // overlong 4-byte
      {"\xf0\x8f\xbf\xbf", r + r + r + r},  // overlong 4-byte
      {"\xed\xa0\x80", r + r + r},          // U+D800 surrogate
      {"\xed\xbf\xbf", r + r + r},          // U+DFFF surrogate
      {"\xf4\x90\x80\x80", r + r + r + r},  // U+110000
      {"\xe2\x82", r + r},                  // truncated at the end
      {"\xe2\x82"
       "A",
       r + r + "A"},                // truncated mid-string
      {"\xf0\x9f\x98", r + r + r},  // truncated 4-byte
      {"a\xc3", "a" + r},
      {"\xc3\xa9\xa9", "\xc3\xa9" + r},  // valid then stray
      {"\xe2\x82\xe2\x82\xac", r + r + "\xe2\x82\xac"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(IsValidUtf8(c.in)) << Json(c.in);
    EXPECT_EQ(Json(c.in), "\"" + c.out + "\"") << "input: " << Json(c.in);
  }
}

TEST(JsonStringTest, AppendsWithoutClearing) {
  std::string out = "prefix:";
  AppendJsonString("x\x01", &out);
  EXPECT_EQ(out, R"(prefix:"x\u0001")");
  AppendLowerHex(absl::string_view("\x00\xab\xff"
                                   "A",
                                   4),
                 &out);
  EXPECT_EQ(out, R"(prefix:"x\u0001"00abff41)");
}

TEST(JsonStringTest, WorstCaseExpansionOfLongInput) {
  // Control bytes only: the largest output per input byte.
  std::string bytes;
  size_t expected_size = 2;
  for (int i = 0; i < 5000; ++i) {
    const char c = static_cast<char>(i % 0x20);
    bytes += c;
    const bool short_escape =
        c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f';
    expected_size += short_escape ? 2 : 6;
  }
  const std::string out = Json(bytes);
  EXPECT_EQ(out.size(), expected_size);
  EXPECT_EQ(json::parse(out).get<std::string>(), bytes);
}

TEST(JsonStringTest, ValidityMatchesReferencesOnAllShortInputs) {
  // Every 1- and 2-byte string against both references.
  for (int a = 0; a < 256; ++a) {
    const std::string one(1, static_cast<char>(a));
    ASSERT_EQ(IsValidUtf8(one), ReferenceValid(one)) << a;
    ASSERT_EQ(IsValidUtf8(one), NlohmannAcceptsUtf8(one)) << a;
    for (int b = 0; b < 256; ++b) {
      const std::string two = one + static_cast<char>(b);
      ASSERT_EQ(IsValidUtf8(two), ReferenceValid(two)) << a << " " << b;
      ASSERT_EQ(IsValidUtf8(two), NlohmannAcceptsUtf8(two)) << a << " " << b;
    }
  }
  // Every 3-byte string with a 3- or 4-byte lead; every 4-byte string with a
  // 4-byte lead and interesting tails.
  for (int a = 0xe0; a < 0x100; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (int c = 0; c < 256; ++c) {
        const std::string s = {static_cast<char>(a), static_cast<char>(b),
                               static_cast<char>(c)};
        ASSERT_EQ(IsValidUtf8(s), ReferenceValid(s))
            << a << " " << b << " " << c;
      }
      for (int c : {0x41, 0x80, 0xbf, 0xc0}) {
        for (int d : {0x41, 0x80, 0x9f, 0xbf, 0xc0}) {
          const std::string s = {static_cast<char>(a), static_cast<char>(b),
                                 static_cast<char>(c), static_cast<char>(d)};
          ASSERT_EQ(IsValidUtf8(s), ReferenceValid(s));
          ASSERT_EQ(IsValidUtf8(s), NlohmannAcceptsUtf8(s));
        }
      }
    }
  }
}

// Names of up to 16 bytes take a word-at-a-time ASCII path with
// overlapping loads: a non-ASCII byte must be seen at every position of
// every length, across the 4-, 8- and 16-byte boundaries.
TEST(JsonStringTest, ValidityAtEveryPositionOfShortStrings) {
  for (size_t n = 1; n <= 24; ++n) {
    const std::string ascii(n, 'a');
    ASSERT_TRUE(IsValidUtf8(ascii)) << n;
    for (size_t pos = 0; pos < n; ++pos) {
      SCOPED_TRACE(testing::Message() << "length " << n << " at " << pos);
      std::string bad = ascii;
      bad[pos] = '\xff';
      EXPECT_FALSE(IsValidUtf8(bad));
      std::string stray = ascii;
      stray[pos] = '\x80';  // a continuation byte with no lead
      EXPECT_FALSE(IsValidUtf8(stray));
      if (pos + 1 < n) {
        std::string good = ascii;
        good[pos] = '\xc3';  // U+00E9
        good[pos + 1] = '\xa9';
        EXPECT_TRUE(IsValidUtf8(good));
        std::string cut = good.substr(0, pos + 1);  // the lead alone at the end
        EXPECT_FALSE(IsValidUtf8(cut));
      }
    }
  }
}

// Strings of up to 16 bytes that need no escaping are copied in two
// overlapping moves: every byte value at every position of every length
// to 20 must come out as it does alone, between the unchanged 'a's.
TEST(JsonStringTest, EveryByteAtEveryPositionOfShortStrings) {
  for (int b = 0; b < 256; ++b) {
    const std::string alone = Json(std::string(1, static_cast<char>(b)));
    const std::string inner = alone.substr(1, alone.size() - 2);
    for (size_t n = 1; n <= 20; ++n) {
      for (size_t pos = 0; pos < n; ++pos) {
        std::string s(n, 'a');
        s[pos] = static_cast<char>(b);
        ASSERT_EQ(Json(s), "\"" + std::string(pos, 'a') + inner +
                               std::string(n - pos - 1, 'a') + "\"")
            << "byte " << b << ", length " << n << ", at " << pos;
      }
    }
  }
}

// --- Comm in an event line.

TEST(JsonEventTest, EverySingleByteComm) {
  for (int b = 0; b < 256; ++b) {
    SCOPED_TRACE(b);
    ExpectCommRule(std::string(1, static_cast<char>(b)));
  }
}

TEST(JsonEventTest, RandomCommsOfFifteenBytes) {
  // Fragments a comm is built from: specials and valid multi-byte
  // characters, then every kind of ill-formed sequence.
  const std::vector<std::string> valid_fragments = {
      "\"",
      "\\",
      "\n",
      "\r",
      "\t",
      "\b",
      "\f",
      "\x01",
      "\x1b",
      "\x1f",
      "\x7f",
      "a",
      "Z",
      "/",
      " ",
      "{",
      "}",
      "\xc3\xa9",
      "\xe2\x82\xac",
      "\xf0\x9f\x98\x80",
      "\xf4\x8f\xbf\xbf",
  };
  const std::vector<std::string> invalid_fragments = {
      "\xc0\xaf",
      "\xc1\x81",
      "\xe0\x80\xaf",
      "\xf0\x80\x80\xaf",  // overlong
      "\xed\xa0\x80",
      "\xed\xbf\xbf",  // surrogate
      "\xf4\x90\x80\x80",
      "\xf7\xbf\xbf\xbf",  // > U+10FFFF
      "\xe2\x82",
      "\xf0\x9f\x98",
      "\xc3",  // truncated
      "\x80",
      "\xbf",
      "\xfe",
      "\xff",
  };
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> pick_kind(0, 9);
  std::uniform_int_distribution<size_t> pick_valid(0,
                                                   valid_fragments.size() - 1);
  std::uniform_int_distribution<size_t> pick_invalid(
      0, invalid_fragments.size() - 1);
  std::uniform_int_distribution<int> pick_byte(1, 255);
  std::uniform_int_distribution<int> pick_nul(0, 99);
  int invalid = 0;
  int valid = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    // Half the comms draw only from valid fragments (and may still end in
    // a sequence cut short at 15 bytes).
    const bool mixed = iter % 2 == 0;
    std::string comm;
    while (comm.size() < 15) {
      const int kind = pick_kind(rng);
      if (mixed && kind == 0) {
        comm += static_cast<char>(pick_byte(rng));  // any non-NUL byte
      } else if (mixed && kind <= 3) {
        comm += invalid_fragments[pick_invalid(rng)];
      } else {
        comm += valid_fragments[pick_valid(rng)];
      }
    }
    comm.resize(15);
    if (pick_nul(rng) == 0) comm[pick_byte(rng) % 15] = '\0';
    SCOPED_TRACE(Json(comm));
    ExpectCommRule(comm);
    (ReferenceValid(std::string(comm.c_str())) ? valid : invalid)++;
    if (HasFailure()) break;
  }
  // Both branches of the rule were exercised.
  EXPECT_GT(valid, 2000);
  EXPECT_GT(invalid, 2000);
}

TEST(JsonEventTest, ValidMultibyteCommRoundTrips) {
  ExpectCommRule(
      "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
  ExpectCommRule("caf\xc3\xa9 \xf0\x9f\x98\x80");
  ExpectCommRule("a\"b\\c\nd\x7f");  // escapes decode back exactly
}

TEST(JsonEventTest, InvalidCommKeepsRawHex) {
  EnrichedEvent e = FullEvent();
  SetComm(&e.event, "ab\xff\xc0");
  const ordered_json j = ParseLine(Line(e));
  EXPECT_EQ(j["comm"], "ab\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(j["comm_raw"], "6162ffc0");
}

// --- Field values.

TEST(JsonEventTest, FullyPopulatedEventExactly) {
  const EnrichedEvent e = FullEvent();
  const std::string line = Line(e);
  EXPECT_EQ(line,
            R"({"type":"event","timestamp":"2026-11-21T05:44:01.123456789Z",)"
            R"("host":"db-7",)"
            R"("disk":"nvme0n1","partition":"nvme0n1p2","dev":"259:0",)"
            R"("op":"write","rwbs":"WFS","sector":123456789012,"bytes":4096,)"
            R"("latency_us":12345,"device_us":12345,"queue_us":2500,)"
            R"("queue_depth":32,"pid":4242,"tid":4243,"comm":"postgres",)"
            R"("error_code":0,"error":null,"seq":77,)"
            R"("cgroup":"/system.slice/postgresql.service","cgroup_id":5123,)"
            R"("container_id":null,"pod_uid":null,)"
            R"("completion_context":"hardirq"})"
            "\n");

  const ordered_json expected = {
      {"type", "event"},
      {"timestamp", "2026-11-21T05:44:01.123456789Z"},
      {"host", "db-7"},
      {"disk", "nvme0n1"},
      {"partition", "nvme0n1p2"},
      {"dev", "259:0"},
      {"op", "write"},
      {"rwbs", "WFS"},
      {"sector", 123456789012ULL},
      {"bytes", 4096},
      {"latency_us", 12345},
      {"device_us", 12345},
      {"queue_us", 2500},
      {"queue_depth", 32},
      {"pid", 4242},
      {"tid", 4243},
      {"comm", "postgres"},
      {"error_code", 0},
      {"error", nullptr},
      {"seq", 77},
      {"cgroup", "/system.slice/postgresql.service"},
      {"cgroup_id", 5123},
      {"container_id", nullptr},
      {"pod_uid", nullptr},
      {"completion_context", "hardirq"},
  };
  const ordered_json j = ParseLine(line);
  ASSERT_EQ(j.size(), expected.size());
  auto it = j.begin();
  for (auto want = expected.begin(); want != expected.end(); ++want, ++it) {
    EXPECT_EQ(it.key(), want.key());  // same order
    EXPECT_EQ(it.value(), want.value()) << want.key();
    if (want.value().is_number()) {
      EXPECT_TRUE(it.value().is_number_integer()) << want.key();
    }
  }
}

TEST(JsonEventTest, UnknownQueueTimeIsNull) {
  EnrichedEvent e = FullEvent();
  e.event.queue_ns.reset();
  e.include_queue = true;  // nothing to add
  const ordered_json j = ParseLine(Line(e));
  EXPECT_TRUE(j["queue_us"].is_null());
  EXPECT_EQ(j["latency_us"], 12345);
  EXPECT_EQ(j["device_us"], 12345);
}

TEST(JsonEventTest, LatencyIncludesQueueOnlyWhenAsked) {
  EnrichedEvent e = FullEvent();
  e.include_queue = false;
  EXPECT_EQ(ParseLine(Line(e))["latency_us"], 12345);
  e.include_queue = true;
  const ordered_json j = ParseLine(Line(e));
  // The sum is truncated once: (12345678 + 2500999) / 1000.
  EXPECT_EQ(j["latency_us"], 14846);
  EXPECT_EQ(j["device_us"], 12345);
  EXPECT_EQ(j["queue_us"], 2500);
}

TEST(JsonEventTest, ErrorNameAndErrno) {
  EnrichedEvent e = FullEvent();
  e.event.blk_status = 10;  // BLK_STS_IOERR
  ordered_json j = ParseLine(Line(e));
  EXPECT_EQ(j["error_code"], 5);
  EXPECT_EQ(j["error"], "EIO");
  e.event.blk_status = 3;  // BLK_STS_NOSPC
  j = ParseLine(Line(e));
  EXPECT_EQ(j["error_code"], 28);
  EXPECT_EQ(j["error"], "ENOSPC");
}

TEST(JsonEventTest, EmptyPartitionIsNull) {
  EnrichedEvent e = FullEvent();
  e.partition.clear();
  const ordered_json j = ParseLine(Line(e));
  ASSERT_TRUE(j.contains("partition"));
  EXPECT_TRUE(j["partition"].is_null());
}

TEST(JsonEventTest, IntegersAtEveryDigitBoundary) {
  std::vector<uint64_t> values = {0, std::numeric_limits<uint64_t>::max()};
  for (uint64_t p = 1; p <= 1000000000000000000ULL; p *= 10) {
    values.push_back(p - 1);
    values.push_back(p);
    values.push_back(p + 1);
  }
  values.push_back(10000000000000000000ULL);
  for (uint64_t v : values) {
    EnrichedEvent e = FullEvent();
    e.event.sector = v;
    e.seq = v;
    e.event.major = static_cast<uint32_t>(v);
    e.event.minor = static_cast<uint32_t>(v >> 32);
    const std::string line = Line(e);
    EXPECT_NE(line.find(absl::StrCat("\"sector\":", v, ",")), std::string::npos)
        << line;
    const ordered_json j = ParseLine(line);
    EXPECT_EQ(j["sector"].get<uint64_t>(), v);
    EXPECT_EQ(j["seq"].get<uint64_t>(), v);
    EXPECT_EQ(j["dev"], absl::StrCat(static_cast<uint32_t>(v), ":",
                                     static_cast<uint32_t>(v >> 32)));
  }
}

TEST(JsonEventTest, MaximalValuesStayIntegers) {
  EnrichedEvent e = FullEvent();
  e.event.device_ns = std::numeric_limits<uint64_t>::max();
  e.event.queue_ns = std::numeric_limits<uint64_t>::max();
  e.event.bytes = std::numeric_limits<uint32_t>::max();
  e.event.pid = std::numeric_limits<uint32_t>::max();
  e.event.blk_status = 255;  // unknown code: EIO, as the kernel maps it
  const ordered_json j = ParseLine(Line(e));
  EXPECT_EQ(j["device_us"].get<uint64_t>(),
            std::numeric_limits<uint64_t>::max() / 1000);
  EXPECT_EQ(j["queue_us"].get<uint64_t>(),
            std::numeric_limits<uint64_t>::max() / 1000);
  EXPECT_EQ(j["bytes"].get<uint64_t>(), 4294967295u);
  EXPECT_EQ(j["pid"].get<uint64_t>(), 4294967295u);
  EXPECT_EQ(j["error"], "EIO");
}

TEST(JsonEventTest, HostileHostDiskAndPartitionStayValid) {
  EnrichedEvent e = FullEvent();
  std::string nasty;
  for (int i = 0; i < 3000; ++i) nasty += static_cast<char>(i % 256);
  e.disk = nasty;
  e.partition = "p\"\\\n\xff";
  const std::string line = Line(e, nasty);
  const ordered_json j = ParseLine(line);
  EXPECT_EQ(j["host"].get<std::string>(), ReferenceSanitize(nasty));
  EXPECT_EQ(j["disk"].get<std::string>(), ReferenceSanitize(nasty));
  EXPECT_EQ(j["partition"], "p\"\\\n\xef\xbf\xbd");
}

// The devices stacked on the partition: an array right after it, each
// name escaped and made valid UTF-8 as the disk's; no key when none.
TEST(JsonEventTest, StackAfterPartitionOnlyWhenNotEmpty) {
  EnrichedEvent e = FullEvent();
  std::string nasty;
  for (int i = 0; i < 300; ++i) nasty += static_cast<char>(i % 256);
  e.stack = {"dm-0", nasty, "", "md0"};
  const ordered_json j = ParseLine(Line(e));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  const auto at = std::find(keys.begin(), keys.end(), "stack");
  ASSERT_NE(at, keys.end());
  EXPECT_EQ(*(at - 1), "partition");
  EXPECT_EQ(*(at + 1), "dev");
  EXPECT_EQ(j["stack"],
            ordered_json::array({"dm-0", ReferenceSanitize(nasty), "", "md0"}));
  e.stack.clear();
  const std::string line = Line(e);
  EXPECT_EQ(line.find("stack"), std::string::npos) << line;
}

// WriteEventJson writes into a caller's buffer of EventJsonBound bytes:
// the worst case of every variable part must stay inside it.
TEST(JsonEventTest, WriteStaysWithinItsBound) {
  EnrichedEvent e = FullEvent();
  std::string nasty;
  for (int i = 0; i < 300; ++i) nasty += static_cast<char>(i % 32);  // \u00XX
  e.disk = nasty;
  e.partition = nasty;
  e.stack.assign(StackedDevices::kMaxEntries, nasty);
  SetLongestFixedFields(&e);
  SetLongestOpIds(&e);
  e.realtime_ns = std::numeric_limits<int64_t>::min();

  const JsonHost host(nasty);
  const size_t bound = EventJsonBound(e, host);
  constexpr size_t kGuard = 64;
  std::string buffer(bound + kGuard, '#');
  const char* end = WriteEventJson(e, host, buffer.data());
  const size_t written = static_cast<size_t>(end - buffer.data());
  EXPECT_LE(written, bound);
  EXPECT_EQ(buffer.substr(bound), std::string(kGuard, '#'));
  const std::string line = buffer.substr(0, written);
  EXPECT_EQ(line, Line(e, nasty));
  ParseLine(line);
}

TEST(JsonEventTest, AppendsToExistingText) {
  const EnrichedEvent e = FullEvent();
  std::string out = "previous line\n";
  AppendEventJson(e, "db-7", &out);
  AppendEventJson(e, "db-7", &out);
  EXPECT_EQ(out, "previous line\n" + Line(e) + Line(e));
}

TEST(JsonEventTest, OpsAndFlags) {
  EnrichedEvent e = FullEvent();
  e.event.op = Op::kRead;
  e.event.flags = kFlagRahead;
  ordered_json j = ParseLine(Line(e));
  EXPECT_EQ(j["op"], "read");
  EXPECT_EQ(j["rwbs"], "RA");
  e.event.op = Op::kFlush;
  e.event.flags = kFlagPreflush;
  j = ParseLine(Line(e));
  EXPECT_EQ(j["op"], "flush");
  EXPECT_EQ(j["rwbs"], std::string(Rwbs(Op::kFlush, kFlagPreflush)));
}

}  // namespace
}  // namespace biosnoop
