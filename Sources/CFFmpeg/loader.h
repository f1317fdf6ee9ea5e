// The lazy loader behind forwarders.c.
#ifndef SCRUBKIT_CFFMPEG_LOADER_H
#define SCRUBKIT_CFFMPEG_LOADER_H

#include "include/shim.h"
// The other libraries loaded on first use (their forwarders are in forwarders.c too): libsixel, FreeType, fontconfig,
// libwebp. Linked, they and theirs (libpng, brotli, expat) would be mapped at every start: 1.4 ms of a JPEG thumbnail.
#include <sixel.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <fontconfig/fontconfig.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

// FFmpeg's first (SCRUB_LIBRARIES of them: what `scrubkit --version` reports), then the others.
enum scrub_ffmpeg_library {
    SCRUB_LIB_AVUTIL, SCRUB_LIB_SWSCALE, SCRUB_LIB_AVCODEC, SCRUB_LIB_AVFORMAT, SCRUB_LIB_SWRESAMPLE, SCRUB_LIB_AVFILTER,
    SCRUB_LIB_SIXEL, SCRUB_LIB_FREETYPE, SCRUB_LIB_FONTCONFIG, SCRUB_LIB_WEBP, SCRUB_LIB_WEBPDEMUX, SCRUB_LIB_WEBPMUX,
};

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
