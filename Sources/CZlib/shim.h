// zlib: CRC-32 for cache entries and PNG chunks (the checksum PNG itself uses).
#include <zlib.h>
