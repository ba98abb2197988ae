/* gpu-histogram: gpuhist --json-lines, many files in one call. */
#define _GNU_SOURCE /* asprintf, scandir */
#include "batch.h"

#include "image-source.h"
#include "json-line.h"
#include "scope-png.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Progress is redrawn at most this often. */
#define PROGRESS_INTERVAL_S 0.2

typedef struct
{
  const batch_request *request;
  pthread_mutex_t lock;
  pthread_cond_t done;
  int next;      /* the next file a worker takes */
  char **lines;  /* lines[i]: file i's JSON line once counted */
  int *failed;   /* failed[i]: file i gave an error object */
  int *finished; /* finished[i]: lines[i] and failed[i] are set */
} batch_state;

typedef struct
{
  batch_state *state;
  gh_engine *engine;
} worker;

static int
append_path (char ***paths, int *n, int *capacity, char *path)
{
  if (!path)
    return -1;
  if (*n == *capacity)
    {
      int grown = *capacity ? 2 * *capacity : 64;
      char **bigger = realloc (*paths, (size_t) grown * sizeof *bigger);
      if (!bigger)
        {
          free (path);
          return -1;
        }
      *paths = bigger;
      *capacity = grown;
    }
  (*paths)[(*n)++] = path;
  return 0;
}

/* A directory's files (not hidden, not subdirectories), sorted by name. */
static int
append_directory (const char *directory, char ***paths, int *n, int *capacity, char *error,
                  size_t error_size)
{
  struct dirent **entries;
  int count = scandir (directory, &entries, NULL, alphasort);
  int status = 0;

  if (count < 0)
    {
      snprintf (error, error_size, "%s: cannot list the directory: %s", directory,
                strerror (errno));
      return -1;
    }
  for (int i = 0; i < count; i++)
    {
      struct stat about;
      char *path = NULL;
      if (status == 0 && entries[i]->d_name[0] != '.'
          && asprintf (&path, "%s/%s", directory, entries[i]->d_name) >= 0)
        {
          if (stat (path, &about) == 0 && S_ISDIR (about.st_mode))
            free (path);
          else if (append_path (paths, n, capacity, path))
            status = -1;
        }
      free (entries[i]);
    }
  free (entries);
  if (status)
    snprintf (error, error_size, "out of memory for the file list");
  return status;
}

int
batch_expand_paths (char **arguments, int n_arguments, char ***paths, int *n_paths, char *error,
                    size_t error_size)
{
  int capacity = 0;
  *paths = NULL;
  *n_paths = 0;
  for (int i = 0; i < n_arguments; i++)
    {
      struct stat about;
      int status;
      if (stat (arguments[i], &about) == 0 && S_ISDIR (about.st_mode))
        status = append_directory (arguments[i], paths, n_paths, &capacity, error, error_size);
      else if ((status = append_path (paths, n_paths, &capacity, strdup (arguments[i]))))
        snprintf (error, error_size, "out of memory for the file list");
      if (status)
        {
          batch_free_paths (*paths, *n_paths);
          return -1;
        }
    }
  return 0;
}

void
batch_free_paths (char **paths, int n_paths)
{
  for (int i = 0; i < n_paths; i++)
    free (paths[i]);
  free (paths);
}

/* --scope-png: file i's charts, PREFIX-N-*.png with N = i + 1.  0, or -1 with a message. */
static int
write_charts (const batch_request *request, int i, const gh_result *result, char *message,
              size_t message_size)
{
  char prefix[4096];
  if (!request->scope_png)
    return 0;
  snprintf (prefix, sizeof prefix, "%s-%d", request->scope_png, i + 1);
  return scope_png_write (prefix, result, &request->render, message, message_size);
}

/* File i's line: its result, or why there is none. */
static char *
count_file (gh_engine *engine, const batch_request *request, int i, int *failed)
{
  const char *path = request->paths[i];
  char message[SOURCE_ERROR_SIZE] = "";
  source_request open_request = { .path = path };
  const char *names[GH_MAX_CHANNELS + 2];
  gh_result result;
  char *line;

  image_source *source = image_source_open (&open_request, message, sizeof message);
  if (!source || count_source (engine, source, &request->count, &result, message, sizeof message))
    {
      if (source)
        source->close (source);
      *failed = 1;
      return json_line_error (path, message);
    }
  for (int c = 0; c < source->info.channels; c++)
    names[c] = source->info.channel_names[c];
  names[source->info.channels] = "value";
  names[source->info.channels + 1] = "luminance";
  const int charts_failed = write_charts (request, i, &result, message, sizeof message);
  line = charts_failed ? json_line_error (path, message)
                       : json_line_result (path, source->info.format, &result, names,
                                           request->scope_numerators);
  gh_result_clear (&result);
  source->close (source);
  *failed = line == NULL || charts_failed;
  return line ? line : json_line_error (path, "out of memory for the JSON line");
}

static void *
work (void *data)
{
  worker *self = data;
  batch_state *state = self->state;
  const batch_request *request = state->request;

  for (;;)
    {
      pthread_mutex_lock (&state->lock);
      int i = state->next < request->n_paths ? state->next++ : -1;
      pthread_mutex_unlock (&state->lock);
      if (i < 0)
        return NULL;
      int failed = 0;
      char *line = count_file (self->engine, request, i, &failed);
      pthread_mutex_lock (&state->lock);
      state->lines[i] = line;
      state->failed[i] = failed;
      state->finished[i] = 1;
      pthread_cond_broadcast (&state->done);
      pthread_mutex_unlock (&state->lock);
    }
}

static double
seconds_now (void)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

static void
show_progress (int done, int total, int failed, double started, int last)
{
  double elapsed = seconds_now () - started;
  fprintf (stderr, "\rgpuhist: %d of %d files, %d failed, %.1f files/s%s", done, total, failed,
           elapsed > 0 ? done / elapsed : 0.0, last ? "\n" : "");
}

/* Writes the lines in the files' order as they are finished.  Returns the failed count, or -1
 * when writing failed. */
static int
write_lines (batch_state *state)
{
  const batch_request *request = state->request;
  double started = seconds_now (), shown = 0;
  int failures = 0, write_failed = 0;

  for (int i = 0; i < request->n_paths; i++)
    {
      pthread_mutex_lock (&state->lock);
      while (!state->finished[i])
        pthread_cond_wait (&state->done, &state->lock);
      pthread_mutex_unlock (&state->lock);
      failures += state->failed[i];
      if (!state->lines[i] || fprintf (request->out, "%s\n", state->lines[i]) < 0)
        write_failed = 1;
      free (state->lines[i]);
      state->lines[i] = NULL;
      if (request->progress
          && (seconds_now () - shown >= PROGRESS_INTERVAL_S || i + 1 == request->n_paths))
        {
          show_progress (i + 1, request->n_paths, failures, started, i + 1 == request->n_paths);
          shown = seconds_now ();
        }
    }
  if (fflush (request->out) != 0)
    write_failed = 1;
  return write_failed ? -1 : failures;
}

/* One engine a worker; fewer workers when engines cannot be had. */
static int
start_engines (const batch_request *request, worker *workers, char *error, size_t error_size)
{
  gh_options options = request->engine_options;
  gh_error engine_error = { GH_OK, "" };

  /* A budget the user gave is shared; the tool's own is each worker's. */
  if (request->shared_budget)
    options.memory_budget = request->shared_budget / (size_t) request->jobs;
  for (int j = 0; j < request->jobs; j++)
    {
      workers[j].engine = gh_engine_new (&options, &engine_error);
      if (!workers[j].engine)
        {
          snprintf (error, error_size, "%s", engine_error.message);
          for (int k = 0; k < j; k++)
            gh_engine_free (workers[k].engine);
          return -1;
        }
    }
  if (!request->quiet)
    fprintf (stderr, "gpuhist: backend: %s\n", gh_engine_backend (workers[0].engine));
  return 0;
}

int
batch_run (const batch_request *request, char *error, size_t error_size)
{
  batch_state state
      = { request, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, NULL, NULL };
  worker workers[request->jobs];
  pthread_t threads[request->jobs];
  int started = 0, outcome = -1;

  state.lines = calloc ((size_t) request->n_paths + 1, sizeof *state.lines);
  state.failed = calloc ((size_t) request->n_paths + 1, sizeof *state.failed);
  state.finished = calloc ((size_t) request->n_paths + 1, sizeof *state.finished);
  if (!state.lines || !state.failed || !state.finished)
    snprintf (error, error_size, "out of memory for %d files", request->n_paths);
  else if (start_engines (request, workers, error, error_size) == 0)
    {
      for (; started < request->jobs; started++)
        {
          workers[started].state = &state;
          if (pthread_create (&threads[started], NULL, work, &workers[started]) != 0)
            break;
        }
      if (started == 0)
        snprintf (error, error_size, "cannot start a worker thread");
      else
        outcome = write_lines (&state);
      for (int j = 0; j < started; j++)
        pthread_join (threads[j], NULL);
      for (int j = 0; j < request->jobs; j++)
        gh_engine_free (workers[j].engine);
      if (started && outcome < 0)
        snprintf (error, error_size, "writing the JSON lines failed: %s", strerror (errno));
    }
  free (state.lines);
  free (state.failed);
  free (state.finished);
  return outcome;
}
