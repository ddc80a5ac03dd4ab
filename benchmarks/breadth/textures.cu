// Texture and surface objects: cudaArray (1D, 2D, 3D, 2D layered) and pitch-linear and linear memory, with
// point and linear filtering, clamp/wrap/border addressing, normalised coordinates, element-type and
// normalised-float reads, gathers, explicit levels, surface reads and writes, and extent queries.
#include <cstdio>
#include <cstring>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
  printf("%s: %s\n", #call, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void fetch_linear(cudaTextureObject_t t, float *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i) * 2.0f;
}
__global__ void sample_2d(cudaTextureObject_t t, float *out, int w, int h, float dx, float dy, int normalized) {
  int x = threadIdx.x, y = blockIdx.x;
  float u = x + dx, v = y + dy;
  if (normalized) { u /= w; v /= h; }
  out[y * w + x] = tex2D<float>(t, u, v);
}
__global__ void sample_bytes(cudaTextureObject_t t, float4 *normalized_out, uchar4 *raw_out, cudaTextureObject_t raw,
                             int w) {
  int x = threadIdx.x, y = blockIdx.x;
  normalized_out[y * w + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
  raw_out[y * w + x] = tex2D<uchar4>(raw, x + 0.5f, y + 0.5f);
}
__global__ void gather(cudaTextureObject_t t, float4 *out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * w + x] = tex2Dgather<float4>(t, x + 1.0f, y + 1.0f, 0);
}
__global__ void sample_3d(cudaTextureObject_t t, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x % h, z = blockIdx.x / h;
  out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.75f, y + 0.5f, z + 0.25f);
}
__global__ void sample_layered(cudaTextureObject_t t, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x % h, layer = blockIdx.x / h;
  out[(layer * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, layer) +
                                 tex2DLod<float>(t, 0.5f, 0.5f, 0.0f) * 0.0f;
}
__global__ void surface_scale(cudaSurfaceObject_t s, cudaTextureObject_t t, int *extent) {
  int x = threadIdx.x, y = blockIdx.x;
  float v;
  surf2Dread(&v, s, x * sizeof(float), y);
  surf2Dwrite(v * 3.0f + 1.0f, s, x * sizeof(float), y);
  if (x == 0 && y == 0) {
    int r;
    asm("txq.width.b32 %0, [%1];" : "=r"(r) : "l"(t)); extent[0] = r;
    asm("txq.height.b32 %0, [%1];" : "=r"(r) : "l"(t)); extent[1] = r;
  }
}
__global__ void surface_bytes(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  uchar4 c;
  surf2Dread(&c, s, x * 4, y);
  c.x = c.x + 1; c.w = x * 16 + y;
  surf2Dwrite(c, s, x * 4, y);
}

static cudaTextureObject_t texture(const cudaResourceDesc &resource, cudaTextureFilterMode filter,
                                   cudaTextureAddressMode address, bool normalized,
                                   cudaTextureReadMode read = cudaReadModeElementType) {
  cudaTextureDesc desc;
  memset(&desc, 0, sizeof(desc));
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = address;
  desc.filterMode = filter;
  desc.readMode = read;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t object = 0;
  if (cudaCreateTextureObject(&object, &resource, &desc, nullptr) != cudaSuccess) printf("texture failed\n");
  return object;
}

static void print(const char *name, const float *values, int n) {
  printf("%s:", name);
  for (int i = 0; i < n; i++) printf(" %.4f", values[i]);
  printf("\n");
}

int main() {
  const int W = 8, H = 4, D = 3, L = 2, N = 16;
  float host[W * H * D], out[W * H * D];
  for (int i = 0; i < W * H * D; i++) host[i] = (i * 37 % 23) * 0.5f;
  float *device_out;
  CHECK(cudaMalloc(&device_out, sizeof(out)));

  // 1D linear memory, tex1Dfetch.
  float *linear;
  CHECK(cudaMalloc(&linear, N * sizeof(float)));
  CHECK(cudaMemcpy(linear, host, N * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc resource;
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = linear;
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = N * sizeof(float);
  cudaTextureObject_t t_linear = texture(resource, cudaFilterModePoint, cudaAddressModeClamp, false);
  fetch_linear<<<1, N>>>(t_linear, device_out, N);
  CHECK(cudaMemcpy(out, device_out, N * sizeof(float), cudaMemcpyDeviceToHost));
  print("linear", out, N);

  // 2D cudaArray: point and linear filtering, clamp / wrap / border, unnormalised and normalised.
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &channel, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  struct { const char *name; cudaTextureFilterMode filter; cudaTextureAddressMode address; int normalized;
           float dx, dy; } cases[] = {
    {"point-clamp", cudaFilterModePoint, cudaAddressModeClamp, 0, 0.5f, 0.5f},
    {"linear-clamp", cudaFilterModeLinear, cudaAddressModeClamp, 0, 0.25f, 0.75f},
    {"linear-border", cudaFilterModeLinear, cudaAddressModeBorder, 0, -0.5f, 0.0f},
    {"linear-wrap-normalized", cudaFilterModeLinear, cudaAddressModeWrap, 1, 0.5f, -1.0f},
    {"point-mirror-normalized", cudaFilterModePoint, cudaAddressModeMirror, 1, 3.5f, 5.5f},
  };
  for (auto &c : cases) {
    cudaTextureObject_t t = texture(resource, c.filter, c.address, c.normalized);
    sample_2d<<<H, W>>>(t, device_out, W, H, c.dx, c.dy, c.normalized);
    CHECK(cudaMemcpy(out, device_out, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    print(c.name, out, W * H);
    CHECK(cudaDestroyTextureObject(t));
  }
  cudaTextureObject_t t_point = texture(resource, cudaFilterModePoint, cudaAddressModeClamp, false);
  float4 *device_out4;
  CHECK(cudaMalloc(&device_out4, W * H * sizeof(float4)));
  gather<<<H, W>>>(t_point, device_out4, W);
  float4 gathered[W * H];
  CHECK(cudaMemcpy(gathered, device_out4, sizeof(gathered), cudaMemcpyDeviceToHost));
  print("gather", &gathered[0].x, 4 * W);

  // Surface over the same array: read, scale, write; then the texture reads the written values.
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaSurfaceObject_t surface;
  CHECK(cudaCreateSurfaceObject(&surface, &resource));
  int *extent, host_extent[2];
  CHECK(cudaMalloc(&extent, sizeof(host_extent)));
  surface_scale<<<H, W>>>(surface, t_point, extent);
  CHECK(cudaMemcpy2DFromArray(out, W * sizeof(float), array, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(host_extent, extent, sizeof(host_extent), cudaMemcpyDeviceToHost));
  print("surface", out, W * H);
  printf("extent: %d x %d\n", host_extent[0], host_extent[1]);

  // Pitch-linear 2D memory, linear filtering.
  float *pitched;
  size_t pitch;
  CHECK(cudaMallocPitch(&pitched, &pitch, W * sizeof(float), H));
  CHECK(cudaMemcpy2D(pitched, pitch, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = pitched;
  resource.res.pitch2D.desc = channel;
  resource.res.pitch2D.width = W;
  resource.res.pitch2D.height = H;
  resource.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t t_pitch = texture(resource, cudaFilterModeLinear, cudaAddressModeClamp, false);
  sample_2d<<<H, W>>>(t_pitch, device_out, W, H, 0.25f, 0.25f, 0);
  CHECK(cudaMemcpy(out, device_out, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  print("pitch2d", out, W * H);

  // uchar4 array: normalised-float and element-type reads; a byte surface written in place.
  unsigned char bytes[W * H * 4];
  for (int i = 0; i < W * H * 4; i++) bytes[i] = (unsigned char)(i * 29 % 251);
  cudaChannelFormatDesc byte_channel = cudaCreateChannelDesc<uchar4>();
  cudaArray_t byte_array;
  CHECK(cudaMallocArray(&byte_array, &byte_channel, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(byte_array, 0, 0, bytes, W * 4, W * 4, H, cudaMemcpyHostToDevice));
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = byte_array;
  cudaTextureObject_t t_unorm = texture(resource, cudaFilterModePoint, cudaAddressModeClamp, false,
                                        cudaReadModeNormalizedFloat);
  cudaTextureObject_t t_raw = texture(resource, cudaFilterModePoint, cudaAddressModeClamp, false);
  uchar4 *device_bytes, raw[W * H];
  CHECK(cudaMalloc(&device_bytes, sizeof(raw)));
  sample_bytes<<<H, W>>>(t_unorm, device_out4, device_bytes, t_raw, W);
  CHECK(cudaMemcpy(gathered, device_out4, sizeof(gathered), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(raw, device_bytes, sizeof(raw), cudaMemcpyDeviceToHost));
  print("unorm", &gathered[0].x, 4 * W);
  printf("raw:");
  for (int i = 0; i < W; i++) printf(" %d,%d,%d,%d", raw[i].x, raw[i].y, raw[i].z, raw[i].w);
  printf("\n");
  cudaSurfaceObject_t byte_surface;
  CHECK(cudaCreateSurfaceObject(&byte_surface, &resource));
  surface_bytes<<<H, W>>>(byte_surface);
  CHECK(cudaMemcpy2DFromArray(bytes, W * 4, byte_array, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  printf("byte surface:");
  for (int i = 0; i < 4 * W; i++) printf(" %d", bytes[i]);
  printf("\n");

  // 3D array, linear filtering.
  cudaArray_t volume;
  CHECK(cudaMalloc3DArray(&volume, &channel, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms copy;
  memset(&copy, 0, sizeof(copy));
  copy.srcPtr = make_cudaPitchedPtr(host, W * sizeof(float), W, H);
  copy.dstArray = volume;
  copy.extent = make_cudaExtent(W, H, D);
  copy.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&copy));
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = volume;
  cudaTextureObject_t t_volume = texture(resource, cudaFilterModeLinear, cudaAddressModeClamp, false);
  sample_3d<<<H * D, W>>>(t_volume, device_out, W, H);
  CHECK(cudaMemcpy(out, device_out, W * H * D * sizeof(float), cudaMemcpyDeviceToHost));
  print("3d", out, W * H * D);

  // 2D layered array.
  cudaArray_t layers;
  CHECK(cudaMalloc3DArray(&layers, &channel, make_cudaExtent(W, H, L), cudaArrayLayered));
  copy.dstArray = layers;
  copy.extent = make_cudaExtent(W, H, L);
  CHECK(cudaMemcpy3D(&copy));
  resource.res.array.array = layers;
  cudaTextureObject_t t_layers = texture(resource, cudaFilterModePoint, cudaAddressModeClamp, false);
  sample_layered<<<H * L, W>>>(t_layers, device_out, W, H);
  CHECK(cudaMemcpy(out, device_out, W * H * L * sizeof(float), cudaMemcpyDeviceToHost));
  print("layered", out, W * H * L);
  CHECK(cudaGetLastError());
  printf("done\n");
  return 0;
}
