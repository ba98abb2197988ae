/* gpu-histogram: the CPU backend's pool of threads (cpu_pool.h). */
#include "cpu_pool.h"

#include <stdlib.h>

struct cpu_pool_worker
{
  cpu_pool *pool;
  int index;
};

static void *
worker_main (void *data)
{
  cpu_pool_worker *worker = data;
  cpu_pool *pool = worker->pool;
  unsigned long seen = 0;
  for (;;)
    {
      pthread_mutex_lock (&pool->lock);
      while (pool->generation == seen && !pool->stopping)
        pthread_cond_wait (&pool->work_ready, &pool->lock);
      if (pool->stopping)
        {
          pthread_mutex_unlock (&pool->lock);
          return NULL;
        }
      seen = pool->generation;
      cpu_pool_job job = pool->job;
      void *arg = pool->arg;
      pthread_mutex_unlock (&pool->lock);

      job (arg, worker->index, pool->count);

      pthread_mutex_lock (&pool->lock);
      if (--pool->pending == 0)
        pthread_cond_signal (&pool->work_done);
      pthread_mutex_unlock (&pool->lock);
    }
}

int
cpu_pool_start (cpu_pool *pool, int threads)
{
  *pool = (cpu_pool){ 0 };
  pthread_mutex_init (&pool->lock, NULL);
  pthread_cond_init (&pool->work_ready, NULL);
  pthread_cond_init (&pool->work_done, NULL);
  pool->threads = calloc ((size_t) threads, sizeof *pool->threads);
  pool->workers = calloc ((size_t) threads, sizeof *pool->workers);
  if (!pool->threads || !pool->workers)
    threads = 0;
  for (int t = 0; t < threads; t++)
    {
      pool->workers[t] = (cpu_pool_worker){ pool, t };
      if (pthread_create (&pool->threads[t], NULL, worker_main, &pool->workers[t]) != 0)
        break;
      pool->count++;
    }
  if (pool->count == 0)
    cpu_pool_stop (pool);
  return pool->count;
}

void
cpu_pool_stop (cpu_pool *pool)
{
  pthread_mutex_lock (&pool->lock);
  pool->stopping = 1;
  pthread_cond_broadcast (&pool->work_ready);
  pthread_mutex_unlock (&pool->lock);
  for (int t = 0; t < pool->count; t++)
    pthread_join (pool->threads[t], NULL);
  pthread_mutex_destroy (&pool->lock);
  pthread_cond_destroy (&pool->work_ready);
  pthread_cond_destroy (&pool->work_done);
  free (pool->threads);
  free (pool->workers);
}

void
cpu_pool_dispatch (cpu_pool *pool, cpu_pool_job job, void *arg)
{
  pthread_mutex_lock (&pool->lock);
  pool->job = job;
  pool->arg = arg;
  pool->pending = pool->count;
  pool->generation++;
  pthread_cond_broadcast (&pool->work_ready);
  pthread_mutex_unlock (&pool->lock);
}

void
cpu_pool_wait (cpu_pool *pool)
{
  pthread_mutex_lock (&pool->lock);
  while (pool->pending > 0)
    pthread_cond_wait (&pool->work_done, &pool->lock);
  pthread_mutex_unlock (&pool->lock);
}
