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
 * value for value against libcurand 10.4), as header tables read here in the host pass only; the scrambled sets and
 * the scramble constants are cuRAND's own numbers, which that rocRAND lacks: asking for them reports
 * HIPRAND_STATUS_NOT_IMPLEMENTED rather than other numbers. */
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
/* The device pass parses host code too but emits none of it: the tables (2.5 s of parsing) stay out of it. */
#if defined(__HIP_DEVICE_COMPILE__)
#define CASSC_SOBOL32_VECTORS ((const unsigned int*)0)
#define CASSC_SOBOL64_VECTORS ((const unsigned long long*)0)
#else
#include <rocrand/rocrand_sobol32_precomputed.h>
#include <rocrand/rocrand_sobol64_precomputed.h>
#define CASSC_SOBOL32_VECTORS h_sobol32_direction_vectors
#define CASSC_SOBOL64_VECTORS h_sobol64_direction_vectors
#endif

static inline hiprandStatus_t hiprandGetDirectionVectors32(hiprandDirectionVectors32_t** vectors,
                                                           hiprandDirectionVectorSet_t set) {
  if (set != HIPRAND_DIRECTION_VECTORS_32_JOEKUO6)
    return set == HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 ? HIPRAND_STATUS_NOT_IMPLEMENTED
                                                                  : HIPRAND_STATUS_OUT_OF_RANGE;
  *vectors = (hiprandDirectionVectors32_t*)CASSC_SOBOL32_VECTORS;
  return HIPRAND_STATUS_SUCCESS;
}

static inline hiprandStatus_t hiprandGetDirectionVectors64(hiprandDirectionVectors64_t** vectors,
                                                           hiprandDirectionVectorSet_t set) {
  if (set != HIPRAND_DIRECTION_VECTORS_64_JOEKUO6)
    return set == HIPRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 ? HIPRAND_STATUS_NOT_IMPLEMENTED
                                                                  : HIPRAND_STATUS_OUT_OF_RANGE;
  *vectors = (hiprandDirectionVectors64_t*)CASSC_SOBOL64_VECTORS;
  return HIPRAND_STATUS_SUCCESS;
}
#undef CASSC_SOBOL32_VECTORS
#undef CASSC_SOBOL64_VECTORS
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
