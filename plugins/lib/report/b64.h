/*
 * Base64 (RFC 4648, with '=' padding) for the report's deflated timeline:
 * written by the html output plugin, read by the html input plugin and by the
 * page's atob().  Header-only: both plugins are modules that share no library.
 */
#ifndef FK_REPORT_B64_H
#define FK_REPORT_B64_H

#include <stddef.h>
#include <stdint.h>

static const char fk_b64_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Encode n bytes of in into out, which holds at least 4 * ((n + 2) / 3)
 * bytes; returns the length written (no NUL). */
static inline size_t fk_b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = fk_b64_alpha[v >> 18];
		out[o++] = fk_b64_alpha[(v >> 12) & 63];
		out[o++] = fk_b64_alpha[(v >> 6) & 63];
		out[o++] = fk_b64_alpha[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
		out[o++] = fk_b64_alpha[v >> 18];
		out[o++] = fk_b64_alpha[(v >> 12) & 63];
		out[o++] = i + 1 < n ? fk_b64_alpha[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	return o;
}

/* Decode n characters of in (padding allowed at the end only) into out,
 * which holds at least 3 * (n / 4) bytes; returns the length, or -1 when in
 * is not base64. */
static inline long fk_b64_decode(const char *in, size_t n, unsigned char *out)
{
	uint32_t v = 0;
	size_t o = 0, bits = 0, pad = 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)in[i], d;
		if (c == '=') {
			pad++;
			continue;
		}
		d = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
		    : c == '+' ? 62 : c == '/' ? 63 : -1;
		if (d < 0 || pad)
			return -1;
		v = v << 6 | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(v >> bits);
		}
	}
	if (n % 4 || pad > 2)
		return -1;
	return (long)o;
}

#endif
