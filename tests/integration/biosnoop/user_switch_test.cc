// -Z/--user: once loaded, biosnoop runs as an unprivileged user with no
// capability in any thread, its output stays its own across SIGHUP's
// reopen, and events are named as before (disk, cgroup, file, process),
// also for another user's I/O in a directory biosnoop's user cannot enter.

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cgroups.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// The user biosnoop runs as by default: biosnoop if it exists, else nobody.
struct User {
  std::string name;
  uid_t uid;
  gid_t gid;
};
User DefaultUser() {
  const passwd* pw = getpwnam("biosnoop");
  if (pw == nullptr) pw = getpwnam("nobody");
  if (pw == nullptr) return {"", 0, 0};
  return {pw->pw_name, pw->pw_uid, pw->pw_gid};
}

// Another user than root and biosnoop's, with no entry in the database.
constexpr uid_t kOtherUid = 4321;

std::map<std::string, std::string> ProcStatus(pid_t pid, pid_t tid) {
  std::map<std::string, std::string> kv;
  const std::string text =
      ReadFile(absl::StrCat("/proc/", pid, "/task/", tid, "/status"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<std::string, std::string> p = absl::StrSplit(line, ":\t");
    kv[p.first] = std::string(absl::StripAsciiWhitespace(p.second));
  }
  return kv;
}

std::vector<pid_t> Threads(pid_t pid) {
  std::vector<pid_t> tids;
  if (DIR* d = opendir(absl::StrCat("/proc/", pid, "/task").c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
    }
    closedir(d);
  }
  return tids;
}

// Every thread's ids and capabilities once the run has its threads (the
// writer and the output watch).
void ExpectEveryThreadIs(pid_t pid, uid_t uid, gid_t gid,
                         const std::string& groups) {
  std::vector<pid_t> tids;
  ASSERT_TRUE(WaitUntil([&] {
    tids = Threads(pid);
    return tids.size() >= 2;
  })) << "the writer and the output watch";
  const std::string u = absl::StrCat(uid, "\t", uid, "\t", uid, "\t", uid);
  const std::string g = absl::StrCat(gid, "\t", gid, "\t", gid, "\t", gid);
  for (pid_t tid : tids) {
    SCOPED_TRACE(absl::StrCat("thread ", tid));
    std::map<std::string, std::string> st = ProcStatus(pid, tid);
    EXPECT_EQ(st["Uid"], u);
    EXPECT_EQ(st["Gid"], g);
    EXPECT_EQ(st["Groups"], groups);
    for (const char* set : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
      EXPECT_EQ(st[set], "0000000000000000") << set;
    }
    EXPECT_EQ(st["NoNewPrivs"], "1");
  }
}

std::vector<json> FileRecords(const std::string& path) {
  std::vector<json> out;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n')) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

size_t EventsOf(const std::string& path, pid_t pid) {
  size_t n = 0;
  for (const json& r : FileRecords(path)) {
    if (r.value("type", "") == "event" && r.value("pid", 0) == pid) ++n;
  }
  return n;
}

bool HasHeader(const std::string& path) {
  for (const json& r : FileRecords(path)) {
    if (r.value("type", "") == "header") return true;
  }
  return false;
}

struct stat StatOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) st.st_uid = static_cast<uid_t>(-1);
  return st;
}

class UserSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    BIOSNOOP_REQUIRE_ROOT();
    user_ = DefaultUser();
    if (user_.name.empty()) GTEST_SKIP() << "no user biosnoop or nobody";
  }
  User user_;
};

TEST_F(UserSwitch, RunsAsItsUserWithoutCapabilitiesInEveryThread) {
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_NE(b.Stderr().find(absl::StrCat("running as ", user_.name, " (uid ",
                                         user_.uid, ", gid ", user_.gid, ")")),
            std::string::npos)
      << b.Stderr();
  ExpectEveryThreadIs(b.pid(), user_.uid, user_.gid, std::to_string(user_.gid));
  // Neither dumpable nor traceable by the user's other processes.
  EXPECT_EQ(StatOf(absl::StrCat("/proc/", b.pid(), "/fd")).st_uid, 0u);
  Workload dd = DirectDd(loop.path(), true, 4096, 20);
  ASSERT_EQ(dd.exit_code, 0);
  ASSERT_TRUE(b.WaitForRecords(
      "event", 20, [&](const json& e) { return e["pid"] == dd.pid; }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  for (const json& e : EventsOfPid(b.Events(), dd.pid)) {
    EXPECT_EQ(e["disk"], loop.name()) << e;
    EXPECT_EQ(e["comm"], "dd") << e;
  }
}

TEST_F(UserSwitch, UserRootStaysRootWithoutCapabilities) {
  LoopDevice loop(8);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-Z", "root"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_NE(b.Stderr().find("running as root (uid 0, gid 0)"),
            std::string::npos)
      << b.Stderr();
  const std::string groups =
      ProcStatus(getpid(), getpid())["Groups"];  // the test's own
  ExpectEveryThreadIs(b.pid(), 0, 0, groups);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
}

TEST_F(UserSwitch, AnUnknownUserIsBadUsageAndCreatesNothing) {
  TempDir tmp;
  const std::string out = tmp.path() + "/slow.jsonl";
  Biosnoop b({"-Z", "no-such-user-here", "-o", out});
  EXPECT_EQ(b.Wait(), 64) << b.Stderr();
  EXPECT_NE(
      b.Stderr().find("--user: no user \"no-such-user-here\" on this system"),
      std::string::npos)
      << b.Stderr();
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "created " << out;
}

// logrotate's refusal: an existing log of another user than root and
// biosnoop's own is refused before anything is loaded; one biosnoop's
// user owns (a previous run's) is taken.
TEST_F(UserSwitch, AnOutputOfAnotherUserIsRefusedItsUsersIsTaken) {
  TempDir tmp;
  const std::string theirs = tmp.path() + "/theirs.jsonl";
  { std::ofstream(theirs) << ""; }
  ASSERT_EQ(chown(theirs.c_str(), kOtherUid, kOtherUid), 0);
  Biosnoop refused({"-o", theirs});
  EXPECT_EQ(refused.Wait(), 73) << refused.Stderr();
  EXPECT_NE(refused.Stderr().find(absl::StrCat("it belongs to uid ", kOtherUid,
                                               ", another user")),
            std::string::npos)
      << refused.Stderr();
  EXPECT_EQ(ReadFile(theirs), "");

  const std::string own = tmp.path() + "/own.jsonl";
  { std::ofstream(own) << ""; }
  ASSERT_EQ(chmod(own.c_str(), 0640), 0);
  ASSERT_EQ(chown(own.c_str(), user_.uid, 0), 0);
  Biosnoop taken({"-o", own});
  ASSERT_TRUE(taken.WaitAttached()) << taken.Stderr();
  ASSERT_EQ(taken.Stop(), 0) << taken.Stderr();
  EXPECT_TRUE(HasHeader(own));
}

// The packaged layout: the log directory is the user's.  The file
// biosnoop creates is the user's; after logrotate's rename, SIGHUP opens
// a new one there, the user's too, and events flow into it.
TEST_F(UserSwitch, SighupAfterARenameReopensANewFileInTheUsersDirectory) {
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  TempDir tmp;
  const std::string logs = tmp.path() + "/logs";
  ASSERT_EQ(mkdir(logs.c_str(), 0750), 0);
  ASSERT_EQ(chown(logs.c_str(), user_.uid, 0), 0);
  const std::string out = logs + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", out});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_EQ(b.Stderr().find("warning"), std::string::npos) << b.Stderr();
  EXPECT_EQ(StatOf(out).st_uid, user_.uid);
  EXPECT_EQ(StatOf(out).st_mode & 07777, 0640u);

  Workload first = DirectDd(loop.path(), true, 4096, 10);
  ASSERT_EQ(first.exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return EventsOf(out, first.pid) == 10; }))
      << ReadFile(out);
  ASSERT_EQ(rename(out.c_str(), (out + ".1").c_str()), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitUntil([&] { return HasHeader(out); })) << b.Stderr();
  EXPECT_EQ(StatOf(out).st_uid, user_.uid);
  EXPECT_EQ(StatOf(out).st_mode & 07777, 0640u);

  Workload second = DirectDd(loop.path(), true, 4096, 10);
  ASSERT_EQ(second.exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return EventsOf(out, second.pid) == 10; }))
      << ReadFile(out);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_EQ(EventsOf(out + ".1", first.pid), 10u);
  EXPECT_EQ(EventsOf(out + ".1", second.pid), 0u);
  EXPECT_EQ(EventsOf(out, first.pid), 0u);
}

// A directory only root may write: biosnoop warns at start; a SIGHUP
// with no new file there fails, said on stderr, and events go on in the
// old file; once a new file writable by the user is there (logrotate's
// `create 0640 USER GROUP`), the next SIGHUP takes it.
TEST_F(UserSwitch, SighupInARootDirectoryNeedsTheNewFileMadeForTheUser) {
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  TempDir tmp;
  ASSERT_EQ(chmod(tmp.path().c_str(), 0755), 0);
  const std::string out = tmp.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", out});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_NE(b.Stderr().find("who may not create files in the directory"),
            std::string::npos)
      << b.Stderr();

  ASSERT_EQ(rename(out.c_str(), (out + ".1").c_str()), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(b.WaitForStderr("still writing to the old file"));
  EXPECT_NE(b.Stderr().find(absl::StrCat("after loading, biosnoop runs as ",
                                         user_.name, " without capabilities")),
            std::string::npos)
      << b.Stderr();
  Workload kept = DirectDd(loop.path(), true, 4096, 5);
  ASSERT_EQ(kept.exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return EventsOf(out + ".1", kept.pid) == 5; }));

  { std::ofstream(out) << ""; }
  ASSERT_EQ(chmod(out.c_str(), 0640), 0);
  ASSERT_EQ(chown(out.c_str(), user_.uid, 0), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitUntil([&] { return HasHeader(out); })) << b.Stderr();
  Workload moved = DirectDd(loop.path(), true, 4096, 5);
  ASSERT_EQ(moved.exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return EventsOf(out, moved.pid) == 5; }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
}

// Another user's reads of a file in a directory only that user may
// enter, from a cgroup of its own: after the switch the events still name
// the disk, the cgroup, the file and the process.  Nothing of it needs
// biosnoop's user to read that user's /proc or files.
TEST_F(UserSwitch, AnotherUsersIoIsNamedAsBefore) {
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Ext4 fs(loop.path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string group = cg.Add("other-user");
  ASSERT_FALSE(group.empty());
  const std::string dir = fs.Path("private");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  const std::string file = dir + "/data.bin";
  ASSERT_TRUE(WriteFile(file, 256 * 1024, true));
  ASSERT_EQ(chown(dir.c_str(), kOtherUid, kOtherUid), 0);
  ASSERT_EQ(chown(file.c_str(), kOtherUid, kOtherUid), 0);

  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const pid_t reader = RunChildIn(&cg, group, "other-reader", [&file] {
    if (setgroups(0, nullptr) != 0 ||
        setresgid(kOtherUid, kOtherUid, kOtherUid) != 0 ||
        setresuid(kOtherUid, kOtherUid, kOtherUid) != 0) {
      return 1;
    }
    const int fd = open(file.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) return 2;
    alignas(4096) static char buf[4096];
    for (int i = 0; i < 8; ++i) {
      if (pread(fd, buf, sizeof(buf), static_cast<off_t>(i) * 4096) !=
          static_cast<ssize_t>(sizeof(buf))) {
        return 3;
      }
    }
    close(fd);
    return 0;
  });
  ASSERT_GT(reader, 0);
  ASSERT_TRUE(b.WaitForRecords(
      "event", 8, [&](const json& e) { return e["pid"] == reader; }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  for (const json& e : EventsOfPid(b.Events(), reader)) {
    SCOPED_TRACE(e.dump());
    EXPECT_EQ(e["disk"], loop.name());
    EXPECT_EQ(e["comm"], "other-reader");
    EXPECT_EQ(e["cgroup"], group);
    EXPECT_EQ(e["content"], "file");
    ASSERT_TRUE(e.contains("files") && !e["files"].empty());
    const std::string path = e["files"][0].value("path", "");
    EXPECT_TRUE(absl::EndsWith(path, "/private/data.bin")) << path;
  }
}

}  // namespace
}  // namespace biosnoop::testing
