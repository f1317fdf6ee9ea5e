// Loads FFmpeg's libraries (and libsixel, FreeType, fontconfig, libwebp) by their sonames when a forwarder first needs
// them (see forwarders.c and tools/gen-forwarders). Linking them instead would map libavcodec's ~150 dependencies at every start:
// ~27 MiB and ~30 ms before main, even for a JPEG thumbnail or `scrubkit --version`.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   // memmem
#endif
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
    [SCRUB_LIB_SIXEL] = "libsixel.so.1", [SCRUB_LIB_FREETYPE] = "libfreetype.so.6",
    [SCRUB_LIB_FONTCONFIG] = "libfontconfig.so.1", [SCRUB_LIB_WEBP] = "libwebp.so.7",
    [SCRUB_LIB_WEBPDEMUX] = "libwebpdemux.so.2", [SCRUB_LIB_WEBPMUX] = "libwebpmux.so.3",
};
#define SCRUB_LIBRARIES 6
#define SCRUB_ALL_LIBRARIES 12
static void *handles[SCRUB_ALL_LIBRARIES];
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

// The file the dynamic linker could not load: the library itself, or the dependency its message starts with
// ("/lib/…/libavcodec.so.59: cannot open shared object file"), as a soname; written into `out`.
static void failed_soname(const char *soname, const char *error, char *out, size_t size) {
    snprintf(out, size, "%s", soname);
    const char *colon = error ? strchr(error, ':') : NULL;
    if (!colon) return;
    const char *start = colon;
    while (start > error && start[-1] != '/' && start[-1] != ' ') start--;
    if (colon - start > 3 && strncmp(start, "lib", 3) == 0 && memmem(start, colon - start, ".so.", 4))
        snprintf(out, size, "%.*s", (int)(colon - start), start);
}

static void *open_library(enum scrub_ffmpeg_library library) {
    void *handle = dlopen(sonames[library], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        // Debian names each library's package after its soname: libavfilter.so.8 is in libavfilter8.
        const char *error = dlerror();
        char failed[256];
        failed_soname(sonames[library], error, failed, sizeof failed);
        const char *dot = strstr(failed, ".so.");
        fprintf(stderr, "scrubkit: cannot load %s%s (%s); install it (Debian: apt-get install %.*s%s)\n",
                library < SCRUB_LIBRARIES ? "FFmpeg's " : "", sonames[library], error ? error : "?",
                (int)(dot - failed), failed, dot + 4);
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
    if (library < SCRUB_LIBRARIES && !handles[SCRUB_LIB_AVUTIL]) {   // every FFmpeg library needs it: first, and the log
        handles[SCRUB_LIB_AVUTIL] = open_library(SCRUB_LIB_AVUTIL);
        apply_log_settings();
    }
    if (!handles[library]) handles[library] = open_library(library);
    void *symbol = dlsym(handles[library], name);
    pthread_mutex_unlock(&lock);
    if (!symbol) {
        fprintf(stderr, "scrubkit: %s has no function %s (a different version than scrubkit was built for)\n",
                sonames[library], name);
        _exit(127);
    }
    return symbol;
}

// --- What `scrubkit --version` reports: the libraries found, without ending the process when one is missing. ---

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

const char *scrub_lazy_soname(const char *name) {
    size_t n = strlen(name);
    for (int i = 0; i < SCRUB_ALL_LIBRARIES; i++)
        if (strncmp(sonames[i], name, n) == 0 && strncmp(sonames[i] + n, ".so.", 4) == 0) return sonames[i];
    return NULL;
}

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

// A string libavutil returns about itself (av_version_info, avutil_license), or NULL when it is missing.
static const char *avutil_string(const char *function) {
    void *handle = dlopen(sonames[SCRUB_LIB_AVUTIL], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) return NULL;
    const char *(*get)(void) = (const char *(*)(void))dlsym(handle, function);
    return get ? get() : NULL;
}

const char *scrub_ffmpeg_release(void) { return avutil_string("av_version_info"); }

const char *scrub_ffmpeg_license(void) { return avutil_string("avutil_license"); }
