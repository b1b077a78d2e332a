#pragma once

// Debian's Abseil (20220623) ships no status macros; these are the two the
// project needs.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define BIOSNOOP_CONCAT_INNER_(a, b) a##b
#define BIOSNOOP_CONCAT_(a, b) BIOSNOOP_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                            \
  do {                                                   \
    ::absl::Status biosnoop_status_ = (expr);            \
    if (!biosnoop_status_.ok()) return biosnoop_status_; \
  } while (0)

// `lhs = value of expr`, or return its status when it holds an error.
#define ASSIGN_OR_RETURN(lhs, expr)                                           \
  ASSIGN_OR_RETURN_IMPL_(BIOSNOOP_CONCAT_(biosnoop_statusor_, __LINE__), lhs, \
                         expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()
