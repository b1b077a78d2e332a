// ReadKernelFeatures() and AdaptToKernel() on BTF built here with libbpf's
// writer, shaped as each kernel's is: the typedefs of the tracepoints
// (btf_trace_<name>, a pointer to the probe's prototype) and the kfunc, as
// Debian 12's 6.1, 6.12 and this machine's 6.18 declare them.

#include "kernel_features.h"

#include <bpf/btf.h>

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probe_config.h"

namespace biosnoop {
namespace {

struct BtfFree {
  void operator()(struct btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfFree>;

// A kernel's BTF with the types a tracepoint's typedef refers to.
class FakeKernel {
 public:
  FakeKernel() : btf_(btf__new_empty()) {
    u64_ = btf__add_int(btf_.get(), "unsigned long long", 8, 0);
    int_ = btf__add_int(btf_.get(), "int", 4, BTF_INT_SIGNED);
    const int voidp = btf__add_ptr(btf_.get(), 0);
    void_ptr_ = voidp;
    u64_typedef_ = btf__add_typedef(btf_.get(), "u64", u64_);
    const int rq = btf__add_struct(btf_.get(), "request", 0);
    rq_ptr_ = btf__add_ptr(btf_.get(), rq);
    const int cqe = btf__add_struct(btf_.get(), "io_uring_cqe", 0);
    cqe_ptr_ = btf__add_ptr(btf_.get(), cqe);
  }

  // btf_trace_<name>: void (*)(void *, args...).
  FakeKernel& Tracepoint(const char* name, const std::vector<int>& args) {
    const int proto = btf__add_func_proto(btf_.get(), 0);
    btf__add_func_param(btf_.get(), "", void_ptr_);
    for (int a : args) btf__add_func_param(btf_.get(), "", a);
    const int ptr = btf__add_ptr(btf_.get(), proto);
    btf__add_typedef(btf_.get(), (std::string("btf_trace_") + name).c_str(),
                     ptr);
    return *this;
  }
  FakeKernel& BlockRq(bool io_start) {
    for (const char* tp :
         {"block_rq_issue", "block_rq_complete", "block_rq_insert",
          "block_rq_requeue", "block_rq_merge"}) {
      Tracepoint(tp, {rq_ptr_});
    }
    if (io_start) Tracepoint("block_io_start", {rq_ptr_});
    return *this;
  }
  FakeKernel& Kfunc(const char* name) {
    const int proto = btf__add_func_proto(btf_.get(), void_ptr_);
    btf__add_func(btf_.get(), name, BTF_FUNC_GLOBAL, proto);
    return *this;
  }
  // io_uring_complete before 6.13: (ctx, req, user_data, res, cflags,
  // extra1, extra2); since: (ctx, req, cqe).
  FakeKernel& UringCompleteFields() {
    return Tracepoint("io_uring_complete",
                      {void_ptr_, void_ptr_, u64_typedef_, int_, int_,
                       u64_typedef_, u64_typedef_});
  }
  FakeKernel& UringCompleteCqe() {
    return Tracepoint("io_uring_complete", {void_ptr_, void_ptr_, cqe_ptr_});
  }
  FakeKernel& Syscalls() {
    Tracepoint("sys_enter", {void_ptr_, u64_});
    return Tracepoint("sys_exit", {void_ptr_, u64_});
  }
  int req() const { return rq_ptr_; }  // any pointer argument
  const struct btf* btf() const { return btf_.get(); }

 private:
  BtfPtr btf_;
  int u64_ = 0, int_ = 0, void_ptr_ = 0, u64_typedef_ = 0, rq_ptr_ = 0,
      cqe_ptr_ = 0;
};

// Debian 12's 6.1 (linux-image-6.1.0-56-cloud-amd64): no block_io_start,
// no bpf_rdonly_cast, io_uring_submit_sqe, io_uring_complete by fields.
FakeKernel Debian61() {
  FakeKernel k;
  k.BlockRq(false).Syscalls().UringCompleteFields();
  k.Tracepoint("io_uring_submit_sqe", {k.req(), k.req()});
  k.Tracepoint("writeback_dirty_folio", {k.req(), k.req()});
  return k;
}

// Debian 12's 6.12 backport: block_io_start, the kfunc, _submit_req, and
// io_uring_complete still by fields.
FakeKernel Debian612() {
  FakeKernel k;
  k.BlockRq(true).Syscalls().UringCompleteFields().Kfunc("bpf_rdonly_cast");
  k.Tracepoint("io_uring_submit_req", {k.req()});
  k.Tracepoint("writeback_dirty_folio", {k.req(), k.req()});
  return k;
}

// 6.18: as 6.12, and io_uring_complete passes the CQE.
FakeKernel Linux618() {
  FakeKernel k;
  k.BlockRq(true).Syscalls().UringCompleteCqe().Kfunc("bpf_rdonly_cast");
  k.Tracepoint("io_uring_submit_req", {k.req()});
  k.Tracepoint("writeback_dirty_folio", {k.req(), k.req()});
  return k;
}

std::vector<std::string> Names(const std::vector<KernelLack>& lacks) {
  std::vector<std::string> names;
  for (const KernelLack& l : lacks) names.push_back(l.name);
  return names;
}

ProbeConfig OpsConfig() {
  ProbeConfig c;
  c.ops = true;
  c.ledger_entries = 65536;
  return c;
}

TEST(KernelFeatures, Debian61) {
  const KernelFeatures f = ReadKernelFeatures(Debian61().btf());
  EXPECT_TRUE(f.block_rq);
  EXPECT_FALSE(f.block_io_start);
  EXPECT_TRUE(f.block_rq_insert);
  EXPECT_FALSE(f.rdonly_cast);
  EXPECT_TRUE(f.syscalls);
  EXPECT_EQ(f.uring_submit, "io_uring_submit_sqe");
  EXPECT_TRUE(f.uring_complete);
  EXPECT_FALSE(f.uring_complete_cqe);
  EXPECT_TRUE(f.writeback_dirty_folio);

  ProbeConfig c = OpsConfig();
  const std::vector<KernelLack> lacks = AdaptToKernel(f, &c);
  // io_uring is followed there (the _sqe program needs no kfunc).
  EXPECT_EQ(Names(lacks),
            (std::vector<std::string>{"block_io_start", "bpf_rdonly_cast"}));
  EXPECT_TRUE(c.ops);
  EXPECT_EQ(c.ledger_entries, 65536u);
  for (const KernelLack& l : lacks) EXPECT_FALSE(l.effect.empty()) << l.name;
}

TEST(KernelFeatures, Debian612FollowsEverythingWithTheOlderCompletion) {
  const KernelFeatures f = ReadKernelFeatures(Debian612().btf());
  EXPECT_TRUE(f.block_io_start);
  EXPECT_TRUE(f.rdonly_cast);
  EXPECT_EQ(f.uring_submit, "io_uring_submit_req");
  EXPECT_TRUE(f.uring_complete);
  EXPECT_FALSE(f.uring_complete_cqe);
  ProbeConfig c = OpsConfig();
  EXPECT_TRUE(AdaptToKernel(f, &c).empty());
}

TEST(KernelFeatures, Linux618LacksNothing) {
  const KernelFeatures f = ReadKernelFeatures(Linux618().btf());
  EXPECT_TRUE(f.uring_complete_cqe);
  ProbeConfig c = OpsConfig();
  EXPECT_TRUE(AdaptToKernel(f, &c).empty());
  EXPECT_TRUE(c.ops);
}

TEST(KernelFeatures, WhatCannotRunIsSwitchedOffNotFailed) {
  FakeKernel k;
  k.BlockRq(true).Kfunc("bpf_rdonly_cast");  // no syscalls, io_uring, ledger
  const KernelFeatures f = ReadKernelFeatures(k.btf());
  EXPECT_FALSE(f.syscalls);
  EXPECT_TRUE(f.uring_submit.empty());
  EXPECT_FALSE(f.uring_complete);
  EXPECT_FALSE(f.writeback_dirty_folio);
  ProbeConfig c = OpsConfig();
  const std::vector<KernelLack> lacks = AdaptToKernel(f, &c);
  EXPECT_EQ(Names(lacks),
            (std::vector<std::string>{"sys_enter", "writeback_dirty_folio"}));
  EXPECT_FALSE(c.ops);
  EXPECT_EQ(c.ledger_entries, 0u);
}

TEST(KernelFeatures, WithoutOpsIoUringIsNotMentioned) {
  FakeKernel k;
  k.BlockRq(true).Syscalls().Kfunc("bpf_rdonly_cast");
  ProbeConfig c;  // no --ops, no ledger
  EXPECT_TRUE(AdaptToKernel(ReadKernelFeatures(k.btf()), &c).empty());
  c = OpsConfig();
  k.Tracepoint("writeback_dirty_folio", {k.req(), k.req()});
  EXPECT_EQ(Names(AdaptToKernel(ReadKernelFeatures(k.btf()), &c)),
            std::vector<std::string>{"io_uring"});
  EXPECT_TRUE(c.ops);  // the rest of --ops runs
}

TEST(KernelFeatures, NoBlockTracepointsIsNoBlockRq) {
  FakeKernel k;
  k.Syscalls();
  EXPECT_FALSE(ReadKernelFeatures(k.btf()).block_rq);
}

}  // namespace
}  // namespace biosnoop
