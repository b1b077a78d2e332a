#include "enricher.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSecond = 1'000'000'000;
// A disk name longer than std::string's inline buffer, so that capacity
// reuse is observable.
constexpr char kLongDisk[] = "nvme10n1verylongname";

// A minimal sysfs: vda (254:0) with vda1 at [2048, 3048), and a disk with a
// long name (259:0) with one partition at [0, 100).
class EnricherTest : public ::testing::Test {
 protected:
  EnricherTest() {
    char tmpl[] = "/tmp/biosnoop-enricher-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    EXPECT_NE(dir, nullptr);
    root_ = dir != nullptr ? dir : "/nonexistent";
    AddDisk("vda", "254:0", "vda1", "254:1", 2048, 1000);
    AddDisk(kLongDisk, "259:0", std::string(kLongDisk) + "p1", "259:1", 0, 100);
  }
  ~EnricherTest() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  void Write(const std::string& path, const std::string& content) {
    std::ofstream(path) << content;
  }
  void AddDisk(const std::string& disk, const std::string& dev,
               const std::string& part, const std::string& part_dev,
               uint64_t start, uint64_t size) {
    const std::string rel = "devices/virtual/block/" + disk;
    const std::string dir = root_ + "/" + rel;
    fs::create_directories(dir + "/" + part);
    fs::create_directories(root_ + "/dev/block");
    fs::create_directories(root_ + "/block");
    Write(dir + "/dev", dev + "\n");
    Write(dir + "/" + part + "/dev", part_dev + "\n");
    Write(dir + "/" + part + "/partition", "1\n");
    Write(dir + "/" + part + "/start", std::to_string(start) + "\n");
    Write(dir + "/" + part + "/size", std::to_string(size) + "\n");
    fs::create_symlink("../../" + rel, root_ + "/dev/block/" + dev);
    // A partition's own device number names it, as in sysfs.
    fs::create_symlink("../../" + rel + "/" + part,
                       root_ + "/dev/block/" + part_dev);
    fs::create_symlink("../" + rel, root_ + "/block/" + disk);
  }

  static Event MakeEvent(uint32_t major, uint32_t minor, uint64_t sector) {
    Event e;
    e.complete_ns = 42 * kSecond + 7;
    e.device_ns = 15'000'000;
    e.queue_ns = 2'000'000;
    e.sector = sector;
    e.major = major;
    e.minor = minor;
    e.bytes = 4096;
    e.pid = 1234;
    e.tid = 1235;
    e.queue_depth = 3;
    e.op = Op::kWrite;
    e.flags = kFlagSync;
    e.blk_status = 0;
    e.submit_known = true;
    std::memcpy(e.comm.data(), "dd", 2);
    return e;
  }

  std::string root_;
  const uint64_t now_ = 100 * kSecond;
};

TEST_F(EnricherTest, FillsEveryField) {
  Enricher enricher(root_, /*include_queue=*/true);
  enricher.wall_clock().SetOffsetForTest(1'700'000'000 *
                                         int64_t{1'000'000'000});
  const Event in = MakeEvent(254, 0, 2100);
  EnrichedEvent out;
  enricher.Enrich(in, now_, &out);

  EXPECT_EQ(out.disk, "vda");
  EXPECT_EQ(out.partition, "vda1");
  EXPECT_EQ(out.realtime_ns, 1'700'000'042'000'000'007);
  EXPECT_EQ(out.seq, 1u);
  EXPECT_TRUE(out.include_queue);
  // The domain event is carried through unchanged.
  EXPECT_EQ(out.event.complete_ns, in.complete_ns);
  EXPECT_EQ(out.event.device_ns, in.device_ns);
  EXPECT_EQ(out.event.queue_ns, in.queue_ns);
  EXPECT_EQ(out.event.sector, 2100u);
  EXPECT_EQ(out.event.major, 254u);
  EXPECT_EQ(out.event.bytes, 4096u);
  EXPECT_EQ(out.event.pid, 1234u);
  EXPECT_EQ(out.event.tid, 1235u);
  EXPECT_EQ(out.event.queue_depth, 3u);
  EXPECT_EQ(out.event.op, Op::kWrite);
  EXPECT_EQ(out.event.flags, kFlagSync);
  EXPECT_TRUE(out.event.submit_known);
  EXPECT_EQ(out.event.Comm(), "dd");
}

TEST_F(EnricherTest, CopiesIncludeQueueOption) {
  Enricher enricher(root_, /*include_queue=*/false);
  EnrichedEvent out;
  out.include_queue = true;
  enricher.Enrich(MakeEvent(254, 0, 0), now_, &out);
  EXPECT_FALSE(out.include_queue);
}

TEST_F(EnricherTest, SequenceCountsFromOne) {
  Enricher enricher(root_, false);
  EXPECT_EQ(enricher.count(), 0u);
  EnrichedEvent out;
  for (uint64_t i = 1; i <= 5; ++i) {
    enricher.Enrich(MakeEvent(254, 0, i), now_, &out);
    EXPECT_EQ(out.seq, i);
  }
  EXPECT_EQ(enricher.count(), 5u);
}

TEST_F(EnricherTest, ReusedOutputCarriesNothingStale) {
  Enricher enricher(root_, false);
  EnrichedEvent out;
  enricher.Enrich(MakeEvent(254, 0, 2048), now_, &out);
  ASSERT_EQ(out.partition, "vda1");
  enricher.Enrich(MakeEvent(254, 0, 5000), now_, &out);  // in no partition
  EXPECT_EQ(out.disk, "vda");
  EXPECT_EQ(out.partition, "");
  Event no_queue = MakeEvent(9, 3, 2048);  // unknown device
  no_queue.queue_ns.reset();
  enricher.Enrich(no_queue, now_, &out);
  EXPECT_EQ(out.disk, "9:3");
  EXPECT_EQ(out.partition, "");
  EXPECT_FALSE(out.event.queue_ns.has_value());
  // Names unchanged from the last event are kept, changed ones replaced.
  enricher.Enrich(MakeEvent(254, 0, 2048), now_, &out);
  EXPECT_EQ(out.disk, "vda");
  EXPECT_EQ(out.partition, "vda1");
  enricher.Enrich(MakeEvent(254, 0, 2048), now_, &out);
  EXPECT_EQ(out.disk, "vda");
  EXPECT_EQ(out.partition, "vda1");
}

TEST_F(EnricherTest, ReusesStringCapacity) {
  Enricher enricher(root_, false);
  EnrichedEvent out;
  enricher.Enrich(MakeEvent(259, 0, 10), now_, &out);
  ASSERT_EQ(out.disk, kLongDisk);
  ASSERT_EQ(out.partition, std::string(kLongDisk) + "p1");
  const char* disk_buffer = out.disk.data();
  const char* partition_buffer = out.partition.data();
  for (int i = 0; i < 3; ++i) {
    enricher.Enrich(MakeEvent(259, 0, 20), now_ + 1, &out);
    EXPECT_EQ(out.disk, kLongDisk);
    EXPECT_EQ(out.disk.data(), disk_buffer);
    EXPECT_EQ(out.partition.data(), partition_buffer);
  }
}

TEST_F(EnricherTest, RecalibrateRestoresTheRealOffset) {
  Enricher enricher(root_, false);
  enricher.wall_clock().SetOffsetForTest(0);
  timespec mono, real;
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  Event e = MakeEvent(254, 0, 0);
  e.complete_ns = static_cast<uint64_t>(mono.tv_sec) * kSecond +
                  static_cast<uint64_t>(mono.tv_nsec);
  EnrichedEvent out;
  enricher.Enrich(e, now_, &out);
  EXPECT_EQ(out.realtime_ns, static_cast<int64_t>(e.complete_ns));

  enricher.Recalibrate();
  enricher.Enrich(e, now_, &out);
  int64_t real_ns =
      static_cast<int64_t>(real.tv_sec) * 1'000'000'000 + real.tv_nsec;
  EXPECT_LT(std::llabs(out.realtime_ns - real_ns), 5'000'000);
}

// The devices stacked on the request's partition, or on its disk when
// the sector is in none: for events and stuck requests, cleared for an
// event with none, a volume created meanwhile shown a second later (by
// lookup_ns, the time the names are looked up at).
TEST_F(EnricherTest, NamesTheDevicesStackedOnThePartitionOrDisk) {
  // As sysfs: class/block/<name> links to each device's directory, vda1
  // (inside vda's) is held by dm-0, an LVM volume.
  const std::string vda = "devices/virtual/block/vda";
  const std::string dm0 = "devices/virtual/block/dm-0";
  fs::create_directories(root_ + "/class/block");
  fs::create_directories(root_ + "/" + vda + "/holders");
  fs::create_directories(root_ + "/" + vda + "/vda1/holders");
  fs::create_directories(root_ + "/" + dm0 + "/dm");
  fs::create_directories(root_ + "/" + dm0 + "/holders");
  Write(root_ + "/" + dm0 + "/dm/name", "vg0-data\n");
  fs::create_symlink("../../" + vda, root_ + "/class/block/vda");
  fs::create_symlink("../../" + vda + "/vda1", root_ + "/class/block/vda1");
  fs::create_symlink("../../" + dm0, root_ + "/class/block/dm-0");
  fs::create_symlink("../../../dm-0", root_ + "/" + vda + "/vda1/holders/dm-0");

  Enricher enricher(root_, false);
  EnrichedEvent out;
  enricher.Enrich(MakeEvent(254, 0, 2100), now_, &out);
  EXPECT_EQ(out.partition, "vda1");
  EXPECT_EQ(out.stack, (std::vector<std::string>{"dm-0", "vg0-data"}));
  // Outside every partition: the disk's own holders (none).
  enricher.Enrich(MakeEvent(254, 0, 5000), now_, &out);
  EXPECT_EQ(out.partition, "");
  EXPECT_TRUE(out.stack.empty());
  enricher.Enrich(MakeEvent(254, 0, 2100), now_, &out);
  EXPECT_EQ(out.stack, (std::vector<std::string>{"dm-0", "vg0-data"}));
  // A disk sysfs has no class/block entry for: nothing stacked.
  enricher.Enrich(MakeEvent(259, 0, 10), now_, &out);
  EXPECT_TRUE(out.stack.empty());

  StuckRequest stuck;
  stuck.request = MakeEvent(254, 0, 2100);
  stuck.found_ns = now_;
  enricher.EnrichStuck(&stuck);
  EXPECT_EQ(stuck.stack, (std::vector<std::string>{"dm-0", "vg0-data"}));

  // dm-crypt opened on the volume after the first lookup: named from the
  // first lookup a second after it.
  const std::string dm1 = "devices/virtual/block/dm-1";
  fs::create_directories(root_ + "/" + dm1 + "/dm");
  Write(root_ + "/" + dm1 + "/dm/name", "data_crypt\n");
  fs::create_symlink("../../" + dm1, root_ + "/class/block/dm-1");
  fs::create_symlink("../../dm-1", root_ + "/" + dm0 + "/holders/dm-1");
  enricher.Enrich(MakeEvent(254, 0, 2100), now_ + kSecond - 1, &out);
  EXPECT_EQ(out.stack, (std::vector<std::string>{"dm-0", "vg0-data"}));
  enricher.Enrich(MakeEvent(254, 0, 2100), now_ + kSecond, &out);
  EXPECT_EQ(out.stack, (std::vector<std::string>{"dm-0", "vg0-data", "dm-1",
                                                 "data_crypt"}));
}

// A call (--ops): the disk its file system is on, the partition when that
// is not the whole disk, its file's path, the disks its block requests
// went to, and the wall-clock times of its entry and return.
TEST_F(EnricherTest, EnrichOpNamesDisksFileAndTimes) {
  Enricher enricher(root_, /*include_queue=*/false);
  enricher.wall_clock().SetOffsetForTest(1'700'000'000 *
                                         int64_t{1'000'000'000});
  EnrichedOp out;
  FileOp& op = out.op;
  op.call = Call::kFsync;
  op.start_ns = 40 * kSecond;
  op.end_ns = 42 * kSecond + 7;
  op.disk_major = 254;
  op.disk_minor = 0;
  op.part_major = 254;
  op.part_minor = 1;
  op.block_devs = {254u << 20, 259u << 20, 7u << 20 | 99};
  op.block_dev_count = 5;
  op.named = true;
  // A device no test machine mounts: the path stays inside its file system.
  op.file.dev_major = 4095;
  op.file.dev_minor = 1048575;
  op.file.names = {"data.db", "db", "srv"};
  op.file.reached_root = true;
  enricher.EnrichOp(now_, &out);

  EXPECT_EQ(out.disk, "vda");
  EXPECT_EQ(out.partition, "vda1");
  EXPECT_EQ(out.file.path, "/srv/db/data.db");
  EXPECT_EQ(out.file.kind, PathKind::kFsRelative);
  EXPECT_EQ(out.block_disks,
            (std::vector<std::string>{"vda", kLongDisk, "7:99"}));
  EXPECT_EQ(out.start_realtime_ns, 1'700'000'040'000'000'000);
  EXPECT_EQ(out.realtime_ns, 1'700'000'042'000'000'007);
  // Ops are not events: no seq is taken.
  EXPECT_EQ(enricher.count(), 0u);

  // On the whole disk: no partition; a file named up to itself only; and
  // a call not named at return has no path.  Nothing of the call before
  // stays.
  op.part_minor = 0;
  op.block_devs.clear();
  op.file.reached_root = false;
  enricher.EnrichOp(now_, &out);
  EXPECT_EQ(out.partition, "");
  EXPECT_TRUE(out.block_disks.empty());
  EXPECT_EQ(out.file.path, "data.db");
  EXPECT_EQ(out.file.kind, PathKind::kName);
  op.named = false;
  enricher.EnrichOp(now_, &out);
  EXPECT_EQ(out.file.path, "");
  EXPECT_EQ(out.file.kind, PathKind::kNone);
}

// The tasks a call waited for (culprits) get their cgroups named as the
// call's own: from the id, through the same cache and hierarchy walk.
TEST_F(EnricherTest, EnrichOpNamesTheCulpritsCgroups) {
  const std::string cgroup = root_ + "/cgroup";
  fs::create_directories(cgroup + "/batch.slice/etl.service");
  fs::create_directories(root_ + "/proc");
  struct stat st;
  ASSERT_EQ(stat((cgroup + "/batch.slice/etl.service").c_str(), &st), 0);
  Enricher enricher(root_, /*include_queue=*/false, cgroup, root_ + "/proc");
  EnrichedOp out;
  FileOp& op = out.op;
  op.call = Call::kFsync;
  op.cgroup_id = st.st_ino;
  OpCulprit& etl = op.others_writeback.culprits.emplace_back();
  etl.pid = 4321;
  etl.cgroup_id = st.st_ino;
  OpCulprit& jbd2 = op.journal.culprits.emplace_back();
  jbd2.pid = 300;
  jbd2.cgroup_id = 0;  // not known: no name
  op.flush.culprits.emplace_back().cgroup_id = st.st_ino;
  op.writeback.culprits.emplace_back().cgroup_id = st.st_ino;
  enricher.EnrichOp(now_, &out);

  EXPECT_TRUE(out.cgroup.known);
  EXPECT_EQ(out.cgroup.path, "/batch.slice/etl.service");
  EXPECT_TRUE(op.others_writeback.culprits[0].cgroup.known);
  EXPECT_EQ(op.others_writeback.culprits[0].cgroup.path,
            "/batch.slice/etl.service");
  EXPECT_FALSE(op.journal.culprits[0].cgroup.known);
  EXPECT_EQ(op.journal.culprits[0].cgroup.path, "");
  EXPECT_EQ(op.flush.culprits[0].cgroup.path, "/batch.slice/etl.service");
  EXPECT_EQ(op.writeback.culprits[0].cgroup.path, "/batch.slice/etl.service");
}

}  // namespace
}  // namespace biosnoop
