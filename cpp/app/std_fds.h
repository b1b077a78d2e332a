#pragma once

// The standard descriptors at start-up.
//
// A process started with stdin, stdout or stderr closed (`biosnoop >&-`,
// some supervisors) would hand that number to the next file it opens: the
// kernel BTF, a BPF map, the output file.  Text meant for stdout or stderr
// then goes into that file, or fails with a baffling error ("writing
// stdout: Invalid argument" into a BPF map).

namespace biosnoop {

struct ClosedStdFds {
  bool in = false;
  bool out = false;
  bool err = false;
};

// Points each closed descriptor of 0, 1, 2 at /dev/null (stdin read-only,
// the others write-only), so nothing opened later can take its number.
// Call first thing in main().  Returns which were closed: with stdout
// closed, output to "-" must be refused, not sent to /dev/null.
ClosedStdFds OccupyClosedStdFds();

}  // namespace biosnoop
