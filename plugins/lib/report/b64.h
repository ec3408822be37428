/*
 * Base64 (RFC 4648, with '=' padding) for the report's deflated timeline
 * and page code: the encoder (encode.c) and the decoder (decode.c) of
 * libfkreport; the page reads it with atob().  Private to the library.
 */
#ifndef FK_REPORT_B64_H
#define FK_REPORT_B64_H

#include <stddef.h>

/* Encode n bytes of in into out, which holds at least 4 * ((n + 2) / 3)
 * bytes; returns the length written (no NUL). */
size_t report_b64_encode(const unsigned char *in, size_t n, char *out);

/* Decode n characters of in (padding allowed at the end only) into out,
 * which holds at least 3 * (n / 4) bytes; returns the length, or -1 when in
 * is not base64. */
long report_b64_decode(const char *in, size_t n, unsigned char *out);

#endif
