#pragma once

// Helpers shared by the bioreport tests.

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bioreport_cli.h"

namespace biosnoop::report::test_util {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

inline std::string GoldenPath(const std::string& name) {
  return std::string(BIOREPORT_GOLDEN_DIR) + "/" + name;
}

// The lines of tests/golden/events.jsonl, without their '\n': a header,
// events 1..400 with a stats record after 150 (line 153, written 150), 300
// (line 306, written 300, lost 0) and 400 (line 408, written 400, lost 3,
// final), and summaries in between.
inline std::vector<std::string> GoldenLines() {
  std::vector<std::string> lines;
  std::istringstream in(ReadFile(GoldenPath("events.jsonl")));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// gzip (one member) of `data`.
inline std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs bioreport with `args` (argv[0] added), capturing both streams.
inline CliResult RunCli(const std::vector<std::string>& args) {
  std::vector<std::string> storage = {"bioreport"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  FILE* out = open_memstream(&out_buf, &out_len);
  FILE* err = open_memstream(&err_buf, &err_len);
  CliResult r;
  r.code =
      RunBioreport(static_cast<int>(storage.size()), argv.data(), out, err);
  std::fclose(out);
  std::fclose(err);
  r.out.assign(out_buf, out_len);
  r.err.assign(err_buf, err_len);
  std::free(out_buf);
  std::free(err_buf);
  return r;
}

// A fresh temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "bioreport-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace biosnoop::report::test_util
