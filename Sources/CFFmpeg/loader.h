// The lazy loader behind forwarders.c.
#ifndef SCRUBKIT_CFFMPEG_LOADER_H
#define SCRUBKIT_CFFMPEG_LOADER_H

#include "include/shim.h"

enum scrub_ffmpeg_library { SCRUB_LIB_AVUTIL, SCRUB_LIB_SWSCALE, SCRUB_LIB_AVCODEC, SCRUB_LIB_AVFORMAT, SCRUB_LIB_SWRESAMPLE, SCRUB_LIB_AVFILTER };

/// The address of `name` in `library`, loading the library first if needed. Never returns NULL: a missing library
/// or function ends the process with a message, as the dynamic linker would have at start-up.
void *scrub_ffmpeg_symbol(enum scrub_ffmpeg_library library, const char *name);

/// Resolves a function once (a benign race: every thread stores the same address) and yields it, typed.
#define SCRUB_FORWARD(library, name) \
    ({ static __typeof__(&name) fn; \
       __typeof__(&name) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE); \
       if (!f) { f = (__typeof__(&name))scrub_ffmpeg_symbol(library, #name); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); } \
       f; })

#endif
