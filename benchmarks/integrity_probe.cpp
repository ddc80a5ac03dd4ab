// Run on an NVIDIA GPU by benchmarks/whole_binary.py's device script: what NVIDIA's driver answers to the private
// export tables NVIDIA's runtime asks for, beside cassc's answers (shims/driver). For each table: the driver's
// answer and its first entries (entry 0 is a size in bytes where the table has one). For the integrity check: the
// driver's keyed hash of this process, thread, its tables, a time and its devices, and cassc's integrity_hash of
// the same inputs; the two must be equal for NVIDIA's runtime to accept cassc's driver.
//
//   g++ -std=c++17 -I shims/driver benchmarks/integrity_probe.cpp -o probe -ldl -lpthread; ./probe libcuda.so.1
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "integrity_hash.h"

using Result = int;

int main(int argc, char **argv) {
  void *driver = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
  if (!driver) {
    std::printf("no driver: %s\n", dlerror());
    return 1;
  }
  auto init = reinterpret_cast<Result (*)(unsigned)>(dlsym(driver, "cuInit"));
  auto version = reinterpret_cast<Result (*)(int *)>(dlsym(driver, "cuDriverGetVersion"));
  auto count = reinterpret_cast<Result (*)(int *)>(dlsym(driver, "cuDeviceGetCount"));
  auto uuid = reinterpret_cast<Result (*)(unsigned char *, int)>(dlsym(driver, "cuDeviceGetUuid_v2"));
  auto attribute = reinterpret_cast<Result (*)(int *, int, int)>(dlsym(driver, "cuDeviceGetAttribute"));
  auto table = reinterpret_cast<Result (*)(const void **, const unsigned char *)>(dlsym(driver, "cuGetExportTable"));
  if (!init || !version || !count || !uuid || !attribute || !table) {
    std::printf("not a CUDA driver: %s\n", argc > 1 ? argv[1] : "libcuda.so.1");
    return 1;
  }
  std::printf("cuInit %d\n", init(0));
  int driver_version = 0, devices = 0;
  version(&driver_version);
  count(&devices);
  std::printf("driver %d devices %d\n", driver_version, devices);
  const unsigned char ids[7][16] = {
      {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
      {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
      {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
      {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
      {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
      {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2},
      {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9}};
  const void *const *tables[7] = {};
  for (int t = 0; t < 7; ++t) {
    const void *found = nullptr;
    Result result = table(&found, ids[t]);
    tables[t] = static_cast<const void *const *>(found);
    std::printf("table ");
    for (int i = 0; i < 16; ++i) std::printf("%02x", ids[t][i]);
    std::printf(" %d:", result);
    const uintptr_t size = result == 0 ? reinterpret_cast<uintptr_t>(tables[t][0]) : 0;
    const uintptr_t shown = size > 0 && size < 4096 && size % sizeof(void *) == 0 ? size / sizeof(void *) : 4;
    for (uintptr_t i = 0; result == 0 && i < shown && i < 16; ++i) std::printf(" %p", tables[t][i]);
    std::printf("\n");
  }
  std::vector<cassc::IntegrityDevice> identities(devices);
  for (int d = 0; d < devices; ++d) {
    uuid(identities[d].uuid, d);
    attribute(&identities[d].pci_domain, 50, d);
    attribute(&identities[d].pci_bus, 33, d);
    attribute(&identities[d].pci_device, 34, d);
  }
  if (!tables[5]) return 1;
  auto check = reinterpret_cast<Result (*)(uint32_t, uint64_t, uint64_t *)>(const_cast<void *>(tables[5][1]));
  int same = 0, tried = 0;
  for (uint32_t runtime : {12082u, 12092u, 13002u, 13000u, 12091u}) {
    const uint64_t seconds = static_cast<uint64_t>(time(nullptr));
    uint64_t theirs[2] = {}, ours[2] = {};
    Result result = check(runtime, seconds, theirs);
    const cassc::IntegrityIdentity identity{static_cast<uint32_t>(driver_version), runtime,
                                            static_cast<uint32_t>(getpid()), static_cast<uint32_t>(pthread_self()),
                                            tables[0], tables[5], tables[5][1], seconds};
    cassc::integrity_hash(identity, identities.data(), devices, ours);
    ++tried;
    same += result == 0 && ours[0] == theirs[0] && ours[1] == theirs[1];
    std::printf("integrity %u: driver %d %016llx%016llx cassc %016llx%016llx\n", runtime, result,
                static_cast<unsigned long long>(theirs[0]), static_cast<unsigned long long>(theirs[1]),
                static_cast<unsigned long long>(ours[0]), static_cast<unsigned long long>(ours[1]));
  }
  std::printf("integrity hashes equal: %d of %d\n", same, tried);
  return same == tried ? 0 : 2;
}
