/* cassc: <curand_kernel.h> (and cuRAND's other device headers) -> hipRAND's device API, plus what it lacks.
 *
 * cuRAND's quasi-random device states are Sobol32, ScrambledSobol32, Sobol64 and ScrambledSobol64.
 * hipRAND before ROCm 6.0 (HIPRAND_VERSION 2.10.16) has only Sobol32; its rocRAND has the Sobol64 engine, so
 * cassc defines the other three under hipRAND 6's names (hipify renames cuRAND's to those): Sobol64 is
 * rocRAND's, and a scrambled state is its plain Sobol sequence XOR the scramble constant, as cuRAND defines
 * it (curand_init(..., scramble_c, ...): "x = scramble_c" before the first Gray-code step).
 *
 * On every hipRAND, cuRAND's curand(curandStateSobol64_t*) returns the whole 64-bit value, where
 * hipRAND's hiprand() is 32-bit for every state: the 64-bit states get overloads of their own, which as
 * non-templates win over hipRAND's template. */
#pragma once
#include <hiprand/hiprand_kernel.h>

#if !defined(HIPRAND_VERSION)
#include <hiprand/hiprand_version.h>
#endif

#if HIPRAND_VERSION < 201016
typedef unsigned long long hiprandDirectionVectors64_t[64];

struct hiprandStateSobol64 : public rocrand_state_sobol64 {
  typedef rocrand_state_sobol64 base;
};
typedef struct hiprandStateSobol64 hiprandStateSobol64_t;

struct hiprandStateScrambledSobol32 : public rocrand_state_sobol32 {
  typedef rocrand_state_sobol32 base;
  unsigned int scramble;
};
typedef struct hiprandStateScrambledSobol32 hiprandStateScrambledSobol32_t;

struct hiprandStateScrambledSobol64 : public rocrand_state_sobol64 {
  typedef rocrand_state_sobol64 base;
  unsigned long long scramble;
};
typedef struct hiprandStateScrambledSobol64 hiprandStateScrambledSobol64_t;

QUALIFIERS void hiprand_init(hiprandDirectionVectors64_t direction_vectors, unsigned long long offset,
                             hiprandStateSobol64_t* state) {
  rocrand_init(direction_vectors, offset, state);
}

QUALIFIERS void hiprand_init(hiprandDirectionVectors32_t direction_vectors, unsigned int scramble_c,
                             unsigned int offset, hiprandStateScrambledSobol32_t* state) {
  rocrand_init(direction_vectors, offset, static_cast<rocrand_state_sobol32*>(state));
  state->scramble = scramble_c;
}

QUALIFIERS void hiprand_init(hiprandDirectionVectors64_t direction_vectors, unsigned long long scramble_c,
                             unsigned long long offset, hiprandStateScrambledSobol64_t* state) {
  rocrand_init(direction_vectors, offset, static_cast<rocrand_state_sobol64*>(state));
  state->scramble = scramble_c;
}

QUALIFIERS unsigned int hiprand(hiprandStateScrambledSobol32_t* state) {
  return rocrand(static_cast<rocrand_state_sobol32*>(state)) ^ state->scramble;
}

QUALIFIERS unsigned long long hiprand_long_long(hiprandStateSobol64_t* state) {
  return rocrand(static_cast<rocrand_state_sobol64*>(state));
}

QUALIFIERS unsigned long long hiprand_long_long(hiprandStateScrambledSobol64_t* state) {
  return rocrand(static_cast<rocrand_state_sobol64*>(state)) ^ state->scramble;
}

/* The distributions, as rocRAND computes them from the state's raw value. */
#define CASSC_RAND_QUASI_DISTRIBUTIONS(State, next, uniform, normal)                                              \
  QUALIFIERS float hiprand_uniform(State* state) {                                                               \
    return uniform(next(state));                                                                                 \
  }                                                                                                              \
  QUALIFIERS double hiprand_uniform_double(State* state) {                                                       \
    return rocrand_device::detail::uniform_distribution_double(next(state));                                     \
  }                                                                                                              \
  QUALIFIERS float hiprand_normal(State* state) {                                                                \
    return normal(next(state));                                                                                  \
  }                                                                                                              \
  QUALIFIERS double hiprand_normal_double(State* state) {                                                        \
    return rocrand_device::detail::normal_distribution_double(next(state));                                      \
  }                                                                                                              \
  QUALIFIERS float hiprand_log_normal(State* state, float mean, float stddev) {                                  \
    return expf(mean + stddev * hiprand_normal(state));                                                          \
  }                                                                                                              \
  QUALIFIERS double hiprand_log_normal_double(State* state, double mean, double stddev) {                        \
    return exp(mean + stddev * hiprand_normal_double(state));                                                    \
  }                                                                                                              \
  QUALIFIERS void skipahead(unsigned long long n, State* state) {                                                \
    state->discard(n);                                                                                           \
  }

/* rocRAND's float from a 64-bit value is its double, rounded (rocrand_uniform/rocrand_normal of sobol64). */
#define CASSC_RAND_UNIFORM_OF_64(value) static_cast<float>(rocrand_device::detail::uniform_distribution_double(value))
#define CASSC_RAND_NORMAL_OF_64(value) static_cast<float>(rocrand_device::detail::normal_distribution_double(value))
CASSC_RAND_QUASI_DISTRIBUTIONS(hiprandStateSobol64_t, hiprand_long_long, CASSC_RAND_UNIFORM_OF_64,
                               CASSC_RAND_NORMAL_OF_64)
CASSC_RAND_QUASI_DISTRIBUTIONS(hiprandStateScrambledSobol64_t, hiprand_long_long, CASSC_RAND_UNIFORM_OF_64,
                               CASSC_RAND_NORMAL_OF_64)
CASSC_RAND_QUASI_DISTRIBUTIONS(hiprandStateScrambledSobol32_t, hiprand, rocrand_device::detail::uniform_distribution,
                               rocrand_device::detail::normal_distribution)
#undef CASSC_RAND_NORMAL_OF_64
#undef CASSC_RAND_UNIFORM_OF_64
#undef CASSC_RAND_QUASI_DISTRIBUTIONS
#endif

QUALIFIERS unsigned long long hiprand(hiprandStateSobol64_t* state) { return hiprand_long_long(state); }
QUALIFIERS unsigned long long hiprand(hiprandStateScrambledSobol64_t* state) { return hiprand_long_long(state); }
