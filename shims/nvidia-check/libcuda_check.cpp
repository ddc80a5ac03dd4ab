// libcuda.so.1 for checking whole nvcc-built binaries on an NVIDIA GPU (no AMD GPU exists here): NVIDIA's
// driver does the work, but every fatbin container the program's CUDA runtime hands the driver is looked up by
// its content digest (fatbin_digest.h, as `cassc translate` names it) among replacement containers, the
// translator's NVPTX lowering of the same IR it compiles for gfx1100, and that replacement is loaded instead.
// The program then prints what its original prints only if the translation is right. It is the interception
// a libcuda over HIP needs (the same entry points, the same lookup), with NVIDIA's driver behind it.
//
// How CUDA's runtime reaches the driver (nvcc's default static cudart and the shared libcudart alike): it
// dlopens libcuda.so.1 and resolves every driver function through cuGetProcAddress(_v2), and loads the
// fatbins nvcc registered through a private export table (cuGetExportTable, ZLUDA's CUDART_INTERFACE:
// entries 1, 6 and 8 take the fatbin wrapper or the container); the public loaders (cuModuleLoadData[Ex],
// cuModuleLoadFatBinary, cuLibraryLoadData) are wrapped as well. Everything else is the real driver's.
//
// Environment: CASSC_REAL_LIBCUDA (NVIDIA's libcuda.so.1, by path), CASSC_NVPTX_DIR (<digest>.fatbin files),
// CASSC_CHECK_LOG (optional: a line per replaced or kept container, export table and driver name asked for).
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "replacement.h"

namespace {

using CUresult = int;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;

// ZLUDA's name for the table; its GUID's bytes as cuGetExportTable compares them.
constexpr unsigned char CUDART_INTERFACE[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                                0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
constexpr unsigned LOAD_FROM_WRAPPER = 1, LOAD_FROM_WRAPPER_EXT = 6, LOAD_FROM_CONTAINER_EXT = 8;

std::mutex lock;

void log_line(const char *format, ...) {
  const char *path = std::getenv("CASSC_CHECK_LOG");
  if (!path) return;
  FILE *file = std::fopen(path, "a");
  if (!file) return;
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(file, format, arguments);
  va_end(arguments);
  std::fputc('\n', file);
  std::fclose(file);
}

void *real_driver() { return cassc::nvidia_driver("cassc check"); }

void *real(const char *name) {
  void *driver = real_driver();
  return driver ? dlsym(driver, name) : nullptr;
}

const void *substitute(const void *image) { return cassc::substitute(image, log_line); }

using Fn = void *;
Fn interface_entries[16];  // the real CUDART_INTERFACE's entries that are wrapped

CUresult module_from_wrapper(void **module, const void *wrapper) {
  return reinterpret_cast<CUresult (*)(void **, const void *)>(interface_entries[LOAD_FROM_WRAPPER])(
      module, substitute(wrapper));
}
CUresult module_from_wrapper_ext(void **module, const void *wrapper, void *a, void *b, unsigned c) {
  return reinterpret_cast<CUresult (*)(void **, const void *, void *, void *, unsigned)>(
      interface_entries[LOAD_FROM_WRAPPER_EXT])(module, substitute(wrapper), a, b, c);
}
CUresult module_from_container_ext(const void *container, void **module, void *a, void *b, unsigned c) {
  return reinterpret_cast<CUresult (*)(const void *, void **, void *, void *, unsigned)>(
      interface_entries[LOAD_FROM_CONTAINER_EXT])(substitute(container), module, a, b, c);
}

// The public loaders, as cuGetProcAddress or the program's own link reaches them.
std::map<std::string, Fn> &real_loaders() {
  static auto *loaders = new std::map<std::string, Fn>;
  return *loaders;
}
Fn real_loader(const char *name) {
  std::lock_guard<std::mutex> guard(lock);
  auto &loaders = real_loaders();
  if (!loaders.count(name)) loaders[name] = real(name);
  return loaders[name];
}

// Tracing (CASSC_CHECK_TRACE, with CASSC_CHECK_LOG): which entries of the private export tables NVIDIA's
// runtime calls, the first time each is called, for the design of a libcuda over HIP. Every entry that
// points into executable code is replaced by a trampoline that logs "entry <guid> <index>" and jumps on; a
// table whose entry 0 is its size in bytes is traced past it, one without (context-local storage) over its
// first TRACED_UNSIZED entries. The integrity check's table is left alone (the runtime hashes its entry's
// address). Tracing replaces no container: it is a run of its own.
constexpr int TRACE_SLOTS = 256, TRACED_UNSIZED = 4;
constexpr unsigned char INTEGRITY_CHECK[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                               0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
struct TracedEntry {
  char guid[33];
  int index;
  void *target;
  bool logged;
};
TracedEntry traced[TRACE_SLOTS];
int traced_count = 0;

// The permissions ("r-xp"...) of the mapping that holds `address`; empty when none does.
std::string mapping_permissions(const void *address) {
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return "";
  unsigned long start, end, at = reinterpret_cast<unsigned long>(address);
  char permissions[5] = "";
  bool found = false;
  char line[512];
  while (!found && std::fgets(line, sizeof line, maps))
    found = std::sscanf(line, "%lx-%lx %4s", &start, &end, permissions) == 3 && start <= at && at < end;
  std::fclose(maps);
  return found ? permissions : "";
}

// `table[index] = value` where the driver keeps the table: NVIDIA's runtime hashes the tables' addresses into
// the integrity check it asks the driver for, so a copy of a table fails it ("integrity checks failed").
bool patch(const void **table, size_t index, const void *value) {
  std::string permissions = mapping_permissions(&table[index]);
  if (permissions.size() < 3) return false;
  int protection = (permissions[0] == 'r' ? PROT_READ : 0) | (permissions[1] == 'w' ? PROT_WRITE : 0) |
                   (permissions[2] == 'x' ? PROT_EXEC : 0);
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void *start = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(&table[index]) & ~(page - 1));
  if (mprotect(start, page, protection | PROT_WRITE) != 0) return false;
  table[index] = value;
  mprotect(start, page, protection);
  return true;
}

}  // namespace

extern "C" void *cassc_check_traced_call(int slot) {
  TracedEntry &entry = traced[slot];
  if (!entry.logged) {
    entry.logged = true;
    log_line("entry %s %d", entry.guid, entry.index);
  }
  return entry.target;
}

// One trampoline per slot (generated with the forwards, cassc/binary/nvidia_check.py): keeps the argument
// registers, calls cassc_check_traced_call(slot), jumps to what it returns.
extern "C" void *const cassc_trace_trampolines[];

namespace {

// The code entries of `table` traced, once.
void trace_table(const char *guid, const void **table) {
  std::lock_guard<std::mutex> guard(lock);
  static std::map<const void *, bool> seen;
  if (seen[table]) return;
  seen[table] = true;
  size_t size = reinterpret_cast<size_t>(table[0]);
  bool sized = size > 0 && size < 4096 && size % sizeof(void *) == 0;
  size_t count = sized ? size / sizeof(void *) : TRACED_UNSIZED;
  for (size_t i = sized ? 1 : 0; i < count && traced_count < TRACE_SLOTS; ++i) {
    if (!table[i] || mapping_permissions(table[i]).substr(2, 1) != "x") continue;
    TracedEntry &entry = traced[traced_count];
    std::memcpy(entry.guid, guid, 33);
    entry.index = static_cast<int>(i);
    entry.target = const_cast<void *>(table[i]);
    if (patch(table, i, cassc_trace_trampolines[traced_count])) ++traced_count;
  }
  log_line("table %s %s %zu", guid, sized ? "sized" : "unsized", count);
}

}  // namespace
extern "C" {

// For the forwarding trampolines (cassc/binary/nvidia_check.py generates them): NVIDIA's entry by name.
void *cassc_check_real(const char *name) { return real(name); }

CUresult cuModuleLoadData(void **module, const void *image) {
  auto *next = reinterpret_cast<CUresult (*)(void **, const void *)>(real_loader("cuModuleLoadData"));
  return next ? next(module, substitute(image)) : CUDA_ERROR_NOT_INITIALIZED;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count, void *options, void **values) {
  auto *next = reinterpret_cast<CUresult (*)(void **, const void *, unsigned, void *, void **)>(
      real_loader("cuModuleLoadDataEx"));
  return next ? next(module, substitute(image), count, options, values) : CUDA_ERROR_NOT_INITIALIZED;
}
CUresult cuModuleLoadFatBinary(void **module, const void *image) {
  auto *next = reinterpret_cast<CUresult (*)(void **, const void *)>(real_loader("cuModuleLoadFatBinary"));
  return next ? next(module, substitute(image)) : CUDA_ERROR_NOT_INITIALIZED;
}
CUresult cuLibraryLoadData(void **library, const void *code, void *jit_options, void **jit_values, unsigned jit_count,
                           void *library_options, void **library_values, unsigned library_count) {
  auto *next = reinterpret_cast<CUresult (*)(void **, const void *, void *, void **, unsigned, void *, void **,
                                             unsigned)>(real_loader("cuLibraryLoadData"));
  return next ? next(library, substitute(code), jit_options, jit_values, jit_count, library_options, library_values,
                     library_count)
              : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuGetExportTable(const void **table, const unsigned char *id) {
  auto *next = reinterpret_cast<CUresult (*)(const void **, const unsigned char *)>(real("cuGetExportTable"));
  if (!next) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult result = next(table, id);
  char guid[33];
  for (int i = 0; i < 16; ++i) std::snprintf(guid + 2 * i, 3, "%02x", id[i]);
  log_line("export-table %s %d", guid, result);
  if (result != 0) return result;
  auto **entries = const_cast<const void **>(static_cast<const void *const *>(*table));
  if (std::getenv("CASSC_CHECK_TRACE")) {
    if (std::memcmp(id, INTEGRITY_CHECK, 16) != 0) trace_table(guid, entries);
    return result;
  }
  if (std::memcmp(id, CUDART_INTERFACE, 16) != 0) return result;
  // The fatbin loaders wrapped, once; entry 0 is the table's size in bytes.
  std::lock_guard<std::mutex> guard(lock);
  static bool wrapped = false;
  size_t bytes = reinterpret_cast<size_t>(entries[0]);
  if (!wrapped && (bytes % sizeof(void *) != 0 || bytes / sizeof(void *) <= LOAD_FROM_CONTAINER_EXT)) {
    log_line("export-table %s: unexpected size %zu, not wrapped", guid, bytes);
    wrapped = true;
  }
  if (!wrapped) {
    wrapped = true;
    const std::pair<unsigned, const void *> wrappers[] = {
        {LOAD_FROM_WRAPPER, reinterpret_cast<const void *>(module_from_wrapper)},
        {LOAD_FROM_WRAPPER_EXT, reinterpret_cast<const void *>(module_from_wrapper_ext)},
        {LOAD_FROM_CONTAINER_EXT, reinterpret_cast<const void *>(module_from_container_ext)}};
    for (auto [entry, wrapper] : wrappers) {
      interface_entries[entry] = const_cast<void *>(entries[entry]);
      if (!patch(entries, entry, wrapper)) log_line("export-table %s: entry %u not wrapped", guid, entry);
    }
  }
  return result;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **function, int version, unsigned long long flags,
                             int *status);
CUresult cuGetProcAddress(const char *symbol, void **function, int version, unsigned long long flags);

}  // extern "C"

namespace {

// Our entry for a driver name the real driver resolved, where it is one of those wrapped.
void *ours(const char *symbol, void *resolved) {
  static const std::map<std::string, void *> wrapped = {
      {"cuGetExportTable", reinterpret_cast<void *>(cuGetExportTable)},
      {"cuModuleLoadData", reinterpret_cast<void *>(cuModuleLoadData)},
      {"cuModuleLoadDataEx", reinterpret_cast<void *>(cuModuleLoadDataEx)},
      {"cuModuleLoadFatBinary", reinterpret_cast<void *>(cuModuleLoadFatBinary)},
      {"cuLibraryLoadData", reinterpret_cast<void *>(cuLibraryLoadData)}};
  if (std::strcmp(symbol, "cuGetProcAddress") == 0)  // the driver's answer is its v1 or v2 entry, by version
    return resolved == real("cuGetProcAddress") ? reinterpret_cast<void *>(cuGetProcAddress)
                                                : reinterpret_cast<void *>(cuGetProcAddress_v2);
  auto found = wrapped.find(symbol);
  if (found == wrapped.end()) return resolved;
  {
    std::lock_guard<std::mutex> guard(lock);
    real_loaders()[symbol] = resolved;  // the version the program asked for
  }
  return found->second;
}

}  // namespace

extern "C" {

CUresult cuGetProcAddress_v2(const char *symbol, void **function, int version, unsigned long long flags,
                             int *status) {
  auto *next = reinterpret_cast<CUresult (*)(const char *, void **, int, unsigned long long, int *)>(
      real("cuGetProcAddress_v2"));
  if (!next) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult result = next(symbol, function, version, flags, status);
  log_line("proc %s %d %d", symbol, version, result);
  if (result == 0 && *function) *function = ours(symbol, *function);
  return result;
}

CUresult cuGetProcAddress(const char *symbol, void **function, int version, unsigned long long flags) {
  auto *next = reinterpret_cast<CUresult (*)(const char *, void **, int, unsigned long long)>(
      real("cuGetProcAddress"));
  if (!next) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult result = next(symbol, function, version, flags);
  log_line("proc %s %d %d", symbol, version, result);
  if (result == 0 && *function) *function = ours(symbol, *function);
  return result;
}

}  // extern "C"
