// cuRAND's Sobol direction vectors where hipRAND lacks them (before ROCm 6.0): rocRAND's Joe-Kuo tables, the
// vectors cuRAND's JOEKUO6 sets are. The tables are 35 MB of header text, so they are compiled here once, into
// the stand-in toolkit's lib64/libcassc_curand_legacy.a, which lib64/libcurand.so names together with hipRAND;
// data/include/cassc/curand.h declares the two functions. Compiles to nothing where hipRAND has them.
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_version.h>

#if HIPRAND_VERSION < 201016
#include <rocrand/rocrand_sobol32_precomputed.h>
#include <rocrand/rocrand_sobol64_precomputed.h>

enum { JOEKUO6_32 = 101, SCRAMBLED_JOEKUO6_32 = 102, JOEKUO6_64 = 103, SCRAMBLED_JOEKUO6_64 = 104 };

extern "C" {
hiprandStatus_t hiprandGetDirectionVectors32(unsigned int (**vectors)[32], int set) {
  if (set != JOEKUO6_32) return set == SCRAMBLED_JOEKUO6_32 ? HIPRAND_STATUS_NOT_IMPLEMENTED : HIPRAND_STATUS_OUT_OF_RANGE;
  *vectors = (unsigned int (*)[32])h_sobol32_direction_vectors;
  return HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandGetDirectionVectors64(unsigned long long (**vectors)[64], int set) {
  if (set != JOEKUO6_64) return set == SCRAMBLED_JOEKUO6_64 ? HIPRAND_STATUS_NOT_IMPLEMENTED : HIPRAND_STATUS_OUT_OF_RANGE;
  *vectors = (unsigned long long (*)[64])h_sobol64_direction_vectors;
  return HIPRAND_STATUS_SUCCESS;
}
}
#endif
