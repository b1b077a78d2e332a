#pragma once

// Clients that stall a server on purpose, on loopback, for the tests of the
// metrics endpoint (unit and privileged): what a hostile neighbour on the
// host can do to a port anyone may connect to.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace biosnoop::testing {

// A TCP connection to 127.0.0.1:port, made within `timeout_ms` (a full
// listen backlog makes connect() wait); -1 if not.  Blocking once made.
int ConnectLoopback(int port, int timeout_ms = 1000);

// Whether the server closed `fd` (EOF or reset), waiting at most
// `timeout_ms` for it.  Data the server sent is read and discarded.
bool ClosedByServer(int fd, int timeout_ms);

// `count` connections that each send the start of a GET and then one byte
// of a header line that never ends every `every`: per recv() they are
// never idle, and never finish a request.  One the server closes is
// counted in dropped() and replaced, from a thread of their own, so that
// `count` stay connected as far as the server lets them.
class Tricklers {
 public:
  Tricklers(int port, int count,
            std::chrono::milliseconds every = std::chrono::milliseconds(100));
  ~Tricklers();  // closes them all
  Tricklers(const Tricklers&) = delete;
  Tricklers& operator=(const Tricklers&) = delete;

  int connected() const { return connected_; }  // open now
  int made() const { return made_; }
  int dropped() const { return dropped_; }  // closed by the server
  // What the last connect() that failed said ("" while none failed).
  std::string last_error() const;

 private:
  void Run(int port, int count, std::chrono::milliseconds every);

  std::atomic<bool> stop_{false};
  std::atomic<int> connected_{0}, made_{0}, dropped_{0};
  std::atomic<int> last_errno_{0};
  std::thread thread_;
};

}  // namespace biosnoop::testing
