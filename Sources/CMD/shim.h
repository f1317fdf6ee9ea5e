// libmd (BSD message digests; dpkg depends on it, so every Debian system has it): MD5 for the desktop thumbnail
// cache's file names, without loading FFmpeg for 16 bytes.
#include <stddef.h>
#include <stdint.h>
#include <md5.h>
