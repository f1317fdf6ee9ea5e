// libheif for Swift: HEIF/HEIC stills (what phones shoot; FFmpeg 5.1 cannot read them). Decodes the smallest
// picture that covers the output — an embedded thumbnail when one is big enough (shrink-on-load, as ImageIO does),
// else the primary image — with its rotation/mirroring applied by libheif, to packed RGB.
#ifndef SCRUBKIT_CHEIF_SHIM_H
#define SCRUBKIT_CHEIF_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

typedef struct {
    struct heif_context *context;
    struct heif_image_handle *primary;
    int width, height;          // displayed size of the primary image (transformations applied)
    int thumbnails;
} scrub_heif;

/// Opens `path`; NULL when libheif cannot read it (the caller falls back).
static inline scrub_heif *scrub_heif_open(const char *path) {
    struct heif_context *ctx = heif_context_alloc();
    if (!ctx) return NULL;
    struct heif_image_handle *primary = NULL;
    if (heif_context_read_from_file(ctx, path, NULL).code != heif_error_Ok ||
        heif_context_get_primary_image_handle(ctx, &primary).code != heif_error_Ok) {
        heif_context_free(ctx);
        return NULL;
    }
    scrub_heif *h = (scrub_heif *)calloc(1, sizeof *h);
    if (!h) { heif_image_handle_release(primary); heif_context_free(ctx); return NULL; }
    h->context = ctx;
    h->primary = primary;
    h->width = heif_image_handle_get_width(primary);
    h->height = heif_image_handle_get_height(primary);
    h->thumbnails = heif_image_handle_get_number_of_thumbnails(primary);
    return h;
}

/// Decodes the smallest of {embedded thumbnails, primary} that is at least `min_width × min_height` (the primary
/// when none is), transformations applied unless `ignore_transformations`. Returns malloc'd RGB (free with free())
/// and its size, or NULL with `message` set; 2 in `*too_large` when the picture is above `max_pixels`.
static inline unsigned char *scrub_heif_decode(scrub_heif *h, int min_width, int min_height, int ignore_transformations,
                                               long long max_pixels, int *out_width, int *out_height, int *too_large,
                                               char message[256]) {
    struct heif_image_handle *use = h->primary, *thumbnail = NULL;
    *too_large = 0;
    if (h->thumbnails > 0 && !ignore_transformations) {
        heif_item_id ids[8];
        int n = heif_image_handle_get_list_of_thumbnail_IDs(h->primary, ids, 8);
        for (int i = 0; i < n; i++) {
            struct heif_image_handle *t = NULL;
            if (heif_image_handle_get_thumbnail(h->primary, ids[i], &t).code != heif_error_Ok) continue;
            int tw = heif_image_handle_get_width(t), th = heif_image_handle_get_height(t);
            int covers = tw >= min_width && th >= min_height;
            int smaller = !thumbnail || (long long)tw * th < (long long)heif_image_handle_get_width(thumbnail) * heif_image_handle_get_height(thumbnail);
            if (covers && smaller) { if (thumbnail) heif_image_handle_release(thumbnail); thumbnail = t; }
            else heif_image_handle_release(t);
        }
        if (thumbnail) use = thumbnail;
    }
    if ((long long)heif_image_handle_get_width(use) * heif_image_handle_get_height(use) > max_pixels) {
        if (thumbnail) heif_image_handle_release(thumbnail);
        *too_large = 1;
        return NULL;
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options) options->ignore_transformations = (uint8_t)ignore_transformations;
    struct heif_image *image = NULL;
    struct heif_error e = heif_decode_image(use, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options);
    if (options) heif_decoding_options_free(options);
    if (thumbnail) heif_image_handle_release(thumbnail);
    if (e.code != heif_error_Ok) { snprintf(message, 256, "%s", e.message ? e.message : "decoding failed"); return NULL; }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int w = heif_image_get_width(image, heif_channel_interleaved), ht = heif_image_get_height(image, heif_channel_interleaved);
    unsigned char *pixels = plane && w > 0 && ht > 0 ? (unsigned char *)malloc((size_t)w * (size_t)ht * 3) : NULL;
    if (pixels) for (int y = 0; y < ht; y++) memcpy(pixels + (size_t)y * (size_t)w * 3, plane + (size_t)y * (size_t)stride, (size_t)w * 3);
    heif_image_release(image);
    if (!pixels) { snprintf(message, 256, "no picture"); return NULL; }
    *out_width = w;
    *out_height = ht;
    return pixels;
}

static inline void scrub_heif_close(scrub_heif *h) {
    if (!h) return;
    heif_image_handle_release(h->primary);
    heif_context_free(h->context);
    free(h);
}
#endif
