// libheif for Swift: HEIF/HEIC stills (what phones shoot; FFmpeg 5.1 cannot read them). Decodes the smallest
// picture that covers the output — an embedded thumbnail when one is big enough (shrink-on-load, as ImageIO does),
// else the primary image — with its rotation/mirroring applied by libheif, to packed RGB.
// libheif is opened on first use (heif_loader.c), not linked: it brings libx265, libde265, libaom and libdav1d, which
// every other command would otherwise map at start (2 MiB of a JPEG thumbnail's 20).
#ifndef SCRUBKIT_CHEIF_SHIM_H
#define SCRUBKIT_CHEIF_SHIM_H

typedef struct {
    void *context;              // struct heif_context *
    void *primary;              // struct heif_image_handle *
    int width, height;          // displayed size of the primary image (transformations applied)
    int thumbnails;
} scrub_heif;

/// Why libheif cannot be used (not installed, too old), or NULL: loads it on the first call.
const char *scrub_heif_missing(void);

/// Opens `path`; NULL when libheif cannot read it or is missing (the caller falls back).
scrub_heif *scrub_heif_open(const char *path);

/// Decodes the smallest of {embedded thumbnails, primary} that is at least `min_width × min_height` (the primary
/// when none is), transformations applied unless `ignore_transformations`. Returns malloc'd RGB (free with free())
/// and its size, or NULL with `message` set; 1 in `*too_large` when the picture is above `max_pixels`.
unsigned char *scrub_heif_decode(scrub_heif *h, int min_width, int min_height, int ignore_transformations,
                                 long long max_pixels, int *out_width, int *out_height, int *too_large, char message[256]);

/// Frees what `scrub_heif_open` returned (NULL is fine).
void scrub_heif_close(scrub_heif *h);

/// libheif's version, or NULL when it is missing.
const char *scrub_heif_version(void);

/// Whether libheif has a decoder for HEVC (`av1` 0) or AV1 (`av1` 1); 0 when it is missing.
int scrub_heif_has_decoder(int av1);
#endif
