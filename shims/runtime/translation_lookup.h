// Finding `cassc translate`'s output for a fatbin container handed over at run time, by the container's digest
// (fatbin_digest.h): <dir>/<digest>.kernels (a format line, then a line per kernel: name, CUDA parameter buffer
// size, offsets, sizes, bundle file) beside the bundles. <dir>: CASSC_TRANSLATED_DIR, else the cache's
// translated/ (CASSC_CACHE_DIR, else $XDG_CACHE_HOME/cassc or ~/.cache/cassc), as cassc translate writes it.
// Shared by the runtimes that are handed nvcc's fatbins: the shared libcudart (__cudaRegisterFatBinary) and
// cassc's libcuda (the loaders NVIDIA's static runtime calls).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fatbin_digest.h"

namespace cassc {

struct TranslatedKernel {
  std::string name;  // mangled device name
  unsigned param_size = 0;
  std::vector<unsigned> offsets, sizes;
  std::string bundle;  // file name in the translation directory
};

inline std::string translation_dir() {
  if (const char *chosen = std::getenv("CASSC_TRANSLATED_DIR")) return chosen;
  if (const char *cache = std::getenv("CASSC_CACHE_DIR")) return std::string(cache) + "/translated";
  if (const char *xdg = std::getenv("XDG_CACHE_HOME")) return std::string(xdg) + "/cassc/translated";
  const char *home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.cache/cassc/translated";
}

inline std::string read_whole_file(const std::string &path, bool *ok) {
  std::string bytes;
  FILE *file = std::fopen(path.c_str(), "rb");
  *ok = file != nullptr;
  if (!file) return bytes;
  char chunk[65536];
  for (size_t got; (got = std::fread(chunk, 1, sizeof chunk, file)) > 0;) bytes.append(chunk, got);
  std::fclose(file);
  return bytes;
}

inline std::vector<unsigned> comma_numbers(const std::string &text) {
  std::vector<unsigned> values;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start)
      values.push_back(static_cast<unsigned>(std::strtoul(text.substr(start, end - start).c_str(), nullptr, 10)));
    start = end + 1;
  }
  return values;
}

// The kernels of the translation of the container with digest `digest` in `directory`; false when there is none.
inline bool translated_kernels(const std::string &directory, const std::string &digest,
                               std::vector<TranslatedKernel> *kernels) {
  bool ok = false;
  std::string listing = read_whole_file(directory + "/" + digest + ".kernels", &ok);
  if (!ok) return false;
  size_t start = listing.find('\n') + 1;  // past the format line
  while (start > 0 && start < listing.size()) {
    size_t end = listing.find('\n', start);
    std::string line = listing.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? 0 : end + 1;
    std::vector<std::string> fields;
    for (size_t from = 0;;) {
      size_t tab = line.find('\t', from);
      fields.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
      if (tab == std::string::npos) break;
      from = tab + 1;
    }
    if (fields.size() != 5) continue;
    kernels->push_back(TranslatedKernel{fields[0], static_cast<unsigned>(std::strtoul(fields[1].c_str(), nullptr, 10)),
                                        comma_numbers(fields[2]), comma_numbers(fields[3]), fields[4]});
  }
  return true;
}

// The CUDA parameter buffer of one launch: each argument at its recorded offset. Padded: the code object's
// kernarg segment is the CUDA buffer rounded up (to 4 bytes).
struct ParameterBuffer {
  std::vector<char> bytes;
  size_t size;
  ParameterBuffer(unsigned param_size, unsigned count, const unsigned *offsets, const unsigned *sizes, void **args)
      : bytes((param_size + 15) / 16 * 16 + 16, 0), size((param_size + 3) / 4 * 4) {
    for (unsigned i = 0; i < count; ++i) std::memcpy(bytes.data() + offsets[i], args[i], sizes[i]);
  }
};

}  // namespace cassc
