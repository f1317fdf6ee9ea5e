// Loads libheif on first use; see include/heif_shim.h.
#include "include/heif_shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

// Every libheif function used, each as a pointer of its own type (p_NAME), filled by load().
#define HEIF_FUNCTIONS(X) \
    X(heif_get_version) X(heif_have_decoder_for_format) X(heif_context_alloc) X(heif_context_free) \
    X(heif_context_read_from_file) X(heif_context_get_primary_image_handle) X(heif_image_handle_release) \
    X(heif_image_handle_get_width) X(heif_image_handle_get_height) X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) X(heif_image_handle_get_thumbnail) X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) X(heif_decode_image) X(heif_image_get_plane_readonly) X(heif_image_get_width) \
    X(heif_image_get_height) X(heif_image_release)
#define DECLARE(f) static __typeof__(&f) p_##f;
HEIF_FUNCTIONS(DECLARE)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *missing;
static char missing_text[256];

static void load(void) {
    void *lib = dlopen("libheif.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        snprintf(missing_text, sizeof missing_text, "libheif is not installed (%s)", dlerror());
        missing = missing_text;
        return;
    }
#define LOAD(f) p_##f = (__typeof__(&f))dlsym(lib, #f); \
    if (!p_##f && !missing) { snprintf(missing_text, sizeof missing_text, "libheif lacks %s", #f); missing = missing_text; }
    HEIF_FUNCTIONS(LOAD)
}

const char *scrub_heif_missing(void) {
    pthread_once(&once, load);
    return missing;
}

scrub_heif *scrub_heif_open(const char *path) {
    if (scrub_heif_missing()) return NULL;
    struct heif_context *ctx = p_heif_context_alloc();
    if (!ctx) return NULL;
    struct heif_image_handle *primary = NULL;
    if (p_heif_context_read_from_file(ctx, path, NULL).code != heif_error_Ok ||
        p_heif_context_get_primary_image_handle(ctx, &primary).code != heif_error_Ok) {
        p_heif_context_free(ctx);
        return NULL;
    }
    scrub_heif *h = (scrub_heif *)calloc(1, sizeof *h);
    if (!h) { p_heif_image_handle_release(primary); p_heif_context_free(ctx); return NULL; }
    h->context = ctx;
    h->primary = primary;
    h->width = p_heif_image_handle_get_width(primary);
    h->height = p_heif_image_handle_get_height(primary);
    h->thumbnails = p_heif_image_handle_get_number_of_thumbnails(primary);
    return h;
}

unsigned char *scrub_heif_decode(scrub_heif *h, int min_width, int min_height, int ignore_transformations,
                                 long long max_pixels, int *out_width, int *out_height, int *too_large, char message[256]) {
    struct heif_image_handle *primary = (struct heif_image_handle *)h->primary;
    struct heif_image_handle *use = primary, *thumbnail = NULL;
    *too_large = 0;
    if (h->thumbnails > 0 && !ignore_transformations) {
        heif_item_id ids[8];
        int n = p_heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, 8);
        for (int i = 0; i < n; i++) {
            struct heif_image_handle *t = NULL;
            if (p_heif_image_handle_get_thumbnail(primary, ids[i], &t).code != heif_error_Ok) continue;
            int tw = p_heif_image_handle_get_width(t), th = p_heif_image_handle_get_height(t);
            int covers = tw >= min_width && th >= min_height;
            int smaller = !thumbnail || (long long)tw * th < (long long)p_heif_image_handle_get_width(thumbnail) * p_heif_image_handle_get_height(thumbnail);
            if (covers && smaller) { if (thumbnail) p_heif_image_handle_release(thumbnail); thumbnail = t; }
            else p_heif_image_handle_release(t);
        }
        if (thumbnail) use = thumbnail;
    }
    if ((long long)p_heif_image_handle_get_width(use) * p_heif_image_handle_get_height(use) > max_pixels) {
        if (thumbnail) p_heif_image_handle_release(thumbnail);
        *too_large = 1;
        return NULL;
    }
    struct heif_decoding_options *options = p_heif_decoding_options_alloc();
    if (options) options->ignore_transformations = (uint8_t)ignore_transformations;
    struct heif_image *image = NULL;
    struct heif_error e = p_heif_decode_image(use, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options);
    if (options) p_heif_decoding_options_free(options);
    if (thumbnail) p_heif_image_handle_release(thumbnail);
    if (e.code != heif_error_Ok) { snprintf(message, 256, "%s", e.message ? e.message : "decoding failed"); return NULL; }
    int stride = 0;
    const uint8_t *plane = p_heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int w = p_heif_image_get_width(image, heif_channel_interleaved), ht = p_heif_image_get_height(image, heif_channel_interleaved);
    unsigned char *pixels = plane && w > 0 && ht > 0 ? (unsigned char *)malloc((size_t)w * (size_t)ht * 3) : NULL;
    if (pixels) for (int y = 0; y < ht; y++) memcpy(pixels + (size_t)y * (size_t)w * 3, plane + (size_t)y * (size_t)stride, (size_t)w * 3);
    p_heif_image_release(image);
    if (!pixels) { snprintf(message, 256, "no picture"); return NULL; }
    *out_width = w;
    *out_height = ht;
    return pixels;
}

void scrub_heif_close(scrub_heif *h) {
    if (!h) return;
    p_heif_image_handle_release((struct heif_image_handle *)h->primary);
    p_heif_context_free((struct heif_context *)h->context);
    free(h);
}

const char *scrub_heif_version(void) {
    return scrub_heif_missing() ? NULL : p_heif_get_version();
}

int scrub_heif_has_decoder(int av1) {
    if (scrub_heif_missing()) return 0;
    return p_heif_have_decoder_for_format(av1 ? heif_compression_AV1 : heif_compression_HEVC) != 0;
}
