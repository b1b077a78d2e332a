// Files and dirtiers on the real kernel (issue #28 items 1 and 2): real
// ext4 file systems on loop devices, real processes in cgroups the tests
// make, and every event's content, files and dirtier checked against what
// the file system itself says: stat() for a file's inode and device, FIEMAP
// for the sectors its data occupies on the disk.

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cgroups.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// The six keys an event carries when files are looked at.
const char* const kAttributionKeys[] = {"content",    "files",
                                        "file_count", "files_incomplete",
                                        "dirtied_by", "dirtier_count"};

int64_t RealtimeNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Sectors [begin, end) of the whole disk.
struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
};

Range SectorsOf(const json& e) {
  const uint64_t s = e["sector"].get<uint64_t>();
  return {s, s + e["bytes"].get<uint64_t>() / 512};
}

bool Overlaps(const std::vector<Range>& rs, Range r) {
  for (const Range& x : rs) {
    if (x.begin < r.end && r.begin < x.end) return true;
  }
  return false;
}

// Sorted, adjacent and overlapping ranges joined.
std::vector<Range> Merged(std::vector<Range> rs) {
  std::sort(rs.begin(), rs.end(),
            [](Range a, Range b) { return a.begin < b.begin; });
  std::vector<Range> out;
  for (const Range& r : rs) {
    if (!out.empty() && r.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, r.end);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// How many of `what` are not wholly within `by`.
size_t Uncovered(const std::vector<Range>& by, const std::vector<Range>& what) {
  const std::vector<Range> m = Merged(by);
  size_t n = 0;
  for (const Range& w : what) {
    bool in = false;
    for (const Range& x : m) in = in || (x.begin <= w.begin && w.end <= x.end);
    n += in ? 0 : 1;
  }
  return n;
}

bool Covers(const std::vector<Range>& by, const std::vector<Range>& what) {
  return Uncovered(by, what) == 0;
}

bool Within(const std::vector<Range>& by, Range r) { return Covers(by, {r}); }

// A file as the file system describes it.
struct FileInfo {
  std::string path;
  uint64_t inode = 0;
  std::string dev;             // "MAJ:MIN" of st_dev
  std::vector<Range> sectors;  // where its data is on the disk
};

// stat() and FIEMAP of a file whose data is on disk (written back, or
// fsynced): its blocks allocated, none delayed.  The file system is on the
// whole disk, so FIEMAP's physical bytes / 512 are the disk's sectors.
std::optional<FileInfo> Describe(const std::string& path) {
  FileInfo info;
  info.path = path;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    ADD_FAILURE() << "stat " << path << ": " << strerror(errno);
    return std::nullopt;
  }
  info.inode = st.st_ino;
  info.dev = absl::StrCat(major(st.st_dev), ":", minor(st.st_dev));
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    ADD_FAILURE() << "open " << path << ": " << strerror(errno);
    return std::nullopt;
  }
  constexpr int kMaxExtents = 256;
  std::vector<char> buf(sizeof(struct fiemap) +
                        kMaxExtents * sizeof(struct fiemap_extent));
  auto* fm = reinterpret_cast<struct fiemap*>(buf.data());
  fm->fm_start = 0;
  fm->fm_length = FIEMAP_MAX_OFFSET;
  fm->fm_flags = 0;  // no FIEMAP_FLAG_SYNC: the test decides what is written
  fm->fm_extent_count = kMaxExtents;
  const int rc = ioctl(fd, FS_IOC_FIEMAP, fm);
  const int err = errno;
  close(fd);
  if (rc != 0) {
    ADD_FAILURE() << "FIEMAP " << path << ": " << strerror(err);
    return std::nullopt;
  }
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < fm->fm_mapped_extents; ++i) {
    const struct fiemap_extent& x = fm->fm_extents[i];
    if (x.fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN |
                      FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_ENCODED)) {
      ADD_FAILURE() << path << ": extent " << i << " has no place yet (flags "
                    << x.fe_flags << ")";
      return std::nullopt;
    }
    info.sectors.push_back(
        {x.fe_physical / 512, (x.fe_physical + x.fe_length) / 512});
    bytes += x.fe_length;
  }
  if (bytes < static_cast<uint64_t>(st.st_size) || info.sectors.empty()) {
    ADD_FAILURE() << path << ": FIEMAP maps " << bytes << " of " << st.st_size
                  << " bytes";
    return std::nullopt;
  }
  return info;
}

// Whether `f` (an element of an event's "files") names `want` exactly.
::testing::AssertionResult NamesFile(const json& f, const FileInfo& want,
                                     bool direct) {
  if (f.value("path", "") == want.path &&
      f.value("path_kind", "") == "absolute" &&
      f.value("inode", uint64_t{0}) == want.inode &&
      f.value("dev", "") == want.dev && f.value("direct", !direct) == direct) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << f << " does not name " << want.path << " (absolute, inode "
         << want.inode << ", dev " << want.dev << ", direct " << direct << ")";
}

// Events of operation `op` whose sectors overlap `sectors`, with seq above
// `after_seq`.
std::vector<json> Touching(const std::vector<json>& events,
                           const std::string& op,
                           const std::vector<Range>& sectors,
                           uint64_t after_seq = 0) {
  std::vector<json> out;
  for (const json& e : events) {
    if (e["op"] == op && e["seq"].get<uint64_t>() > after_seq &&
        Overlaps(sectors, SectorsOf(e))) {
      out.push_back(e);
    }
  }
  return out;
}

// Waits until the `op` events (seq above `after_seq`) that `match`
// accepts cover every sector of each file in `files`: all of the
// workload's I/O has completed and been written.  A completion the kernel
// ran no program for (docs/reference/counters.md, `missed`: seen here when
// a sandbox thread
// is current) never becomes an event, and biosnoop counts it; so the wait
// also ends when each extent still uncovered can be such a completion
// (biosnoop started with --stats-interval 1 says its count every second),
// and says so on stderr.  The callers' checks then run on the events there.
::testing::AssertionResult WaitCovered(
    const Biosnoop& b, const std::string& op,
    const std::vector<FileInfo>& files, uint64_t after_seq = 0,
    const std::function<bool(const json&)>& match = nullptr,
    int timeout_ms = 30000) {
  std::vector<Range> want;
  for (const FileInfo& f : files) {
    want.insert(want.end(), f.sectors.begin(), f.sectors.end());
  }
  std::vector<Range> got;
  size_t uncovered = 0;
  uint64_t missed = 0;
  const bool ok = WaitUntil(
      [&] {
        got.clear();
        for (const json& e : Touching(b.Events(), op, want, after_seq)) {
          if (!match || match(e)) got.push_back(SectorsOf(e));
        }
        uncovered = Uncovered(got, want);
        if (uncovered == 0) return true;
        missed = MissedSoFar(b);
        return missed >= uncovered;
      },
      timeout_ms);
  if (ok && uncovered > 0) {
    std::cerr << "note: " << uncovered << " of " << want.size()
              << " extents have no " << op << " event; biosnoop counted "
              << missed << " completions as missed\n";
  }
  if (ok) return ::testing::AssertionSuccess();
  ::testing::AssertionResult r = ::testing::AssertionFailure();
  r << "waited in vain (bound " << timeout_ms << " ms) for " << op
    << " events covering the sectors of";
  for (const FileInfo& f : files) r << " " << f.path;
  r << " (" << want.size() << " extents, " << uncovered
    << " not covered; covered by " << got.size()
    << " events; biosnoop's missed: " << missed << ")\nstdout:\n"
    << b.Stdout() << "\nstderr:\n"
    << b.Stderr();
  return r;
}

uint64_t LastSeq(const Biosnoop& b) {
  const std::vector<json> events = b.Events();
  return events.empty() ? 0 : events.back()["seq"].get<uint64_t>();
}

std::vector<json> InCgroup(const std::vector<json>& events, uint64_t id) {
  std::vector<json> out;
  for (const json& e : events) {
    if (e.value("cgroup_id", uint64_t{0}) == id) out.push_back(e);
  }
  return out;
}

// Reads the file at `path` to its end, `chunk` bytes a read, with O_DIRECT
// when `direct`: the body of a reader child (system calls only; `buf` made
// beforehand, 4 KiB aligned, `chunk` bytes at least).
int ReadAll(const std::string& path, bool direct, char* buf,
            size_t chunk = 65536) {
  const int fd = open(path.c_str(), O_RDONLY | (direct ? O_DIRECT : 0));
  if (fd < 0) return 1;
  ssize_t n;
  while ((n = read(fd, buf, chunk)) > 0) {
  }
  close(fd);
  return n == 0 ? 0 : 2;
}

// The max_sectors_kb of a disk set for a test, put back at the end (loop
// devices are reused, and their queue settings outlive losetup -d).
class MaxSectors {
 public:
  MaxSectors(const std::string& disk, int kib)
      : path_("/sys/block/" + disk + "/queue/max_sectors_kb"),
        old_(ReadFile(path_)) {
    std::ofstream(path_) << kib << "\n";
  }
  ~MaxSectors() {
    if (!old_.empty()) std::ofstream(path_) << old_;
  }
  int now() const { return std::atoi(ReadFile(path_).c_str()); }

 private:
  std::string path_;
  std::string old_;
};

class AttributionTest : public ::testing::Test {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// Two processes in two cgroups, each reading its own file on one slow ext4
// disk, one with O_DIRECT, one buffered after its pages were dropped
// (readahead): each read event names its own file (path, inode, device,
// direct or not) and its reader's cgroup; a second biosnoop with --cgroup
// of one reader keeps exactly that reader's events and counts the other's
// as filtered.
TEST_F(AttributionTest, TwoReadersInTwoCgroupsEachNamedWithTheirOwnFile) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  constexpr size_t kSize = 256 << 10;
  ASSERT_TRUE(WriteFile(fs.Path("a.dat"), kSize, true));
  ASSERT_TRUE(WriteFile(fs.Path("b.dat"), kSize, true));
  ASSERT_TRUE(DropCache(fs.Path("b.dat"))) << "b.dat's pages stay cached";
  std::optional<FileInfo> fa = Describe(fs.Path("a.dat"));
  std::optional<FileInfo> fb = Describe(fs.Path("b.dat"));
  ASSERT_TRUE(fa && fb);
  ASSERT_TRUE(disk.Set("read_delay_ms=5").ok());
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string a = cg.Add("reader-a");
  const std::string b = cg.Add("reader-b");
  ASSERT_FALSE(a.empty() || b.empty());

  Biosnoop all(
      {"--min-us", "0", "--stats-interval", "1", "-d", disk.loop_name()});
  Biosnoop only_a({"--min-us", "0", "--stats-interval", "1", "-d",
                   disk.loop_name(), "--cgroup", a});
  ASSERT_TRUE(all.WaitAttached()) << all.Stderr();
  ASSERT_TRUE(only_a.WaitAttached()) << only_a.Stderr();
  AlignedBuffer buf;
  ASSERT_NE(buf.get(), nullptr);
  const std::string pa = fa->path, pb = fb->path;
  const pid_t reader_a = RunChildIn(
      &cg, a, "reader-a", [&] { return ReadAll(pa, true, buf.get()); });
  const pid_t reader_b = RunChildIn(
      &cg, b, "reader-b", [&] { return ReadAll(pb, false, buf.get()); });
  ASSERT_GT(reader_a, 0);
  ASSERT_GT(reader_b, 0);
  ASSERT_TRUE(WaitCovered(all, "read", {*fa}));
  ASSERT_TRUE(WaitCovered(all, "read", {*fb}));
  ASSERT_TRUE(WaitCovered(only_a, "read", {*fa}));
  ASSERT_EQ(all.Stop(), 0) << all.Stderr();
  ASSERT_EQ(only_a.Stop(), 0) << only_a.Stderr();

  const std::vector<json> events = all.Events();
  const std::vector<json> in_a = InCgroup(events, cg.Id(a));
  const std::vector<json> in_b = InCgroup(events, cg.Id(b));
  ASSERT_FALSE(in_a.empty());
  ASSERT_FALSE(in_b.empty());
  struct Expect {
    const std::vector<json>& events;
    const FileInfo& file;
    const std::string& cgroup;
    pid_t pid;
    bool direct;
  };
  for (const Expect& x : {Expect{in_a, *fa, a, reader_a, true},
                          Expect{in_b, *fb, b, reader_b, false}}) {
    for (const json& e : x.events) {
      SCOPED_TRACE(e.dump());
      // Nothing but the file's data: its inode and extents were cached.
      EXPECT_EQ(e["op"], "read");
      EXPECT_TRUE(Within(x.file.sectors, SectorsOf(e)));
      EXPECT_EQ(e["pid"], x.pid);
      EXPECT_EQ(e["cgroup"], x.cgroup);
      EXPECT_EQ(e["content"], "file");
      ASSERT_EQ(e["files"].size(), 1u);
      EXPECT_TRUE(NamesFile(e["files"][0], x.file, x.direct));
      EXPECT_EQ(e["file_count"], 1);
      EXPECT_EQ(e["files_incomplete"], false);
      EXPECT_TRUE(e["dirtied_by"].is_null());
      EXPECT_EQ(e["dirtier_count"], 0);
      // O_DIRECT reads are the caller's; the buffered ones readahead's.
      EXPECT_EQ(e["rwbs"].get<std::string>().find('A') != std::string::npos,
                !x.direct);
    }
  }

  // --cgroup: exactly reader a's events, the other cgroup's I/O filtered.
  std::set<std::pair<uint64_t, uint64_t>> want, got;
  for (const json& e : in_a) {
    want.insert({e["sector"].get<uint64_t>(), e["bytes"].get<uint64_t>()});
  }
  for (const json& e : only_a.Events()) {
    EXPECT_EQ(e["cgroup_id"], cg.Id(a)) << e;
    EXPECT_EQ(e["content"], "file") << e;
    got.insert({e["sector"].get<uint64_t>(), e["bytes"].get<uint64_t>()});
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(only_a.Events().size(), in_a.size());
  EXPECT_GE(LatestStats(only_a).value("filtered", uint64_t{0}), in_b.size())
      << only_a.Stdout();
}

// A process in cgroup X writes a file (buffered, no fsync) and exits;
// another process, in cgroup Y, syncs the file system.  Every write of the
// file's sectors names the file and, as its dirtier, the writer: its pid,
// tid, comm and cgroup, dirtied while it ran and before the write
// completed.  The writes' submitter is whatever task wrote back (not the
// writer, which had exited): the dirtier is not the submitter.
TEST_F(AttributionTest, WritebackNamesTheTaskThatDirtiedThePages) {
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string x = cg.Add("writer");
  const std::string y = cg.Add("syncer");
  ASSERT_FALSE(x.empty() || y.empty());
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name(),
              "--writeback-owner"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  const std::string path = fs.Path("dirty.dat");
  const int64_t start_ns = RealtimeNowNs();
  const pid_t writer = RunChildIn(&cg, x, "attr-writer", [&] {
    return WriteFile(path, 1 << 20, false) ? 0 : 1;
  });
  const int64_t end_ns = RealtimeNowNs();
  ASSERT_GT(writer, 0);
  ASSERT_GT(fs.Sync(&cg, y), 0);
  std::optional<FileInfo> f = Describe(path);
  ASSERT_TRUE(f);
  ASSERT_TRUE(WaitCovered(b, "write", {*f}));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> writes = Touching(b.Events(), "write", f->sectors);
  ASSERT_FALSE(writes.empty());
  for (const json& e : writes) {
    SCOPED_TRACE(e.dump());
    EXPECT_TRUE(Within(f->sectors, SectorsOf(e)));
    EXPECT_NE(e["pid"], writer) << "the writer had exited: it submitted none";
    EXPECT_EQ(e["content"], "file");
    ASSERT_EQ(e["files"].size(), 1u);
    EXPECT_TRUE(NamesFile(e["files"][0], *f, false));
    EXPECT_EQ(e["file_count"], 1);
    const json& d = e["dirtied_by"];
    ASSERT_TRUE(d.is_object());
    EXPECT_EQ(d["pid"], writer);
    EXPECT_EQ(d["tid"], writer);
    EXPECT_EQ(d["comm"], "attr-writer");
    EXPECT_EQ(d["cgroup"], x);
    EXPECT_EQ(d["cgroup_id"], cg.Id(x));
    const int64_t at = ParseRfc3339Ns(d["dirtied_at"]);
    // Within the writer's run, give or take the clocks' conversion.
    EXPECT_GE(at, start_ns - 5'000'000);
    EXPECT_LE(at, end_ns + 5'000'000);
    EXPECT_LT(at, ParseRfc3339Ns(e["timestamp"]));
    EXPECT_EQ(e["dirtier_count"], 1);
  }
  // Every page was dirtied while biosnoop ran: no miss.
  EXPECT_EQ(LatestStats(b).value("ledger_misses", uint64_t{0}), 0u)
      << b.Stdout();
}

// kFiles files of 4 KiB written by one process and synced at once: the
// block layer merges their writes into requests of several files each.
// Each request says how many distinct files its sectors hold (FIEMAP),
// lists up to 8 of them, each one it holds, the file at its first sector
// first, and names the writer as their dirtier.  With requests of at most
// 32 KiB (8 pages: every file listed) the files named over all requests
// are exactly the kFiles.
void SmallFilesSyncedAtOnce(int max_sectors_kib) {
  constexpr int kFiles = 20;
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  std::optional<MaxSectors> limit;
  if (max_sectors_kib > 0) {
    limit.emplace(loop.name(), max_sectors_kib);
    ASSERT_EQ(limit->now(), max_sectors_kib);
  }
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name(),
              "--writeback-owner"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::vector<std::string> paths;
  for (int i = 0; i < kFiles; ++i) {
    paths.push_back(fs.Path(absl::StrCat("small-", i, ".dat")));
  }
  const pid_t writer = RunChildIn(nullptr, "", "attr-writer", [&] {
    for (const std::string& p : paths) {
      if (!WriteFile(p, 4096, false)) return 1;
    }
    return 0;
  });
  ASSERT_GT(writer, 0);
  ASSERT_GT(fs.Sync(), 0);
  std::vector<FileInfo> files;
  std::vector<Range> all;
  for (const std::string& p : paths) {
    std::optional<FileInfo> f = Describe(p);
    ASSERT_TRUE(f);
    all.insert(all.end(), f->sectors.begin(), f->sectors.end());
    files.push_back(*f);
  }
  ASSERT_TRUE(WaitCovered(b, "write", files));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::set<std::string> named;     // listed by some request
  std::set<std::string> left_out;  // in a request that listed fewer
  size_t most = 0;
  const std::vector<json> writes = Touching(b.Events(), "write", all);
  for (const json& e : writes) {
    SCOPED_TRACE(e.dump());
    const Range r = SectorsOf(e);
    EXPECT_TRUE(Within(all, r)) << "a write of the files' sectors and more";
    EXPECT_EQ(e["content"], "file");
    // The files whose data the request's sectors hold, and the one at its
    // first sector.
    std::vector<const FileInfo*> held;
    const FileInfo* first = nullptr;
    for (const FileInfo& f : files) {
      if (Overlaps(f.sectors, r)) held.push_back(&f);
      if (Overlaps(f.sectors, {r.begin, r.begin + 1})) first = &f;
    }
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(e["file_count"], held.size());
    EXPECT_EQ(e["files_incomplete"], false);
    most = std::max(most, held.size());
    ASSERT_EQ(e["files"].size(), std::min<size_t>(8, held.size()));
    EXPECT_TRUE(NamesFile(e["files"][0], *first, false));
    std::set<std::string> listed;
    for (const json& l : e["files"]) {
      const std::string path = l.value("path", "");
      EXPECT_TRUE(listed.insert(path).second) << path << " listed twice";
      const auto f =
          std::find_if(held.begin(), held.end(),
                       [&](const FileInfo* h) { return h->path == path; });
      if (f == held.end()) {
        ADD_FAILURE() << path << " is not in the request's sectors";
        continue;
      }
      EXPECT_TRUE(NamesFile(l, **f, false));
      named.insert(path);
    }
    for (const FileInfo* h : held) {
      if (!listed.count(h->path)) left_out.insert(h->path);
    }
    const json& d = e["dirtied_by"];
    ASSERT_TRUE(d.is_object());
    EXPECT_EQ(d["pid"], writer);
    EXPECT_EQ(d["comm"], "attr-writer");
    EXPECT_EQ(e["dirtier_count"], 1);
  }
  EXPECT_GE(most, 2u) << "no request held two files: nothing merged";
  std::set<std::string> want(paths.begin(), paths.end());
  std::set<std::string> seen = named;
  seen.insert(left_out.begin(), left_out.end());
  EXPECT_EQ(seen, want);
  if (max_sectors_kib > 0 && max_sectors_kib <= 32) {
    EXPECT_TRUE(left_out.empty());
    EXPECT_EQ(named, want);
  }
}

// Requests of up to 32 KiB: at most 8 files each, every file listed.
TEST_F(AttributionTest, SmallFilesEachNamedByTheRequestsThatHoldThem) {
  SmallFilesSyncedAtOnce(32);
}

// The loop device's own limit (1280 KiB): one request may hold all of them,
// 8 listed and file_count the rest.
TEST_F(AttributionTest, SmallFilesInLargeRequestsCountedBeyondTheListed) {
  SmallFilesSyncedAtOnce(0);
}

// What a request's pages hold, for each kind of I/O on an ext4 file
// system: O_DIRECT reads and writes name their file with direct true
// (and no dirtier: the pages are the caller's buffer); readahead of a file
// whose pages were dropped names it with direct false; the journal's and
// the metadata's writes (rwbs with M) are "metadata" with no file; a
// flush is "none".  Each read and write is 256 KiB, on a disk that takes
// requests of at most 64 KiB: the block layer splits each bio, and every
// part, a clone sharing the rest's pages (and chained to it, for direct
// I/O), names the file as well.
TEST_F(AttributionTest, DirectReadaheadMetadataAndFlushSayWhatTheyCarry) {
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  MaxSectors limit(loop.name(), 64);
  ASSERT_EQ(limit.now(), 64);
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("data.dat");
  constexpr size_t kSize = 256 << 10;
  ASSERT_TRUE(WriteFile(path, kSize, true));
  std::optional<FileInfo> f = Describe(path);
  ASSERT_TRUE(f);
  AlignedBuffer buf(kSize);
  ASSERT_NE(buf.get(), nullptr);
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  // 1: one O_DIRECT read of the whole file.
  ASSERT_EQ(ReadAll(path, true, buf.get(), kSize), 0);
  ASSERT_TRUE(WaitCovered(b, "read", {*f}));
  const uint64_t after_reads = LastSeq(b);
  // 2: one O_DIRECT write over it (its blocks stay where they are), then
  // fdatasync: a flush.
  {
    const int fd = open(path.c_str(), O_WRONLY | O_DIRECT);
    ASSERT_GE(fd, 0) << strerror(errno);
    memset(buf.get(), 'y', kSize);
    ASSERT_EQ(pwrite(fd, buf.get(), kSize, 0), static_cast<ssize_t>(kSize))
        << strerror(errno);
    ASSERT_EQ(fdatasync(fd), 0);
    close(fd);
  }
  ASSERT_TRUE(WaitCovered(b, "write", {*f}, after_reads));
  ASSERT_TRUE(b.WaitForRecords(
      "event", 1, [](const json& e) { return e["op"] == "flush"; }));
  const uint64_t after_writes = LastSeq(b);
  // 3: buffered reads of it with its pages dropped: readahead.
  ASSERT_TRUE(DropCache(path)) << "its pages stay cached";
  ASSERT_EQ(ReadAll(path, false, buf.get(), kSize), 0);
  ASSERT_TRUE(WaitCovered(b, "read", {*f}, after_writes));
  // 4: a new file, fsynced: the journal commits its metadata.
  ASSERT_TRUE(WriteFile(fs.Path("new.dat"), 4096, true));
  ASSERT_TRUE(b.WaitForRecords("event", 1, [](const json& e) {
    return e["op"] == "write" &&
           e["rwbs"].get<std::string>().find('M') != std::string::npos;
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> events = b.Events();
  int readahead = 0, direct_reads = 0, direct_writes = 0;
  for (const json& e : Touching(events, "read", f->sectors)) {
    SCOPED_TRACE(e.dump());
    EXPECT_LE(e["bytes"].get<uint64_t>(), 65536u);
    const bool direct = e["seq"].get<uint64_t>() <= after_reads;
    direct_reads += direct;
    EXPECT_TRUE(Within(f->sectors, SectorsOf(e)));
    EXPECT_EQ(e["content"], "file");
    ASSERT_EQ(e["files"].size(), 1u);
    EXPECT_TRUE(NamesFile(e["files"][0], *f, direct));
    EXPECT_EQ(e["file_count"], 1);
    if (!direct && e["rwbs"].get<std::string>().find('A') != std::string::npos)
      ++readahead;
  }
  EXPECT_GT(readahead, 0) << "no read of the file with A (readahead)";
  EXPECT_GE(direct_reads, 4) << "the 256 KiB read was not split";
  for (const json& e : Touching(events, "write", f->sectors)) {
    SCOPED_TRACE(e.dump());
    ++direct_writes;
    EXPECT_TRUE(Within(f->sectors, SectorsOf(e)));
    EXPECT_GT(e["seq"].get<uint64_t>(), after_reads);
    EXPECT_LE(e["seq"].get<uint64_t>(), after_writes);
    EXPECT_EQ(e["content"], "file");
    ASSERT_EQ(e["files"].size(), 1u);
    EXPECT_TRUE(NamesFile(e["files"][0], *f, true));
    EXPECT_TRUE(e["dirtied_by"].is_null());
    EXPECT_EQ(e["dirtier_count"], 0);
  }
  EXPECT_GE(direct_writes, 4) << "the 256 KiB write was not split";
  int metadata = 0, flushes = 0;
  for (const json& e : events) {
    SCOPED_TRACE(e.dump());
    const std::string rwbs = e["rwbs"];
    if (rwbs.find('M') != std::string::npos) {
      ++metadata;
      EXPECT_EQ(e["content"], "metadata");
      EXPECT_TRUE(e["files"].empty());
      EXPECT_EQ(e["file_count"], 0);
    }
    if (e["op"] == "flush") {
      ++flushes;
      EXPECT_EQ(e["content"], "none");
      EXPECT_TRUE(e["files"].empty());
      EXPECT_EQ(e["file_count"], 0);
      EXPECT_TRUE(e["dirtied_by"].is_null());
    }
  }
  EXPECT_GT(metadata, 0);
  EXPECT_GT(flushes, 0);
}

// A ledger of 1024 entries while two processes dirty 16384 pages (64 MiB
// in 64 files), then one sync: entries are replaced and writes miss their
// dirtier, but every dirtier named is the process that wrote that file.
// Each miss is one reported write of a file's pages without a dirtier.
TEST_F(AttributionTest, LedgerTooSmallLeavesDirtiersOutNeverWrong) {
  constexpr int kFilesEach = 32;
  constexpr size_t kFileSize = 1 << 20;
  LoopDevice loop(256);
  ASSERT_TRUE(loop.ok());
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name(),
              "--writeback-owner", "--ledger-entries", "1024"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::map<std::string, pid_t> owner;  // path -> its writer
  std::map<pid_t, std::string> comm;
  for (int w = 0; w < 2; ++w) {
    std::vector<std::string> paths;
    for (int i = 0; i < kFilesEach; ++i) {
      paths.push_back(fs.Path(absl::StrCat("w", w, "-", i, ".dat")));
    }
    const std::string name = absl::StrCat("attr-writer-", w);
    const pid_t pid = RunChildIn(nullptr, "", name.c_str(), [&] {
      for (const std::string& p : paths) {
        if (!WriteFile(p, kFileSize, false, 4096)) return 1;
      }
      return 0;
    });
    ASSERT_GT(pid, 0);
    for (const std::string& p : paths) owner[p] = pid;
    comm[pid] = name;
  }
  ASSERT_GT(fs.Sync(), 0);
  std::vector<FileInfo> files;
  std::vector<Range> all;
  for (const auto& [path, pid] : owner) {
    std::optional<FileInfo> f = Describe(path);
    ASSERT_TRUE(f);
    all.insert(all.end(), f->sectors.begin(), f->sectors.end());
    files.push_back(*f);
  }
  ASSERT_TRUE(WaitCovered(b, "write", files));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const json stats = LatestStats(b);
  ASSERT_EQ(stats.value("final", false), true) << b.Stdout();
  EXPECT_GT(stats.value("ledger_replaced", uint64_t{0}), 0u) << stats;
  EXPECT_GT(stats.value("ledger_misses", uint64_t{0}), 0u) << stats;
  // Every write of the files' sectors (1 MiB each, written back in
  // requests the block layer splits) names the file at its first sector.
  for (const json& e : Touching(b.Events(), "write", all)) {
    SCOPED_TRACE(e.dump());
    const Range r = SectorsOf(e);
    EXPECT_EQ(e["content"], "file");
    for (const FileInfo& f : files) {
      if (!Overlaps(f.sectors, {r.begin, r.begin + 1})) continue;
      ASSERT_FALSE(e["files"].empty());
      EXPECT_TRUE(NamesFile(e["files"][0], f, false));
    }
  }
  uint64_t with = 0, without = 0;
  for (const json& e : b.Events()) {
    if (e["op"] != "write" || e["content"] != "file") continue;
    SCOPED_TRACE(e.dump());
    ASSERT_FALSE(e["files"].empty());
    EXPECT_FALSE(e["files"][0]["direct"].get<bool>());
    const json& d = e["dirtied_by"];
    if (d.is_null()) {
      ++without;
      continue;
    }
    ++with;
    const std::string path = e["files"][0]["path"];
    ASSERT_TRUE(owner.count(path)) << "a write of a file no writer wrote";
    EXPECT_EQ(d["pid"], owner[path]);
    EXPECT_EQ(d["comm"], comm[owner[path]]);
  }
  EXPECT_GT(with, 0u) << "no dirtier named at all";
  // Nothing lost: each miss is one of the events without a dirtier.
  ASSERT_EQ(stats.value("lost", uint64_t{1}), 0u) << stats;
  EXPECT_EQ(stats.value("ledger_misses", uint64_t{0}), without) << stats;
}

// One buffered file written back and one O_DIRECT read, for the runs with
// parts of attribution turned off: the file's description.
std::optional<FileInfo> WriteBackAndReadDirect(const Ext4& fs,
                                               const Biosnoop& b) {
  const std::string path = fs.Path("off.dat");
  if (!WriteFile(path, 256 << 10, false)) {
    ADD_FAILURE() << "write " << path;
    return std::nullopt;
  }
  if (fs.Sync() <= 0) {
    ADD_FAILURE() << "syncfs";
    return std::nullopt;
  }
  std::optional<FileInfo> f = Describe(path);
  if (!f) return f;
  AlignedBuffer buf;
  if (buf.get() == nullptr || ReadAll(path, true, buf.get()) != 0) {
    ADD_FAILURE() << "O_DIRECT read of " << path;
    return std::nullopt;
  }
  ::testing::AssertionResult writes = WaitCovered(b, "write", {*f});
  ::testing::AssertionResult reads = WaitCovered(b, "read", {*f});
  if (!writes || !reads) {
    ADD_FAILURE() << (writes ? reads : writes).message();
    return std::nullopt;
  }
  return f;
}

// --no-files: events as before the feature, none of its six keys, and no
// ledger counters in the stats.
TEST_F(AttributionTest, NoFilesLeavesEveryAttributionKeyOut) {
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "--no-files"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_TRUE(WriteBackAndReadDirect(fs, b));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::vector<json> events = b.Events();
  ASSERT_FALSE(events.empty());
  for (const json& e : events) {
    for (const char* key : kAttributionKeys) {
      EXPECT_FALSE(e.contains(key)) << key << " in " << e;
    }
  }
  const json stats = LatestStats(b);
  EXPECT_FALSE(stats.contains("ledger_misses")) << stats;
  EXPECT_FALSE(stats.contains("ledger_replaced")) << stats;
}

// Without --writeback-owner (the default; --no-writeback-owner says it
// outright): files as always, no dirtier anywhere, and no ledger counters
// in the stats.
TEST_F(AttributionTest, WithoutWritebackOwnerFilesButNoDirtier) {
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::optional<FileInfo> f = WriteBackAndReadDirect(fs, b);
  ASSERT_TRUE(f);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::vector<json> events = b.Events();
  for (const json& e : events) {
    SCOPED_TRACE(e.dump());
    for (const char* key : kAttributionKeys)
      EXPECT_TRUE(e.contains(key)) << key;
    EXPECT_TRUE(e["dirtied_by"].is_null());
    EXPECT_EQ(e["dirtier_count"], 0);
  }
  for (const std::string op : {"write", "read"}) {
    const std::vector<json> of_file = Touching(events, op, f->sectors);
    ASSERT_FALSE(of_file.empty()) << op;
    for (const json& e : of_file) {
      SCOPED_TRACE(e.dump());
      EXPECT_EQ(e["content"], "file");
      ASSERT_EQ(e["files"].size(), 1u);
      EXPECT_TRUE(NamesFile(e["files"][0], *f, op == "read"));
    }
  }
  const json stats = LatestStats(b);
  EXPECT_FALSE(stats.contains("ledger_misses")) << stats;
  EXPECT_FALSE(stats.contains("ledger_replaced")) << stats;
}

// Issue #28: a read that hangs on a slow ext4 disk is a stuck record
// naming the file its pages are for (read while the request is in
// flight: bpf attr_stuck), as its event will; with --no-files the stuck
// record has none of the keys.  Buffered (the page cache's folio names
// the file) or `direct` (the iomap dio does).
void HangingReadIsAStuckRecordNamingItsFile(bool direct) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  ASSERT_TRUE(WriteFile(fs.Path("stuck.dat"), 16 << 10, true));
  ASSERT_TRUE(DropCache(fs.Path("stuck.dat"))) << "its pages stay cached";
  std::optional<FileInfo> f = Describe(fs.Path("stuck.dat"));
  ASSERT_TRUE(f.has_value());
  struct stat st;
  ASSERT_EQ(stat(f->path.c_str(), &st), 0);
  // Long enough for a look (once a second) to find it 1 s old well before
  // it completes.
  ASSERT_TRUE(disk.Set("read_delay_ms=4000").ok());
  Biosnoop files(
      {"--min-us", "1000000", "--stuck-after", "1s", "-d", disk.loop_name()});
  Biosnoop no_files({"--min-us", "1000000", "--stuck-after", "1s", "-d",
                     disk.loop_name(), "--no-files"});
  ASSERT_TRUE(files.WaitAttached()) << files.Stderr();
  ASSERT_TRUE(no_files.WaitAttached()) << no_files.Stderr();
  AlignedBuffer buf;
  ASSERT_NE(buf.get(), nullptr);
  const std::string path = f->path;
  pid_t reader = -1;
  std::thread run([&] {
    reader = RunChildIn(nullptr, "", "stuck-reader",
                        [&] { return ReadAll(path, direct, buf.get()); });
  });
  auto stuck_reads = [&](const Biosnoop& b) {
    std::vector<json> out;
    for (const json& r : b.RecordsOfType("stuck")) {
      if (r["op"] == "read" && Overlaps(f->sectors, SectorsOf(r))) {
        out.push_back(r);
      }
    }
    return out;
  };
  const bool seen = WaitUntil(
      [&] {
        return !stuck_reads(files).empty() && !stuck_reads(no_files).empty();
      },
      30000);
  run.join();
  ASSERT_TRUE(seen) << files.Stdout() << files.Stderr();
  EXPECT_GT(reader, 0) << "the reader failed";
  ASSERT_EQ(files.Stop(), 0) << files.Stderr();
  ASSERT_EQ(no_files.Stop(), 0) << no_files.Stderr();

  const std::vector<json> with = stuck_reads(files);
  ASSERT_EQ(with.size(), 1u) << files.Stdout();
  const json& s = with[0];
  EXPECT_EQ(s["comm"], "stuck-reader") << s;
  EXPECT_EQ(s["content"], "file") << s;
  ASSERT_EQ(s["files"].size(), 1u) << s;
  EXPECT_EQ(s["files"][0]["path"], path) << s;
  EXPECT_EQ(s["files"][0]["path_kind"], "absolute") << s;
  EXPECT_EQ(s["files"][0]["inode"], static_cast<uint64_t>(st.st_ino)) << s;
  EXPECT_EQ(s["files"][0]["dev"], f->dev) << s;
  EXPECT_EQ(s["files"][0]["direct"], direct) << s;
  EXPECT_EQ(s["file_count"], 1) << s;
  EXPECT_EQ(s["files_incomplete"], false) << s;
  EXPECT_TRUE(s["dirtied_by"].is_null()) << s;
  EXPECT_EQ(s["dirtier_count"], 0) << s;
  // Its completion's event names the same file.
  const std::vector<json> events = Touching(files.Events(), "read", f->sectors);
  ASSERT_FALSE(events.empty()) << files.Stdout();
  EXPECT_EQ(events[0]["files"], s["files"]);

  const std::vector<json> without = stuck_reads(no_files);
  ASSERT_EQ(without.size(), 1u) << no_files.Stdout();
  for (const char* key : {"content", "files", "file_count", "files_incomplete",
                          "dirtied_by", "dirtier_count"}) {
    EXPECT_FALSE(without[0].contains(key)) << key << ": " << without[0];
  }
}

TEST_F(AttributionTest, AHangingReadIsAStuckRecordNamingItsFile) {
  HangingReadIsAStuckRecordNamingItsFile(false);
}

TEST_F(AttributionTest, AHangingDirectReadIsAStuckRecordNamingItsFile) {
  HangingReadIsAStuckRecordNamingItsFile(true);
}

// A writeback that hangs is a stuck record naming the file it writes and,
// with the ledger, the task that dirtied its pages.
TEST_F(AttributionTest, AHangingWritebackIsAStuckRecordNamingItsDirtier) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "1000000", "--stuck-after", "1s", "-d",
              disk.loop_name(), "--writeback-owner"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string path = fs.Path("dirty.dat");
  const pid_t writer = RunChildIn(nullptr, "", "attr-writer", [&] {
    return WriteFile(path, 16 << 10, false) ? 0 : 1;
  });
  ASSERT_GT(writer, 0);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_TRUE(disk.Set("write_delay_ms=4000").ok());
  std::thread sync([&] { fs.Sync(); });
  std::vector<json> found;
  const bool seen = WaitUntil(
      [&] {
        found.clear();
        for (const json& r : b.RecordsOfType("stuck")) {
          if (r["op"] == "write" && r.value("content", "") == "file" &&
              !r["files"].empty() &&
              r["files"][0].value("inode", uint64_t{0}) == st.st_ino) {
            found.push_back(r);
          }
        }
        return !found.empty();
      },
      30000);
  ASSERT_TRUE(disk.Set("write_delay_ms=0").ok());
  sync.join();
  ASSERT_TRUE(seen) << b.Stdout() << b.Stderr();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const json& s = found[0];
  EXPECT_EQ(s["files"][0]["path"], path) << s;
  EXPECT_EQ(s["file_count"], 1) << s;
  ASSERT_TRUE(s["dirtied_by"].is_object()) << s;
  EXPECT_EQ(s["dirtied_by"]["pid"], writer) << s;
  EXPECT_EQ(s["dirtied_by"]["comm"], "attr-writer") << s;
  EXPECT_EQ(s["dirtier_count"], 1) << s;
}

}  // namespace
}  // namespace biosnoop::testing
