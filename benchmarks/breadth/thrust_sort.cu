// Thrust (CUB underneath): sequence, sort with a comparator, two reductions.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <cstdio>
int main() {
  thrust::device_vector<int> v(1000);
  thrust::sequence(v.begin(), v.end(), 0);
  thrust::sort(v.begin(), v.end(), thrust::greater<int>());
  long long s = thrust::reduce(v.begin(), v.end(), 0LL);
  float f = thrust::reduce(v.begin(), v.end(), 0.0f, thrust::maximum<float>());
  printf("first=%d sum=%lld max=%.1f\n", (int)v[0], s, f);
  return 0;
}
