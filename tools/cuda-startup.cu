// Where a new process's CUDA start-up goes, step by step, in the order the engine takes them
// (kernels/cuda/cuda_backend.cu: cuda_open; kernels/cuda/cuda_memory.cu: allocate_run, for the
// plug-in's 2 x 8 MiB strips).
// One process is one cold start: tools/device-gimp-bench runs it many times.
//
//   nvcc -O2 -arch=sm_90 -o cuda-startup tools/cuda-startup.cu && ./cuda-startup
//
// Prints "step  ms-for-step  ms-since-main" lines, then "total".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace
{
double
now_ms ()
{
  timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double start, last;

void
step (const char *name, cudaError_t code)
{
  double t = now_ms ();
  if (code != cudaSuccess)
    {
      fprintf (stderr, "%s: %s\n", name, cudaGetErrorString (code));
      exit (1);
    }
  printf ("%-28s %8.2f %8.2f\n", name, t - last, t - start);
  last = t;
}

__global__ void
touch (unsigned char *bytes, size_t n)
{
  size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  if (i < n)
    bytes[i] += 1;
}
} // namespace

int
main ()
{
  const size_t strip = 8u << 20;
  int driver = 0, count = 0;
  cudaDeviceProp properties;
  void *staging[2], *device_strip, *bins;
  cudaStream_t stream;

  start = last = now_ms ();
  step ("cudaDriverGetVersion", cudaDriverGetVersion (&driver));
  step ("cudaGetDeviceCount (init)", cudaGetDeviceCount (&count));
  step ("cudaSetDevice", cudaSetDevice (0));
  step ("cudaGetDeviceProperties", cudaGetDeviceProperties (&properties, 0));
  step ("cudaFree(0) (context)", cudaFree (nullptr));
  step ("cudaStreamCreate", cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  step ("cudaHostAlloc 8 MiB", cudaHostAlloc (&staging[0], strip, cudaHostAllocDefault));
  step ("cudaHostAlloc 8 MiB again", cudaHostAlloc (&staging[1], strip, cudaHostAllocDefault));
  step ("cudaMalloc strip + bins", cudaMalloc (&device_strip, strip));
  step ("cudaMalloc bins", cudaMalloc (&bins, 4 << 10));
  step ("cudaMemcpyAsync 8 MiB + sync",
        cudaMemcpyAsync (device_strip, staging[0], strip, cudaMemcpyHostToDevice, stream)
                == cudaSuccess
            ? cudaStreamSynchronize (stream)
            : cudaGetLastError ());
  touch<<<static_cast<unsigned> (strip / 256), 256, 0, stream>>> (
      static_cast<unsigned char *> (device_strip), strip);
  step ("first launch + sync", cudaStreamSynchronize (stream));
  touch<<<static_cast<unsigned> (strip / 256), 256, 0, stream>>> (
      static_cast<unsigned char *> (device_strip), strip);
  step ("second launch + sync", cudaStreamSynchronize (stream));
  cudaFree (bins);
  cudaFree (device_strip);
  cudaFreeHost (staging[1]);
  cudaFreeHost (staging[0]);
  cudaStreamDestroy (stream);
  step ("frees", cudaSuccess);
  printf ("%-28s %8.2f  (%s, %d device(s), driver %d)\n", "total", now_ms () - start,
          properties.name, count, driver);
  return 0;
}
