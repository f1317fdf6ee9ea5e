// PulseAudio's simple playback API (PipeWire desktops serve the same protocol through pipewire-pulse), loaded at
// run time: scrubkit never links libpulse, so `scrubkit --version`, thumbnails and batch never map it, and the binary
// runs where it is absent (sound is then simply unavailable, with the reason).
#ifndef SCRUBKIT_CPULSE_SHIM_H
#define SCRUBKIT_CPULSE_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct scrub_pulse scrub_pulse;

/// The path of libpulse-simple.so.0 found on the library path (without loading it), or NULL when it is not installed.
/// Writes the path into `path` (size `size`).
const char *scrub_pulse_library_path(char *path, size_t size);

/// Connects to `server` (NULL: PULSE_SERVER, else the user's default) and opens a playback stream of interleaved
/// signed 16-bit native-endian samples at `rate` with `channels` channels on `device` (NULL: the default sink),
/// buffering about `buffer_ms` milliseconds. NULL on failure, with the reason in `error`.
scrub_pulse *scrub_pulse_open(const char *server, const char *app, const char *device, int rate, int channels, int buffer_ms,
                              char *error, size_t error_size);

/// Writes `bytes` of samples, blocking while the server's buffer is full. 0, or -1 with the reason in `error`.
int scrub_pulse_write(scrub_pulse *p, const int16_t *samples, size_t bytes, char *error, size_t error_size);

/// Microseconds between the last sample written and what is heard now; -1 when unknown.
int64_t scrub_pulse_latency_usec(scrub_pulse *p);

/// Drops what is buffered and not yet heard (after a seek or a pause).
void scrub_pulse_flush(scrub_pulse *p);

/// Closes the stream and the connection.
void scrub_pulse_close(scrub_pulse *p);

#endif
