#include "output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "event.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "nlohmann/json.hpp"
#include "signals.h"

namespace biosnoop {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "line 0007 xxxxxxxx...\n", exactly `size` bytes including the '\n'.
std::string NumberedLine(int n, size_t size = 64) {
  std::string line = absl::StrCat("line ", n, " ");
  line.resize(size - 1, 'x');
  line += '\n';
  return line;
}

// Every line ends in '\n' and is one of ours, intact.
void ExpectWholeLines(const std::string& content, size_t line_size) {
  ASSERT_EQ(content.size() % line_size, 0u) << content;
  for (size_t i = 0; i < content.size(); i += line_size) {
    EXPECT_EQ(content.substr(i, line_size),
              NumberedLine(static_cast<int>(i / line_size), line_size));
  }
}

class ScopedSigpipeIgnored {
 public:
  ScopedSigpipeIgnored() { old_ = signal(SIGPIPE, SIG_IGN); }
  ~ScopedSigpipeIgnored() { signal(SIGPIPE, old_); }

 private:
  sighandler_t old_;
};

class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(umask(mask)) {}
  ~ScopedUmask() { umask(old_); }

 private:
  mode_t old_;
};

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-out-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

TEST_F(OutputFileTest, BuffersUntilFlushThenWritesWholeLines) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append(NumberedLine(0)).ok());
  ASSERT_TRUE((*file)->Append(NumberedLine(1) + NumberedLine(2)).ok());
  EXPECT_EQ(ReadFile(path), "");  // still buffered
  EXPECT_EQ((*file)->records_buffered(), 3u);
  EXPECT_EQ((*file)->records_written(), 0u);
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(path),
            NumberedLine(0) + NumberedLine(1) + NumberedLine(2));
  EXPECT_EQ((*file)->records_written(), 3u);
  EXPECT_EQ((*file)->bytes_written(), 3 * 64u);
  EXPECT_EQ((*file)->records_buffered(), 0u);
  EXPECT_EQ((*file)->records_dropped(), 0u);
  EXPECT_EQ((*file)->path(), path);
  EXPECT_FALSE((*file)->is_stdout());
}

TEST_F(OutputFileTest, FullBufferIsWrittenOnlyAtLineBoundaries) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  constexpr size_t kLine = 100;  // does not divide the buffer size
  const int lines = static_cast<int>(3 * OutputFile::kBufferBytes / kLine);
  for (int i = 0; i < lines; ++i) {
    ASSERT_TRUE((*file)->Append(NumberedLine(i, kLine)).ok());
    if (i % 500 == 0) ExpectWholeLines(ReadFile(path), kLine);
  }
  const std::string before_flush = ReadFile(path);
  EXPECT_GT(before_flush.size(), 2 * OutputFile::kBufferBytes - kLine);
  ExpectWholeLines(before_flush, kLine);
  EXPECT_EQ((*file)->records_written() + (*file)->records_buffered(),
            static_cast<uint64_t>(lines));
  ASSERT_TRUE((*file)->Flush().ok());
  const std::string content = ReadFile(path);
  EXPECT_EQ(content.size(), lines * kLine);
  ExpectWholeLines(content, kLine);
}

TEST_F(OutputFileTest, AppendOneCountsOneRecordAndChecksFraming) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  constexpr size_t kLine = 100;
  const int lines = static_cast<int>(2 * OutputFile::kBufferBytes / kLine);
  for (int i = 0; i < lines; ++i) {
    ASSERT_TRUE((*file)->AppendOne(NumberedLine(i, kLine)).ok());
  }
  EXPECT_EQ((*file)->records_written() + (*file)->records_buffered(),
            static_cast<uint64_t>(lines));
  ExpectWholeLines(ReadFile(path), kLine);
  absl::Status torn = (*file)->AppendOne("no newline");
  EXPECT_EQ(torn.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ((*file)->records_written(), static_cast<uint64_t>(lines));
  EXPECT_EQ(ReadFile(path).size(), lines * kLine);
}

// The in-place form of AppendOne: the record is formatted at the buffer's
// end and queued only by CommitOne.
TEST_F(OutputFileTest, ReserveOneAndCommitOneQueueRecordsInPlace) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  constexpr size_t kLine = 100;
  // Room for a record never gets smaller than the bound asked for.
  constexpr size_t kBound = 1200;
  const int lines = static_cast<int>(3 * OutputFile::kBufferBytes / kLine);
  for (int i = 0; i < lines; ++i) {
    absl::Status flushed;
    char* p = (*file)->ReserveOne(kBound, &flushed);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(flushed.ok()) << flushed;
    // Scribble over the whole room: only the committed bytes may count.
    std::memset(p, '#', kBound);
    const std::string line = NumberedLine(i, kLine);
    std::memcpy(p, line.data(), line.size());
    ASSERT_TRUE((*file)->CommitOne(p, p + line.size()).ok());
  }
  EXPECT_EQ((*file)->records_written() + (*file)->records_buffered(),
            static_cast<uint64_t>(lines));
  EXPECT_GT((*file)->records_written(), 0u);  // the buffer filled up twice

  // Reserved and never committed: discarded by the next record.
  absl::Status flushed;
  char* p = (*file)->ReserveOne(kBound, &flushed);
  ASSERT_NE(p, nullptr);
  std::memcpy(p, "abandoned\n", 10);
  // A record without its newline is refused and not queued.
  p = (*file)->ReserveOne(kBound, &flushed);
  std::memcpy(p, "no newline", 10);
  EXPECT_EQ((*file)->CommitOne(p, p + 10).code(),
            absl::StatusCode::kInvalidArgument);
  // A pointer that is not the reserved room is a caller's bug, refused.
  std::string elsewhere = NumberedLine(lines, kLine);
  EXPECT_EQ(
      (*file)->CommitOne(elsewhere.data(), elsewhere.data() + kLine).code(),
      absl::StatusCode::kInternal);
  ASSERT_TRUE((*file)->AppendOne(NumberedLine(lines, kLine)).ok());
  // More than the buffer can ever hold: no room, AppendOne's job.
  EXPECT_EQ((*file)->ReserveOne(OutputFile::kBufferBytes, &flushed), nullptr);

  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ((*file)->records_written(), static_cast<uint64_t>(lines + 1));
  EXPECT_EQ((*file)->records_dropped(), 0u);
  const std::string content = ReadFile(path);
  EXPECT_EQ(content.size(), (lines + 1) * kLine);
  ExpectWholeLines(content, kLine);
}

TEST_F(OutputFileTest, LargeAppendGoesStraightToTheFile) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  std::string big;
  int n = 0;
  while (big.size() < 2 * OutputFile::kBufferBytes) big += NumberedLine(n++);
  ASSERT_TRUE((*file)->Append(NumberedLine(0)).ok());  // buffered first
  std::string rest;
  for (int i = 1; i < n + 1; ++i) rest += NumberedLine(i);
  ASSERT_TRUE((*file)->Append(rest).ok());
  EXPECT_EQ(ReadFile(path).size(), (n + 1) * 64u);  // written, in order
  ExpectWholeLines(ReadFile(path), 64);
  EXPECT_EQ((*file)->records_written(), static_cast<uint64_t>(n + 1));
}

TEST_F(OutputFileTest, RejectsTextThatIsNotWholeLines) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  const absl::Status s = (*file)->Append("no newline");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE((*file)->Append("").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(path), "");
  EXPECT_EQ((*file)->records_buffered(), 0u);
}

TEST_F(OutputFileTest, AppendsToAnExistingFile) {
  const std::string path = Path("slow.jsonl");
  { std::ofstream(path) << "earlier\n"; }
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append("later\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(path), "earlier\nlater\n");
}

// An existing output another user could read or rewrite is refused, as
// logrotate refuses it, and nothing is written to it: owned by another
// user than root and biosnoop's own, writable by every user, writable by
// a group other than root's.  Root's own, and a file biosnoop creates,
// are taken.
TEST_F(OutputFileTest, RefusesAnExistingOutputOthersCouldReadOrRewrite) {
  const std::string world = Path("world.jsonl");
  { std::ofstream(world) << "x\n"; }
  ASSERT_EQ(chmod(world.c_str(), 0666), 0);
  auto file = OutputFile::Open(world);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(file.status().message(),
            absl::StrCat("cannot open output \"", world,
                         "\": it is writable by every user (mode 0666), who "
                         "could rewrite what biosnoop logs; chmod go-w it"));
  EXPECT_EQ(ReadFile(world), "x\n");
  ASSERT_EQ(chmod(world.c_str(), 0644), 0);
  EXPECT_TRUE(OutputFile::Open(world).ok());
  // Not a log file: /dev/null is 0666, and stays a valid output.
  EXPECT_TRUE(OutputFile::Open("/dev/null").ok());

  if (geteuid() != 0) GTEST_SKIP() << "chown needs root";
  const std::string theirs = Path("theirs.jsonl");
  { std::ofstream(theirs) << "y\n"; }
  ASSERT_EQ(chown(theirs.c_str(), 65534, 65534), 0);
  file = OutputFile::Open(theirs);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find(
                "it belongs to uid 65534, another user, who could read what "
                "biosnoop logs and rewrite it"),
            std::string::npos)
      << file.status();
  EXPECT_EQ(ReadFile(theirs), "y\n");
  const std::string group = Path("group.jsonl");
  { std::ofstream(group) << ""; }
  ASSERT_EQ(chown(group.c_str(), 0, 65534), 0);
  ASSERT_EQ(chmod(group.c_str(), 0660), 0);
  file = OutputFile::Open(group);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(
      file.status().message().find("it is writable by group 65534 (mode 0660)"),
      std::string::npos)
      << file.status();
  // A FIFO another user made is refused the same way (it is open for
  // reading, so the open itself would succeed).
  const std::string fifo = Path("their.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(chown(fifo.c_str(), 65534, 65534), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  file = OutputFile::Open(fifo);
  close(reader);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("it belongs to uid 65534"),
            std::string::npos)
      << file.status();
}

// The user biosnoop runs as after loading (-Z) owns its log from the
// last run: taken as biosnoop's own.  Another user's is still refused.
TEST_F(OutputFileTest, AnOutputOfTheUserItRunsAsIsItsOwn) {
  if (geteuid() != 0) GTEST_SKIP() << "chown needs root";
  const std::string own = Path("own.jsonl");
  { std::ofstream(own) << "x\n"; }
  ASSERT_EQ(chmod(own.c_str(), 0640), 0);
  ASSERT_EQ(chown(own.c_str(), 65534, 0), 0);
  EXPECT_FALSE(OutputFile::Open(own).ok());
  EXPECT_TRUE(OutputFile::Open(own, RecordFraming::kLines, 65534).ok());
  EXPECT_FALSE(OutputFile::Open(own, RecordFraming::kLines, 4321).ok());
}

// GiveTo(): a file this run created becomes the user's, its group kept;
// one that was there keeps its owner.
TEST_F(OutputFileTest, GiveToChownsOnlyAFileThisRunCreated) {
  if (geteuid() != 0) GTEST_SKIP() << "chown needs root";
  const std::string made = Path("made.jsonl");
  auto file = OutputFile::Open(made);
  ASSERT_TRUE(file.ok()) << file.status();
  struct stat before;
  ASSERT_EQ(stat(made.c_str(), &before), 0);
  ASSERT_TRUE((*file)->GiveTo(65534).ok());
  struct stat after;
  ASSERT_EQ(stat(made.c_str(), &after), 0);
  EXPECT_EQ(after.st_uid, 65534u);
  EXPECT_EQ(after.st_gid, before.st_gid);
  EXPECT_EQ(after.st_mode & 07777, before.st_mode & 07777);

  const std::string there = Path("there.jsonl");
  { std::ofstream(there) << ""; }
  file = OutputFile::Open(there);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->GiveTo(65534).ok());
  ASSERT_EQ(stat(there.c_str(), &after), 0);
  EXPECT_EQ(after.st_uid, 0u);
}

// Reopen() opens the name in the directory held since Open(): it needs
// no search permission above it, and a renamed directory is followed.
TEST_F(OutputFileTest, ReopenOpensTheNameInTheDirectoryHeldSinceOpen) {
  const std::string dir = Path("logs");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  auto file = OutputFile::Open(dir + "/x.jsonl");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->name(), "x.jsonl");
  const std::string moved = Path("logs-moved");
  ASSERT_EQ(rename(dir.c_str(), moved.c_str()), 0);
  ASSERT_EQ(rename((moved + "/x.jsonl").c_str(), (moved + "/x.1").c_str()), 0);
  ASSERT_TRUE((*file)->Reopen().ok());
  ASSERT_TRUE((*file)->Append("new\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(moved + "/x.jsonl"), "new\n");
}

TEST(OutputPlaceTest, SplitsTheDirectoryFromTheName) {
  auto split = [](const std::string& p) {
    OutputPlace place = SplitOutputPath(p);
    return place.dir + "|" + place.name;
  };
  EXPECT_EQ(split("/var/log/biosnoop/slow.jsonl"),
            "/var/log/biosnoop|slow.jsonl");
  EXPECT_EQ(split("slow.jsonl"), ".|slow.jsonl");
  EXPECT_EQ(split("/slow.jsonl"), "/|slow.jsonl");
  EXPECT_EQ(split("a/b"), "a|b");
  // No last name: opened whole from the working directory (and refused).
  EXPECT_EQ(split("logs/"), "|logs/");
  EXPECT_EQ(split("logs/.."), "|logs/..");
  EXPECT_EQ(split("."), "|.");
}

// The kernel's order: the owner class decides for the owner even when
// the group or others would allow more.
TEST(ModeAllowsTest, OwnerThenGroupThenOthers) {
  struct stat st {};
  st.st_uid = 10;
  st.st_gid = 20;
  st.st_mode = S_IFDIR | 0750;
  EXPECT_TRUE(ModeAllows(st, W_OK | X_OK, 10, 99, {}));
  EXPECT_FALSE(ModeAllows(st, W_OK, 11, 20, {}));
  EXPECT_TRUE(ModeAllows(st, X_OK, 11, 20, {}));
  EXPECT_TRUE(ModeAllows(st, R_OK | X_OK, 11, 99, {5, 20}));
  EXPECT_FALSE(ModeAllows(st, X_OK, 11, 99, {5}));
  st.st_mode = S_IFDIR | 0077;
  EXPECT_FALSE(ModeAllows(st, X_OK, 10, 20, {}));
  EXPECT_TRUE(ModeAllows(st, W_OK | X_OK, 11, 21, {}));
}

// A start that fails after opening the output (the probe cannot load)
// removes the file it created, and only that: never a file that was there
// before, one it wrote to, or one that replaced it at the path.
TEST_F(OutputFileTest, RemoveIfCreatedAndUnusedRemovesOnlyAFileItCreated) {
  const std::string created = Path("new.jsonl");
  {
    auto file = OutputFile::Open(created);
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_TRUE(std::filesystem::exists(created));
    (*file)->RemoveIfCreatedAndUnused();
    EXPECT_FALSE(std::filesystem::exists(created));
  }
  EXPECT_FALSE(std::filesystem::exists(created)) << "recreated on close";

  const std::string existing = Path("existing.jsonl");
  { std::ofstream(existing) << ""; }  // there before, empty
  {
    auto file = OutputFile::Open(existing);
    ASSERT_TRUE(file.ok()) << file.status();
    (*file)->RemoveIfCreatedAndUnused();
  }
  EXPECT_TRUE(std::filesystem::exists(existing));

  const std::string buffered = Path("buffered.jsonl");
  {
    auto file = OutputFile::Open(buffered);
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_TRUE((*file)->Append("one\n").ok());
    (*file)->RemoveIfCreatedAndUnused();
  }
  EXPECT_EQ(ReadFile(buffered), "one\n");

  const std::string replaced = Path("replaced.jsonl");
  {
    auto file = OutputFile::Open(replaced);
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_EQ(unlink(replaced.c_str()), 0);
    { std::ofstream(replaced) << ""; }  // another process's file now
    (*file)->RemoveIfCreatedAndUnused();
  }
  EXPECT_TRUE(std::filesystem::exists(replaced));
}

TEST_F(OutputFileTest, DestructorFlushes) {
  const std::string path = Path("slow.jsonl");
  {
    auto file = OutputFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_TRUE((*file)->Append("one\n").ok());
  }
  EXPECT_EQ(ReadFile(path), "one\n");
}

TEST_F(OutputFileTest, CreatesWithMode0640) {
  ScopedUmask umask_022(022);
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST_F(OutputFileTest, RefusesSymlinkAndLeavesTargetAlone) {
  const std::string target = Path("target");
  { std::ofstream(target) << "secret\n"; }
  ASSERT_EQ(chmod(target.c_str(), 0600), 0);
  const std::string link = Path("slow.jsonl");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);

  auto file = OutputFile::Open(link);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(file.status().message().find("symbolic link"), std::string::npos)
      << file.status();
  EXPECT_NE(file.status().message().find(link), std::string::npos)
      << file.status();
  EXPECT_EQ(ReadFile(target), "secret\n");
  struct stat st;
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(OutputFileTest, RefusesDanglingSymlinkWithoutCreatingTarget) {
  const std::string target = Path("would-be-created");
  const std::string link = Path("slow.jsonl");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  auto file = OutputFile::Open(link);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST_F(OutputFileTest, OpenErrorNamesThePathAndTheReason) {
  const std::string path = Path("no-such-dir/slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(file.status().message(),
            absl::StrCat("cannot open output \"", path,
                         "\": No such file or directory"));

  auto dir = OutputFile::Open(dir_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(),
            absl::StrCat("cannot open output \"", dir_,
                         "\": it is a directory; give the path of a file"));

  EXPECT_EQ(OutputFile::Open("").status().code(),
            absl::StatusCode::kInvalidArgument);

  // A path holding a newline is echoed escaped: the error stays one line.
  auto odd = OutputFile::Open(Path("no-such-dir/a\nb"));
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(),
            absl::StrCat("cannot open output \"", dir_,
                         "/no-such-dir/a\\nb\": No such file or directory"));
}

TEST_F(OutputFileTest, ReopenAfterRenameWritesANewFile) {
  ScopedUmask umask_022(022);
  const std::string path = Path("slow.jsonl");
  const std::string rotated = Path("slow.jsonl.1");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append("before rotation\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());

  ASSERT_EQ(rename(path.c_str(), rotated.c_str()), 0);  // logrotate
  ASSERT_TRUE((*file)->Append("buffered at SIGHUP\n").ok());
  ASSERT_TRUE((*file)->Reopen().ok());  // SIGHUP
  ASSERT_TRUE((*file)->Append("after rotation\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());

  EXPECT_EQ(ReadFile(rotated), "before rotation\nbuffered at SIGHUP\n");
  EXPECT_EQ(ReadFile(path), "after rotation\n");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ((*file)->records_written(), 3u);
}

TEST_F(OutputFileTest, FailedReopenKeepsWritingToTheOldFile) {
  const std::string path = Path("slow.jsonl");
  const std::string rotated = Path("slow.jsonl.1");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(rename(path.c_str(), rotated.c_str()), 0);
  ASSERT_EQ(symlink("/nonexistent", path.c_str()), 0);  // in the way
  absl::Status s = (*file)->Reopen();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(s.message().rfind("cannot reopen output \"" + path +
                                  "\": it is "
                                  "a symbolic link",
                              0),
            0u)
      << s;
  ASSERT_TRUE((*file)->Append("still logged\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(rotated), "still logged\n");
  // The next SIGHUP tries again, and with the path usable, succeeds.
  ASSERT_EQ(unlink(path.c_str()), 0);
  s = (*file)->Reopen();
  EXPECT_TRUE(s.ok()) << s;
  ASSERT_TRUE((*file)->Append("in the new file\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  EXPECT_EQ(ReadFile(rotated), "still logged\n");
  EXPECT_EQ(ReadFile(path), "in the new file\n");
}

TEST_F(OutputFileTest, StdoutIsNotOwnedAndReopenIsANoop) {
  auto file = OutputFile::Open("-");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE((*file)->is_stdout());
  EXPECT_TRUE((*file)->Reopen().ok());
  file->reset();
  EXPECT_NE(fcntl(STDOUT_FILENO, F_GETFD), -1);  // still open
}

// Runs `body(arg)` in a child process (so that limits, credentials and fd 1
// changes stay there) and returns the text it reports.
std::string RunInChild(std::string (*body)(const std::string&),
                       const std::string& arg) {
  const testing::ChildResult r =
      testing::RunInChild([body, &arg] { return body(arg); });
  EXPECT_TRUE(testing::ExitedWith(r, 0));
  return r.report;
}

// Sets the soft file size limit; SIGXFSZ ignored, so that write(2) fails
// with EFBIG (after a short write) instead of killing the process.
bool SetFileSizeLimit(rlim_t limit) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0) return false;
  rl.rlim_cur = limit == RLIM_INFINITY ? rl.rlim_max : limit;
  return setrlimit(RLIMIT_FSIZE, &rl) == 0;
}

std::string OpenAsUnprivileged(const std::string& path) {
  // Root bypasses permission bits: become nobody first.
  if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
    return "cannot drop privileges";
  }
  auto file = OutputFile::Open(path);
  if (file.ok()) return "opened";
  return absl::StrCat(static_cast<int>(file.status().code()), "|",
                      file.status().message());
}

TEST_F(OutputFileTest, PermissionDeniedIsReported) {
  const std::string path = Path("readonly.jsonl");
  { std::ofstream(path) << ""; }
  ASSERT_EQ(chmod(path.c_str(), 0400), 0);
  EXPECT_EQ(
      RunInChild(&OpenAsUnprivileged, path),
      absl::StrCat(static_cast<int>(absl::StatusCode::kPermissionDenied),
                   "|cannot open output \"", path, "\": Permission denied"));
}

std::string Report(const absl::Status& s, const OutputFile& f) {
  return absl::StrCat(static_cast<int>(s.code()), "|", f.records_written(), "|",
                      f.bytes_written(), "|", f.records_dropped(), "|",
                      s.message());
}

// 100 lines of 64 bytes against a 1000-byte limit: the write stops mid
// line 16 (bytes 960..1023); raise the limit, then write line 100.
std::string PartialWriteBody(const std::string& path) {
  if (!SetFileSizeLimit(1000)) return "setrlimit failed";
  auto file = OutputFile::Open(path);
  if (!file.ok()) return file.status().ToString();
  std::string lines;
  for (int i = 0; i < 100; ++i) lines += NumberedLine(i);
  absl::Status s = (*file)->Append(lines);
  if (!s.ok()) return "append: " + s.ToString();
  s = (*file)->Flush();
  std::string report = Report(s, **file);
  SetFileSizeLimit(RLIM_INFINITY);
  absl::Status later = (*file)->Append(NumberedLine(15));
  if (later.ok()) later = (*file)->Flush();
  return absl::StrCat(report, "\n", Report(later, **file));
}

// ReserveOne when the buffer lacks room and the write that makes room
// fails (file size limit mid line 16): the error is reported, the buffered
// lines are dropped and counted, and the room is still given, so the record
// formatted there is kept for the next write.
std::string ReserveAfterFailedWriteBody(const std::string& path) {
  if (!SetFileSizeLimit(1000)) return "setrlimit failed";
  auto file = OutputFile::Open(path);
  if (!file.ok()) return file.status().ToString();
  const size_t in_buffer = OutputFile::kBufferBytes / 64 - 1;
  std::string lines;
  for (size_t i = 0; i < in_buffer; ++i)
    lines += NumberedLine(static_cast<int>(i));
  absl::Status s = (*file)->Append(lines);
  if (!s.ok()) return "append: " + s.ToString();
  absl::Status flushed;
  char* p = (*file)->ReserveOne(128, &flushed);
  if (p == nullptr) return "no room";
  const std::string line = NumberedLine(15);
  std::memcpy(p, line.data(), line.size());
  absl::Status queued = (*file)->CommitOne(p, p + line.size());
  std::string report =
      absl::StrCat(Report(flushed, **file), "|", (*file)->records_buffered(),
                   "|", queued.ok() ? "queued" : queued.ToString());
  SetFileSizeLimit(RLIM_INFINITY);
  absl::Status later = (*file)->Flush();
  return absl::StrCat(report, "\n", Report(later, **file));
}

TEST_F(OutputFileTest, ReserveOneReportsTheFailedWriteAndKeepsTheRecord) {
  const std::string path = Path("slow.jsonl");
  const std::string report = RunInChild(&ReserveAfterFailedWriteBody, path);
  const std::vector<std::string> parts = absl::StrSplit(report, '\n');
  ASSERT_EQ(parts.size(), 2u) << report;
  const size_t in_buffer = OutputFile::kBufferBytes / 64 - 1;
  EXPECT_EQ(parts[0],
            absl::StrCat(static_cast<int>(absl::StatusCode::kOutOfRange),
                         "|15|960|", in_buffer - 15, "|writing \"", path,
                         "\": File too large|1|queued"));
  EXPECT_EQ(parts[1], absl::StrCat("0|16|1024|", in_buffer - 15, "|"));
  const std::string content = ReadFile(path);
  EXPECT_EQ(content.size(), 16 * 64u);
  ExpectWholeLines(content, 64);
}

TEST_F(OutputFileTest, PartialWriteIsTrimmedBackToTheLastWholeLine) {
  const std::string path = Path("slow.jsonl");
  const std::string report = RunInChild(&PartialWriteBody, path);
  const std::vector<std::string> parts = absl::StrSplit(report, '\n');
  ASSERT_EQ(parts.size(), 2u) << report;

  // The failed flush: 15 whole lines written, 85 dropped, an error naming
  // the file and the reason.
  const std::vector<std::string> failed = absl::StrSplit(parts[0], '|');
  ASSERT_EQ(failed.size(), 5u) << report;
  EXPECT_NE(failed[0], "0") << report;
  EXPECT_EQ(failed[1], "15");
  EXPECT_EQ(failed[2], "960");
  EXPECT_EQ(failed[3], "85");
  EXPECT_EQ(failed[4], absl::StrCat("writing \"", path, "\": File too large"));

  // Writing again after the error continues right after the last whole line.
  const std::vector<std::string> later = absl::StrSplit(parts[1], '|');
  ASSERT_EQ(later.size(), 5u) << report;
  EXPECT_EQ(later[0], "0") << report;
  EXPECT_EQ(later[1], "16");
  EXPECT_EQ(later[3], "85");
  const std::string content = ReadFile(path);
  EXPECT_EQ(content.size(), 16 * 64u);
  ExpectWholeLines(content, 64);
}

// Same on stdout redirected with '>' (no O_APPEND): after the cut the next
// line must follow directly, with no hole of NUL bytes.
std::string PartialWriteStdoutBody(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) return "redirect failed";
  close(fd);
  return PartialWriteBody("-");
}

TEST_F(OutputFileTest, PartialWriteOnRedirectedStdoutLeavesNoHole) {
  const std::string path = Path("stdout.jsonl");
  const std::string report = RunInChild(&PartialWriteStdoutBody, path);
  const std::vector<std::string> parts = absl::StrSplit(report, '\n');
  ASSERT_EQ(parts.size(), 2u) << report;
  EXPECT_NE(parts[0].find("|15|960|85|writing stdout: File too large"),
            std::string::npos)
      << report;
  const std::string content = ReadFile(path);
  EXPECT_EQ(content.size(), 16 * 64u);
  EXPECT_EQ(content.find('\0'), std::string::npos);
  ExpectWholeLines(content, 64);
}

TEST_F(OutputFileTest, BrokenPipeIsCancelled) {
  ScopedSigpipeIgnored no_sigpipe;
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  auto file = OutputFile::Open(fifo);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append("one\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  char buf[16];
  EXPECT_EQ(read(reader, buf, sizeof(buf)), 4);
  close(reader);  // `| head -1` exits

  ASSERT_TRUE((*file)->Append("two\nthree\n").ok());
  const absl::Status s = (*file)->Flush();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_EQ(s.message(), "output closed by reader (broken pipe)");
  EXPECT_EQ((*file)->records_written(), 1u);
  EXPECT_EQ((*file)->records_dropped(), 2u);
}

// stdout a pipe that nobody reads (`biosnoop | sleep 600`), blocking or
// not: once a stop is requested (here by RequestStopAfter, the --duration
// timer, as by SIGTERM), a write blocked on it gives up after the grace:
// reported as
//   code|written|bytes|dropped|message|bytes in the pipe
// for the write of 2000 lines of 100 bytes, then for a later flush.
std::string StalledPipeBody(const std::string& mode) {
  int fds[2];
  if (pipe2(fds, mode == "nonblocking" ? O_NONBLOCK : 0) != 0) return "pipe";
  if (dup2(fds[1], STDOUT_FILENO) < 0) return "dup2";
  close(fds[1]);
  InstallSignalHandlers();
  auto file = OutputFile::Open("-");
  if (!file.ok()) return file.status().ToString();
  (*file)->GiveUpWhenStopping(&StopRequested, absl::Milliseconds(300));
  std::string lines;
  for (int i = 0; i < 2000; ++i) lines += NumberedLine(i, 100);
  RequestStopAfter(absl::Milliseconds(200));
  // More than the buffer holds: written at once, and it blocks.
  const absl::Status s = (*file)->Append(lines);
  int queued = 0;
  ioctl(fds[0], FIONREAD, &queued);
  std::string report = absl::StrCat(Report(s, **file), "|", queued);
  absl::Status later = (*file)->Append(NumberedLine(1, 100));
  if (later.ok()) later = (*file)->Flush();
  ioctl(fds[0], FIONREAD, &queued);
  return absl::StrCat(report, "\n", Report(later, **file), "|", queued);
}

void ExpectStalledPipeGaveUp(const std::string& mode) {
  const std::string report = RunInChild(&StalledPipeBody, mode);
  const std::vector<std::string> parts = absl::StrSplit(report, '\n');
  ASSERT_EQ(parts.size(), 2u) << report;
  const std::vector<std::string> first = absl::StrSplit(parts[0], '|');
  ASSERT_EQ(first.size(), 6u) << report;
  EXPECT_EQ(
      first[0],
      absl::StrCat(static_cast<int>(absl::StatusCode::kDeadlineExceeded)));
  // The pipe holds 64 KiB: 655 whole lines, then 36 bytes of the next.
  const size_t in_pipe = std::stoul(first[5]);
  EXPECT_EQ(first[1], absl::StrCat(in_pipe / 100)) << report;
  EXPECT_EQ(first[2], absl::StrCat(in_pipe / 100 * 100)) << report;
  EXPECT_EQ(first[3], absl::StrCat(2000 - in_pipe / 100)) << report;
  EXPECT_EQ(first[4].rfind("writing stdout: output stalled: the reader did "
                           "not take what was left within 300ms of the stop "
                           "request; the events not written are counted as "
                           "dropped",
                           0),
            0u)
      << report;
  if (in_pipe % 100 != 0) {
    EXPECT_NE(first[4].find(absl::StrCat("; the last record written is cut "
                                         "short (",
                                         in_pipe % 100, " bytes of it")),
              std::string::npos)
        << report;
  }
  // Nothing more is written after a stall (it would be glued to a cut
  // record); the record is dropped at once, with the same error.
  const std::vector<std::string> later = absl::StrSplit(parts[1], '|');
  ASSERT_EQ(later.size(), 6u) << report;
  EXPECT_EQ(later[0], first[0]);
  EXPECT_EQ(later[3], absl::StrCat(2000 - in_pipe / 100 + 1)) << report;
  EXPECT_EQ(later[5], first[5]) << report;
}

TEST_F(OutputFileTest, BlockedWriteToAStalledPipeGivesUpAfterAStop) {
  ExpectStalledPipeGaveUp("blocking");
}

TEST_F(OutputFileTest, NonBlockingStalledPipeGivesUpAfterAStop) {
  ExpectStalledPipeGaveUp("nonblocking");
}

// --- JsonlSink over an OutputFile.

EnrichedEvent SinkEvent(uint64_t seq) {
  EnrichedEvent e;
  e.event.device_ns = 15000000;
  e.event.major = 7;
  e.event.minor = 3;
  e.event.op = Op::kWrite;
  std::memcpy(e.event.comm.data(), "dd", 3);
  e.disk = "loop3";
  e.realtime_ns = 1795239841000000000;
  e.seq = seq;
  return e;
}

class SinkTest : public OutputFileTest {};

TEST_F(SinkTest, UsableThroughTheInterface) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  std::unique_ptr<Sink> sink =
      std::make_unique<JsonlSink>(std::move(*file), "host-a");
  ASSERT_TRUE(sink->Write(SinkEvent(1)).ok());
  ASSERT_TRUE(sink->Flush().ok());
  const std::string content = ReadFile(path);
  EXPECT_EQ(std::count(content.begin(), content.end(), '\n'), 1);
  EXPECT_EQ(content.back(), '\n');
}

TEST_F(SinkTest, JsonlSinkWritesOneLinePerEventAndRotates) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  JsonlSink sink(std::move(*file), "host-a");
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(sink.Write(SinkEvent(seq)).ok());
  }
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(sink.file().records_written(), 3u);

  ASSERT_EQ(rename(path.c_str(), (path + ".1").c_str()), 0);
  ASSERT_TRUE(sink.Write(SinkEvent(4)).ok());
  ASSERT_TRUE(sink.Reopen().ok());
  ASSERT_TRUE(sink.Write(SinkEvent(5)).ok());
  ASSERT_TRUE(sink.Flush().ok());

  auto seqs = [](const std::string& content) {
    std::vector<uint64_t> out;
    for (absl::string_view line :
         absl::StrSplit(content, '\n', absl::SkipEmpty())) {
      const nlohmann::json j = nlohmann::json::parse(line);
      EXPECT_EQ(j["host"], "host-a");
      EXPECT_EQ(j["disk"], "loop3");
      EXPECT_EQ(j["dev"], "7:3");
      EXPECT_EQ(j["latency_us"], 15000);
      out.push_back(j["seq"].get<uint64_t>());
    }
    return out;
  };
  const std::string old_content = ReadFile(path + ".1");
  const std::string new_content = ReadFile(path);
  EXPECT_EQ(seqs(old_content), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(seqs(new_content), (std::vector<uint64_t>{5}));
  EXPECT_EQ(old_content.back(), '\n');
  EXPECT_EQ(new_content.back(), '\n');
}

// An event whose line could be larger than the whole output buffer (a
// disk name of 40,000 control bytes, each escaped as \u00XX) cannot be
// formatted in place: it takes the copying path, whole, in order.
TEST_F(SinkTest, JsonlSinkWritesAnEventLargerThanTheBuffer) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  JsonlSink sink(std::move(*file), "host-a");
  ASSERT_TRUE(sink.Write(SinkEvent(1)).ok());
  EnrichedEvent huge = SinkEvent(2);
  huge.disk.assign(40000, '\x01');
  ASSERT_TRUE(sink.Write(huge).ok());
  ASSERT_TRUE(sink.Write(SinkEvent(3)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(sink.events_written(), 3u);
  const std::vector<std::string> lines =
      absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_GT(lines[1].size(), OutputFile::kBufferBytes / 2);
  for (size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["seq"], i + 1);
    EXPECT_EQ(j["disk"].get<std::string>().size(), i == 1 ? 40000u : 5u);
  }
}

}  // namespace
}  // namespace biosnoop
