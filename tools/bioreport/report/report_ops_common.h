#pragma once

// What the calls report (report_ops.cc) and the one-call report
// (report_op_id.cc) share.  Internal to report/.

#include <cstdint>
#include <string>
#include <vector>

#include "report.h"

namespace biosnoop::report {

// A duration in us as the tables show it: us, or ms with one decimal.
std::string Us(uint64_t us, bool ms);
// "ms" or "us".
const char* Unit(bool ms);
// Whether the input holds more than one host.
bool MultiHost(const ReportInput& in);
// `cells` with the host's name first when `multi`.
std::vector<std::string> Cells(bool multi, const std::string& host,
                               std::vector<std::string> cells);
// Inputs, records, op records and the runs' --op-min-us; the span.
std::string Heading(const ReportInput& in);
// The call's error as the tables show it: "-", its name, or "errno N".
std::string ErrorName(const v1::Op& op);
// One call as the JSON forms give it: its times, run, task, file, bytes,
// error and every layer (op_layer_json.h), culprits included.
void AppendCallJson(const OpCall& c, std::string* out);

}  // namespace biosnoop::report
