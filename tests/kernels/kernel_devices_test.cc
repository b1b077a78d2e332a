// The kernel matrix's device checks (label `kernels`, issue #37): what one
// of Debian 12's kernels, booted under qemu by tests/kernels/run-kernel
// --devices, made of biosnoop on the devices the CI machine's own kernel
// lacks, built in the guest by guest-devices.sh: NVMe, an LVM volume
// (dm-linear), dm-crypt and md raid1.  Each direct read through a device
// is one event on the disk under it, at the sector the device maps it to,
// from its dd, naming what is stacked on that disk; NVMe events carry the
// driver's times and virtio ones none; -d given a stacked device either
// works or is refused naming the disks under it.  The results directory
// and the expected kernel release come from the environment
// (BIOSNOOP_KERNEL_RESULTS, BIOSNOOP_KERNEL_VERSION), set by run-kernel.

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "guest_results_test.h"
#include "nlohmann/json.hpp"
#include "results.h"

namespace biosnoop::kernels {
namespace {

constexpr uint64_t kBlock = 4096;

// A disk under a stacked device, and the sector on it where the device's
// sector 0 is.
struct Member {
  std::string disk;
  uint64_t offset = 0;
};

// One 4 KiB block a dd read, and the events found for it on the members.
struct Read {
  Dd dd;
  size_t block = 0;
  uint64_t sector = 0;  // the stacked device's own
  std::string what;     // for messages
  std::vector<const IoEvent*> at;
};

std::string Describe(const IoEvent& e) {
  return "[" + e.disk + " " + e.op + " sector " + std::to_string(e.sector) +
         " " + std::to_string(e.bytes) + " bytes pid " + std::to_string(e.pid) +
         " " + e.comm + "] ";
}

std::string Describe(const std::vector<const IoEvent*>& events) {
  std::string s;
  for (const IoEvent* e : events) s += Describe(*e);
  return s.empty() ? "none" : s;
}

class KernelDevicesTest : public GuestResultsTest {
 protected:
  // biosnoop's exit status in `mode` ("" when the guest never ran it).
  std::string Status(const std::string& mode) {
    modes_.push_back(mode);
    return Trim(ReadResult(dir_, mode + ".rc").value_or(""));
  }

  // The events biosnoop wrote in `mode`, after checking that it exited 0
  // and that its stream starts with the header of this kernel.
  std::vector<IoEvent> Events(const std::string& mode) {
    const std::string rc = Status(mode);
    EXPECT_EQ(rc, "0") << "mode " << mode << ": biosnoop's exit status"
                       << (rc.empty() ? " (the guest never ran it)" : "");
    std::vector<std::string> errors;
    std::vector<nlohmann::json> records =
        ParseJsonLines(ReadResult(dir_, mode + ".out").value_or(""), &errors);
    for (const std::string& e : errors) {
      ADD_FAILURE() << "mode " << mode << ": not JSON: " << e;
    }
    if (records.empty() || records[0].value("type", "") != "header") {
      ADD_FAILURE() << "mode " << mode << ": the first record is not the "
                    << "header: "
                    << (records.empty() ? "no records" : records[0].dump());
    } else {
      EXPECT_EQ(records[0].value("kernel_release", ""), uname_)
          << "mode " << mode << ": the header's kernel_release";
    }
    return EventsFromJsonLines(records);
  }

  // The disks under the stacked device of `mode` (its "member" lines).
  std::vector<Member> Members(const std::string& mode) {
    std::vector<Member> members;
    for (const auto& fields : ManifestLines(manifest_, mode, "member")) {
      if (fields.size() != 2) {
        ADD_FAILURE() << "mode " << mode << ": a member line without DISK "
                      << "OFFSET in the manifest";
        continue;
      }
      members.push_back({fields[0], std::stoull(fields[1])});
    }
    EXPECT_FALSE(members.empty())
        << "mode " << mode << ": no member disks in the manifest: the guest "
        << "did not build the device";
    return members;
  }

  // The stacked device of `mode`: its kernel name and, for device-mapper,
  // its mapper name ({} when the guest did not say).
  std::vector<std::string> Device(const std::string& mode) {
    std::vector<std::vector<std::string>> lines =
        ManifestLines(manifest_, mode, "device");
    if (lines.size() != 1) {
      ADD_FAILURE() << "mode " << mode << ": " << lines.size()
                    << " device lines in the manifest, want 1";
      return {};
    }
    return lines[0];
  }

  // Each 4 KiB block the dds of `kind` read in `mode` through the stacked
  // device, with the events at its sector on any of `members` (the
  // member's offset plus the device's sector).
  std::vector<Read> MatchReads(const std::string& mode,
                               const std::vector<IoEvent>& events,
                               const std::vector<Member>& members,
                               const std::string& kind = "read") {
    std::vector<Read> reads;
    std::vector<Dd> dds = ManifestDds(manifest_, mode, kind);
    EXPECT_FALSE(dds.empty()) << "mode " << mode << ": the guest drove no "
                              << "reads (biosnoop did not attach?)";
    for (const Dd& dd : dds) {
      EXPECT_EQ(dd.status, 0) << "mode " << mode << ": dd of " << dd.path;
      for (size_t k = 0; k < dd.sectors.size(); ++k) {
        Read r{dd, k, dd.sectors[k]};
        r.what = "mode " + mode + ": dd pid " + std::to_string(dd.pid) +
                 "'s read of " + dd.path + " at its sector " +
                 std::to_string(r.sector);
        if (dd.sectors.size() > 1) {
          r.what += " (block " + std::to_string(k) + ")";
        }
        for (const IoEvent& e : events) {
          for (const Member& m : members) {
            if (e.disk == m.disk && e.sector == m.offset + r.sector) {
              r.at.push_back(&e);
            }
          }
        }
        reads.push_back(std::move(r));
      }
    }
    return reads;
  }

  // Each direct read is exactly one event on a member, at its sector, from
  // its dd; with `files`, naming the file it read.
  void CheckEachReadOnce(const std::vector<Read>& reads,
                         const std::vector<Member>& members,
                         const std::vector<IoEvent>& events) {
    std::string where;
    for (const Member& m : members) {
      where += (where.empty() ? "" : ", ") + m.disk + " (from sector " +
               std::to_string(m.offset) + ")";
    }
    for (const Read& r : reads) {
      if (r.at.size() != 1) {
        std::string dds;
        for (const IoEvent& e : events) {
          if (e.pid == r.dd.pid) dds += Describe(e);
        }
        ADD_FAILURE() << r.what << ": " << r.at.size() << " events at its "
                      << "sector on " << where << ", want 1: " << Describe(r.at)
                      << "; dd's events: " << (dds.empty() ? "none" : dds);
        continue;
      }
      const IoEvent& e = *r.at[0];
      EXPECT_EQ(e.pid, r.dd.pid) << r.what << ": " << e.raw.dump();
      EXPECT_EQ(e.comm, "dd") << r.what << ": " << e.raw.dump();
      EXPECT_EQ(e.op, "read") << r.what;
      EXPECT_EQ(e.bytes, kBlock) << r.what;
    }
  }

  // The events that are each the one event of a read (none when a read
  // has none or several: CheckEachReadOnce says so), at least one.
  static std::vector<std::pair<const Read*, const IoEvent*>> Found(
      const std::vector<Read>& reads, const std::string& mode) {
    std::vector<std::pair<const Read*, const IoEvent*>> found;
    for (const Read& r : reads) {
      if (r.at.size() == 1) found.emplace_back(&r, r.at[0]);
    }
    EXPECT_FALSE(found.empty()) << "mode " << mode << ": no read has its "
                                << "one event to look at";
    return found;
  }

  // `check` on the one event of each read: "" when it holds, else what is
  // wrong.  One failure for all the reads it does not hold for, saying
  // how many of how many and showing the first few: a missing feature
  // fails once, not once per read.
  template <typename Check>
  static void ForEachFound(const std::vector<Read>& reads,
                           const std::string& mode, const std::string& want,
                           Check check) {
    std::vector<std::pair<const Read*, const IoEvent*>> found =
        Found(reads, mode);
    std::vector<std::string> bad;
    for (const auto& [r, e] : found) {
      std::string why = check(*r, *e);
      if (!why.empty()) {
        bad.push_back(r->what + ": " + why + ": " + e->raw.dump());
      }
    }
    if (bad.empty()) return;
    std::string first;
    for (size_t i = 0; i < bad.size() && i < 3; ++i) first += "\n  " + bad[i];
    ADD_FAILURE() << "mode " << mode << ": " << bad.size() << " of "
                  << found.size() << " reads' events " << want
                  << "; the first:" << first;
  }

  // Every read's event names the file it read as its first.
  static void CheckFiles(const std::vector<Read>& reads,
                         const std::string& mode) {
    ForEachFound(reads, mode, "do not name the file read (files[0].path)",
                 [](const Read& r, const IoEvent& e) -> std::string {
                   if (e.first_path == r.dd.path) return "";
                   return "files[0].path is " +
                          e.first_path.value_or("absent") + ", want " +
                          r.dd.path;
                 });
  }

  // Every read's event names the devices stacked on its disk, `stack`.
  static void CheckStack(const std::vector<Read>& reads,
                         const std::string& mode, const nlohmann::json& stack) {
    ForEachFound(reads, mode, "do not have \"stack\":" + stack.dump(),
                 [&](const Read&, const IoEvent& e) -> std::string {
                   if (!e.raw.contains("stack")) return "no \"stack\"";
                   if (e.raw["stack"] == stack) return "";
                   return "\"stack\" is " + e.raw["stack"].dump();
                 });
  }

  // biosnoop -d given the stacked device of `mode`: exit 64 saying the
  // device is not request-based and naming each member, or (if biosnoop
  // learns to follow it) exit 0 with each read an event on a member.
  void CheckStackedDeviceWithD(const std::string& mode,
                               const std::vector<Member>& members) {
    const std::string rc = Status(mode);
    const std::string err = ReadResult(dir_, mode + ".err").value_or("");
    if (rc == "0") {
      std::vector<IoEvent> events = Events(mode);
      CheckEachReadOnce(MatchReads(mode, events, members), members, events);
      return;
    }
    ASSERT_EQ(rc, "64") << "mode " << mode << ": biosnoop's exit status, "
                        << "want 64 (refused) or 0 (followed); stderr: " << err;
    EXPECT_NE(err.find("not request-based"), std::string::npos)
        << "mode " << mode << ": the refusal does not say why: " << err;
    EXPECT_NE(err.find("goes to"), std::string::npos)
        << "mode " << mode << ": the refusal does not say where the "
        << "device's I/O goes: " << err;
    for (const Member& m : members) {
      EXPECT_NE(err.find(" " + m.disk), std::string::npos)
          << "mode " << mode << ": the refusal does not name the member "
          << "disk " << m.disk << ": " << err;
    }
    EXPECT_TRUE(ManifestReads(manifest_, mode).empty())
        << "mode " << mode << ": the guest drove reads though biosnoop "
        << "exited";
  }
};

TEST_F(KernelDevicesTest, GuestBootedTheKernelAndRanEveryMode) {
  EXPECT_EQ(uname_, Env("BIOSNOOP_KERNEL_VERSION")) << "the guest's uname -r";
  for (const char* mode : {"nvme", "lvm", "lvm-d-kernel-name", "lvm-d-mapper",
                           "lvm-buffered", "crypt", "md", "md-d-md0"}) {
    EXPECT_TRUE(ReadResult(dir_, std::string(mode) + ".rc").has_value())
        << "mode " << mode << " never ran";
  }
}

// NVMe: every direct read of a known file on nvme0n1, once, with its file,
// completed in the device's interrupt handler.
TEST_F(KernelDevicesTest, NvmeReportsEveryDirectReadOnce) {
  std::vector<IoEvent> events = Events("nvme");
  std::vector<Member> members = Members("nvme");
  std::vector<Read> reads = MatchReads("nvme", events, members);
  CheckEachReadOnce(reads, members, events);
  CheckFiles(reads, "nvme");
  ForEachFound(reads, "nvme",
               "did not complete in the interrupt handler (NVMe's "
               "completion_context is hardirq)",
               [](const Read&, const IoEvent& e) -> std::string {
                 const std::string c = e.raw.value("completion_context", "");
                 return c == "hardirq" ? "" : "completion_context " + c;
               });
}

// NVMe has the driver tracepoints (nvme_setup_cmd, nvme_complete_rq):
// every read's event has both driver times, the completion's within the
// device time.
TEST_F(KernelDevicesTest, NvmeEventsHaveDriverTimes) {
  std::vector<IoEvent> events = Events("nvme");
  std::vector<Read> reads = MatchReads("nvme", events, Members("nvme"));
  ForEachFound(
      reads, "nvme",
      "lack integer driver_prep_us and driver_done_us <= device_us",
      [](const Read&, const IoEvent& e) -> std::string {
        const nlohmann::json& j = e.raw;
        std::string why;
        for (const char* key : {"driver_prep_us", "driver_done_us"}) {
          if (!j.contains(key)) {
            why += std::string(why.empty() ? "" : ", ") + "no " + key;
          } else if (!j[key].is_number_unsigned()) {
            why += std::string(why.empty() ? "" : ", ") + key +
                   " not a non-negative integer";
          }
        }
        if (why.empty() &&
            j.value("device_us", nlohmann::json()).is_number_unsigned() &&
            j["driver_done_us"].get<uint64_t>() >
                j["device_us"].get<uint64_t>()) {
          why = "driver_done_us beyond device_us";
        }
        return why;
      });
}

// virtio-blk has no driver tracepoints: no event on a virtio disk has
// driver times.
TEST_F(KernelDevicesTest, VirtioEventsHaveNoDriverTimes) {
  int n = 0;
  std::vector<std::string> bad;
  for (const char* mode : {"lvm", "crypt", "md"}) {
    for (const IoEvent& e : Events(mode)) {
      if (e.disk.rfind("vd", 0) != 0) continue;
      ++n;
      if (e.raw.contains("driver_prep_us") ||
          e.raw.contains("driver_done_us")) {
        bad.push_back(std::string("mode ") + mode + ": " + e.raw.dump());
      }
    }
  }
  EXPECT_GT(n, 0) << "no events on a virtio disk to look at";
  EXPECT_TRUE(bad.empty()) << bad.size() << " of " << n << " events on "
                           << "virtio disks have driver times; the first: "
                           << (bad.empty() ? "" : bad[0]);
}

// LVM: each direct read of a file on vg0/data is one event on vda, the
// physical volume, at the volume's offset plus the file's sector.
TEST_F(KernelDevicesTest, LvmDirectReadsAreEventsOnTheMemberDisk) {
  std::vector<IoEvent> events = Events("lvm");
  std::vector<Member> members = Members("lvm");
  CheckEachReadOnce(MatchReads("lvm", events, members), members, events);
}

// Direct I/O names its file from the bio's iomap dio (bi_end_io
// iomap_dio_bio_end_io, bi_private the dio); through device-mapper the
// member's bio is dm's clone of it (bi_end_io dm's, bi_private its
// target_io), so the file is found only if biosnoop follows the clone
// back to the bio submitted to the volume.
TEST_F(KernelDevicesTest, LvmDirectReadsNameTheirFiles) {
  std::vector<IoEvent> events = Events("lvm");
  CheckFiles(MatchReads("lvm", events, Members("lvm")), "lvm");
}

// Through the page cache, the pages name the file whatever the device.
TEST_F(KernelDevicesTest, LvmBufferedReadsNameTheirFiles) {
  std::vector<IoEvent> events = Events("lvm-buffered");
  std::vector<Dd> dds = ManifestDds(manifest_, "lvm-buffered", "buffered-read");
  EXPECT_FALSE(dds.empty()) << "the guest drove no buffered reads";
  for (const Dd& dd : dds) {
    EXPECT_EQ(dd.status, 0) << "dd of " << dd.path;
    int n = 0;
    std::string names;
    for (const IoEvent& e : events) {
      if (e.disk == "vda" && e.op == "read" && e.first_path == dd.path) ++n;
      if (e.pid == dd.pid) {
        names += Describe(e) + "files[0].path " +
                 e.first_path.value_or("(none)") + "; ";
      }
    }
    EXPECT_GT(n, 0) << "buffered read of " << dd.path << " by dd pid " << dd.pid
                    << ": no read event on vda names the file; "
                    << "dd's events: " << (names.empty() ? "none" : names);
  }
}

// --ops on a file system over LVM: the volume is bio-based, so the
// journal commit and the cache flush an fsync waits for are requests on
// vda, the disk below it, submitted by jbd2 and a flush worker.  A call is
// registered as waiting on its file system's disk and on the disks below
// it (op_lower_disks, from sysfs slaves/): its journal and flush layers
// hold those requests, and not its `other`.
TEST_F(KernelDevicesTest, LvmFsyncWaitsForTheJournalOnTheDiskBelow) {
  const std::vector<IoEvent> events = Events("lvm-ops");
  std::vector<Dd> dds = ManifestDds(manifest_, "lvm-ops", "fsync");
  ASSERT_EQ(dds.size(), 1u) << "the guest drove no fsync";
  EXPECT_EQ(dds[0].status, 0) << "dd of " << dds[0].path;
  std::vector<std::string> errors;
  const std::vector<nlohmann::json> records =
      ParseJsonLines(ReadResult(dir_, "lvm-ops.out").value_or(""), &errors);
  const std::vector<std::string> device = Device("lvm");
  ASSERT_FALSE(device.empty());
  const nlohmann::json* fsync = nullptr;
  for (const nlohmann::json& r : records) {
    if (r.value("type", "") == "op" && r.value("call", "") == "fsync" &&
        r.value("pid", 0) == dds[0].pid) {
      fsync = &r;
    }
  }
  ASSERT_NE(fsync, nullptr) << "no op record of dd's fsync";
  const nlohmann::json& op = *fsync;
  SCOPED_TRACE(op.dump());
  EXPECT_EQ(op["disk"], device[0]) << "the call's disk is the volume's";
  EXPECT_EQ(op["file"]["path"], dds[0].path);
  EXPECT_GE(op["journal"]["requests"].get<int>(), 1);
  EXPECT_GE(op["flush"]["requests"].get<int>(), 1);
  bool jbd2 = false;
  for (const nlohmann::json& c : op["journal"]["culprits"]) {
    jbd2 |= c.value("comm", "").rfind("jbd2/" + device[0], 0) == 0;
  }
  EXPECT_TRUE(jbd2) << "no culprit is the volume's journal thread";
  // The layers' waits are the call's time, not `other`.
  const int64_t latency = op["latency_us"].get<int64_t>();
  EXPECT_GT(op["journal"]["wait_us"].get<int64_t>(), 0);
  EXPECT_LT(op["other_us"].get<int64_t>(), latency);
  // The journal's requests are events on vda, below the volume.
  int on_vda = 0;
  for (const IoEvent& e : events) {
    on_vda += e.disk == "vda" && e.comm.rfind("jbd2/", 0) == 0;
  }
  EXPECT_GE(on_vda, 1) << "no jbd2 event on vda";
}

TEST_F(KernelDevicesTest, LvmEventsNameTheStack) {
  std::vector<std::string> device = Device("lvm");
  ASSERT_EQ(device.size(), 2u) << "the LVM volume's kernel and mapper names";
  EXPECT_EQ(device[1], "vg0-data") << "the LVM volume's mapper name";
  std::vector<IoEvent> events = Events("lvm");
  CheckStack(MatchReads("lvm", events, Members("lvm")), "lvm",
             nlohmann::json(device));
}

TEST_F(KernelDevicesTest, LvmVolumeGivenToDByKernelName) {
  CheckStackedDeviceWithD("lvm-d-kernel-name", Members("lvm"));
}

TEST_F(KernelDevicesTest, LvmVolumeGivenToDByMapperPath) {
  CheckStackedDeviceWithD("lvm-d-mapper", Members("lvm"));
}

// dm-crypt: each direct read of the crypt device is one event on vdb at
// the table's offset plus its sector, naming the crypt device.
TEST_F(KernelDevicesTest, CryptReadsAreEventsOnTheMemberDisk) {
  std::vector<IoEvent> events = Events("crypt");
  std::vector<Member> members = Members("crypt");
  CheckEachReadOnce(MatchReads("crypt", events, members), members, events);
}

TEST_F(KernelDevicesTest, CryptEventsNameTheStack) {
  std::vector<std::string> device = Device("crypt");
  ASSERT_EQ(device.size(), 2u) << "the crypt device's kernel and mapper names";
  EXPECT_EQ(device[1], "secret") << "the crypt device's mapper name";
  std::vector<IoEvent> events = Events("crypt");
  CheckStack(MatchReads("crypt", events, Members("crypt")), "crypt",
             nlohmann::json(device));
}

// md raid1: each direct read of md0 is one event on one of its two members
// (whichever md chose), at the member's data offset plus its sector.
TEST_F(KernelDevicesTest, MdReadsAreEventsOnAMember) {
  std::vector<IoEvent> events = Events("md");
  std::vector<Member> members = Members("md");
  EXPECT_EQ(members.size(), 2u) << "raid1 over two disks";
  CheckEachReadOnce(MatchReads("md", events, members), members, events);
}

TEST_F(KernelDevicesTest, MdEventsNameTheStack) {
  EXPECT_EQ(Device("md"), std::vector<std::string>{"md0"});
  std::vector<IoEvent> events = Events("md");
  CheckStack(MatchReads("md", events, Members("md")), "md",
             nlohmann::json::array({"md0"}));
}

TEST_F(KernelDevicesTest, MdArrayGivenToD) {
  CheckStackedDeviceWithD("md-d-md0", Members("md"));
}

}  // namespace
}  // namespace biosnoop::kernels
