// What biosnoop makes of libbpf 1.1's messages about a program the kernel
// refused, in the words libbpf prints them (its format strings, filled as
// a 6.12 kernel's verifier answered the io_uring completion program built
// for 6.18).

#include "load_log.h"

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

TEST(LoadLog, NamesTheRefusedProgramAndTheVerifiersVerdict) {
  ResetLoadRefusal();
  NoteLibbpfMessage(
      "libbpf: prog 'handle_uring_complete': BPF program load failed: "
      "Permission denied\n");
  NoteLibbpfMessage(
      "libbpf: prog 'handle_uring_complete': -- BEGIN PROG LOAD LOG --\n"
      "reg type unsupported for arg#0 function handle_uring_complete#42\n"
      "0: R1=ctx(off=0,imm=0) R10=fp0\n"
      "; op_finish(st, cqe ? cqe->res : 0, bpf_ktime_get_ns(),\n"
      "17: (61) r1 = *(u32 *)(r7 +8)\n"
      "R7 invalid mem access 'scalar'\n"
      "processed 17 insns (limit 1000000) max_states_per_insn 0 "
      "total_states 1 peak_states 1 mark_read 1\n"
      "-- END PROG LOAD LOG --\n");
  NoteLibbpfMessage(
      "libbpf: prog 'handle_uring_complete': failed to load: -13\n");
  NoteLibbpfMessage("libbpf: failed to load object 'biosnoop_bpf'\n");
  const LoadRefusal r = LastLoadRefusal();
  EXPECT_EQ(r.program, "handle_uring_complete");
  EXPECT_EQ(r.verdict, "R7 invalid mem access 'scalar'");
}

TEST(LoadLog, ARefusalWithoutALogStillNamesTheProgram) {
  ResetLoadRefusal();
  NoteLibbpfMessage("libbpf: prog 'handle_sys_enter': failed to load: -22\n");
  EXPECT_EQ(LastLoadRefusal().program, "handle_sys_enter");
  EXPECT_EQ(LastLoadRefusal().verdict, "");
}

TEST(LoadLog, OtherMessagesNameNoProgramAndResetForgets) {
  ResetLoadRefusal();
  NoteLibbpfMessage("libbpf: failed to load object 'biosnoop_bpf'\n");
  NoteLibbpfMessage(
      "libbpf: extern (func ksym) 'bpf_rdonly_cast': not found in kernel or "
      "module BTFs\n");
  EXPECT_EQ(LastLoadRefusal().program, "");
  NoteLibbpfMessage("libbpf: prog 'handle_sys_enter': failed to load: -22\n");
  ResetLoadRefusal();
  EXPECT_EQ(LastLoadRefusal().program, "");
}

}  // namespace
}  // namespace biosnoop
