#pragma once

// Debian's Abseil (20220623) ships no status macros; these are the ones
// the project needs.

#include <utility>

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

// ASSIGN_OR_RETURN(lhs, expr): `lhs = value of expr` (a StatusOr), or
// return its status when it holds an error.
//
// ASSIGN_OR_RETURN(lhs, expr, error): the same, but returns `error`, an
// expression in which `_` names the error status (a const absl::Status&),
// for a caller that adds to it:
//   ASSIGN_OR_RETURN(auto file, Open(path), WithExitCode(_, kExitCantCreate));
//
// Either declares a variable named after the line: one use per line.
#define ASSIGN_OR_RETURN(...)                                 \
  BIOSNOOP_PICK_3_(__VA_ARGS__, BIOSNOOP_ASSIGN_OR_RETURN_3_, \
                   BIOSNOOP_ASSIGN_OR_RETURN_2_, unused)      \
  (__VA_ARGS__)
#define BIOSNOOP_PICK_3_(a, b, c, name, ...) name
#define BIOSNOOP_ASSIGN_OR_RETURN_2_(lhs, expr) \
  BIOSNOOP_ASSIGN_OR_RETURN_3_(lhs, expr, _)
#define BIOSNOOP_ASSIGN_OR_RETURN_3_(lhs, expr, error) \
  BIOSNOOP_ASSIGN_OR_RETURN_IMPL_(                     \
      BIOSNOOP_CONCAT_(biosnoop_statusor_, __LINE__), lhs, expr, error)
#define BIOSNOOP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr, error) \
  auto tmp = (expr);                                           \
  if (!tmp.ok()) {                                             \
    const ::absl::Status& _ = tmp.status();                    \
    return (error);                                            \
  }                                                            \
  lhs = std::move(tmp).value()
