// -Z/--user's lookup (ResolveRunAs): which user a run switches to, from
// the user database, with no privilege needed to ask.

#include "privileges.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

TEST(ResolveRunAsTest, AnUnknownUserIsBadUsage) {
  absl::StatusOr<RunAs> r = ResolveRunAs("no-such-user-here");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "--user: no user \"no-such-user-here\" on this system (give a "
            "user name, or root to stay root)");
}

TEST(ResolveRunAsTest, ANamedUserWithItsGroups) {
  const passwd* pw = getpwnam("nobody");
  if (pw == nullptr) GTEST_SKIP() << "no user nobody";
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  for (const char* spelled : {"nobody", "65534"}) {
    if (std::string(spelled) == "65534" && uid != 65534) continue;
    absl::StatusOr<RunAs> r = ResolveRunAs(spelled);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->name, "nobody");
    EXPECT_EQ(r->uid, uid);
    EXPECT_EQ(r->gid, gid);
    EXPECT_NE(std::find(r->groups.begin(), r->groups.end(), gid),
              r->groups.end());
    EXPECT_EQ(r->switches, geteuid() != uid);
  }
}

// Staying: root asked as root, or the user the process already is.
TEST(ResolveRunAsTest, TheUserItAlreadyIsIsNoSwitch) {
  const passwd* pw = getpwuid(geteuid());
  if (pw == nullptr) GTEST_SKIP() << "this uid has no name";
  absl::StatusOr<RunAs> r = ResolveRunAs(pw->pw_name);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->switches);
  EXPECT_EQ(r->uid, geteuid());
  EXPECT_EQ(r->name, pw->pw_name);
}

// No -Z: root becomes biosnoop, else nobody; any other user stays.
TEST(ResolveRunAsTest, TheDefault) {
  absl::StatusOr<RunAs> r = ResolveRunAs("");
  ASSERT_TRUE(r.ok()) << r.status();
  if (geteuid() != 0) {
    EXPECT_FALSE(r->switches);
    EXPECT_EQ(r->uid, geteuid());
    return;
  }
  const passwd* pw = getpwnam("biosnoop");
  if (pw == nullptr) pw = getpwnam("nobody");
  ASSERT_NE(pw, nullptr);
  EXPECT_TRUE(r->switches);
  EXPECT_EQ(r->name, pw->pw_name);
  EXPECT_EQ(r->uid, pw->pw_uid);
}

}  // namespace
}  // namespace biosnoop
