/* gpu-histogram: a chart's drawing shared between this thread and one more (render_private.h,
 * gh_render_split): the dialog draws a chart in its main loop, and a 16-bit layer's waveform
 * has millions of cells.  The work is taken in small chunks, first come first served, and the
 * caller never waits for the helper to start: if the helper does not run before the caller has
 * done every chunk itself, it finds none and leaves. */
#include "render_private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* One split job, kept alive by whichever of the two threads leaves it last. */
typedef struct
{
  render_job job;
  void *arg;
  int chunks;
  atomic_int next, done, users;
  pthread_mutex_t lock; /* with all_done: the caller sleeps while the helper ends its chunk */
  pthread_cond_t all_done;
} split_state;

/* Chunks until none are left; the job's data is touched only for a chunk taken.  Whoever ends
 * the last chunk wakes the caller. */
static void
take_chunks (split_state *state, int worker)
{
  for (int c; (c = atomic_fetch_add (&state->next, 1)) < state->chunks;)
    {
      state->job (state->arg, c, worker);
      if (atomic_fetch_add (&state->done, 1) + 1 == state->chunks)
        {
          pthread_mutex_lock (&state->lock);
          pthread_cond_signal (&state->all_done);
          pthread_mutex_unlock (&state->lock);
        }
    }
}

static void
leave (split_state *state)
{
  if (atomic_fetch_sub (&state->users, 1) == 1)
    {
      pthread_cond_destroy (&state->all_done);
      pthread_mutex_destroy (&state->lock);
      free (state);
    }
}

static void *
helper (void *data)
{
  take_chunks (data, 1);
  leave (data);
  return NULL;
}

int
gh_render_workers (size_t work)
{
  /* Below this many cells and pixels a thread costs more than it saves. */
  const size_t enough = (size_t) 1 << 17;
  const char *forced = getenv ("GPUHIST_RENDER_THREADS");
  if (forced && (*forced == '1' || *forced == '2') && !forced[1])
    return *forced - '0';
  /* A helper that has to wait for a processor holds the drawing up (the caller waits for its
   * last chunk), so it is asked for only while some processor is idle. */
  const long processors = sysconf (_SC_NPROCESSORS_ONLN);
  double load;
  return work >= enough && processors > 1 && getloadavg (&load, 1) == 1
                 && load < (double) processors - 1
             ? RENDER_MAX_WORKERS
             : 1;
}

void
gh_render_split (render_job job, void *arg, int chunks, int workers)
{
  split_state *state = workers > 1 ? malloc (sizeof *state) : NULL;
  pthread_t thread;
  pthread_attr_t attr;
  if (state)
    {
      *state = (split_state){ .job = job, .arg = arg, .chunks = chunks };
      atomic_init (&state->next, 0);
      atomic_init (&state->done, 0);
      atomic_init (&state->users, 2);
      pthread_mutex_init (&state->lock, NULL);
      pthread_cond_init (&state->all_done, NULL);
    }
  if (state && pthread_attr_init (&attr) == 0)
    {
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      if (pthread_create (&thread, &attr, helper, state) != 0)
        atomic_fetch_sub (&state->users, 1); /* no helper: this thread does it all */
      pthread_attr_destroy (&attr);
    }
  else if (state)
    atomic_fetch_sub (&state->users, 1);
  if (!state)
    {
      for (int c = 0; c < chunks; c++)
        job (arg, c, 0);
      return;
    }
  take_chunks (state, 0);
  /* The helper may be inside its last chunk: sleeping, not spinning, leaves this processor to
   * it on a busy machine. */
  pthread_mutex_lock (&state->lock);
  while (atomic_load (&state->done) < chunks)
    pthread_cond_wait (&state->all_done, &state->lock);
  pthread_mutex_unlock (&state->lock);
  leave (state);
}
