#pragma once

// The generated skeleton (bpftool gen skeleton), preceded by the ABI
// header whose types its maps and globals name: the generated header does
// not include it itself.  Include this, never biosnoop.skel.h directly.

// clang-format off
#include "biosnoop_abi.h"
#include "biosnoop.skel.h"
// clang-format on
