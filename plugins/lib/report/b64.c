/* Base64 of libfkreport (b64.h). */
#include <stdint.h>

#include "b64.h"

static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t report_b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = alpha[v >> 18];
		out[o++] = alpha[(v >> 12) & 63];
		out[o++] = alpha[(v >> 6) & 63];
		out[o++] = alpha[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
		out[o++] = alpha[v >> 18];
		out[o++] = alpha[(v >> 12) & 63];
		out[o++] = i + 1 < n ? alpha[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	return o;
}

long report_b64_decode(const char *in, size_t n, unsigned char *out)
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
