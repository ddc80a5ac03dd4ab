// The keyed hash NVIDIA's CUDA runtime asks the driver for through its private INTEGRITY_CHECK export table
// (entry 1) and verifies: HMAC (RFC 2104) over MD2 (RFC 1319, 16-byte blocks) with a fixed 16-byte key, of the
// caller's and driver's identity (below) and each device's UUID and PCI location. The runtime computes the same
// from what the driver API tells it, so the inputs must be what cassc's driver reports. The construction was
// re-derived by ZLUDA (its dark_api crate); this is cassc's own implementation of the standard algorithms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cassc {

// MD2's substitution table (RFC 1319, 3.2: a permutation built from the digits of pi).
constexpr unsigned char MD2_S[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
    115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
    138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
    121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
    53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
    170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
    100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
    97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
    44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
    80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20};

class Md2 {
 public:
  void update(const void *data, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      unsigned char byte = static_cast<const unsigned char *>(data)[i];
      block_[count_] = byte;
      checksum_[count_] ^= MD2_S[byte ^ last_];
      last_ = checksum_[count_];
      if (++count_ == 16) compress();
    }
  }
  void finish(unsigned char digest[16]) {
    unsigned char padding[16];
    const unsigned char pad = static_cast<unsigned char>(16 - count_);
    std::memset(padding, pad, pad);
    update(padding, pad);
    unsigned char checksum[16];
    std::memcpy(checksum, checksum_, 16);
    update(checksum, 16);
    std::memcpy(digest, state_, 16);
  }

 private:
  void compress() {
    unsigned char x[48];
    for (int i = 0; i < 16; ++i) x[i] = state_[i], x[16 + i] = block_[i], x[32 + i] = state_[i] ^ block_[i];
    unsigned t = 0;
    for (int round = 0; round < 18; ++round) {
      for (unsigned char &byte : x) t = byte ^= MD2_S[t];
      t = (t + round) & 0xff;
    }
    std::memcpy(state_, x, 16);
    count_ = 0;
  }
  unsigned char state_[16] = {}, block_[16] = {}, checksum_[16] = {};
  unsigned char last_ = 0;
  unsigned count_ = 0;
};

// What the runtime and the driver both hash, in this order and layout.
struct IntegrityIdentity {
  uint32_t driver_version, runtime_version, process, thread;
  const void *runtime_table;    // the CUDART_INTERFACE table's address
  const void *integrity_table;  // the INTEGRITY_CHECK table's address
  const void *integrity_entry;  // the address of the function answering
  uint64_t unix_seconds;
};
static_assert(sizeof(IntegrityIdentity) == 48, "the hashed layout has no padding");

struct IntegrityDevice {
  unsigned char uuid[16];
  int32_t pci_domain, pci_bus, pci_device;
};
static_assert(sizeof(IntegrityDevice) == 28, "the hashed layout has no padding");

constexpr unsigned char INTEGRITY_KEY[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                             0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};

// HMAC-MD2 of the identity and the devices under INTEGRITY_KEY. Runtimes whose version ends in 0 or 1 expect a
// constant instead.
inline void integrity_hash(const IntegrityIdentity &identity, const IntegrityDevice *devices, int device_count,
                           uint64_t result[2]) {
  if (identity.runtime_version % 10 == 0 || identity.runtime_version % 10 == 1) {
    result[0] = identity.runtime_version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
    result[1] = 0x8ED383AA1F4CD1E8ull;
    return;
  }
  unsigned char inner_key[16], outer_key[16], inner[16], outer[16];
  for (int i = 0; i < 16; ++i) inner_key[i] = INTEGRITY_KEY[i] ^ 0x36, outer_key[i] = INTEGRITY_KEY[i] ^ 0x5c;
  Md2 hash;
  hash.update(inner_key, 16);
  hash.update(&identity, sizeof identity);
  for (int i = 0; i < device_count; ++i) hash.update(&devices[i], sizeof devices[i]);
  hash.finish(inner);
  Md2 second;
  second.update(outer_key, 16);
  second.update(inner, 16);
  second.finish(outer);
  std::memcpy(result, outer, 16);
}

}  // namespace cassc
