/* gpu-histogram: rows of numbers formatted by several threads and written in order
 * (report_private.h, gh_write_rows).  The rows are taken in chunks, in order, by whichever thread
 * is free; the calling thread writes each chunk as soon as it and every chunk before it are
 * formatted, and formats chunks itself while it waits.  Chunks go into a ring of buffers a few
 * per thread, so that the memory stays small and is touched once. */
#include "report_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Cells a chunk, about: large enough that taking one costs nothing beside formatting it. */
#define CHUNK_CELLS 16384
/* Buffers a thread: one being formatted, one ready to be written. */
#define SLOTS_PER_THREAD 2
#define MAX_THREADS 16

typedef struct
{
  gh_row_formatter format;
  const void *arg;
  size_t rows, rows_per_chunk, chunks, slot_size;
  int slots;
  char **buffer;        /* slot s holds chunk c where c % slots == s */
  size_t *length;       /* its text */
  size_t *ready;        /* 1 + the chunk formatted there; 0: none */
  size_t next, written; /* the next chunk to take; how many are written */
  pthread_mutex_t lock;
  pthread_cond_t changed;
} row_job;

static size_t
format_chunk (const row_job *job, size_t chunk, char *to)
{
  const size_t first = chunk * job->rows_per_chunk;
  const size_t end
      = first + job->rows_per_chunk < job->rows ? first + job->rows_per_chunk : job->rows;
  size_t n = 0;
  for (size_t row = first; row < end; row++)
    n += job->format (to + n, job->arg, row);
  return n;
}

/* With the lock held: takes the next chunk when one is left and its slot is free, formats it
 * without the lock, and marks it ready.  0 when there was none to take. */
static int
take_chunk (row_job *job)
{
  const size_t chunk = job->next;
  if (chunk >= job->chunks || chunk - job->written >= (size_t) job->slots)
    return 0;
  job->next++;
  const int slot = (int) (chunk % (size_t) job->slots);
  pthread_mutex_unlock (&job->lock);
  const size_t length = format_chunk (job, chunk, job->buffer[slot]);
  pthread_mutex_lock (&job->lock);
  job->length[slot] = length;
  job->ready[slot] = chunk + 1;
  pthread_cond_broadcast (&job->changed);
  return 1;
}

static void *
helper (void *data)
{
  row_job *job = data;
  pthread_mutex_lock (&job->lock);
  while (job->next < job->chunks)
    if (!take_chunk (job))
      pthread_cond_wait (&job->changed, &job->lock);
  pthread_mutex_unlock (&job->lock);
  return NULL;
}

/* The calling thread: every chunk written in order, formatting while the next is not ready. */
static void
write_chunks (row_job *job, FILE *out)
{
  for (size_t chunk = 0; chunk < job->chunks; chunk++)
    {
      const int slot = (int) (chunk % (size_t) job->slots);
      pthread_mutex_lock (&job->lock);
      while (job->ready[slot] != chunk + 1)
        if (!take_chunk (job))
          pthread_cond_wait (&job->changed, &job->lock);
      pthread_mutex_unlock (&job->lock);
      fwrite (job->buffer[slot], 1, job->length[slot], out);
      pthread_mutex_lock (&job->lock);
      job->written++;
      pthread_cond_broadcast (&job->changed);
      pthread_mutex_unlock (&job->lock);
    }
}

/* Threads beside the caller: one a processor but the caller's, GPUHIST_WRITE_THREADS - 1 when
 * set, and never more than the chunks less one. */
static int
helpers_for (size_t chunks)
{
  const char *forced = getenv ("GPUHIST_WRITE_THREADS");
  long threads = forced && *forced ? strtol (forced, NULL, 10) : sysconf (_SC_NPROCESSORS_ONLN);
  if (threads < 1)
    threads = 1;
  if (threads > MAX_THREADS)
    threads = MAX_THREADS;
  if ((size_t) threads > chunks)
    threads = (long) chunks;
  return (int) threads - 1;
}

static int
job_init (row_job *job, int helpers)
{
  job->slots = SLOTS_PER_THREAD * (helpers + 1);
  job->buffer = calloc ((size_t) job->slots, sizeof *job->buffer);
  job->length = calloc ((size_t) job->slots, sizeof *job->length);
  job->ready = calloc ((size_t) job->slots, sizeof *job->ready);
  if (!job->buffer || !job->length || !job->ready)
    return -1;
  for (int s = 0; s < job->slots; s++)
    if (!(job->buffer[s] = malloc (job->slot_size)))
      return -1;
  pthread_mutex_init (&job->lock, NULL);
  pthread_cond_init (&job->changed, NULL);
  return 0;
}

static void
job_free (row_job *job)
{
  for (int s = 0; job->buffer && s < job->slots; s++)
    free (job->buffer[s]);
  free (job->buffer);
  free (job->length);
  free (job->ready);
}

int
gh_write_rows (FILE *out, gh_row_formatter format, const void *arg, size_t rows,
               size_t cells_per_row, size_t row_size)
{
  row_job job = { .format = format, .arg = arg, .rows = rows };
  pthread_t threads[MAX_THREADS];
  int started = 0;

  if (rows == 0)
    return ferror (out) ? -1 : 0;
  job.rows_per_chunk = cells_per_row >= CHUNK_CELLS ? 1 : CHUNK_CELLS / cells_per_row;
  job.chunks = (rows + job.rows_per_chunk - 1) / job.rows_per_chunk;
  job.slot_size = job.rows_per_chunk * row_size;
  const int helpers = helpers_for (job.chunks);
  if (job_init (&job, helpers) != 0)
    {
      job_free (&job);
      return -1;
    }
  for (int t = 0; t < helpers; t++)
    if (pthread_create (&threads[started], NULL, helper, &job) == 0)
      started++;
  write_chunks (&job, out);
  for (int t = 0; t < started; t++)
    pthread_join (threads[t], NULL);
  pthread_cond_destroy (&job.changed);
  pthread_mutex_destroy (&job.lock);
  job_free (&job);
  return ferror (out) ? -1 : 0;
}
