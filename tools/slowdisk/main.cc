// slowdisk: a FUSE-served disk image whose latency and errors a test (or a
// shell) sets, for a loop device that behaves like a slow or failing disk.
// main() parses the flags, mounts, runs the FUSE loop until a signal, and
// unmounts; the file system itself is in fuse_fs.cc.

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli.h"
#include "delay_queue.h"
#include "disk.h"
#include "fuse_fs.h"
#include "loop_cleanup.h"

namespace biosnoop::slowdisk {
namespace {

int Serve(const CliOptions& options) {
  struct stat st;
  char* real = realpath(options.mountpoint.c_str(), nullptr);
  if (real == nullptr || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    free(real);
    absl::FPrintF(stderr, "slowdisk: %s: not a directory\n",
                  options.mountpoint);
    return kExitUsage;
  }
  // As sysfs names a loop device's backing file.
  const std::string image_path = absl::StrCat(real, "/", kImageName);
  free(real);
  absl::StatusOr<std::unique_ptr<Disk>> disk =
      Disk::Create(options.size_mib << 20, options.settings);
  if (!disk.ok()) {
    absl::FPrintF(stderr, "slowdisk: %s\n", disk.status().message());
    return kExitUnavailable;
  }
  // Declared before the session so that it outlives it: parked requests
  // must be answered (Shutdown) before the session goes away.
  DelayQueue queue;
  FsContext ctx{disk->get(), &queue};

  std::vector<std::string> args = {"slowdisk", "-o",
                                   "fsname=slowdisk,subtype=slowdisk"};
  if (options.debug) args.push_back("-d");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  fuse_args fargs = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  fuse_session* se =
      fuse_session_new(&fargs, &SlowDiskOps(), sizeof(fuse_lowlevel_ops), &ctx);
  if (se == nullptr) {
    std::fputs("slowdisk: cannot create the FUSE session\n", stderr);
    return kExitSoftware;
  }
  if (fuse_set_signal_handlers(se) != 0) {
    fuse_session_destroy(se);
    std::fputs("slowdisk: cannot install signal handlers\n", stderr);
    return kExitSoftware;
  }
  if (fuse_session_mount(se, options.mountpoint.c_str()) != 0) {
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    absl::FPrintF(stderr,
                  "slowdisk: cannot mount on %s (needs /dev/fuse and root "
                  "or fusermount3)\n",
                  options.mountpoint);
    return kExitUnavailable;
  }
  absl::FPrintF(stderr, "slowdisk: serving %s/%s (%d bytes)\n",
                options.mountpoint, kImageName, (*disk)->size());

  // Delayed requests wait in the DelayQueue, not in a worker, so the
  // threads only need to cover request parsing and inline replies.
  fuse_loop_config* config = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(config, options.threads);
  fuse_loop_cfg_set_idle_threads(config, options.threads);
  int rc = fuse_session_loop_mt(se, config);
  fuse_loop_cfg_destroy(config);

  queue.Shutdown();
  // Found before unmounting, while the path still names our file; detached
  // after the session is destroyed, which aborts the FUSE connection so
  // their queued I/O fails at once instead of waiting for us forever.
  std::vector<std::string> stale = LoopDevicesBackedBy(image_path);
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  for (const std::string& device : stale) {
    absl::Status detached = DetachLoopDevice(device);
    absl::FPrintF(stderr, "slowdisk: %s was still on %s: %s\n", device,
                  image_path, detached.ok() ? "detached" : detached.message());
  }
  if (rc < 0) {
    absl::FPrintF(stderr, "slowdisk: FUSE loop failed: %s\n", strerror(-rc));
    return kExitSoftware;
  }
  std::fputs("slowdisk: unmounted\n", stderr);
  return kExitOk;
}

}  // namespace
}  // namespace biosnoop::slowdisk

int main(int argc, char** argv) {
  namespace sd = biosnoop::slowdisk;
  absl::StatusOr<sd::CliOptions> options = sd::ParseCli(argc, argv);
  if (!options.ok()) {
    absl::FPrintF(stderr, "slowdisk: %s\n", options.status().message());
    return sd::kExitUsage;
  }
  if (options->help) {
    std::fputs(sd::UsageText(), stdout);
    return sd::kExitOk;
  }
  return sd::Serve(*options);
}
