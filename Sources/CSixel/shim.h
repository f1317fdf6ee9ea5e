// libsixel for Swift: one call that encodes packed RGB into a growable C buffer (no C callbacks in Swift).
#ifndef SCRUBKIT_CSIXEL_SHIM_H
#define SCRUBKIT_CSIXEL_SHIM_H
#include <sixel.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *data; size_t length; size_t capacity; } scrub_sixel_buffer;

static int scrub_sixel_write(char *data, int size, void *priv) {
    scrub_sixel_buffer *b = (scrub_sixel_buffer *)priv;
    if (b->length + (size_t)size > b->capacity) {
        size_t cap = b->capacity ? b->capacity * 2 : 65536;
        while (cap < b->length + (size_t)size) cap *= 2;
        char *p = (char *)realloc(b->data, cap);
        if (!p) return -1;
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->length, data, (size_t)size);
    b->length += (size_t)size;
    return 0;
}

/// Encodes `width × height` RGB888 pixels as sixel into `out` (caller frees with scrub_sixel_buffer_free).
/// Adaptive palette of up to 256 colours; `fast` trades palette quality for speed (playback).
static inline int scrub_sixel_encode_rgb(unsigned char *pixels, int width, int height, int fast, scrub_sixel_buffer *out) {
    sixel_output_t *output = NULL;
    sixel_dither_t *dither = NULL;
    SIXELSTATUS status = sixel_output_new(&output, scrub_sixel_write, out, NULL);
    if (SIXEL_FAILED(status)) return -1;
    status = sixel_dither_new(&dither, 256, NULL);
    if (SIXEL_FAILED(status)) { sixel_output_unref(output); return -1; }
    status = sixel_dither_initialize(dither, pixels, width, height, SIXEL_PIXELFORMAT_RGB888,
                                     SIXEL_LARGE_AUTO, SIXEL_REP_AUTO, fast ? SIXEL_QUALITY_LOW : SIXEL_QUALITY_AUTO);
    if (SIXEL_SUCCEEDED(status)) status = sixel_encode(pixels, width, height, 3, dither, output);
    sixel_dither_unref(dither);
    sixel_output_unref(output);
    return SIXEL_FAILED(status) ? -1 : 0;
}

/// A palette of up to 256 colours chosen for `pixels` (median cut, libsixel's fast quality), for
/// scrub_sixel_encode_with; NULL on failure. Free with scrub_sixel_palette_free.
static inline sixel_dither_t *scrub_sixel_palette_new(unsigned char *pixels, int width, int height) {
    sixel_dither_t *dither = NULL;
    if (SIXEL_FAILED(sixel_dither_new(&dither, 256, NULL))) return NULL;
    if (SIXEL_FAILED(sixel_dither_initialize(dither, pixels, width, height, SIXEL_PIXELFORMAT_RGB888,
                                             SIXEL_LARGE_AUTO, SIXEL_REP_AUTO, SIXEL_QUALITY_LOW))) {
        sixel_dither_unref(dither);
        return NULL;
    }
    return dither;
}

static inline void scrub_sixel_palette_free(sixel_dither_t *dither) { if (dither) sixel_dither_unref(dither); }

/// Encodes `width × height` RGB888 pixels as sixel with the palette `dither` (kept between pictures: no histogram,
/// no median cut per picture), libsixel's fast encoding policy, into `out`.
static inline int scrub_sixel_encode_with(unsigned char *pixels, int width, int height, sixel_dither_t *dither, scrub_sixel_buffer *out) {
    sixel_output_t *output = NULL;
    if (SIXEL_FAILED(sixel_output_new(&output, scrub_sixel_write, out, NULL))) return -1;
    sixel_output_set_encode_policy(output, SIXEL_ENCODEPOLICY_FAST);
    SIXELSTATUS status = sixel_encode(pixels, width, height, 3, dither, output);
    sixel_output_unref(output);
    return SIXEL_FAILED(status) ? -1 : 0;
}

static inline void scrub_sixel_buffer_free(scrub_sixel_buffer *b) { free(b->data); b->data = NULL; b->length = b->capacity = 0; }
#endif
