#pragma once

// Sum of `values` on the GPU into *sum; returns the CUDA error code.
int sum_on_device(const int* values, int n, long long* sum);
