// The check on NVIDIA's driver (no AMD GPU exists here): every fatbin container a program's CUDA runtime hands
// the driver is looked up by its content digest (fatbin_digest.h, as `cassc translate` names it) among
// replacement containers, the translator's NVPTX lowering of the same IR it compiles for gfx1100
// (CASSC_NVPTX_DIR/<digest>.fatbin), and the replacement is what the driver loads. Shared by the check driver
// (libcuda_check.cpp) and cassc's libcuda built in front of NVIDIA's (shims/driver, CASSC_DRIVER_OVER_NVIDIA).
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "../runtime/fatbin_digest.h"

namespace cassc {

// NVIDIA's libcuda.so.1, opened once from CASSC_REAL_LIBCUDA; null (said once on stderr, prefixed by `who`)
// when it cannot be opened, so each entry point answers with the driver's own error instead of crashing.
inline void *nvidia_driver(const char *who) {
  static void *handle = [who] {
    const char *path = std::getenv("CASSC_REAL_LIBCUDA");
    void *opened = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!opened)
      std::fprintf(stderr, "%s: cannot open NVIDIA's driver (CASSC_REAL_LIBCUDA=%s): %s\n", who,
                   path ? path : "(unset)", path ? dlerror() : "set it to NVIDIA's libcuda.so.1");
    return opened;
  }();
  return handle;
}

// The replacement container for the container `image` is or points at, loaded once; null when there is none
// (a container without kernels, or one the translator did not translate: the driver gets the original).
// `log` records each container replaced or kept.
inline const unsigned char *replacement(const void *image, void (*log)(const char *, ...)) {
  const unsigned char *container = image ? fatbin_container(image) : nullptr;
  if (!container) return nullptr;
  const std::string digest = fatbin_digest(container);
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  static auto *loaded = new std::map<std::string, const unsigned char *>;
  auto found = loaded->find(digest);
  if (found != loaded->end()) return found->second;
  const char *directory = std::getenv("CASSC_NVPTX_DIR");
  std::string bytes;
  if (directory) {
    if (FILE *file = std::fopen((std::string(directory) + "/" + digest + ".fatbin").c_str(), "rb")) {
      char chunk[65536];
      for (size_t got; (got = std::fread(chunk, 1, sizeof chunk, file)) > 0;) bytes.append(chunk, got);
      std::fclose(file);
    }
  }
  unsigned char *copy = nullptr;
  if (!bytes.empty()) {
    copy = static_cast<unsigned char *>(std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64));
    std::memcpy(copy, bytes.data(), bytes.size());
  }
  log("%s %s", copy ? "replaced" : "kept", digest.c_str());
  return (*loaded)[digest] = copy;
}

// The image to hand the driver in place of `image`, of the same kind (a wrapper for a wrapper).
inline const void *substitute(const void *image, void (*log)(const char *, ...)) {
  const unsigned char *container = replacement(image, log);
  if (!container) return image;
  uint32_t magic;
  std::memcpy(&magic, image, 4);
  if (magic != FATBIN_WRAPPER_MAGIC) return container;
  auto *wrapper = new FatbinWrapper(*static_cast<const FatbinWrapper *>(image));
  wrapper->data = container;
  wrapper->unused = nullptr;  // no list of -rdc prelinked fatbins: the replacement is whole
  return wrapper;
}

}  // namespace cassc
