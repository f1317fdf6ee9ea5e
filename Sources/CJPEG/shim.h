// libjpeg-turbo for Swift: a decoder that reads a JPEG file scaled in the DCT domain (1/1 … 1/8) to RGB, streaming
// from the file, and an encoder from packed RGB to JPEG bytes. libjpeg reports fatal errors through error_exit, which must not return: it longjmps back
// here (Swift cannot), so a corrupt file gives an error code, never exit() or a crash.
#ifndef SCRUBKIT_CJPEG_SHIM_H
#define SCRUBKIT_CJPEG_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

struct scrub_jpeg_error { struct jpeg_error_mgr base; jmp_buf jump; char message[JMSG_LENGTH_MAX]; };

static void scrub_jpeg_error_exit(j_common_ptr cinfo) {
    struct scrub_jpeg_error *e = (struct scrub_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}
static void scrub_jpeg_silence(j_common_ptr cinfo) { (void)cinfo; }

/// A source reading the file straight into libjpeg's input buffer, 256 KiB per read() (libjpeg's own stdio source
/// reads 4 KiB at a time through a stdio buffer: 2,600 calls and a second copy for a 10 MB photo). At the end of a
/// truncated file it hands libjpeg a fake EOI marker, as the stdio source does, so damaged files decode the same.
typedef struct { struct jpeg_source_mgr pub; int fd; JOCTET *buffer; size_t capacity; int started; } scrub_jpeg_source;

static void scrub_jpeg_source_init(j_decompress_ptr cinfo) { (void)cinfo; }
static boolean scrub_jpeg_source_fill(j_decompress_ptr cinfo) {
    scrub_jpeg_source *src = (scrub_jpeg_source *)cinfo->src;
    ssize_t n;
    do { n = read(src->fd, src->buffer, src->capacity); } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (!src->started) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)n;
    src->started = 1;
    return TRUE;
}
static void scrub_jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)scrub_jpeg_source_fill(cinfo);
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}
static void scrub_jpeg_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

typedef struct {
    unsigned char *pixels;   // RGB, width * height * 3 (caller frees with scrub_jpeg_free); NULL when decoded into `dest`
    int width, height;       // decoded (scaled) size
    int full_width, full_height;
    char message[JMSG_LENGTH_MAX];
} scrub_jpeg_result;

/// Decodes `path` scaled by 1/`denominator` (1, 2, 4 or 8): into `dest` when the scaled picture is exactly
/// `dest_size` bytes (the caller's buffer: no copy afterwards), else into a buffer of its own (`out->pixels`).
/// Returns 0 on success; 1 when libjpeg cannot or should not handle it here (error or an unsupported colour space,
/// e.g. CMYK): the caller falls back; 2 when the picture is above `max_pixels` (checked from the header, before any
/// pixel memory is allocated).
static inline int scrub_jpeg_decode(const char *path, int denominator, long long max_pixels, unsigned char *dest,
                                    size_t dest_size, scrub_jpeg_result *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    scrub_jpeg_source source;
    source.capacity = 256 << 10;
    source.buffer = (JOCTET *)malloc(source.capacity);
    if (!source.buffer) { close(fd); return 1; }
    source.fd = fd;
    source.started = 0;
    source.pub.init_source = scrub_jpeg_source_init;
    source.pub.fill_input_buffer = scrub_jpeg_source_fill;
    source.pub.skip_input_data = scrub_jpeg_source_skip;
    source.pub.resync_to_restart = jpeg_resync_to_restart;
    source.pub.term_source = scrub_jpeg_source_term;
    source.pub.bytes_in_buffer = 0;
    source.pub.next_input_byte = NULL;
    struct jpeg_decompress_struct cinfo;
    struct scrub_jpeg_error err;
    unsigned char *volatile pixels = NULL;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = scrub_jpeg_error_exit;
    err.base.output_message = scrub_jpeg_silence;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        snprintf(out->message, sizeof out->message, "%s", err.message);
        jpeg_destroy_decompress(&cinfo);
        if (pixels != dest) free(pixels);   // (the caller's buffer stays the caller's)
        close(fd); free(source.buffer);
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.src = &source.pub;
    jpeg_read_header(&cinfo, TRUE);
    out->full_width = (int)cinfo.image_width;
    out->full_height = (int)cinfo.image_height;
    if ((long long)cinfo.image_width * (long long)cinfo.image_height > max_pixels) {
        jpeg_destroy_decompress(&cinfo); close(fd); free(source.buffer); return 2;
    }
    if (cinfo.jpeg_color_space != JCS_YCbCr && cinfo.jpeg_color_space != JCS_GRAYSCALE && cinfo.jpeg_color_space != JCS_RGB) {
        jpeg_destroy_decompress(&cinfo); close(fd); free(source.buffer); return 1;
    }
    cinfo.out_color_space = JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)denominator;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);
    int w = (int)cinfo.output_width, h = (int)cinfo.output_height;
    int into_dest = dest && (size_t)w * (size_t)h * 3 == dest_size;
    pixels = into_dest ? dest : (unsigned char *)malloc((size_t)w * (size_t)h * 3);
    if (!pixels) { jpeg_destroy_decompress(&cinfo); close(fd); free(source.buffer); return 1; }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * (size_t)w * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    close(fd); free(source.buffer);
    out->pixels = into_dest ? NULL : pixels;
    out->width = w;
    out->height = h;
    return 0;
}

static inline void scrub_jpeg_free(scrub_jpeg_result *r) { free(r->pixels); r->pixels = NULL; }

/// A growable in-memory destination we own (libjpeg's jpeg_mem_dest reallocates behind the caller's back, so after
/// an error its buffer pointer may already be freed).
typedef struct { struct jpeg_destination_mgr pub; unsigned char *data; size_t capacity, size; } scrub_jpeg_destination;

static void scrub_jpeg_destination_init(j_compress_ptr cinfo) {
    scrub_jpeg_destination *d = (scrub_jpeg_destination *)cinfo->dest;
    d->pub.next_output_byte = d->data;
    d->pub.free_in_buffer = d->capacity;
}
static boolean scrub_jpeg_destination_grow(j_compress_ptr cinfo) {   // called with the buffer full
    scrub_jpeg_destination *d = (scrub_jpeg_destination *)cinfo->dest;
    unsigned char *bigger = (unsigned char *)realloc(d->data, d->capacity * 2);
    if (!bigger) { cinfo->err->msg_code = JERR_OUT_OF_MEMORY; (*cinfo->err->error_exit)((j_common_ptr)cinfo); }
    d->data = bigger;
    d->pub.next_output_byte = bigger + d->capacity;
    d->pub.free_in_buffer = d->capacity;
    d->capacity *= 2;
    return TRUE;
}
static void scrub_jpeg_destination_term(j_compress_ptr cinfo) {
    scrub_jpeg_destination *d = (scrub_jpeg_destination *)cinfo->dest;
    d->size = d->capacity - d->pub.free_in_buffer;
}

/// Encodes packed RGB (`stride` bytes per row) at libjpeg `quality` (1–100), without chroma subsampling (4:4:4:
/// thumbnails are small, and coloured edges and text stay sharp). On success returns 0 and sets `*bytes` (free with
/// free()) and `*size`; on failure returns 1 with `message` set.
static inline int scrub_jpeg_encode(const unsigned char *rgb, int width, int height, int stride, int quality,
                                    unsigned char **bytes, unsigned long *size, char message[JMSG_LENGTH_MAX]) {
    struct jpeg_compress_struct cinfo;
    struct scrub_jpeg_error err;
    scrub_jpeg_destination destination;
    destination.capacity = (size_t)width * (size_t)height / 2 + 4096;   // grows if needed
    destination.size = 0;
    destination.data = (unsigned char *)malloc(destination.capacity);
    if (!destination.data) { snprintf(message, JMSG_LENGTH_MAX, "out of memory"); return 1; }
    destination.pub.init_destination = scrub_jpeg_destination_init;
    destination.pub.empty_output_buffer = scrub_jpeg_destination_grow;
    destination.pub.term_destination = scrub_jpeg_destination_term;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = scrub_jpeg_error_exit;
    err.base.output_message = scrub_jpeg_silence;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        snprintf(message, JMSG_LENGTH_MAX, "%s", err.message);
        jpeg_destroy_compress(&cinfo);
        free(destination.data);   // always the current buffer: ours, grown in place
        return 1;
    }
    jpeg_create_compress(&cinfo);
    cinfo.dest = &destination.pub;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    for (int i = 0; i < cinfo.num_components; i++) { cinfo.comp_info[i].h_samp_factor = 1; cinfo.comp_info[i].v_samp_factor = 1; }
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *bytes = destination.data;
    *size = (unsigned long)destination.size;
    return 0;
}
#endif
