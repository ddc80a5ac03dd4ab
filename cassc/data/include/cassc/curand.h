/* cassc: <curand.h> -> hipRAND, plus the cuRAND host API that hipRAND lacks. */
#pragma once
#include <hiprand/hiprand.h>

/* Generator ordering only chooses how cuRAND lays results out in memory; hipRAND has one layout,
 * which is what the pseudo-random defaults mean. Other orderings are reported as unsupported. */
typedef enum curandOrdering {
  CURAND_ORDERING_PSEUDO_BEST = 100,
  CURAND_ORDERING_PSEUDO_DEFAULT = 101,
  CURAND_ORDERING_PSEUDO_SEEDED = 102,
  CURAND_ORDERING_PSEUDO_LEGACY = 103,
  CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
  CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;

static inline hiprandStatus_t curandSetGeneratorOrdering(hiprandGenerator_t, curandOrdering_t order) {
  switch (order) {
    case CURAND_ORDERING_PSEUDO_BEST:
    case CURAND_ORDERING_PSEUDO_DEFAULT:
    case CURAND_ORDERING_PSEUDO_LEGACY:
    case CURAND_ORDERING_QUASI_DEFAULT:
      return HIPRAND_STATUS_SUCCESS;
    default:
      return HIPRAND_STATUS_NOT_IMPLEMENTED;
  }
}

/* Sobol direction vectors and scramble constants (cuRAND's host API for its quasi-random device states).
 * hipRAND before ROCm 6.0 (HIPRAND_VERSION 2.10.16) has neither the 64-bit vectors, the vector sets nor these
 * functions. Its rocRAND ships the Joe-Kuo vectors cuRAND's JOEKUO6 sets are (the same 20000 dimensions, checked
 * value for value against libcurand 10.4), as header tables of 35 MB: the two functions are defined once, in the
 * stand-in toolkit's libcassc_curand_legacy.a (shims/toolkit/curand_legacy.cpp), which `-lcurand` links, not in
 * every unit that includes <curand.h>. The scrambled sets and the scramble constants are cuRAND's own numbers,
 * which that rocRAND lacks: asking for them reports HIPRAND_STATUS_NOT_IMPLEMENTED rather than other numbers. */
#if !defined(HIPRAND_VERSION)
#include <hiprand/hiprand_version.h>
#endif
#if HIPRAND_VERSION < 201016
typedef unsigned int hiprandDirectionVectors32_t[32];
typedef unsigned long long hiprandDirectionVectors64_t[64];
typedef enum hiprandDirectionVectorSet {
  HIPRAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
  HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102,
  HIPRAND_DIRECTION_VECTORS_64_JOEKUO6 = 103,
  HIPRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104
} hiprandDirectionVectorSet_t;
#if defined(__cplusplus)
extern "C" {
#endif
hiprandStatus_t hiprandGetDirectionVectors32(hiprandDirectionVectors32_t** vectors, hiprandDirectionVectorSet_t set);
hiprandStatus_t hiprandGetDirectionVectors64(hiprandDirectionVectors64_t** vectors, hiprandDirectionVectorSet_t set);
#if defined(__cplusplus)
}
#endif
#endif

/* cuRAND hands the scramble constants out through a non-const pointer, hipRAND 6 through a const one. */
static inline hiprandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
#if HIPRAND_VERSION < 201016
  (void)constants;
  return HIPRAND_STATUS_NOT_IMPLEMENTED;
#else
  return hiprandGetScrambleConstants32((const unsigned int**)constants);
#endif
}

static inline hiprandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
#if HIPRAND_VERSION < 201016
  (void)constants;
  return HIPRAND_STATUS_NOT_IMPLEMENTED;
#else
  return hiprandGetScrambleConstants64((const unsigned long long**)constants);
#endif
}
