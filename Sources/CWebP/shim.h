// libwebp for Swift: the first frame of a WebP file (still or animated), decoded straight to the requested size by
// libwebp's own rescaler (shrink-on-load: memory follows the output, not the 16000×9000 canvas), and its EXIF.
#ifndef SCRUBKIT_CWEBP_SHIM_H
#define SCRUBKIT_CWEBP_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

typedef struct {
    uint8_t *file;               // the whole file (WebP is read from memory)
    size_t file_size;
    WebPDemuxer *demux;
    WebPIterator frame;          // frame 1
    int has_frame;
    int width, height;           // of frame 1
    int frame_count;
    const uint8_t *exif;         // EXIF chunk payload inside `file`, or NULL
    size_t exif_size;
} scrub_webp;

/// Opens `path` (at most `max_bytes`); NULL when it is not a WebP libwebp can take (the caller falls back).
static inline scrub_webp *scrub_webp_open(const char *path, long long max_bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long size = ftell(f);
    if (size <= 12 || size > max_bytes) { fclose(f); return NULL; }
    rewind(f);
    scrub_webp *w = (scrub_webp *)calloc(1, sizeof *w);
    if (!w) { fclose(f); return NULL; }
    w->file = (uint8_t *)malloc((size_t)size);
    if (!w->file || fread(w->file, 1, (size_t)size, f) != (size_t)size) { fclose(f); free(w->file); free(w); return NULL; }
    fclose(f);
    w->file_size = (size_t)size;
    WebPData data = { w->file, w->file_size };
    w->demux = WebPDemux(&data);
    if (!w->demux || !WebPDemuxGetFrame(w->demux, 1, &w->frame)) {
        if (w->demux) WebPDemuxDelete(w->demux);
        free(w->file); free(w);
        return NULL;
    }
    w->has_frame = 1;
    w->width = w->frame.width;
    w->height = w->frame.height;
    w->frame_count = (int)WebPDemuxGetI(w->demux, WEBP_FF_FRAME_COUNT);
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(w->demux, "EXIF", 1, &chunk)) {
        w->exif = chunk.chunk.bytes;
        w->exif_size = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    return w;
}

/// Decodes frame 1 to RGB at `width × height` (libwebp scales while decoding). Returns the pixels (free with
/// free()) or NULL when the data is corrupt.
static inline uint8_t *scrub_webp_decode(scrub_webp *w, int width, int height) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return NULL;
    if (width != w->width || height != w->height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    size_t stride = (size_t)width * 3, size = stride * (size_t)height;
    uint8_t *pixels = (uint8_t *)malloc(size);
    if (!pixels) return NULL;
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = size;
    VP8StatusCode status = WebPDecode(w->frame.fragment.bytes, w->frame.fragment.size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) { free(pixels); return NULL; }
    return pixels;
}

static inline void scrub_webp_close(scrub_webp *w) {
    if (!w) return;
    if (w->has_frame) WebPDemuxReleaseIterator(&w->frame);
    WebPDemuxDelete(w->demux);
    free(w->file);
    free(w);
}

// --- Animated WebP out (previews): libwebp's animation encoder, frames in as packed RGB. ---

typedef struct {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    int width, height;
} scrub_webp_anim;

static inline void scrub_webp_anim_free(scrub_webp_anim *a) {
    if (!a) return;
    if (a->encoder) WebPAnimEncoderDelete(a->encoder);
    free(a);
}

/// An encoder of `width × height` frames at `quality` (0–100, lossy), looping forever; NULL when libwebp refuses.
static inline scrub_webp_anim *scrub_webp_anim_new(int width, int height, float quality) {
    scrub_webp_anim *a = (scrub_webp_anim *)calloc(1, sizeof *a);
    if (!a) return NULL;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&a->config)) { free(a); return NULL; }
    options.anim_params.loop_count = 0;
    options.allow_mixed = 0;
    a->config.quality = quality;
    a->config.method = 4;
    a->width = width;
    a->height = height;
    a->encoder = WebPAnimEncoderNew(width, height, &options);
    if (!a->encoder) { free(a); return NULL; }
    return a;
}

/// Adds a frame (packed RGB, `width × height`) shown from `timestamp_ms`; 1 on success.
static inline int scrub_webp_anim_add(scrub_webp_anim *a, const uint8_t *rgb, int timestamp_ms) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return 0;
    picture.width = a->width;
    picture.height = a->height;
    picture.use_argb = 1;
    if (!WebPPictureImportRGB(&picture, rgb, a->width * 3)) { WebPPictureFree(&picture); return 0; }
    int ok = WebPAnimEncoderAdd(a->encoder, &picture, timestamp_ms, &a->config);
    WebPPictureFree(&picture);
    return ok;
}

/// Ends the animation at `end_ms` and assembles the file: its bytes in `*out` (free with WebPFree), 1 on success.
static inline int scrub_webp_anim_finish(scrub_webp_anim *a, int end_ms, uint8_t **out, size_t *size) {
    if (!WebPAnimEncoderAdd(a->encoder, NULL, end_ms, NULL)) return 0;
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAssemble(a->encoder, &data)) return 0;
    *out = (uint8_t *)data.bytes;
    *size = data.size;
    return 1;
}
#endif
