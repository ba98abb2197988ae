/* gpu-histogram tests: the CUDA runtime's legacy default stream kept busy (test-scopes gpu).
 * A run's stream does not wait for that stream (cudaStreamNonBlocking), so a run that put a
 * clear or an upload there would count before it landed: with the stream busy, always. */
#include <cuda_runtime.h>

namespace
{

__global__ void
spin_kernel (long long cycles)
{
  const long long start = clock64 ();
  while (clock64 () - start < cycles)
    {
    }
}

} // namespace

/* Queues about `ms` milliseconds of one thread's work on the legacy default stream; 0 when that
 * failed. */
extern "C" int
test_busy_default_stream (int ms)
{
  int device = 0, khz = 0;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&khz, cudaDevAttrClockRate, device) != cudaSuccess)
    return 0;
  spin_kernel<<<1, 1, 0, cudaStreamLegacy>>> (static_cast<long long> (khz) * ms);
  return cudaGetLastError () == cudaSuccess;
}

/* Waits for the legacy default stream; 0 when its work failed. */
extern "C" int
test_default_stream_done (void)
{
  return cudaStreamSynchronize (cudaStreamLegacy) == cudaSuccess;
}
