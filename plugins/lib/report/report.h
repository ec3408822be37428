/*
 * The data a flamekit HTML report embeds, shared by the `html` output plugin
 * (which writes it) and the `html` input plugin (which reads a report back).
 * The page's script (plugins/output/html/page.js) decodes the same format.
 *
 * The data is one JSON object in <script type="application/json"
 * id="fk-data">, written with every '<', '>', '&', U+2028 and U+2029 as a
 * \uXXXX escape, so no frame name can close the element or break a script.
 * Keys:
 *   "v": 1               format version
 *   "title", "unit"      strings; "units": [series 0 unit, series 1 unit]
 *   "palette"            the --colors palette; "inverted": 1 opens on the icicle
 *   "names": [...]       the frame-name table (full names, _[k] suffix kept).
 *                        Valid UTF-8 is written as is; a byte that is not
 *                        valid UTF-8 is written as \u0080..\u00ff, which a
 *                        real U+0080..U+00FF never is (those are written raw,
 *                        as two bytes), so the reader gets the bytes back.
 *   "colours": [[id,"#rrggbb"],...]   colours set by filters
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
 *   "threads": [[pid,tid],...], "samples": "..."  when samples carry a tid
 *                        or a time: per sample in input order, its leaf's
 *                        preorder index, its time minus the previous sample's
 *                        in microseconds (zigzag coded), its thread index and
 *                        its weight (an integer; samples are left out when
 *                        their weights are not).  "sweight": W instead when
 *                        every sample weighs W (a fixed sampling period).
 *   "t0": seconds        the first sample's time
 * Numbers in the strings use REPORT_BASE digits, most significant first:
 * digit d is REPORT_ALPHA[d + REPORT_BASE] when more digits follow and
 * REPORT_ALPHA[d] for the last one.  The alphabet has no '"', '\\', '<',
 * '>', '&' or '\'': it needs no escaping anywhere.
 */
#ifndef FK_REPORT_H
#define FK_REPORT_H

#define REPORT_BASE 44
#define REPORT_ALPHA \
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH" \
	"IJKLMNOPQRSTUVWXYZ!#$%()*+,-./:;=?@[]^_`{|}~"
#define REPORT_MAGIC "<meta name=\"generator\" content=\"flamekit-html 1\">"
#define REPORT_DATA_OPEN "<script type=\"application/json\" id=\"fk-data\">"
#define REPORT_DATA_CLOSE "</script>"

#endif
