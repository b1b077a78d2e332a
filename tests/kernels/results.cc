#include "results.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace biosnoop::kernels {
namespace {

// j[a][b]... when each step is there and not null.
const nlohmann::json* Find(const nlohmann::json& j,
                           std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

template <typename T>
T ValueOr(const nlohmann::json& j, std::initializer_list<const char*> path,
          T fallback) {
  const nlohmann::json* v = Find(j, path);
  if (v == nullptr) return fallback;
  try {
    return v->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

// A number at `path`; nullopt when absent, null or not a number.
std::optional<int64_t> Number(const nlohmann::json& j,
                              std::initializer_list<const char*> path) {
  const nlohmann::json* v = Find(j, path);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<int64_t>();
}

void FillFiles(const nlohmann::json& files_array, IoEvent& e) {
  e.has_files = true;
  if (files_array.is_array() && !files_array.empty()) {
    const nlohmann::json* path = Find(files_array[0], {"path"});
    if (path != nullptr && path->is_string()) e.first_path = *path;
  }
}

}  // namespace

std::optional<std::string> ReadResult(const std::string& dir,
                                      const std::string& name) {
  std::ifstream in(dir + "/" + name, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<nlohmann::json> ParseJsonLines(const std::string& text,
                                           std::vector<std::string>* errors) {
  std::vector<nlohmann::json> records;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (line.empty()) continue;
    try {
      records.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      errors->push_back("line " + std::to_string(n) + ": " + e.what() + ": " +
                        line.substr(0, 200));
    }
  }
  return records;
}

std::vector<Dd> ManifestDds(const std::string& manifest,
                            const std::string& mode, const std::string& kind) {
  std::vector<Dd> dds;
  std::istringstream lines(manifest);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Dd dd;
    std::string k;
    if (!(fields >> dd.mode >> k) || dd.mode != mode || k != kind) continue;
    fields >> dd.pid >> dd.status >> dd.path;
    uint64_t sector;
    while (fields >> sector) dd.sectors.push_back(sector);
    dds.push_back(dd);
  }
  return dds;
}

std::vector<std::vector<std::string>> ManifestLines(const std::string& manifest,
                                                    const std::string& mode,
                                                    const std::string& kind) {
  std::vector<std::vector<std::string>> found;
  std::istringstream lines(manifest);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string m, k, field;
    if (!(fields >> m >> k) || m != mode || k != kind) continue;
    std::vector<std::string> rest;
    while (fields >> field) rest.push_back(field);
    found.push_back(std::move(rest));
  }
  return found;
}

std::vector<Dd> ManifestReads(const std::string& manifest,
                              const std::string& mode) {
  return ManifestDds(manifest, mode, "read");
}

std::vector<Dd> ManifestWrites(const std::string& manifest,
                               const std::string& mode) {
  return ManifestDds(manifest, mode, "write");
}

std::vector<std::string> ManifestSchedulers(const std::string& manifest,
                                            bool refused) {
  std::vector<std::string> names;
  std::istringstream lines(manifest);
  std::string line;
  const std::string want = refused ? "scheduler-refused" : "scheduler";
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string mode, kind, name;
    if (fields >> mode >> kind >> name && kind == want) names.push_back(name);
  }
  return names;
}

std::vector<IoEvent> EventsFromJsonLines(
    const std::vector<nlohmann::json>& records) {
  std::vector<IoEvent> events;
  for (const nlohmann::json& r : records) {
    if (ValueOr<std::string>(r, {"type"}, "") != "event") continue;
    IoEvent e;
    e.pid = ValueOr<int64_t>(r, {"pid"}, 0);
    e.comm = ValueOr<std::string>(r, {"comm"}, "");
    e.op = ValueOr<std::string>(r, {"op"}, "");
    e.disk = ValueOr<std::string>(r, {"disk"}, "");
    e.sector = ValueOr<uint64_t>(r, {"sector"}, 0);
    e.bytes = ValueOr<uint64_t>(r, {"bytes"}, 0);
    e.queue_us = Number(r, {"queue_us"});
    if (r.contains("files")) FillFiles(r["files"], e);
    e.raw = r;
    events.push_back(std::move(e));
  }
  return events;
}

std::vector<IoEvent> EventsFromEcs(const std::vector<nlohmann::json>& docs) {
  std::vector<IoEvent> events;
  for (const nlohmann::json& d : docs) {
    if (ValueOr<std::string>(d, {"event", "kind"}, "") != "event" ||
        ValueOr<std::string>(d, {"event", "action"}, "") != "io-completed") {
      continue;
    }
    IoEvent e;
    e.pid = ValueOr<int64_t>(d, {"process", "pid"}, 0);
    e.comm = ValueOr<std::string>(d, {"process", "name"}, "");
    e.op = ValueOr<std::string>(d, {"biosnoop", "op"}, "");
    e.disk = ValueOr<std::string>(d, {"biosnoop", "disk"}, "");
    e.sector = ValueOr<uint64_t>(d, {"biosnoop", "sector"}, 0);
    e.bytes = ValueOr<uint64_t>(d, {"biosnoop", "bytes"}, 0);
    e.queue_us = Number(d, {"biosnoop", "latency", "queue_us"});
    if (const nlohmann::json* files = Find(d, {"biosnoop", "files"})) {
      FillFiles(*files, e);
    }
    e.raw = d;
    events.push_back(std::move(e));
  }
  return events;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string CommandStdout(const std::string& command, int* status) {
  *status = -1;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int w = ::pclose(pipe);
  if (w != -1 && WIFEXITED(w)) *status = WEXITSTATUS(w);
  return out;
}

}  // namespace biosnoop::kernels
