// Loads FFmpeg's libraries by their sonames when a forwarder first needs them (see forwarders.c and
// tools/gen-ffmpeg-forwarders). Linking them instead would map libavcodec's ~150 dependencies at every start:
// ~27 MiB and ~30 ms before main, even for a JPEG thumbnail or `scrub --version`.
#include "loader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define SCRUB_STR2(x) #x
#define SCRUB_STR(x) SCRUB_STR2(x)

static const char *const sonames[] = {
    [SCRUB_LIB_AVUTIL] = "libavutil.so." SCRUB_STR(LIBAVUTIL_VERSION_MAJOR),
    [SCRUB_LIB_SWSCALE] = "libswscale.so." SCRUB_STR(LIBSWSCALE_VERSION_MAJOR),
    [SCRUB_LIB_AVCODEC] = "libavcodec.so." SCRUB_STR(LIBAVCODEC_VERSION_MAJOR),
    [SCRUB_LIB_AVFORMAT] = "libavformat.so." SCRUB_STR(LIBAVFORMAT_VERSION_MAJOR),
};
static void *handles[4];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *scrub_ffmpeg_symbol(enum scrub_ffmpeg_library library, const char *name) {
    pthread_mutex_lock(&lock);
    if (!handles[library]) {
        handles[library] = dlopen(sonames[library], RTLD_LAZY | RTLD_LOCAL);
        if (!handles[library]) {
            fprintf(stderr, "scrub: cannot load FFmpeg's %s (%s); install it (Debian: apt-get install ffmpeg)\n",
                    sonames[library], dlerror());
            _exit(127);
        }
    }
    void *symbol = dlsym(handles[library], name);
    pthread_mutex_unlock(&lock);
    if (!symbol) {
        fprintf(stderr, "scrub: %s has no function %s (a different FFmpeg version than scrub was built for)\n",
                sonames[library], name);
        _exit(127);
    }
    return symbol;
}
