// Graph memory nodes: each graph allocates, runs a kernel that spins for a while, and frees. Launched
// into one stream the graphs reuse one physical allocation; launched into separate streams the
// footprint grows only while earlier graphs are still running, so what it reaches depends on timing.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kGraphs = 6;
constexpr size_t kBytes = 32u << 20;

__global__ void spin(float* data, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
  data[threadIdx.x] = 1.0f;
}

static size_t footprint() {
  size_t used = 0;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &used);
  return used >> 20;
}

static cudaGraphExec_t make_graph(long long cycles) {
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaMemAllocNodeParams alloc = {};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.poolProps.location.id = 0;
  alloc.bytesize = kBytes;
  cudaGraphNode_t alloc_node, kernel_node, free_node;
  cudaGraphAddMemAllocNode(&alloc_node, graph, nullptr, 0, &alloc);
  float* data = static_cast<float*>(alloc.dptr);
  void* args[] = {&data, &cycles};
  cudaKernelNodeParams kernel = {};
  kernel.func = reinterpret_cast<void*>(spin);
  kernel.gridDim = dim3(1);
  kernel.blockDim = dim3(32);
  kernel.kernelParams = args;
  cudaGraphAddKernelNode(&kernel_node, graph, &alloc_node, 1, &kernel);
  cudaGraphAddMemFreeNode(&free_node, graph, &kernel_node, 1, alloc.dptr);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  return exec;
}

int main() {
  cudaGraphExec_t execs[kGraphs];
  cudaStream_t streams[kGraphs];
  for (int i = 0; i < kGraphs; ++i) {
    execs[i] = make_graph(200000);
    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  }
  printf("instantiated: %zu MiB\n", footprint());
  for (int i = 0; i < kGraphs; ++i) cudaGraphLaunch(execs[i], streams[0]);
  cudaDeviceSynchronize();
  printf("one stream: %zu MiB\n", footprint());
  cudaDeviceGraphMemTrim(0);
  for (int i = 0; i < kGraphs; ++i) {
    cudaGraphLaunch(execs[i], streams[i]);
    printf("stream %d: %zu MiB\n", i, footprint());
  }
  cudaDeviceSynchronize();
  cudaDeviceGraphMemTrim(0);
  printf("trimmed: %zu MiB\n", footprint());
  for (int i = 0; i < kGraphs; ++i) {
    cudaGraphExecDestroy(execs[i]);
    cudaStreamDestroy(streams[i]);
  }
  return 0;
}
