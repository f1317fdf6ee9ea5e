// FFmpeg for Swift: the C API plus static-inline shims for what Swift cannot import
// (function-like macros, FFERRTAG constants, variadic logging) and for calls that differ between FFmpeg versions.
#ifndef SCRUBKIT_CFFMPEG_SHIM_H
#define SCRUBKIT_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libavutil/md5.h>
#include <libavutil/time.h>
#include <inttypes.h>
#include <string.h>
#include <libavutil/mastering_display_metadata.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <malloc.h>

static inline int scrub_averror(int posix) { return AVERROR(posix); }
static inline int scrub_averror_eof(void) { return AVERROR_EOF; }
static inline int scrub_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int scrub_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int scrub_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int scrub_averror_external(void) { return AVERROR_EXTERNAL; }
static inline int scrub_averror_bug(void) { return AVERROR_BUG; }
static inline int scrub_averror_bug2(void) { return AVERROR_BUG2; }
static inline int scrub_averror_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
/// The HTTP status behind an FFmpeg HTTP error code (400, 401, 403, 404; 499 = another 4xx, 599 = a 5xx), else 0.
static inline int scrub_averror_http_status(int code) {
    switch (code) {
    case AVERROR_HTTP_BAD_REQUEST: return 400;
    case AVERROR_HTTP_UNAUTHORIZED: return 401;
    case AVERROR_HTTP_FORBIDDEN: return 403;
    case AVERROR_HTTP_NOT_FOUND: return 404;
    case AVERROR_HTTP_OTHER_4XX: return 499;
    case AVERROR_HTTP_SERVER_ERROR: return 599;
    default: return 0;
    }
}
static inline int scrub_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int64_t scrub_nopts(void) { return AV_NOPTS_VALUE; }

/// The display matrix of a stream (9 int32 values), or NULL. Hides the 5.x / 6.1+ / 7.x API differences.
static inline const int32_t *scrub_stream_display_matrix(const AVStream *st) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    return (sd && sd->size >= 9 * 4) ? (const int32_t *)sd->data : NULL;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return (data && size >= 9 * 4) ? (const int32_t *)data : NULL;
#endif
}

/// The display matrix attached to a decoded frame (JPEG EXIF orientation arrives this way), or NULL.
static inline const int32_t *scrub_frame_display_matrix(const AVFrame *frame) {
    AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX);
    return (sd && sd->size >= 9 * 4) ? (const int32_t *)sd->data : NULL;
}

/// Whether the stream carries mastering-display or content-light metadata (HDR10 signalling).
static inline int scrub_stream_has_hdr_metadata(const AVStream *st) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15)
    return av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data,
                                   AV_PKT_DATA_MASTERING_DISPLAY_METADATA) != NULL;
#else
    size_t size = 0;
    return av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size) != NULL;
#endif
}

static inline int scrub_frame_is_key(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 59 || (LIBAVUTIL_VERSION_MAJOR == 58 && LIBAVUTIL_VERSION_MINOR >= 29)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

static inline int scrub_packet_is_key(const AVPacket *pkt) { return (pkt->flags & AV_PKT_FLAG_KEY) != 0; }

/// av_log is variadic: log a preformatted message with a "%s" format (never as the format itself).
static inline void scrub_log(void *avcl, int level, const char *message) { av_log(avcl, level, "%s", message); }

/// Receives FFmpeg's formatted log lines (va_list does not import into Swift).
typedef void (*scrub_log_sink)(int level, const char *line);
/// Routes FFmpeg's log to `sink` (NULL: silence), for messages at or above `level` in importance. Takes effect when
/// FFmpeg is loaded (loader.c), so it never loads FFmpeg itself. Until called, FFmpeg's log is silenced.
void scrub_set_log_sink(scrub_log_sink sink, int level);
/// How many times FFmpeg's HTTP client has reconnected in this process (it logs "Will reconnect at …"; counted
/// whatever the log level), so a timeout can say how many connections were made.
long scrub_ffmpeg_reconnects(void);

/// What `scrubkit --version` reports of one of FFmpeg's libraries (see loader.c).
typedef struct {
    const char *name;      ///< "libavformat"
    const char *soname;    ///< "libavformat.so.59": the file the lazy loader opens
    unsigned built;        ///< AV_VERSION_INT of the headers scrubkit was built with
    unsigned found;        ///< AV_VERSION_INT of the library found at run time, 0 when it could not be opened
} scrub_ffmpeg_library_info;
/// How many libraries scrub_ffmpeg_probe describes (libavutil, libswscale, libavcodec, libavformat, libswresample,
/// libavfilter).
int scrub_ffmpeg_library_count(void);

/// The file the lazy loader opens for a library it forwards (`libsixel` → `libsixel.so.1`: FFmpeg's, libsixel,
/// libfreetype, libfontconfig, libwebp, libwebpdemux, libwebpmux); NULL for any other name.
const char *scrub_lazy_soname(const char *name);
/// Opens library `index` if it can (unlike the forwarders, a missing library is reported, not fatal) and
/// describes it; on failure `error` (of `size` bytes) receives the dynamic linker's message.
scrub_ffmpeg_library_info scrub_ffmpeg_probe(int index, char *error, size_t size);
/// FFmpeg's release string (av_version_info(), e.g. "5.1.6-0+deb12u1"), or NULL when libavutil is missing.
const char *scrub_ffmpeg_release(void);
/// The licence FFmpeg was built under (avutil_license(): "GPL version 2 or later" for Debian's build, "LGPL version
/// 2.1 or later" without --enable-gpl), or NULL when libavutil is missing.
const char *scrub_ffmpeg_license(void);

/// Sets the frame's pointers into `data` with line size `stride` (for writing scaler output into Swift memory).
static inline void scrub_frame_set_plane(AVFrame *frame, int plane, uint8_t *data, int stride) {
    frame->data[plane] = data;
    frame->linesize[plane] = stride;
}
static inline uint8_t *scrub_frame_plane(const AVFrame *frame, int plane) { return frame->data[plane]; }
static inline int scrub_frame_stride(const AVFrame *frame, int plane) { return frame->linesize[plane]; }

/// Bytes past the end of a source row that swscale's SIMD input readers may load (FFmpeg's own buffers are
/// av_malloc'd with this much padding or more; a caller's tight buffer is not).
#define SCRUB_SWS_OVERREAD 256

/// Scales a packed source held in a tight buffer (Swift memory: no padding after the last row) without reading past
/// its end: swscale's SIMD loads run up to SCRUB_SWS_OVERREAD bytes past a row. All rows but a tail of at least that
/// many bytes are scaled straight from `src` (their over-reads land inside the following rows); the tail is scaled from
/// a padded copy, as the next slice (swscale keeps the lines it needs between slices). Returns the number of output
/// lines, or a negative AVERROR.
static inline int scrub_sws_scale_tight(struct SwsContext *ctx, const uint8_t *src, int src_stride, int src_h,
                                        uint8_t *const dst[], const int dst_stride[]) {
    if (src_stride <= 0 || src_h <= 0) return AVERROR(EINVAL);
    int tail = (SCRUB_SWS_OVERREAD + src_stride - 1) / src_stride;
    if (tail > src_h) tail = src_h;
    int head = src_h - tail, lines = 0;
    int in_stride[4] = { src_stride, 0, 0, 0 };
    if (head > 0) {
        const uint8_t *in[4] = { src, NULL, NULL, NULL };
        int r = sws_scale(ctx, in, in_stride, 0, head, dst, dst_stride);
        if (r < 0) return r;
        lines += r;
    }
    size_t bytes = (size_t)tail * (size_t)src_stride;
    uint8_t *copy = av_malloc(bytes + SCRUB_SWS_OVERREAD + 64);
    if (!copy) return AVERROR(ENOMEM);
    memcpy(copy, src + (size_t)head * (size_t)src_stride, bytes);
    memset(copy + bytes, 0, SCRUB_SWS_OVERREAD + 64);
    const uint8_t *in[4] = { copy, NULL, NULL, NULL };
    int r = sws_scale(ctx, in, in_stride, head, tail, dst, dst_stride);
    av_free(copy);
    if (r < 0) return r;
    return lines + r;
}

/// Scales a whole frame into a packed destination buffer; returns sws_scale's result.
static inline int scrub_sws_scale_to(struct SwsContext *ctx, const AVFrame *src, uint8_t *dst, int dst_stride) {
    uint8_t *planes[4] = { dst, NULL, NULL, NULL };
    int strides[4] = { dst_stride, 0, 0, 0 };
    return sws_scale(ctx, (const uint8_t * const *)src->data, src->linesize, 0, src->height, planes, strides);
}

/// Scales packed data (e.g. RGB) into a frame's planes (see scrub_sws_scale_tight for the padding).
static inline int scrub_sws_scale_from(struct SwsContext *ctx, const uint8_t *src, int src_stride, int src_h, AVFrame *dst) {
    return scrub_sws_scale_tight(ctx, src, src_stride, src_h, dst->data, dst->linesize);
}

/// Returns freed heap memory to the system (glibc keeps it in its arenas otherwise).
static inline void scrub_release_free_memory(void) { malloc_trim(0); }

/// glibc: blocks of 128 KiB and more (decoded frames, pictures) always get their own mapping, returned to the
/// system when freed (the default threshold grows after the first free, leaving later frames in the heap), and the
/// heap grows without extra padding.
static inline void scrub_return_large_blocks_promptly(void) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TOP_PAD, 0);
}

/// Scales packed data into packed data (e.g. RGB24 → RGB24); see scrub_sws_scale_tight for the padding.
static inline int scrub_sws_scale_packed(struct SwsContext *ctx, const uint8_t *src, int src_stride, int src_h, uint8_t *dst, int dst_stride) {
    uint8_t *out[4] = { dst, NULL, NULL, NULL };
    int out_stride[4] = { dst_stride, 0, 0, 0 };
    return scrub_sws_scale_tight(ctx, src, src_stride, src_h, out, out_stride);
}

// A deadline for blocking reads (FFmpeg's interrupt callback): live streams (HLS without an end) make av_read_frame
// wait for segments that do not exist yet; past the deadline the read returns AVERROR_EXIT instead of waiting on.
typedef struct scrub_deadline { int64_t at_us; } scrub_deadline;
static int scrub_deadline_passed(void *opaque) {
    const scrub_deadline *d = (const scrub_deadline *)opaque;
    int64_t at = __atomic_load_n(&d->at_us, __ATOMIC_RELAXED);
    return at > 0 && av_gettime_relative() > at;
}
// Allocates a deadline (none set) and makes it `ctx`'s interrupt callback; free it with av_free after closing ctx.
static inline scrub_deadline *scrub_deadline_install(AVFormatContext *ctx) {
    scrub_deadline *d = (scrub_deadline *)av_mallocz(sizeof *d);
    if (d) { ctx->interrupt_callback.callback = scrub_deadline_passed; ctx->interrupt_callback.opaque = d; }
    return d;
}
// Sets the deadline `seconds` from now (0: none).
static inline void scrub_deadline_set(scrub_deadline *d, double seconds) {
    if (d) __atomic_store_n(&d->at_us, seconds > 0 ? av_gettime_relative() + (int64_t)(seconds * 1e6) : 0, __ATOMIC_RELAXED);
}
static inline int scrub_averror_exit(void) { return AVERROR_EXIT; }

// Bounded HTTP ranges: an AVIOContext over FFmpeg's http protocol that asks for `bytes=a-b` ranges of a growing size
// (8 KiB first — a file's first boxes or the start of its index —, 8 KiB after a seek — a fragment's header, or the
// start of what follows — but the whole of a file's last 256 KiB, growing on sequential reads: ×4 up to 256 KiB, then
// ×2 up to 8 MiB) instead of FFmpeg's open-ended `bytes=a-`, which a server fills socket buffers with until FFmpeg
// hangs up at the next seek. Each range is one request (FFmpeg's `offset`/`end_offset` options). A short seek forward inside the open
// range reads on through it (interleaved samples of another stream) instead of asking again. A caller that knows the
// exact bytes it will read next (an MP4 index gives every sample's place) says so with scrub_ranged_expect: the range
// opened for them ends exactly where they do. Servers without Range support are read as one stream (seeks skip forward).
typedef struct scrub_ranged {
    char *url;
    AVDictionary *options;          // timeouts, reconnects, user agent: copied into every request
    AVIOInterruptCB interrupt;
    AVIOContext *inner;             // the open range, reading [inner_pos, inner_end)
    int64_t pos, size, inner_pos, inner_end, chunk;
    int64_t expect_pos, expect_end;   // the next range opened in [expect_pos, expect_end) ends there (none: end 0)
    int unranged;                   // the server ignores Range: one stream from 0, no seeking
    int64_t requests, bytes;        // for benchmarks and tests
} scrub_ranged;

enum { SCRUB_RANGE_FIRST = 8 << 10, SCRUB_RANGE_SEEK = 8 << 10, SCRUB_RANGE_MIN = 256 << 10, SCRUB_RANGE_MAX = 8 << 20 };

// The next range of a sequential read: ×4 while small (an index read from its first bytes), ×2 from 256 KiB.
static inline int64_t scrub_ranged_grow(int64_t chunk) {
    return FFMIN(chunk < SCRUB_RANGE_MIN ? chunk * 4 : chunk * 2, (int64_t)SCRUB_RANGE_MAX);
}

static int scrub_ranged_open_inner(scrub_ranged *r) {
    AVDictionary *o = NULL;
    char buf[32];
    av_dict_copy(&o, r->options, 0);
    int64_t end = r->pos + r->chunk;
    if (r->expect_end > r->pos && r->expect_pos <= r->pos) {
        end = r->expect_end;
        r->chunk = 4 << 10;    // what follows an exact range is usually a packet or two: 16 KiB next, then growing
    }
    r->expect_end = 0;                      // (one use: any other range first makes it stale)
    if (r->size > 0 && end > r->size) end = r->size;
    if (!r->unranged) {
        snprintf(buf, sizeof buf, "%" PRId64, r->pos); av_dict_set(&o, "offset", buf, 0);
        snprintf(buf, sizeof buf, "%" PRId64, end); av_dict_set(&o, "end_offset", buf, 0);
    }
    int ret = avio_open2(&r->inner, r->url, AVIO_FLAG_READ, &r->interrupt, &o);
    av_dict_free(&o);
    if (ret < 0) return ret;
    r->requests++;
    if (r->size < 0) { int64_t s = avio_size(r->inner); if (s > 0) r->size = s; }
    if (!(r->inner->seekable & AVIO_SEEKABLE_NORMAL) && r->pos == 0 && !r->unranged) {
        // No Range support: FFmpeg would still stop this response at end_offset; ask again for the whole stream.
        r->unranged = 1;
        avio_closep(&r->inner);
        return scrub_ranged_open_inner(r);
    }
    r->inner_pos = r->pos;
    r->inner_end = r->unranged ? INT64_MAX : end;
    return 0;
}

// Reads the open range up to the position and drops what it read: 0, or the error or end that came first.
static int scrub_ranged_read_through(scrub_ranged *r) {
    uint8_t scratch[16384];
    while (r->inner_pos < r->pos) {
        int got = avio_read(r->inner, scratch, (int)FFMIN((int64_t)sizeof scratch, r->pos - r->inner_pos));
        if (got <= 0) return got < 0 ? got : AVERROR_EOF;
        r->inner_pos += got;
        r->bytes += got;
    }
    return 0;
}

// A server without Range support sends the whole file from byte 0: a seek is emulated by reading and dropping up to
// the position (from a new request when it is behind), as FFmpeg does for streams it cannot seek in.
static int scrub_ranged_skip_to_position(scrub_ranged *r) {
    if (r->inner && r->inner_pos > r->pos) avio_closep(&r->inner);
    if (!r->inner) {
        int64_t want = r->pos;
        r->pos = 0;
        int ret = scrub_ranged_open_inner(r);
        r->pos = want;
        if (ret < 0) return ret;
    }
    return scrub_ranged_read_through(r);
}

static int scrub_ranged_read(void *opaque, uint8_t *buf, int n) {
    scrub_ranged *r = (scrub_ranged *)opaque;
    if (r->unranged && (!r->inner || r->inner_pos != r->pos)) {
        int ret = scrub_ranged_skip_to_position(r);
        if (ret < 0) return ret;
    }
    if (r->inner && !r->unranged && r->pos > r->inner_pos && r->pos < r->inner_end && r->pos - r->inner_pos <= SCRUB_RANGE_MIN) {
        // A short hop forward inside the open range (another stream's samples): those bytes are on their way anyway.
        if (scrub_ranged_read_through(r) < 0) avio_closep(&r->inner);   // (then a new range is asked for)
    }
    for (int attempt = 0; attempt < 3; attempt++) {
        if (r->size >= 0 && r->pos >= r->size) return AVERROR_EOF;
        if (r->inner && !r->unranged && (r->inner_pos != r->pos || r->inner_pos >= r->inner_end)) {
            int sequential = r->inner_pos == r->pos;
            avio_closep(&r->inner);
            // (After a seek into a file's last 256 KiB — its index, more often than not —: all of it at once.)
            r->chunk = sequential ? scrub_ranged_grow(r->chunk)
                     : r->size > 0 && r->size - r->pos <= SCRUB_RANGE_MIN ? r->size - r->pos : SCRUB_RANGE_SEEK;
        }
        if (!r->inner) { int ret = scrub_ranged_open_inner(r); if (ret < 0) return ret; }
        int want = (int)FFMIN((int64_t)n, r->inner_end - r->inner_pos);
        int got = avio_read_partial(r->inner, buf, want);
        if (got > 0) { r->pos += got; r->inner_pos += got; r->bytes += got; return got; }
        if (got < 0 && got != AVERROR_EOF) return got;
        if (r->unranged) return AVERROR_EOF;
        r->inner_end = r->inner_pos;   // the range ended early: the next attempt asks for what follows
    }
    return AVERROR_EOF;
}

static int64_t scrub_ranged_seek(void *opaque, int64_t offset, int whence) {
    scrub_ranged *r = (scrub_ranged *)opaque;
    if (whence & AVSEEK_SIZE) return r->size >= 0 ? r->size : AVERROR(ENOSYS);
    whence &= ~AVSEEK_FORCE;
    int64_t p = whence == SEEK_SET ? offset : whence == SEEK_CUR ? r->pos + offset
              : (whence == SEEK_END && r->size >= 0) ? r->size + offset : -1;
    if (p < 0) return AVERROR(EINVAL);
    r->pos = p;   // (the next read closes the open range if it is not there, or skips to it without Range support)
    return p;
}

// An AVIOContext reading `url` in bounded ranges with `options` on every request; NULL when out of memory.
static inline AVIOContext *scrub_ranged_open(const char *url, AVDictionary *options, AVIOInterruptCB interrupt) {
    scrub_ranged *r = (scrub_ranged *)av_mallocz(sizeof *r);
    unsigned char *buffer = (unsigned char *)av_malloc(64 << 10);
    if (!r || !buffer) { av_free(r); av_free(buffer); return NULL; }
    r->url = av_strdup(url);
    av_dict_copy(&r->options, options, 0);
    r->interrupt = interrupt;
    r->size = -1;
    r->chunk = SCRUB_RANGE_FIRST;
    AVIOContext *pb = avio_alloc_context(buffer, 64 << 10, 0, r, scrub_ranged_read, NULL, scrub_ranged_seek);
    if (!pb || !r->url) { av_free(buffer); av_free(r->url); av_dict_free(&r->options); av_free(r); avio_context_free(&pb); return NULL; }
    pb->seekable = AVIO_SEEKABLE_NORMAL;
    return pb;
}

// The next range, when it starts in [pos, end), ends exactly at `end`: the caller knows it reads those bytes and no
// more (an MP4 sample's place and size from the index). Forgotten when a range opens anywhere else first.
static inline void scrub_ranged_expect(AVIOContext *pb, int64_t pos, int64_t end) {
    if (!pb || pos < 0 || end <= pos) return;
    scrub_ranged *r = (scrub_ranged *)pb->opaque;
    r->expect_pos = pos;
    r->expect_end = end;
}

// Requests made and body bytes read so far.
static inline int64_t scrub_ranged_requests(AVIOContext *pb) { return pb ? ((scrub_ranged *)pb->opaque)->requests : 0; }
static inline int64_t scrub_ranged_bytes(AVIOContext *pb) { return pb ? ((scrub_ranged *)pb->opaque)->bytes : 0; }

// Frees what scrub_ranged_open made (after avformat_close_input, which leaves custom I/O alone).
static inline void scrub_ranged_close(AVIOContext *pb) {
    if (!pb) return;
    scrub_ranged *r = (scrub_ranged *)pb->opaque;
    avio_closep(&r->inner);
    av_free(r->url);
    av_dict_free(&r->options);
    av_free(r);
    av_freep(&pb->buffer);
    avio_context_free(&pb);
}

// --- Sound: decoded audio frames to interleaved signed 16-bit for the sound server (libswresample). ---

// A converter from `frame`'s channel layout, sample format and rate to interleaved S16 with `out_channels` channels
// (the standard layout: 5.1/7.1 are down-mixed) at `out_rate`; NULL when swresample refuses it.
static inline SwrContext *scrub_swr_for_frame(const AVFrame *frame, int out_rate, int out_channels) {
    SwrContext *swr = NULL;
    AVChannelLayout out_layout, in_layout;
    av_channel_layout_default(&out_layout, out_channels);
    if (frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || av_channel_layout_check(&frame->ch_layout) == 0)
        av_channel_layout_default(&in_layout, frame->ch_layout.nb_channels > 0 ? frame->ch_layout.nb_channels : 2);
    else if (av_channel_layout_copy(&in_layout, &frame->ch_layout) < 0) return NULL;
    int r = swr_alloc_set_opts2(&swr, &out_layout, AV_SAMPLE_FMT_S16, out_rate,
                                &in_layout, (enum AVSampleFormat)frame->format, frame->sample_rate, 0, NULL);
    av_channel_layout_uninit(&in_layout);
    if (r < 0 || !swr) { swr_free(&swr); return NULL; }
    if (swr_init(swr) < 0) { swr_free(&swr); return NULL; }
    return swr;
}

// Upper bound of the samples (per channel) that converting `in_samples` more can give.
static inline int scrub_swr_out_capacity(SwrContext *swr, int in_samples) { return swr_get_out_samples(swr, in_samples); }

// Converts `frame` (NULL: drain) into `out` (room for `capacity` samples per channel); samples per channel written,
// or a negative AVERROR.
static inline int scrub_swr_convert_frame(SwrContext *swr, const AVFrame *frame, int16_t *out, int capacity) {
    uint8_t *outs[1] = { (uint8_t *)out };
    return swr_convert(swr, outs, capacity, frame ? (const uint8_t **)frame->extended_data : NULL, frame ? frame->nb_samples : 0);
}

static inline void scrub_swr_free(SwrContext *swr) { swr_free(&swr); }

// Microseconds of input the converter holds back (its output lags the input by this much).
static inline int64_t scrub_swr_delay_usec(SwrContext *swr) { return swr ? swr_get_delay(swr, 1000000) : 0; }

// The frame's channel count, sample format and layout identity: a converter is remade when these change.
static inline int scrub_frame_channels(const AVFrame *f) { return f->ch_layout.nb_channels; }

// --- Sound at another speed with its pitch kept: libavfilter's atempo on interleaved S16. ---

// One filter graph abuffer → atempo (chained: one instance goes from 0.5 to 100) → aformat → abuffersink, and the
// frames going in and coming out.
typedef struct scrub_tempo {
    AVFilterGraph *graph;
    AVFilterContext *source, *sink;
    AVFrame *in, *out;
    int rate, channels;
    int64_t next_pts;
} scrub_tempo;

static inline void scrub_tempo_free(scrub_tempo *t) {
    if (!t) return;
    avfilter_graph_free(&t->graph);
    av_frame_free(&t->in);
    av_frame_free(&t->out);
    av_free(t);
}

// A filter that plays `rate` Hz, `channels` (1 or 2) S16 sound `tempo` times as fast (0.25–4) at the same pitch;
// NULL when libavfilter refuses.
static inline scrub_tempo *scrub_tempo_new(int rate, int channels, double tempo) {
    scrub_tempo *t = av_mallocz(sizeof *t);
    if (!t) return NULL;
    t->rate = rate;
    t->channels = channels;
    t->graph = avfilter_graph_alloc();
    t->in = av_frame_alloc();
    t->out = av_frame_alloc();
    if (!t->graph || !t->in || !t->out) { scrub_tempo_free(t); return NULL; }
    t->graph->nb_threads = 1;
    const char *layout = channels == 1 ? "mono" : "stereo";
    char chain[160];
    if (tempo < 0.5)
        snprintf(chain, sizeof chain, "atempo=0.5,atempo=%.6f", tempo / 0.5);
    else
        snprintf(chain, sizeof chain, "atempo=%.6f", tempo);
    char desc[512];
    snprintf(desc, sizeof desc,
             "abuffer=sample_rate=%d:sample_fmt=s16:channel_layout=%s:time_base=1/%d,%s,"
             "aformat=sample_fmts=s16:channel_layouts=%s:sample_rates=%d,abuffersink",
             rate, layout, rate, chain, layout, rate);
    AVFilterInOut *inputs = NULL, *outputs = NULL;
    int r = avfilter_graph_parse2(t->graph, desc, &inputs, &outputs);
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    if (r < 0) { scrub_tempo_free(t); return NULL; }
    for (unsigned i = 0; i < t->graph->nb_filters; i++) {
        AVFilterContext *f = t->graph->filters[i];
        if (strcmp(f->filter->name, "abuffer") == 0) t->source = f;
        if (strcmp(f->filter->name, "abuffersink") == 0) t->sink = f;
    }
    if (!t->source || !t->sink || avfilter_graph_config(t->graph, NULL) < 0) { scrub_tempo_free(t); return NULL; }
    return t;
}

// Feeds `count` samples per channel (NULL: the end, what is held comes out); 0 or a negative AVERROR.
static inline int scrub_tempo_push(scrub_tempo *t, const int16_t *samples, int count) {
    if (!samples) return av_buffersrc_add_frame_flags(t->source, NULL, 0);
    AVFrame *f = t->in;
    av_frame_unref(f);
    f->format = AV_SAMPLE_FMT_S16;
    f->sample_rate = t->rate;
    av_channel_layout_default(&f->ch_layout, t->channels);
    f->nb_samples = count;
    f->pts = t->next_pts;
    int r = av_frame_get_buffer(f, 0);
    if (r < 0) return r;
    memcpy(f->data[0], samples, (size_t)count * (size_t)t->channels * sizeof(int16_t));
    t->next_pts += count;
    return av_buffersrc_add_frame_flags(t->source, f, 0);
}

// The next stretch of sped-up sound: samples per channel (their address in `*samples`, valid until the next call),
// 0 when the filter needs more input, or a negative AVERROR (AVERROR_EOF after the end was fed and drained).
static inline int scrub_tempo_pull(scrub_tempo *t, const int16_t **samples) {
    av_frame_unref(t->out);
    int r = av_buffersink_get_frame(t->sink, t->out);
    if (r == AVERROR(EAGAIN)) return 0;
    if (r < 0) return r;
    *samples = (const int16_t *)t->out->data[0];
    return t->out->nb_samples;
}

// --- Video filter graphs (GIF previews: palettegen, paletteuse): buffer sources [in0], [in1] → … → [out]. ---

typedef struct scrub_vgraph {
    AVFilterGraph *graph;
    AVFilterContext *source[2];
    AVFilterContext *sink;
    int sources;
    AVFrame *out;
} scrub_vgraph;

static inline void scrub_vgraph_free(scrub_vgraph *g) {
    if (!g) return;
    avfilter_graph_free(&g->graph);
    av_frame_free(&g->out);
    av_free(g);
}

// A graph described by `desc` (inputs [in0]…, output [out]); input i takes `widths[i] × heights[i]` frames of pixel
// format `formats[i]`, time base 1/`fps`. NULL when libavfilter refuses.
static inline scrub_vgraph *scrub_vgraph_new(const char *desc, int sources, const int *widths, const int *heights,
                                             const int *formats, int fps) {
    if (sources < 1 || sources > 2) return NULL;
    scrub_vgraph *g = av_mallocz(sizeof *g);
    if (!g) return NULL;
    g->sources = sources;
    g->graph = avfilter_graph_alloc();
    g->out = av_frame_alloc();
    if (!g->graph || !g->out) { scrub_vgraph_free(g); return NULL; }
    g->graph->nb_threads = 1;
    AVFilterInOut *outputs = NULL, *inputs = NULL;
    for (int i = sources - 1; i >= 0; i--) {
        char args[160], name[8];
        snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=1/%d:pixel_aspect=1/1", widths[i], heights[i], formats[i], fps);
        snprintf(name, sizeof name, "in%d", i);
        if (avfilter_graph_create_filter(&g->source[i], avfilter_get_by_name("buffer"), name, args, NULL, g->graph) < 0) goto fail;
        AVFilterInOut *o = avfilter_inout_alloc();
        if (!o) goto fail;
        o->name = av_strdup(name); o->filter_ctx = g->source[i]; o->pad_idx = 0; o->next = outputs;
        outputs = o;
    }
    if (avfilter_graph_create_filter(&g->sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g->graph) < 0) goto fail;
    inputs = avfilter_inout_alloc();
    if (!inputs) goto fail;
    inputs->name = av_strdup("out"); inputs->filter_ctx = g->sink; inputs->pad_idx = 0; inputs->next = NULL;
    if (avfilter_graph_parse_ptr(g->graph, desc, &inputs, &outputs, NULL) < 0) goto fail;
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    if (avfilter_graph_config(g->graph, NULL) < 0) { scrub_vgraph_free(g); return NULL; }
    return g;
fail:
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    scrub_vgraph_free(g);
    return NULL;
}

// Feeds input `i` a frame (NULL: its end); 0 or a negative AVERROR. The graph takes a reference (the frame stays).
static inline int scrub_vgraph_push(scrub_vgraph *g, int i, AVFrame *frame) {
    return av_buffersrc_add_frame_flags(g->source[i], frame, AV_BUFFERSRC_FLAG_KEEP_REF);
}

// The next frame out (valid until the next call), NULL when none is ready or at the end (`*status`: 0, EAGAIN or EOF).
static inline AVFrame *scrub_vgraph_pull(scrub_vgraph *g, int *status) {
    av_frame_unref(g->out);
    int r = av_buffersink_get_frame(g->sink, g->out);
    *status = r;
    return r >= 0 ? g->out : NULL;
}

// A frame of packed RGB24 `w × h` copied from `rgb` (stride w*3), pts `pts`; NULL when out of memory.
static inline AVFrame *scrub_frame_from_rgb(const uint8_t *rgb, int w, int h, int64_t pts) {
    AVFrame *f = av_frame_alloc();
    if (!f) return NULL;
    f->format = AV_PIX_FMT_RGB24; f->width = w; f->height = h; f->pts = pts;
    if (av_frame_get_buffer(f, 0) < 0) { av_frame_free(&f); return NULL; }
    for (int y = 0; y < h; y++) memcpy(f->data[0] + (size_t)y * f->linesize[0], rgb + (size_t)y * w * 3, (size_t)w * 3);
    return f;
}

static inline int scrub_pix_fmt_rgb24(void) { return AV_PIX_FMT_RGB24; }
static inline int scrub_pix_fmt_rgb32(void) { return AV_PIX_FMT_RGB32; }

#endif
