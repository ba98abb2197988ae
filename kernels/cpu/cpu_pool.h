/* gpu-histogram: the CPU backend's pool of threads: a fixed set that runs one job at a time, each
 * thread on its share, while the caller goes on (cpu_pool_wait waits for the job). */
#ifndef GPUHIST_CPU_POOL_H
#define GPUHIST_CPU_POOL_H

#include <pthread.h>

typedef void (*cpu_pool_job) (void *arg, int thread, int threads);

typedef struct cpu_pool_worker cpu_pool_worker;

typedef struct
{
  pthread_t *threads;
  cpu_pool_worker *workers; /* each thread's pool and index */
  int count;
  pthread_mutex_t lock;
  pthread_cond_t work_ready;
  pthread_cond_t work_done;
  unsigned long generation;
  int pending;
  int stopping;
  cpu_pool_job job;
  void *arg;
} cpu_pool;

/* Starts up to `threads` threads; returns how many started.  With 0 nothing is left to stop. */
int cpu_pool_start (cpu_pool *pool, int threads);
/* Stops the threads (no job in flight) and frees what the pool holds. */
void cpu_pool_stop (cpu_pool *pool);
/* Starts `job` on every thread and returns at once; one job at a time. */
void cpu_pool_dispatch (cpu_pool *pool, cpu_pool_job job, void *arg);
/* Waits until every thread has finished the job. */
void cpu_pool_wait (cpu_pool *pool);

#endif /* GPUHIST_CPU_POOL_H */
