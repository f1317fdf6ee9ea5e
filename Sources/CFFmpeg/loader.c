// Loads FFmpeg's libraries by their sonames when a forwarder first needs them (see forwarders.c and
// tools/gen-ffmpeg-forwarders). Linking them instead would map libavcodec's ~150 dependencies at every start:
// ~27 MiB and ~30 ms before main, even for a JPEG thumbnail or `scrub --version`.
#include "loader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SCRUB_STR2(x) #x
#define SCRUB_STR(x) SCRUB_STR2(x)

static const char *const sonames[] = {
    [SCRUB_LIB_AVUTIL] = "libavutil.so." SCRUB_STR(LIBAVUTIL_VERSION_MAJOR),
    [SCRUB_LIB_SWSCALE] = "libswscale.so." SCRUB_STR(LIBSWSCALE_VERSION_MAJOR),
    [SCRUB_LIB_AVCODEC] = "libavcodec.so." SCRUB_STR(LIBAVCODEC_VERSION_MAJOR),
    [SCRUB_LIB_AVFORMAT] = "libavformat.so." SCRUB_STR(LIBAVFORMAT_VERSION_MAJOR),
    [SCRUB_LIB_SWRESAMPLE] = "libswresample.so." SCRUB_STR(LIBSWRESAMPLE_VERSION_MAJOR),
    [SCRUB_LIB_AVFILTER] = "libavfilter.so." SCRUB_STR(LIBAVFILTER_VERSION_MAJOR),
};
#define SCRUB_LIBRARIES 6
static void *handles[SCRUB_LIBRARIES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

// FFmpeg's log: where it goes, kept here so that choosing it does not load FFmpeg.
static scrub_log_sink log_sink;
static int log_level = AV_LOG_QUIET;

static long reconnects;
long scrub_ffmpeg_reconnects(void) { return __atomic_load_n(&reconnects, __ATOMIC_RELAXED); }

static void log_trampoline(void *avcl, int level, const char *fmt, va_list vl) {
    if (fmt && strncmp(fmt, "Will reconnect at", 17) == 0) __atomic_add_fetch(&reconnects, 1, __ATOMIC_RELAXED);
    scrub_log_sink sink = __atomic_load_n(&log_sink, __ATOMIC_ACQUIRE);
    if (!sink || level > __atomic_load_n(&log_level, __ATOMIC_RELAXED)) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    sink(level, line);
}

static void *open_library(enum scrub_ffmpeg_library library) {
    void *handle = dlopen(sonames[library], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "scrub: cannot load FFmpeg's %s (%s); install it (Debian: apt-get install ffmpeg)\n",
                sonames[library], dlerror());
        _exit(127);
    }
    return handle;
}

// With `lock` held and libavutil open: hands the log settings to FFmpeg (dlsym, not the forwarders: they lock).
static void apply_log_settings(void) {
    void (*set_level)(int) = (void (*)(int))dlsym(handles[SCRUB_LIB_AVUTIL], "av_log_set_level");
    void (*set_callback)(void (*)(void *, int, const char *, va_list)) =
        (void (*)(void (*)(void *, int, const char *, va_list)))dlsym(handles[SCRUB_LIB_AVUTIL], "av_log_set_callback");
    if (set_level) set_level(log_level);
    if (set_callback) set_callback(log_trampoline);
}

void scrub_set_log_sink(scrub_log_sink sink, int level) {
    pthread_mutex_lock(&lock);
    __atomic_store_n(&log_sink, sink, __ATOMIC_RELEASE);
    __atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
    if (handles[SCRUB_LIB_AVUTIL]) apply_log_settings();
    pthread_mutex_unlock(&lock);
}

void *scrub_ffmpeg_symbol(enum scrub_ffmpeg_library library, const char *name) {
    pthread_mutex_lock(&lock);
    if (!handles[SCRUB_LIB_AVUTIL]) {   // every FFmpeg library needs it: open it first and set up the log
        handles[SCRUB_LIB_AVUTIL] = open_library(SCRUB_LIB_AVUTIL);
        apply_log_settings();
    }
    if (!handles[library]) handles[library] = open_library(library);
    void *symbol = dlsym(handles[library], name);
    pthread_mutex_unlock(&lock);
    if (!symbol) {
        fprintf(stderr, "scrub: %s has no function %s (a different FFmpeg version than scrub was built for)\n",
                sonames[library], name);
        _exit(127);
    }
    return symbol;
}

// --- What `scrub --version` reports: the libraries found, without ending the process when one is missing. ---

static const char *const names[] = {
    [SCRUB_LIB_AVUTIL] = "libavutil", [SCRUB_LIB_SWSCALE] = "libswscale",
    [SCRUB_LIB_AVCODEC] = "libavcodec", [SCRUB_LIB_AVFORMAT] = "libavformat",
    [SCRUB_LIB_SWRESAMPLE] = "libswresample", [SCRUB_LIB_AVFILTER] = "libavfilter",
};
static const char *const version_functions[] = {
    [SCRUB_LIB_AVUTIL] = "avutil_version", [SCRUB_LIB_SWSCALE] = "swscale_version",
    [SCRUB_LIB_AVCODEC] = "avcodec_version", [SCRUB_LIB_AVFORMAT] = "avformat_version",
    [SCRUB_LIB_SWRESAMPLE] = "swresample_version", [SCRUB_LIB_AVFILTER] = "avfilter_version",
};
static const unsigned built_versions[] = {
    [SCRUB_LIB_AVUTIL] = LIBAVUTIL_VERSION_INT, [SCRUB_LIB_SWSCALE] = LIBSWSCALE_VERSION_INT,
    [SCRUB_LIB_AVCODEC] = LIBAVCODEC_VERSION_INT, [SCRUB_LIB_AVFORMAT] = LIBAVFORMAT_VERSION_INT,
    [SCRUB_LIB_SWRESAMPLE] = LIBSWRESAMPLE_VERSION_INT, [SCRUB_LIB_AVFILTER] = LIBAVFILTER_VERSION_INT,
};

int scrub_ffmpeg_library_count(void) { return SCRUB_LIBRARIES; }

scrub_ffmpeg_library_info scrub_ffmpeg_probe(int index, char *error, size_t size) {
    scrub_ffmpeg_library_info info = {0};
    if (index < 0 || index >= SCRUB_LIBRARIES) return info;
    info.name = names[index];
    info.soname = sonames[index];
    info.built = built_versions[index];
    if (error && size) error[0] = 0;
    // The handle stays open (as the forwarders' would): a reference count, so later forwarders share it.
    void *handle = dlopen(sonames[index], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        if (error && size) snprintf(error, size, "%s", dlerror());
        return info;
    }
    unsigned (*version)(void) = (unsigned (*)(void))dlsym(handle, version_functions[index]);
    info.found = version ? version() : 0;
    if (!version && error && size) snprintf(error, size, "%s has no %s", sonames[index], version_functions[index]);
    return info;
}

const char *scrub_ffmpeg_release(void) {
    void *handle = dlopen(sonames[SCRUB_LIB_AVUTIL], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) return NULL;
    const char *(*info)(void) = (const char *(*)(void))dlsym(handle, "av_version_info");
    return info ? info() : NULL;
}
