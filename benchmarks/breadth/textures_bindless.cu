// Texture and surface objects the kernel reads from memory (an array of handles, a struct parameter indexed at
// run time) rather than from a parameter: SASS's bindless forms (TEX.B, TLD.B, TLD4.B, TXQ.B; sm_90's handle in a
// uniform register), whose handle register holds the low word ptxas loaded.
#include <cstdio>
#include <cstring>

struct Handles { cudaTextureObject_t t[4]; };

__global__ void from_array(const cudaTextureObject_t *handles, const cudaSurfaceObject_t *surfaces, float *out,
                           int which, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  cudaTextureObject_t plane = handles[which], volume = handles[which + 1], layers = handles[which + 2],
                      linear = handles[which + 3];
  float v = tex2D<float>(plane, x + 0.5f, y + 0.5f) + tex2DLod<float>(plane, x + 0.25f, y + 0.75f, 0.0f) * 2.0f;
  v += tex3D<float>(volume, x + 0.75f, y + 0.5f, 1.25f) * 3.0f;
  v += tex2DLayered<float>(layers, x + 0.5f, y + 0.5f, 1) * 5.0f;
  v += tex1Dfetch<float>(linear, y * w + x) * 7.0f;
  float4 g = tex2Dgather<float4>(plane, x + 1.0f, y + 1.0f, 0);
  v += g.x + 2.0f * g.y + 3.0f * g.z + 4.0f * g.w;
  int width, height;
  asm("txq.width.b32 %0, [%1];" : "=r"(width) : "l"(plane));
  asm("txq.height.b32 %0, [%1];" : "=r"(height) : "l"(plane));
  out[y * w + x] = v + width * 100 + height * 1000;
  float s;
  surf2Dread(&s, surfaces[which], x * sizeof(float), y);
  surf2Dwrite(s + v, surfaces[which], x * sizeof(float), y);
}

__global__ void from_struct(Handles handles, float *out, int which, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * w + x] = tex2D<float>(handles.t[which & 3], x + 0.5f, y + 0.5f) +
                   tex2D<float>(handles.t[(which + 1) & 3], x + 0.25f, y + 0.5f) * 0.5f;
}

static cudaTextureObject_t texture(const cudaResourceDesc &resource, cudaTextureFilterMode filter) {
  cudaTextureDesc desc;
  memset(&desc, 0, sizeof(desc));
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = filter;
  desc.readMode = cudaReadModeElementType;
  cudaTextureObject_t object = 0;
  if (cudaCreateTextureObject(&object, &resource, &desc, nullptr) != cudaSuccess) printf("texture failed\n");
  return object;
}

int main() {
  const int W = 8, H = 4, D = 3;
  float host[W * H * D], out[W * H];
  for (int i = 0; i < W * H * D; i++) host[i] = (i * 37 % 23) * 0.5f;
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaResourceDesc resource;

  cudaArray_t plane;
  cudaMallocArray(&plane, &channel, W, H, cudaArraySurfaceLoadStore);
  cudaMemcpy2DToArray(plane, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice);
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = plane;
  cudaTextureObject_t t_plane = texture(resource, cudaFilterModeLinear);
  cudaTextureObject_t t_point = texture(resource, cudaFilterModePoint);
  cudaSurfaceObject_t surface;
  cudaCreateSurfaceObject(&surface, &resource);

  cudaArray_t volume;
  cudaMalloc3DArray(&volume, &channel, make_cudaExtent(W, H, D));
  cudaMemcpy3DParms copy;
  memset(&copy, 0, sizeof(copy));
  copy.srcPtr = make_cudaPitchedPtr(host, W * sizeof(float), W, H);
  copy.dstArray = volume;
  copy.extent = make_cudaExtent(W, H, D);
  copy.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&copy);
  resource.res.array.array = volume;
  cudaTextureObject_t t_volume = texture(resource, cudaFilterModeLinear);

  cudaArray_t layered;
  cudaMalloc3DArray(&layered, &channel, make_cudaExtent(W, H, 2), cudaArrayLayered);
  copy.dstArray = layered;
  copy.extent = make_cudaExtent(W, H, 2);
  cudaMemcpy3D(&copy);
  resource.res.array.array = layered;
  cudaTextureObject_t t_layered = texture(resource, cudaFilterModePoint);

  float *linear;
  cudaMalloc(&linear, W * H * sizeof(float));
  cudaMemcpy(linear, host, W * H * sizeof(float), cudaMemcpyHostToDevice);
  memset(&resource, 0, sizeof(resource));
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = linear;
  resource.res.linear.desc = channel;
  resource.res.linear.sizeInBytes = W * H * sizeof(float);
  cudaTextureObject_t t_linear = texture(resource, cudaFilterModePoint);

  cudaTextureObject_t handles[5] = {t_point, t_plane, t_volume, t_layered, t_linear};
  cudaSurfaceObject_t surfaces[2] = {0, surface};
  cudaTextureObject_t *device_handles;
  cudaSurfaceObject_t *device_surfaces;
  float *device_out;
  cudaMalloc(&device_handles, sizeof(handles));
  cudaMalloc(&device_surfaces, sizeof(surfaces));
  cudaMalloc(&device_out, sizeof(out));
  cudaMemcpy(device_handles, handles, sizeof(handles), cudaMemcpyHostToDevice);
  cudaMemcpy(device_surfaces, surfaces, sizeof(surfaces), cudaMemcpyHostToDevice);
  from_array<<<H, W>>>(device_handles, device_surfaces, device_out, 1, W, H);
  cudaMemcpy(out, device_out, sizeof(out), cudaMemcpyDeviceToHost);
  printf("array:");
  for (int i = 0; i < W * H; i++) printf(" %.4f", out[i]);
  printf("\n");
  cudaMemcpy2DFromArray(out, W * sizeof(float), plane, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost);
  printf("surface:");
  for (int i = 0; i < W * H; i++) printf(" %.4f", out[i]);
  printf("\n");
  Handles pack = {{t_point, t_plane, t_point, t_plane}};
  from_struct<<<H, W>>>(pack, device_out, 3, W);
  cudaMemcpy(out, device_out, sizeof(out), cudaMemcpyDeviceToHost);
  printf("struct:");
  for (int i = 0; i < W * H; i++) printf(" %.4f", out[i]);
  printf("\n%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
