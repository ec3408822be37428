/*
 * The data a flamekit HTML report embeds, shared by the `html` output plugin
 * (which writes it) and the `html` input plugin (which reads a report back).
 * The page's script (plugins/output/html/page.html) decodes the same format.
 *
 * The data is one JSON object in <script type="application/json"
 * id="fk-data">, written with every '<', '>', '&', U+2028 and U+2029 as a
 * \uXXXX escape, so no frame name can close the element or break a script.
 * Keys:
 *   "v": 2               format version (1: per-sample "samples", never read back)
 *   "title", "unit"      strings; "units": [series 0 unit, series 1 unit]
 *   "palette"            the --colors palette; "inverted": 1 opens on the icicle
 *   "names": [...]       the frame-name table (full names, _[k] suffix kept).
 *                        Valid UTF-8 is written as is; a byte that is not
 *                        valid UTF-8 is written as \u0080..\u00ff, which a
 *                        real U+0080..U+00FF never is (those are written raw,
 *                        as two bytes), so the reader gets the bytes back.
 *   "colours": [[id,"#rrggbb"],...]   colours set by filters
 *   "modules": [...]     what frames came from (host->frame_module: a
 *                        library, a V8 script's url), each once, strings
 *                        written as "names"; "fmods": [[id,k],...] frame id's
 *                        module is modules[k], for the frames that have one
 *                        (shown beside a frame's figures; not read back)
 *   "series": 1 or 2     two: a differential / two-series profile
 *   "tree": "..."        the stack tree in preorder, flamegraph.pl's sibling
 *                        order, three numbers per node: how many levels to go
 *                        up before this node (0 = child of the previous
 *                        node), its frame id, and its self weight code
 *                        (0: no stack ends here; w+1: stacks end here with
 *                        weight w in series 0).
 *   "tree2": "..."       two series: the series-1 weight code of every node
 *   "fw": [..]           weights are not all non-negative integers below
 *                        2^53: then every weight code is 0 or 1 (a stack
 *                        ends here) and the weights, in node order (series 0
 *                        then series 1 for each), are these numbers.
 *   "threads": [[pid,tid(,"comm")],...]  when samples carry a tid or a
 *                        time: the distinct threads, sorted (-1: not given),
 *                        with the thread's name at its first sample when the
 *                        engine has one (bytes outside printable ASCII as
 *                        \u00XX, read back as those bytes)
 *   "timed": 0 or 1      whether the samples carry times
 *   "t0ns": "N"          the first sample's time in ns (a string: more than
 *                        2^53)
 *   "quantum": Q         the timeline's precision in ns (--time-resolution):
 *                        a sample's time is t0ns + Q * floor((t - t0ns) / Q)
 *   "sweight": W         every sample weighs W (a fixed sampling period)
 *   "timeline": "..."    base64 of a raw deflate stream (RFC 1951) of digits:
 *                        each thread's samples in time order, consecutive
 *                        samples with the same quantum, stack and weight
 *                        merged into one run.  Column by column: the number
 *                        of runs of each thread (in "threads" order); then
 *                        every run's quantum delta from the thread's previous
 *                        run (the first: from 0); its leaf (0: the empty
 *                        stack, k: the k-th node in preorder whose weight
 *                        code is not 0); its count of samples; and, without
 *                        "sweight", its samples' weight (integers: no
 *                        timeline is written when weights are not).  Left
 *                        out with two series and with --timeline=0.
 * Numbers in the strings use REPORT_BASE digits, most significant first:
 * digit d is REPORT_ALPHA[d + REPORT_BASE] when more digits follow and
 * REPORT_ALPHA[d] for the last one.  The alphabet has no '"', '\\', '<',
 * '>', '&' or '\'': it needs no escaping anywhere.
 */
#ifndef FK_REPORT_H
#define FK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_BASE 44
#define REPORT_ALPHA \
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH" \
	"IJKLMNOPQRSTUVWXYZ!#$%()*+,-./:;=?@[]^_`{|}~"
/* Longest number: 44^12 > 2^64. */
#define REPORT_NUM_MAX 16

/* v in REPORT_BASE digits, most significant first, into out; returns how
 * many.  The one encoder of the writer (tree strings and timeline). */
static inline size_t report_number(uint64_t v, char out[REPORT_NUM_MAX])
{
	char d[REPORT_NUM_MAX];
	size_t n = 0, k = 0;

	d[n++] = REPORT_ALPHA[v % REPORT_BASE];
	v /= REPORT_BASE;
	while (v) {
		d[n++] = REPORT_ALPHA[v % REPORT_BASE + REPORT_BASE];
		v /= REPORT_BASE;
	}
	while (n)
		out[k++] = d[--n];
	return k;
}

#define REPORT_MAGIC "<meta name=\"generator\" content=\"flamekit-html 1\">"
#define REPORT_DATA_OPEN "<script type=\"application/json\" id=\"fk-data\">"
#define REPORT_DATA_CLOSE "</script>"

#endif
