// Loads libpulse-simple (and libpulse, for error texts) on first use; see include/pulse_shim.h.
#include "include/pulse_shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pulse/simple.h>
#include <pulse/error.h>

static struct {
    pa_simple *(*new_)(const char *, const char *, pa_stream_direction_t, const char *, const char *,
                       const pa_sample_spec *, const pa_channel_map *, const pa_buffer_attr *, int *);
    int (*write)(pa_simple *, const void *, size_t, int *);
    pa_usec_t (*latency)(pa_simple *, int *);
    int (*flush)(pa_simple *, int *);
    void (*free)(pa_simple *);
    const char *(*strerror)(int);
    const char *missing;   // why the libraries could not be loaded; NULL when they were
} api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char missing_text[256];

static void load(void) {
    void *simple = dlopen("libpulse-simple.so.0", RTLD_LAZY | RTLD_LOCAL);
    void *pulse = dlopen("libpulse.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!simple || !pulse) {
        snprintf(missing_text, sizeof missing_text, "PulseAudio's client library is not installed (%s)", dlerror());
        api.missing = missing_text;
        return;
    }
    api.new_ = dlsym(simple, "pa_simple_new");
    api.write = dlsym(simple, "pa_simple_write");
    api.latency = dlsym(simple, "pa_simple_get_latency");
    api.flush = dlsym(simple, "pa_simple_flush");
    api.free = dlsym(simple, "pa_simple_free");
    api.strerror = dlsym(pulse, "pa_strerror");
    if (!api.new_ || !api.write || !api.latency || !api.flush || !api.free || !api.strerror) {
        snprintf(missing_text, sizeof missing_text, "PulseAudio's client library lacks the simple API");
        api.missing = missing_text;
    }
}

struct scrub_pulse { pa_simple *simple; };

const char *scrub_pulse_library_path(char *path, size_t size) {
    static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu",
                                        "/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib" };
    const char *extra = getenv("LD_LIBRARY_PATH");
    if (extra) {   // the caller's own library path first, as the dynamic linker would
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", extra);
        for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            snprintf(path, size, "%s/libpulse-simple.so.0", dir);
            if (access(path, R_OK) == 0) return path;
        }
    }
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, size, "%s/libpulse-simple.so.0", dirs[i]);
        if (access(path, R_OK) == 0) return path;
    }
    return NULL;
}

scrub_pulse *scrub_pulse_open(const char *server, const char *app, const char *device, int rate, int channels, int buffer_ms,
                              char *error, size_t error_size) {
    pthread_once(&once, load);
    if (api.missing) { snprintf(error, error_size, "%s", api.missing); return NULL; }
    pa_sample_spec spec = { .format = PA_SAMPLE_S16NE, .rate = (uint32_t)rate, .channels = (uint8_t)channels };
    size_t bytes_per_ms = (size_t)rate * (size_t)channels * 2 / 1000;
    pa_buffer_attr attr = {
        .maxlength = (uint32_t)-1,
        .tlength = (uint32_t)(bytes_per_ms * (size_t)buffer_ms),
        // Playback starts once 40 ms are queued (not the whole buffer): a take after a seek, or a 80 ms scrubbing
        // snippet, is heard at once; the writer keeps ahead of it (decoding runs many times faster than real time).
        .prebuf = (uint32_t)(bytes_per_ms * (size_t)(buffer_ms < 40 ? buffer_ms : 40)),
        .minreq = (uint32_t)-1,
        .fragsize = (uint32_t)-1,
    };
    int err = 0;
    pa_simple *s = api.new_(server, app, PA_STREAM_PLAYBACK, device, "playback", &spec, NULL, &attr, &err);
    if (!s) { snprintf(error, error_size, "%s", api.strerror(err)); return NULL; }
    scrub_pulse *p = calloc(1, sizeof *p);
    if (!p) { api.free(s); snprintf(error, error_size, "out of memory"); return NULL; }
    p->simple = s;
    return p;
}

int scrub_pulse_write(scrub_pulse *p, const int16_t *samples, size_t bytes, char *error, size_t error_size) {
    int err = 0;
    if (api.write(p->simple, samples, bytes, &err) < 0) { snprintf(error, error_size, "%s", api.strerror(err)); return -1; }
    return 0;
}

int64_t scrub_pulse_latency_usec(scrub_pulse *p) {
    int err = 0;
    pa_usec_t l = api.latency(p->simple, &err);
    return l == (pa_usec_t)-1 ? -1 : (int64_t)l;
}

void scrub_pulse_flush(scrub_pulse *p) {
    int err = 0;
    api.flush(p->simple, &err);
}

void scrub_pulse_close(scrub_pulse *p) {
    if (!p) return;
    api.free(p->simple);
    free(p);
}
