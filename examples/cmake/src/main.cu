#include <cstdio>
#include <vector>

#include "host_info.h"
#include "reduce.h"
#include "saxpy.h"

int main() {
  if (count_devices() == 0) return 1;
  const int n = 1 << 16;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  if (saxpy_on_device(3.0f, x.data(), y.data(), n) != 0 || y[n - 1] != 5.0f) {
    std::printf("saxpy FAILED\n");
    return 1;
  }
  std::vector<int> values(n, 1);
  long long sum = 0;
  if (sum_on_device(values.data(), n, &sum) != 0 || sum != n) {
    std::printf("sum FAILED\n");
    return 1;
  }
  std::printf("saxpy and sum PASSED; cuRAND and cuSPARSE %s\n", libraries_available() ? "work" : "failed");
  return 0;
}
