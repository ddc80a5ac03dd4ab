// Naming a fatbin container by its content, as `cassc translate` does (cassc/binary/linked.py): the SHA-256 of
// the container's bytes (its header and entries). Shared by the runtimes that are handed nvcc's fatbins at
// run time: the shared libcudart (__cudaRegisterFatBinary) and the driver-level check interposer
// (shims/nvidia-check), so both find the same translation for the same container.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cassc {

constexpr uint32_t FATBIN_WRAPPER_MAGIC = 0x466243B1u;  // nvcc's __fatBinC_Wrapper_t
constexpr uint32_t FATBIN_CONTAINER_MAGIC = 0xBA55ED50u;

// nvcc's fatbin wrapper (__fatBinC_Wrapper_t), which registration and CUDA's module loaders are handed.
struct FatbinWrapper {
  int magic, version;
  const unsigned char *data;
  void *unused;
};

inline std::string sha256_hex(const unsigned char *data, size_t size) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::vector<unsigned char> message(data, data + size);
  message.push_back(0x80);
  while (message.size() % 64 != 56) message.push_back(0);
  for (int shift = 56; shift >= 0; shift -= 8)
    message.push_back(static_cast<unsigned char>((uint64_t(size) * 8) >> shift));
  auto rotate = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t block = 0; block < message.size(); block += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t(message[block + 4 * i]) << 24 | uint32_t(message[block + 4 * i + 1]) << 16 |
             uint32_t(message[block + 4 * i + 2]) << 8 | message[block + 4 * i + 3];
    for (int i = 16; i < 64; ++i)
      w[i] = w[i - 16] + (rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
             (rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10));
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], x = h[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t t1 = x + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      uint32_t t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      x = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += x;
  }
  char hex[65];
  for (int i = 0; i < 8; ++i) std::snprintf(hex + 8 * i, 9, "%08x", h[i]);
  return std::string(hex, 64);
}

// The container `image` is or points at: a wrapper's data, or the container itself; null for anything else
// (a cubin, PTX text).
inline const unsigned char *fatbin_container(const void *image) {
  uint32_t magic;
  std::memcpy(&magic, image, 4);
  if (magic == FATBIN_WRAPPER_MAGIC) return static_cast<const FatbinWrapper *>(image)->data;
  return magic == FATBIN_CONTAINER_MAGIC ? static_cast<const unsigned char *>(image) : nullptr;
}

inline size_t fatbin_size(const unsigned char *container) {
  uint16_t header_size;
  uint64_t entries_size;
  std::memcpy(&header_size, container + 6, 2);
  std::memcpy(&entries_size, container + 8, 8);
  return header_size + entries_size;
}

inline std::string fatbin_digest(const unsigned char *container) {
  return sha256_hex(container, fatbin_size(container));
}

}  // namespace cassc
